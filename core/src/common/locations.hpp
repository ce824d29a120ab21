// Where a TorchScript node came from, as one line: "layer1.0.conv1 (Conv2d), code/__torch__.py:13".
#ifndef TORCH2ONNX_CORE_LOCATIONS_HPP
#define TORCH2ONNX_CORE_LOCATIONS_HPP

#include <torch/script.h>

#include <string>

namespace t2o::core {

// Module path from the inlined call stack (or a traced graph's scope), then the source position;
// "top level of forward()" when neither is known.
std::string location_of(const torch::jit::Node* node);

}  // namespace t2o::core

#endif
