// Example values for the example run: --example-inputs DIR (.npy or ONNX TensorProto .pb files), or
// the tensors torch2onnx.save() stored in the .pt.
#include "signature/example_inputs.hpp"

#include "signature/signature.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace t2o::core {

namespace {

namespace fs = std::filesystem;

// numpy's descr (little-endian or byte-order-free) -> ScalarType.
std::optional<c10::ScalarType> numpy_dtype(const std::string& descr) {
  static const std::pair<const char*, c10::ScalarType> table[] = {
      {"<f4", at::kFloat}, {"<f8", at::kDouble}, {"<f2", at::kHalf}, {"<i8", at::kLong},  {"<i4", at::kInt},
      {"<i2", at::kShort}, {"|i1", at::kChar},   {"|u1", at::kByte}, {"|b1", at::kBool}, {"<c8", at::kComplexFloat},
      {"<c16", at::kComplexDouble}};
  for (const auto& [name, type] : table)
    if (descr == name) return type;
  return std::nullopt;
}

// The value of 'key' in numpy's header dict ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }).
std::string header_field(const std::string& header, const std::string& key) {
  auto pos = header.find("'" + key + "'");
  if (pos == std::string::npos) return "";
  pos = header.find(':', pos);
  if (pos == std::string::npos) return "";
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  if (pos < header.size() && header[pos] == '(') return header.substr(pos, header.find(')', pos) - pos + 1);
  if (pos < header.size() && header[pos] == '\'') return header.substr(pos + 1, header.find('\'', pos + 1) - pos - 1);
  auto end = header.find_first_of(",}", pos);
  return header.substr(pos, end - pos);
}

// The bytes a tensor of `shape` takes; refused (bad(why)) when it has more than 64 dims or the
// product does not fit in 63 bits: a header may claim any shape, the data must be there.
template <typename Bad>
size_t claimed_bytes(const std::vector<int64_t>& shape, size_t item_bytes, const Bad& bad) {
  if (shape.size() > 64) throw bad(std::to_string(shape.size()) + " dimensions (at most 64)");
  uint64_t n = item_bytes;
  bool empty = false;
  for (int64_t d : shape)
    if (d < 0) throw bad("negative dimension " + std::to_string(d));
  // The other dims must fit even when one is 0: at::empty multiplies them all.
  for (int64_t d : shape) {
    if (d == 0) empty = true;
    else if ((uint64_t)d > (uint64_t(INT64_MAX) / n)) throw bad("a shape of more than 2^63 bytes");
    else n *= (uint64_t)d;
  }
  return empty ? 0 : (size_t)n;
}

at::Tensor read_npy(const std::string& bytes, const std::string& where) {
  auto bad = [&](const std::string& why) { return ExportError(where + ": not a readable .npy file: " + why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw bad("no NUMPY magic");
  int major = (unsigned char)bytes[6];
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = (unsigned char)bytes[8] | ((size_t)(unsigned char)bytes[9] << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("truncated header");
    for (int i = 0; i < 4; ++i) header_len |= (size_t)(unsigned char)bytes[8 + i] << (8 * i);
    offset = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (offset + header_len > bytes.size()) throw bad("truncated header");
  std::string header = bytes.substr(offset, header_len);
  std::string descr = header_field(header, "descr");
  auto type = numpy_dtype(descr);
  if (!type) throw bad("element type '" + descr + "' (little-endian bool, int8-64, uint8, float16-64, complex are read)");
  if (header_field(header, "fortran_order") != "False") throw bad("Fortran order (save a C-contiguous array)");
  std::string shape_text = header_field(header, "shape");
  std::vector<int64_t> shape;
  for (size_t i = 0; i < shape_text.size();) {
    if (std::isdigit((unsigned char)shape_text[i])) {
      size_t used = 0;
      try {
        shape.push_back(std::stoll(shape_text.substr(i, 32), &used));
      } catch (const std::logic_error&) {
        throw bad("shape '" + shape_text.substr(0, 80) + "' has a dimension beyond int64");
      }
      i += used;
    } else {
      ++i;
    }
  }
  offset += header_len;
  // The shape against the bytes present, before allocating what the header claims.
  const size_t nbytes = claimed_bytes(shape, c10::elementSize(*type), bad);
  if (bytes.size() - offset != nbytes)
    throw bad(std::to_string(bytes.size() - offset) + " data bytes for " + std::to_string(nbytes) + " expected");
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(*type));
  std::memcpy(t.data_ptr(), bytes.data() + offset, nbytes);
  return t;
}

template <typename T, typename Field>
void copy_field(at::Tensor& t, const Field& field) {
  auto* out = static_cast<T*>(t.data_ptr());
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<T>(field.Get(i));
}

at::Tensor read_pb(const std::string& bytes, const std::string& where) {
  auto bad = [&](const std::string& why) { return ExportError(where + ": not a readable ONNX TensorProto: " + why); };
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw bad("cannot parse");
  auto type = torch_dtype(proto.data_type());
  if (!type) throw bad("element type " + std::to_string(proto.data_type()));
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  // The dims against the data present, before allocating what they claim.
  const size_t nbytes = claimed_bytes(shape, c10::elementSize(*type), bad);
  const size_t item_bytes = c10::elementSize(*type);
  if (proto.has_raw_data() && proto.raw_data().size() != nbytes)
    throw bad(std::to_string(proto.raw_data().size()) + " raw bytes for " + std::to_string(nbytes) + " expected");
  const uint64_t values = std::max({proto.float_data_size(), proto.double_data_size(), proto.int64_data_size(),
                                    proto.int32_data_size(), proto.uint64_data_size()});
  if (!proto.has_raw_data() && nbytes / item_bytes > values)
    throw bad("dims [" + c10::Join(",", shape) + "] for " + std::to_string(values) + " values");
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(*type));
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != nbytes)
      throw bad(std::to_string(proto.raw_data().size()) + " raw bytes for " + std::to_string(nbytes) + " expected");
    std::memcpy(t.data_ptr(), proto.raw_data().data(), nbytes);
    return t;
  }
  int64_t n = t.numel();
  auto check = [&](int size) {
    if (size != n) throw bad(std::to_string(size) + " values for " + std::to_string(n) + " elements");
  };
  switch (*type) {
    case at::kFloat: check(proto.float_data_size()); copy_field<float>(t, proto.float_data()); break;
    case at::kDouble: check(proto.double_data_size()); copy_field<double>(t, proto.double_data()); break;
    case at::kLong: check(proto.int64_data_size()); copy_field<int64_t>(t, proto.int64_data()); break;
    case at::kInt: check(proto.int32_data_size()); copy_field<int32_t>(t, proto.int32_data()); break;
    case at::kShort: check(proto.int32_data_size()); copy_field<int16_t>(t, proto.int32_data()); break;
    case at::kChar: check(proto.int32_data_size()); copy_field<int8_t>(t, proto.int32_data()); break;
    case at::kByte: check(proto.int32_data_size()); copy_field<uint8_t>(t, proto.int32_data()); break;
    case at::kBool: check(proto.int32_data_size()); copy_field<bool>(t, proto.int32_data()); break;
    default: throw bad("values of this element type only as raw_data");
  }
  return t;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExportError(path.string() + ": cannot be opened for reading");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Name order with runs of digits compared as numbers: input_2 before input_10.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit((unsigned char)a[i]) && std::isdigit((unsigned char)b[j])) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit((unsigned char)a[i2])) ++i2;
      while (j2 < b.size() && std::isdigit((unsigned char)b[j2])) ++j2;
      std::string na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string shape_text(at::IntArrayRef dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

std::vector<std::pair<std::string, at::Tensor>> read_example_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw SignatureError("--example-inputs " + dir + ": no such directory");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".npy" || ext == ".pb")) files.push_back(name);
  }
  if (ec) throw SignatureError("--example-inputs " + dir + ": cannot be read: " + ec.message());
  if (files.empty()) throw SignatureError("--example-inputs " + dir + ": no .npy or .pb files");
  std::sort(files.begin(), files.end(), natural_less);
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& name : files) {
    fs::path path = fs::path(dir) / name;
    std::string bytes = read_file(path);
    bool npy = path.extension() == ".npy";
    out.emplace_back(path.string(), npy ? read_npy(bytes, path.string()) : read_pb(bytes, path.string()));
  }
  return out;
}

std::vector<std::pair<std::string, at::Tensor>> read_saved_examples(const std::string& model_path,
                                                                    const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& name : files) {
    std::string where = model_path + " (saved example " + name + ")";
    out.emplace_back(where, read_npy(read_extra_file(model_path, name), where));
  }
  return out;
}

std::vector<InputSpec> specs_of_examples(const std::vector<std::pair<std::string, at::Tensor>>& examples) {
  std::vector<InputSpec> specs;
  for (const auto& [where, t] : examples) {
    InputSpec spec;
    spec.dtype = dtype_name(t.scalar_type());
    spec.dims = t.sizes().vec();
    spec.text = spec.dtype + shape_text(t.sizes());
    specs.push_back(spec);
  }
  return specs;
}

std::vector<at::Tensor> match_examples(const std::vector<std::pair<std::string, at::Tensor>>& examples,
                                       const std::vector<InputSpec>& specs, const std::vector<std::string>& names,
                                       const std::string& source) {
  if (examples.size() != specs.size()) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
    throw SignatureError(source + ": " + std::to_string(examples.size()) + " example file(s) for " +
                         std::to_string(specs.size()) + " graph input(s) (" + list + "); give one per input, in order");
  }
  std::vector<at::Tensor> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& [where, t] = examples[i];
    auto expected = dtype_from_name(specs[i].dtype);
    if (!expected || t.scalar_type() != *expected || t.sizes().vec() != specs[i].dims)
      throw SignatureError(where + " is " + dtype_name(t.scalar_type()) + shape_text(t.sizes()) + " but input '" +
                           names[i] + "' is " + specs[i].text);
    out.push_back(t);
  }
  return out;
}

ResolvedSignature resolve_signature(const ExportOptions& given, const std::string& model_path) {
  ResolvedSignature out;
  out.options = given;
  std::optional<SavedSignature> saved;
  if (given.use_saved_signature) saved = read_saved_signature(model_path);
  if (saved) out.options = with_saved_signature(given, *saved);
  if (!given.example_inputs_dir.empty()) {
    out.examples = read_example_dir(given.example_inputs_dir);
    out.examples_source = "--example-inputs " + given.example_inputs_dir;
    if (out.options.inputs.empty()) out.options.inputs = specs_of_examples(out.examples);
  } else if (saved && given.inputs.empty() && !saved->example_files.empty()) {
    out.examples = read_saved_examples(model_path, saved->example_files);
    // A quantized example is stored as its integer values; its grid is in the signature.
    for (size_t i = 0; i < saved->example_grids.size() && i < out.examples.size(); ++i) {
      const auto& grid = saved->example_grids[i];
      if (!grid) continue;
      auto& [where, t] = out.examples[i];
      const auto st = t.scalar_type();
      if (st != at::kByte && st != at::kChar && st != at::kInt)
        throw SignatureError(where + ": a quantized example's values must be uint8, int8 or int32, not " +
                             dtype_name(st));
      const int64_t lo = st == at::kChar ? -128 : 0, hi = st == at::kByte ? 255 : st == at::kChar ? 127 : 0;
      if (!(grid->first > 0) || !std::isfinite(grid->first) || grid->second < lo || grid->second > hi)
        throw SignatureError(where + ": its quantization (scale " + std::to_string(grid->first) + ", zero point " +
                             std::to_string(grid->second) + ") is not a valid grid for " + dtype_name(st) + " values");
      t = at::_make_per_tensor_quantized_tensor(t, grid->first, grid->second);
    }
    out.examples_source = model_path + " (examples saved by torch2onnx.save)";
  }
  return out;
}

void attach_examples(PreparedModel& model, const ResolvedSignature& resolved) {
  model.output_sizes = resolved.output_sizes;  // (a .pt2's fixed output sizes travel with its examples)
  if (resolved.examples.empty()) return;
  const auto& names = resolved.options.input_names.size() == model.input_specs.size() ? resolved.options.input_names
                                                                                     : model.argument_names;
  model.example_values = match_examples(resolved.examples, model.input_specs, names, resolved.examples_source);
}

}  // namespace t2o::core
