// Loads fine; its symbolic (an override of aten::relu) throws C++ exceptions inside the wrapper,
// which must turn them into an error status: nothing may cross the C ABI.
#include <torch2onnx/plugin.hpp>

#include <stdexcept>

T2O_SYMBOLIC("aten::relu", 9) {
  if (ctx.num_inputs() > 0) throw std::runtime_error("deliberate exception from the throwing pack");
  throw 42;  // not a std::exception: caught too
}

T2O_PLUGIN("throwing", "1.0")
