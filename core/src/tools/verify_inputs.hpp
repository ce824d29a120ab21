// verify's inputs and the files it exchanges with ONNX Runtime: random tensors for an --input spec,
// input files read from a directory, TensorProto directories written and read back (input_K.pb,
// output_K.pb, as ONNX's test data sets name them), and the temporary directory they live in.
#ifndef TORCH2ONNX_CORE_TOOLS_VERIFY_INPUTS_HPP
#define TORCH2ONNX_CORE_TOOLS_VERIFY_INPUTS_HPP

#include "torch2onnx/core/verify.hpp"

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core {

// One set of inputs, run in both.
struct InputSet {
  std::string label;                    // "seed 0: input_ids int64[2,16]" / "inputs from DIR"
  std::vector<at::Tensor> onnx_inputs;  // one per ONNX graph input
  std::vector<c10::IValue> torch_args;  // forward()'s arguments (None where --input none)
};

// A tensor of spec's dtype and dims: bools 0/1; floats (and complex) from a standard normal, or
// uniform in `range`; integers uniform in [ceil(lo), ceil(hi)), default [0, 2); quantized dtypes
// quantized per tensor on a random grid (scale in [1/64, 1/32), a zero point near the middle of the range).
at::Tensor random_tensor(const InputSpec& spec, std::optional<ValueRange> range, at::Generator& gen);

// An argument as the ONNX model takes it: a quantized one as torch.onnx 1.13 feeds it (int_repr, the
// scale as a float64 and the zero point as an int64, 0-d), or with dequantized_io its dequantized
// values; any other tensor itself.
std::vector<at::Tensor> onnx_feeds(const at::Tensor& arg, bool dequantized_io);
// libtorch's results as the ONNX model gives them: a quantized one as torch.onnx 1.13's verification
// unpacks it (int_repr, the scale as a float32 and the zero point in the integer type, 0-d), or with
// dequantized_io its dequantized values.
std::vector<at::Tensor> unpacked_results(const std::vector<at::Tensor>& results, bool dequantized_io);

// DIR/input_K.pb or DIR/input_K.npy, K = 0, 1, ... up to the first missing one. VerifyRequestError
// ("--inputs ...") when there is no such directory, no input_0 or an unreadable file.
std::vector<at::Tensor> read_input_dir(const std::string& dir);

// DIR/input_K.pb (created with DIR), each TensorProto named names[K] ("" past the end).
void write_inputs(const std::filesystem::path& dir, const std::vector<at::Tensor>& tensors,
                  const std::vector<std::string>& names);
// DIR/output_K.pb, K < n.
std::vector<at::Tensor> read_outputs(const std::filesystem::path& dir, size_t n);

// A fresh directory in the system's temporary directory, removed with what it holds.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace t2o::core

#endif
