// Writing the ONNX file: weights are streamed from the tensors that hold them, never copied into a
// second in-memory buffer; inline (one protobuf) below 2 GB, ONNX external data above or on request.
#ifndef TORCH2ONNX_CORE_MODEL_WRITER_HPP
#define TORCH2ONNX_CORE_MODEL_WRITER_HPP

#include <ATen/core/Tensor.h>
#include <onnx/onnx_pb.h>

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
};

// Writes skeleton + streamed tensors to out_path (and out_path + ".data" with external data), each
// through a temporary file renamed into place: no partial file is ever left. `progress` gets the
// bytes written so far and the total.
WriteResult write_model(onnx::ModelProto& skeleton, std::vector<StreamedTensor>& streamed, const std::string& out_path,
                        bool force_external, const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace t2o::core

#endif
