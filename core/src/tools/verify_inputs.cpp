// verify's inputs: random tensors, input directories, and the TensorProto files ONNX Runtime reads
// and writes in a temporary directory.
#include "tools/verify_inputs.hpp"

#include "torch2onnx/core/dtype_table.hpp"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdlib>
#include <utility>

namespace t2o::core {

namespace fs = std::filesystem;

at::Tensor random_tensor(const InputSpec& spec, std::optional<ValueRange> range, at::Generator& gen) {
  auto st = *dtype_from_name(spec.dtype);
  auto dims = spec.dims;
  if (at::isQIntType(st)) {
    double scale = (1.0 + at::empty({}, at::kDouble).uniform_(0, 1, gen).item<double>()) / 64;
    int64_t middle = st == at::kQUInt8 ? 128 : 0, spread = st == at::kQInt32 ? 0 : 20;
    int64_t zero_point = middle + (spread ? at::randint(-spread, spread + 1, {}, gen, at::kLong).item<int64_t>() : 0);
    return at::quantize_per_tensor(at::randn(dims, gen, at::TensorOptions().dtype(at::kFloat)), scale, zero_point, st);
  }
  if (st == at::kBool) return at::randint(0, 2, dims, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
  if (at::isFloatingType(st) || at::isComplexType(st)) {
    auto base = at::isComplexType(st) ? st : at::kDouble;
    at::Tensor t = range ? at::empty(dims, at::TensorOptions().dtype(base)).uniform_(range->first, range->second, gen)
                         : at::randn(dims, gen, at::TensorOptions().dtype(base));
    return t.to(st);
  }
  auto [lo, hi] = range.value_or(std::make_pair(0.0, 2.0));
  return at::randint((int64_t)std::ceil(lo), (int64_t)std::ceil(hi), dims, gen, at::TensorOptions().dtype(at::kLong))
      .to(st);
}

std::vector<at::Tensor> onnx_feeds(const at::Tensor& arg, bool dequantized_io) {
  if (!arg.defined() || !arg.is_quantized()) return {arg};
  if (dequantized_io) return {arg.dequantize()};
  if (arg.qscheme() != at::kPerTensorAffine)
    throw VerifyRequestError("a per-channel quantized input cannot be fed as torch.onnx's (tensor, scale, zero point)");
  return {arg.int_repr(), at::scalar_tensor(arg.q_scale(), at::kDouble),
          at::scalar_tensor(arg.q_zero_point(), at::kLong)};
}

std::vector<at::Tensor> unpacked_results(const std::vector<at::Tensor>& results, bool dequantized_io) {
  std::vector<at::Tensor> out;
  for (const auto& t : results) {
    if (!t.defined() || !t.is_quantized()) {
      out.push_back(t);
    } else if (dequantized_io || t.qscheme() != at::kPerTensorAffine) {
      out.push_back(t.dequantize());
    } else {
      at::Tensor values = t.int_repr();
      out.push_back(values);
      out.push_back(at::scalar_tensor(t.q_scale(), at::kFloat));
      out.push_back(at::scalar_tensor(t.q_zero_point(), values.scalar_type()));
    }
  }
  return out;
}

std::vector<at::Tensor> read_input_dir(const std::string& dir) {
  if (!fs::is_directory(dir)) throw VerifyRequestError("--inputs " + dir + ": no such directory");
  auto read = [](const fs::path& file) {
    try {
      return read_tensor_file(file.string());
    } catch (const ExportError& e) {
      throw VerifyRequestError(std::string("--inputs: ") + e.what());
    }
  };
  std::vector<at::Tensor> out;
  for (size_t k = 0;; ++k) {
    fs::path pb = fs::path(dir) / ("input_" + std::to_string(k) + ".pb");
    fs::path npy = fs::path(dir) / ("input_" + std::to_string(k) + ".npy");
    if (fs::exists(pb)) out.push_back(read(pb));
    else if (fs::exists(npy)) out.push_back(read(npy));
    else break;
  }
  if (out.empty()) throw VerifyRequestError("--inputs " + dir + ": no input_0.pb or input_0.npy there");
  return out;
}

void write_inputs(const fs::path& dir, const std::vector<at::Tensor>& tensors, const std::vector<std::string>& names) {
  fs::create_directories(dir);
  for (size_t k = 0; k < tensors.size(); ++k)
    write_tensor_pb((dir / ("input_" + std::to_string(k) + ".pb")).string(), tensors[k], k < names.size() ? names[k] : "");
}

std::vector<at::Tensor> read_outputs(const fs::path& dir, size_t n) {
  std::vector<at::Tensor> out;
  for (size_t k = 0; k < n; ++k) out.push_back(read_tensor_file((dir / ("output_" + std::to_string(k) + ".pb")).string()));
  return out;
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "torch2onnx-verify-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw ExportError("cannot create a temporary directory in " + fs::temp_directory_path().string());
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace t2o::core
