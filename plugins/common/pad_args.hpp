// Shared by the pad symbolics of opset9 (Pad with attributes) and opset11 (Pad with inputs):
// parsing of aten::pad / constant_pad_nd / reflection_padNd / replication_padNd, the PyTorch ->
// ONNX pads order, and circular padding (no ONNX mode before opset 19) as Slice + Concat.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_PAD_ARGS_HPP
#define TORCH2ONNX_PACK_COMMON_PAD_ARGS_HPP

#include <torch2onnx/plugin.hpp>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "values.hpp"

namespace t2o {
namespace pack {

struct PadArgs {
  Value x;
  Value pad;           // PyTorch order: (last_begin, last_end, prev_begin, prev_end, ...)
  std::string mode;    // ONNX mode: constant, reflect, edge; or "circular"
  double value = 0.0;  // constant mode
  int32_t rank = -1;
};

inline std::string onnx_pad_mode(Ctx& ctx, const std::string& torch_mode) {
  if (torch_mode == "constant") return "constant";
  if (torch_mode == "reflect") return "reflect";
  if (torch_mode == "replicate") return "edge";
  if (torch_mode == "circular") return "circular";
  unsupported(ctx.kind() + ": mode='" + torch_mode + "'");
}

// The node's arguments, by op kind.
inline PadArgs parse_pad(Ctx& ctx) {
  PadArgs a;
  std::string k = ctx.kind();
  a.x = ctx.input(0);
  a.pad = ctx.input(1);
  a.rank = known_rank(ctx, a.x);
  if (k == "aten::pad") {  // pad(self, pad, mode="constant", value=None)
    a.mode = onnx_pad_mode(ctx, ctx.num_inputs() > 2 ? ctx.input(2).to_string() : "constant");
    Value v = opt_input(ctx, 3);
    if (v.valid()) {
      if (!v.is_const()) unsupported(k + ": argument 'value' is computed at run time");
      a.value = v.to_float();
    }
  } else if (k == "aten::constant_pad_nd") {  // constant_pad_nd(self, pad, value=0)
    a.mode = "constant";
    Value v = opt_input(ctx, 2);
    if (v.valid()) {
      if (!v.is_const()) unsupported(k + ": argument 'value' is computed at run time");
      a.value = v.to_float();
    }
  } else if (k.find("reflection_pad") != std::string::npos) {
    a.mode = "reflect";
  } else if (k.find("replication_pad") != std::string::npos) {
    a.mode = "edge";
  } else {
    fail("pad: unexpected op " + k);
  }
  if (a.pad.is_list() && a.pad.list_size() % 2 != 0) fail(k + ": pad list of odd length");
  if (a.pad.is_list() && a.pad.list_size() / 2 > a.rank)
    fail(k + ": padding " + std::to_string(a.pad.list_size() / 2) + " dims of a rank-" + std::to_string(a.rank) + " input");
  return a;
}

// PyTorch pads (last dim first, begin/end pairs) -> ONNX pads (all begins, then all ends).
inline std::vector<int64_t> onnx_pads(const std::vector<int64_t>& p, int32_t rank) {
  std::vector<int64_t> out(2 * (size_t)rank, 0);
  size_t k = p.size() / 2;
  for (size_t i = 0; i < k; ++i) {
    size_t dim = (size_t)rank - 1 - i;
    out[dim] = p[2 * i];
    out[(size_t)rank + dim] = p[2 * i + 1];
  }
  return out;
}

// Circular padding: per padded axis, Concat(x[-begin:], x, x[:end]); constant pads only, each
// within the axis length (as PyTorch requires). Negative pads crop first.
inline Value circular_pad(Ctx& ctx, const PadArgs& a) {
  if (!all_const(a.pad)) unsupported(ctx.kind() + ": circular padding with pads computed at run time");
  std::vector<int64_t> p = a.pad.to_ints();
  Value y = ctx.as_onnx(a.x);
  for (size_t i = 0; i < p.size() / 2; ++i) {
    int64_t axis = a.rank - 1 - (int64_t)i, b = p[2 * i], e = p[2 * i + 1];
    if (b < 0 || e < 0) {  // crop, then wrap the rest
      y = slice(ctx, y, {axis}, {b < 0 ? -b : 0}, {e < 0 ? e : INT64_MAX});
      b = b < 0 ? 0 : b;
      e = e < 0 ? 0 : e;
    }
    std::vector<Value> parts;
    if (b > 0) parts.push_back(slice(ctx, y, {axis}, {-b}, {INT64_MAX}));
    parts.push_back(y);
    if (e > 0) parts.push_back(slice(ctx, y, {axis}, {0}, {e}));
    if (parts.size() > 1) y = ctx.op("Concat", parts, {Attr::i("axis", axis)});
  }
  return y;
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_PAD_ARGS_HPP
