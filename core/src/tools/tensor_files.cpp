// Tensors in files, as ONNX's backend tests keep them (TensorProto, .pb) and as NumPy saves them (.npy).
#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/verify.hpp"

#include <onnx/onnx_pb.h>

#include <ATen/ATen.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace t2o::core {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExportError(path + ": cannot be read (no such file?)");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The element count of `dims`, refused when a dim is negative, there are more than 64 or the count
// (times 16 bytes, the widest element) does not fit in 63 bits: a file's header may claim anything.
int64_t count(const std::vector<int64_t>& dims, const std::string& where) {
  if (dims.size() > 64) throw ExportError(where + ": " + std::to_string(dims.size()) + " dimensions (at most 64)");
  for (auto d : dims)
    if (d < 0) throw ExportError(where + ": negative dim " + std::to_string(d));
  // The other dims must fit even when one is 0: libtorch multiplies them all (found by fuzzing).
  int64_t n = 1;
  bool empty = false;
  for (auto d : dims) {
    if (d == 0) empty = true;
    else if (d > (INT64_MAX / 16) / n) throw ExportError(where + ": dims [" + c10::Join(",", dims) + "] beyond any memory");
    else n *= d;
  }
  return empty ? 0 : n;
}

at::Tensor from_bytes(const void* data, size_t bytes, const std::vector<int64_t>& dims, at::ScalarType st,
                      const std::string& where) {
  // The claimed size against the bytes present, before allocating it.
  const size_t expected = (size_t)count(dims, where) * c10::elementSize(st);
  if (bytes != expected)
    throw ExportError(where + ": " + std::to_string(bytes) + " bytes of data, expected " + std::to_string(expected) +
                      " for " + dtype_name(st) + "[" + c10::Join(",", dims) + "]");
  auto t = at::empty(dims, at::TensorOptions().dtype(st));
  if (bytes) std::memcpy(t.data_ptr(), data, bytes);
  return t;
}

// A typed repeated field of TensorProto into a tensor of `st`.
template <typename Field>
at::Tensor from_field(const Field& field, const std::vector<int64_t>& dims, at::ScalarType st, const std::string& where) {
  const int64_t n = count(dims, where);
  if ((int64_t)field.size() != n)
    throw ExportError(where + ": " + std::to_string(field.size()) + " values, expected " + std::to_string(n));
  auto t = at::empty(dims, at::TensorOptions().dtype(st));
  int64_t i = 0;
  AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, st, "from_field", [&] {
    auto* p = t.data_ptr<scalar_t>();
    for (const auto& v : field) {
      if constexpr (std::is_same_v<scalar_t, at::Half> || std::is_same_v<scalar_t, at::BFloat16>) {
        // float16/bfloat16 live in int32_data as their bit patterns.
        uint16_t bits = (uint16_t)v;
        std::memcpy(&p[i++], &bits, 2);
      } else {
        p[i++] = static_cast<scalar_t>(v);
      }
    }
  });
  return t;
}

at::Tensor read_pb(const std::string& path, std::string* name) {
  onnx::TensorProto proto;
  std::string bytes = read_all(path);
  if (!proto.ParseFromString(bytes) || !proto.has_data_type())
    throw ExportError(path + ": not an ONNX TensorProto file");
  if (name) *name = proto.name();
  auto st = torch_dtype(proto.data_type());
  if (!st) throw ExportError(path + ": element type " + std::to_string(proto.data_type()) + " is not supported");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) throw ExportError(path + ": external data is not supported");
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  for (auto d : dims)
    if (d < 0) throw ExportError(path + ": negative dim");
  if (proto.has_raw_data()) return from_bytes(proto.raw_data().data(), proto.raw_data().size(), dims, *st, path);
  switch (proto.data_type()) {
    case onnx::TensorProto::FLOAT: return from_field(proto.float_data(), dims, *st, path);
    case onnx::TensorProto::DOUBLE: return from_field(proto.double_data(), dims, *st, path);
    case onnx::TensorProto::INT64: return from_field(proto.int64_data(), dims, *st, path);
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::UINT32: return from_field(proto.uint64_data(), dims, *st, path);
    default:
      // Complex values have no typed field of their own here (found by fuzzing): raw_data only.
      if (at::isComplexType(*st)) throw ExportError(path + ": " + dtype_name(*st) + " values only as raw_data");
      return from_field(proto.int32_data(), dims, *st, path);
  }
}

// NumPy's format: magic, version, a little-endian header length, a Python dict literal, the data.
at::Tensor read_npy(const std::string& path) {
  std::string bytes = read_all(path);
  auto bad = [&](const std::string& why) { return ExportError(path + ": not a NumPy .npy file we can read: " + why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw bad("no \\x93NUMPY magic");
  int major = (unsigned char)bytes[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) throw bad("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= (size_t)(unsigned char)bytes[8 + i] << (8 * i);
    header_start = 12;
  }
  if (header_start + header_len > bytes.size()) throw bad("truncated header");
  std::string header = bytes.substr(header_start, header_len);
  auto field = [&](const std::string& key) {
    auto pos = header.find("'" + key + "'");
    if (pos == std::string::npos) throw bad("no '" + key + "' in the header");
    pos = header.find(':', pos);
    const auto start = pos == std::string::npos ? pos : header.find_first_not_of(' ', pos + 1);
    if (start == std::string::npos) throw bad("no value for '" + key + "' in the header");  // (found by fuzzing)
    return header.substr(start);
  };
  std::string descr = field("descr");
  descr = descr.substr(1, descr.find('\'', 1) - 1);
  if (field("fortran_order").rfind("True", 0) == 0) throw bad("Fortran order");
  std::string shape_text = field("shape");
  shape_text = shape_text.substr(1, shape_text.find(')') - 1);
  std::vector<int64_t> dims;
  std::stringstream ss(shape_text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto s = item.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    try {
      dims.push_back(std::stoll(item.substr(s, 32)));
    } catch (const std::logic_error&) {  // not a number, or beyond int64
      throw bad("shape item '" + item.substr(s, 40) + "' is not a dimension");
    }
  }
  static const std::vector<std::pair<std::string, at::ScalarType>> kinds = {
      {"f4", at::kFloat}, {"f8", at::kDouble}, {"f2", at::kHalf},  {"i8", at::kLong}, {"i4", at::kInt},
      {"i2", at::kShort}, {"i1", at::kChar},   {"u1", at::kByte},  {"b1", at::kBool}};
  if (descr.size() < 3 || descr[0] == '>') throw bad("element type '" + descr + "' (big-endian or unknown)");
  for (const auto& [code, st] : kinds)
    if (descr.substr(1) == code)
      return from_bytes(bytes.data() + header_start + header_len, bytes.size() - header_start - header_len, dims, st,
                        path);
  throw bad("element type '" + descr + "' is not supported");
}

}  // namespace

at::Tensor read_tensor_file(const std::string& path, std::string* name) {
  if (name) name->clear();
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0) return read_npy(path);
  return read_pb(path, name);
}

void write_tensor_pb(const std::string& path, const at::Tensor& tensor, const std::string& name) {
  auto t = tensor.contiguous();
  auto dtype = onnx_dtype(t.scalar_type());
  if (!dtype) throw ExportError("cannot write a " + dtype_name(t.scalar_type()) + " tensor to " + path);
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(*dtype);
  for (auto d : t.sizes()) proto.add_dims(d);
  proto.set_raw_data(t.data_ptr(), t.nbytes());
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !proto.SerializeToOstream(&out)) {
      std::remove(tmp.c_str());
      throw ExportError("cannot write " + path);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw ExportError("cannot write " + path);
  }
}

}  // namespace t2o::core
