// Writing the ONNX file: weights are streamed from the tensors that hold them, never copied into a
// second in-memory buffer; inline (one protobuf) below 2 GB, ONNX external data above or on request.
#ifndef TORCH2ONNX_CORE_MODEL_WRITER_HPP
#define TORCH2ONNX_CORE_MODEL_WRITER_HPP

#include <ATen/core/Tensor.h>
#include <onnx/onnx_pb.h>

#include "torch2onnx/core/exporter.hpp"

#include <functional>
#include <string>
#include <vector>

namespace t2o::core {

// A large initializer whose bytes stay in `tensor` until the file is written. In the model skeleton
// it stands as a graph input of its type and shape, so the checker and shape inference see it
// without its bytes; the writer turns it back into an initializer.
struct StreamedTensor {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  at::Tensor tensor;  // contiguous
  bool keep_input = false;  // --keep-initializers-as-inputs: the stand-in input stays in the file
};

// Initializers at least this large are streamed; smaller ones (shapes, scalars) stay in the model so
// shape inference can read them.
constexpr size_t kStreamThresholdBytes = 1024;
// One protobuf may not exceed 2 GiB; past this the weights go to external data.
constexpr uint64_t kInlineLimitBytes = 2000000000ull;

struct WriteResult {
  bool external = false;
  std::string data_path;  // with external data
  uint64_t bytes_written = 0;
  uint64_t bytes_ahead = 0;  // of those, the head start's
};

// Writes skeleton + streamed tensors to out_path (and out_path + ".data" with external data), each
// through a temporary file renamed into place: no partial file is ever left. `progress` gets the
// bytes written so far and the total. In OUT.data, tensors whose bytes lie untouched in the .pt come
// first, in the .pt's order, then the rest in graph order (64-byte aligned): the layout a head start
// (the program's copy made while libtorch started) already has; its leading records that match are
// kept as they are.
WriteResult write_model(onnx::ModelProto& skeleton, std::vector<StreamedTensor>& streamed, const std::string& out_path,
                        bool force_external, const std::function<void(uint64_t, uint64_t)>& progress,
                        const WeightsHeadStart* head_start = nullptr);

}  // namespace t2o::core

#endif
