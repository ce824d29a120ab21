// Helpers of the control-flow symbolics (prim::If, prim::Loop): how TorchScript values cross a
// subgraph boundary. ONNX If/Loop inputs and outputs are tensors and sequences; TorchScript's are
// also scalars (carried as 0-d tensors), tuples (flattened into their items) and lists (sequences).
// Header-only, SDK only (ABI 1.1).
#ifndef TORCH2ONNX_PACK_COMMON_CONTROL_FLOW_HPP
#define TORCH2ONNX_PACK_COMMON_CONTROL_FLOW_HPP

#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "forms.hpp"
#include "util.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// The shape of a value that crosses a boundary: a leaf (tensor, sequence, scalar) or a tuple of them.
struct Structure {
  t2o_kind kind = T2O_KIND_TENSOR;  // LIST: a tuple of `items`
  t2o_dtype dtype = T2O_DTYPE_UNDEFINED;
  int32_t rank = -1;
  std::vector<int64_t> dims;  // tensors: what the example run saw (-1: varies or unknown)
  std::vector<Structure> items;
};

inline bool same_structure(const Structure& a, const Structure& b) {
  if (a.kind != b.kind || a.items.size() != b.items.size()) return false;
  for (size_t i = 0; i < a.items.size(); ++i)
    if (!same_structure(a.items[i], b.items[i])) return false;
  return true;
}

// Appends v's leaves to `flat` (constants materialized into ONNX tensors) and returns its structure.
inline Structure flatten_value(Ctx& ctx, const Value& v, std::vector<Value>& flat, const std::string& what) {
  Structure s;
  s.kind = v.kind();
  switch (s.kind) {
    case T2O_KIND_TENSOR:
    case T2O_KIND_SEQUENCE:
    case T2O_KIND_OPTIONAL:
      s.dtype = v.dtype();
      s.rank = s.kind == T2O_KIND_SEQUENCE ? -1 : v.rank();
      if (s.rank > 0) s.dims = v.dims();
      flat.push_back(v);
      return s;
    case T2O_KIND_INT:
    case T2O_KIND_FLOAT:
    case T2O_KIND_BOOL:
      s.dtype = scalar_dtype(v);
      s.rank = 0;
      flat.push_back(v);
      return s;
    case T2O_KIND_LIST:
      for (const auto& item : v.items()) s.items.push_back(flatten_value(ctx, item, flat, what));
      return s;
    case T2O_KIND_NONE:
      // An Optional that is None on one path is an ONNX optional (the symbolic wraps it first).
      require(ctx, feature::kOptional, what + " that is None in one branch (an ONNX optional)");
      unsupported(ctx.kind() + ": " + what + " is None in one branch and not a tensor in the other (ONNX optionals "
                  "hold tensors here)");
    default: unsupported(ctx.kind() + ": " + what + " is not a tensor, number, tuple or list");
  }
}

// Rebuilds a TorchScript value from ONNX outputs (consumed from `next`) following `s`.
inline Value unflatten_value(Ctx& ctx, const Structure& s, const std::vector<Value>& outs, size_t& next) {
  if (s.kind == T2O_KIND_LIST) {
    std::vector<Value> items;
    for (const auto& item : s.items) items.push_back(unflatten_value(ctx, item, outs, next));
    return ctx.make_list(items);
  }
  Value v = outs.at(next++);
  if (s.kind == T2O_KIND_TENSOR) return typed(ctx, v, s.dtype, s.rank);
  if (s.kind == T2O_KIND_SEQUENCE) return typed(ctx, ctx.make_dynamic_scalar(v, T2O_KIND_SEQUENCE), s.dtype, -1);
  if (s.kind == T2O_KIND_OPTIONAL) return typed(ctx, ctx.make_dynamic_scalar(v, T2O_KIND_OPTIONAL), s.dtype, s.rank);
  return ctx.make_dynamic_scalar(typed(ctx, v, s.dtype, 0), s.kind);
}

// Whether a boundary value (an If output, a carried value) is an ONNX optional: an Optional[Tensor]
// that is None on one path and a tensor (or an optional) on another, `kinds` what each path gives
// (the host's type handles: NONE, TENSOR, OPTIONAL, or another kind). Needs opset 15; below it the
// None is refused where it is flattened, naming the opset.
inline bool needs_optional(Ctx& ctx, const std::vector<t2o_kind>& kinds) {
  bool none = false, some = false;
  for (auto k : kinds) {
    none |= k == T2O_KIND_NONE || k == T2O_KIND_OPTIONAL;
    some |= k == T2O_KIND_TENSOR || k == T2O_KIND_OPTIONAL;
    if (k != T2O_KIND_NONE && k != T2O_KIND_TENSOR && k != T2O_KIND_OPTIONAL) return false;
  }
  return none && some && has(ctx, feature::kOptional);
}

// `v` (a tensor, None or an optional) as an ONNX optional of a tensor of `dtype`, `rank` (the type
// the other path gives, for an empty one).
inline Value as_optional(Ctx& ctx, const Value& v, t2o_dtype dtype, int32_t rank, const std::string& what) {
  if (!v.is_none() && !v.is_tensor() && !v.is_optional())
    unsupported(ctx.kind() + ": " + what + " is None on one path and not a tensor on another (ONNX optionals hold "
                "tensors here)");
  if (v.is_none() && dtype == T2O_DTYPE_UNDEFINED)
    unsupported(ctx.kind() + ": " + what + " is None on every path the example run took; its tensor's element type "
                "is unknown (give an example input that takes the other path)");
  return ctx.make_optional(v.is_none() ? Value() : v, dtype, rank);
}

// A list of tensors as an ONNX sequence: SequenceConstruct of its items, or SequenceEmpty of the
// element type the example run saw (`elem_dtype`). Sequences exist from opset 11; ONNX If and Loop
// carry them from 13 (If-11/Loop-11 take tensors only), so control flow asks for 13.
inline Value list_as_sequence(Ctx& ctx, const Value& list, t2o_dtype elem_dtype, const std::string& what,
                              int64_t min_opset = 13) {
  if (ctx.opset() < min_opset)
    unsupported(ctx.kind() + ": " + what + " is a list that changes at run time: it becomes an ONNX sequence, "
                "which " + (min_opset == 11 ? std::string("needs --opset 11") : ctx.kind() + " carries from --opset 13 on"));
  if (list.is_sequence()) return list;
  std::vector<Value> items = list.items();
  for (const auto& item : items)
    if (item.kind() != T2O_KIND_TENSOR)
      unsupported(ctx.kind() + ": " + what + " is a list of non-tensors changed at run time (only lists of tensors "
                  "become ONNX sequences)");
  if (items.empty()) {
    if (elem_dtype == T2O_DTYPE_UNDEFINED) elem_dtype = T2O_DTYPE_FLOAT;
    Value seq = ctx.op("SequenceEmpty", {}, {Attr::i("dtype", elem_dtype)});
    return typed(ctx, ctx.make_dynamic_scalar(seq, T2O_KIND_SEQUENCE), elem_dtype, -1);
  }
  t2o_dtype d = items[0].dtype();
  Value seq = ctx.op("SequenceConstruct", items);
  return typed(ctx, ctx.make_dynamic_scalar(seq, T2O_KIND_SEQUENCE), d, -1);
}

}  // namespace pack
}  // namespace t2o

#endif
