// Export-time edits of constant tensors (weights): copy a constant's bytes, take row ranges,
// reorder row blocks (RNN gates), transpose 2-D, stack/concat, and turn the result into an
// initializer. Lets symbolics fold weight re-layouts into the model instead of emitting
// Slice/Concat/Transpose nodes. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_HOST_TENSOR_HPP
#define TORCH2ONNX_PACK_COMMON_HOST_TENSOR_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace t2o {
namespace pack {

// Bytes per element of an ONNX element type; 0 for types without a fixed size.
inline size_t element_size(t2o_dtype d) {
  switch (d) {
    case T2O_DTYPE_BOOL: case T2O_DTYPE_UINT8: case T2O_DTYPE_INT8: return 1;
    case T2O_DTYPE_UINT16: case T2O_DTYPE_INT16: case T2O_DTYPE_FLOAT16: case T2O_DTYPE_BFLOAT16: return 2;
    case T2O_DTYPE_FLOAT: case T2O_DTYPE_INT32: case T2O_DTYPE_UINT32: return 4;
    case T2O_DTYPE_DOUBLE: case T2O_DTYPE_INT64: case T2O_DTYPE_UINT64: case T2O_DTYPE_COMPLEX64: return 8;
    case T2O_DTYPE_COMPLEX128: return 16;
    default: return 0;
  }
}

// A dense row-major tensor owned by the pack.
struct HostTensor {
  t2o_dtype dtype = T2O_DTYPE_UNDEFINED;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;

  int64_t numel() const {
    int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  // Bytes of one slice along axis 0.
  size_t row_bytes() const { return dims.empty() || dims[0] == 0 ? 0 : bytes.size() / (size_t)dims[0]; }
  bool all_zero() const {
    for (auto b : bytes)
      if (b) return false;
    return true;  // note: -0.0 counts as non-zero, which only costs an explicit initial state
  }
};

// Copies a constant tensor argument (fails when it is computed at run time).
inline HostTensor read_const(Ctx& ctx, const Value& v, const char* what) {
  if (!v.valid() || v.kind() != T2O_KIND_TENSOR || !v.is_const())
    fail(ctx.kind() + ": " + what + " is not a constant tensor");
  HostTensor t;
  t.dtype = v.dtype();
  t.dims = v.dims();
  size_t es = element_size(t.dtype);
  if (es == 0) unsupported(ctx.kind() + ": " + what + " has element type " + std::to_string((int)t.dtype));
  auto data = v.tensor_data();
  if (data.second != (size_t)t.numel() * es)
    fail(ctx.kind() + ": " + what + ": constant holds " + std::to_string(data.second) + " bytes, expected " +
         std::to_string((size_t)t.numel() * es));
  const uint8_t* p = static_cast<const uint8_t*>(data.first);
  t.bytes.assign(p, p + data.second);
  return t;
}

// Rows [begin, end) along axis 0.
inline HostTensor rows(const HostTensor& t, int64_t begin, int64_t end) {
  HostTensor r;
  r.dtype = t.dtype;
  r.dims = t.dims;
  r.dims[0] = end - begin;
  size_t rb = t.row_bytes();
  r.bytes.assign(t.bytes.begin() + (ptrdiff_t)(rb * (size_t)begin), t.bytes.begin() + (ptrdiff_t)(rb * (size_t)end));
  return r;
}

// Axis 0 cut in order.size() equal blocks, put back in the given block order (block i of the
// result is block order[i] of t).
inline HostTensor reorder_blocks(const HostTensor& t, const std::vector<int64_t>& order) {
  int64_t n = (int64_t)order.size();
  int64_t block = t.dims[0] / n;
  HostTensor r;
  r.dtype = t.dtype;
  r.dims = t.dims;
  for (auto b : order) {
    HostTensor part = rows(t, b * block, (b + 1) * block);
    r.bytes.insert(r.bytes.end(), part.bytes.begin(), part.bytes.end());
  }
  return r;
}

// Concatenation along axis 0 (same trailing dims).
inline HostTensor concat0(const std::vector<HostTensor>& parts) {
  HostTensor r = parts.at(0);
  for (size_t i = 1; i < parts.size(); ++i) {
    r.dims[0] += parts[i].dims[0];
    r.bytes.insert(r.bytes.end(), parts[i].bytes.begin(), parts[i].bytes.end());
  }
  return r;
}

// Stacks along a new axis 0.
inline HostTensor stack0(const std::vector<HostTensor>& parts) {
  HostTensor r = parts.at(0);
  r.dims.insert(r.dims.begin(), (int64_t)parts.size());
  for (size_t i = 1; i < parts.size(); ++i) r.bytes.insert(r.bytes.end(), parts[i].bytes.begin(), parts[i].bytes.end());
  return r;
}

// 2-D transpose.
inline HostTensor transpose2d(const HostTensor& t) {
  HostTensor r;
  r.dtype = t.dtype;
  int64_t m = t.dims.at(0), n = t.dims.at(1);
  r.dims = {n, m};
  size_t es = element_size(t.dtype);
  r.bytes.resize(t.bytes.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(&r.bytes[((size_t)j * (size_t)m + (size_t)i) * es], &t.bytes[((size_t)i * (size_t)n + (size_t)j) * es], es);
  return r;
}

// The tensor as a new initializer.
inline Value make_const(Ctx& ctx, const HostTensor& t) { return ctx.tensor(t.dtype, t.dims, t.bytes.data(), t.bytes.size()); }

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_HOST_TENSOR_HPP
