// Helpers and shared symbolic bodies for shape and indexing ops whose ONNX form changes at a later
// opset (Squeeze/Unsqueeze/Split take axes/split as an input from 13): the body lives here once and
// the opset9 and opset13 packs register it with the form they need. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_SHAPE_OPS_HPP
#define TORCH2ONNX_PACK_COMMON_SHAPE_OPS_HPP

#include <torch2onnx/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "forms.hpp"
#include "util.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// Dim `axis` of x as a 0-d int64 tensor: a constant when static, Shape + Gather when dynamic.
inline Value dim_scalar(Ctx& ctx, const Value& x, int64_t axis) {
  int64_t d = x.dim((int32_t)axis);
  if (d >= 0) return ctx.scalar_i64(d);
  return dim_tensor(ctx, x, axis);
}

// Dims `axes` of x as a 1-D int64 tensor: constant when all static.
inline Value dims_of(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes) {
  std::vector<int64_t> d;
  for (auto a : axes) {
    int64_t v = x.dim((int32_t)a);
    if (v < 0) return dims_tensor(ctx, x, axes);
    d.push_back(v);
  }
  return ctx.const_i64(d);
}

// The whole shape of x as a 1-D int64 tensor (constant when static).
inline Value shape_of(Ctx& ctx, const Value& x) {
  if (x.has_static_shape()) return ctx.const_i64(x.dims());
  return ctx.op("Shape", {x});
}

// A tensor or int value as an int64 tensor; 0-d stays 0-d.
inline Value as_i64(Ctx& ctx, const Value& v) {
  if (v.kind() == T2O_KIND_INT && v.is_const()) return ctx.scalar_i64(v.to_int());
  return cast_to(ctx, ctx.as_onnx(v), T2O_DTYPE_INT64);
}

// Index tensor with PyTorch's negative indices made non-negative against dim `axis` of x
// (Gather accepts negatives only from opset 11; flattened index arithmetic never does).
// Constant indices are checked at export time and left alone when already non-negative.
inline Value nonneg_index(Ctx& ctx, const Value& index, const Value& x, int64_t axis) {
  if (index.is_const() && index.kind() == T2O_KIND_TENSOR) {
    bool neg = false;
    for (auto v : index.to_ints()) neg = neg || v < 0;
    if (!neg) return as_i64(ctx, index);
  }
  if (index.kind() == T2O_KIND_INT && index.is_const()) {
    int64_t i = index.to_int(), d = x.dim((int32_t)axis);
    if (i >= 0) return ctx.scalar_i64(i);
    if (d >= 0) return ctx.scalar_i64(i + d);
    return ctx.op("Add", {ctx.scalar_i64(i), dim_tensor(ctx, x, axis)});
  }
  Value i = as_i64(ctx, index);
  Value zero = ctx.scalar_i64(0);
  return ctx.op("Where", {ctx.op("Less", {i, zero}), ctx.op("Add", {i, dim_scalar(ctx, x, axis)}), i});
}

// Where(cond, a, b) for any element type: ONNX Runtime has no bool Where kernel, so bool values
// are selected with And/Or instead.
inline Value where_any(Ctx& ctx, const Value& cond, const Value& a, const Value& b, t2o_dtype dtype) {
  if (dtype != T2O_DTYPE_BOOL) return ctx.op("Where", {cond, a, b});
  return ctx.op("Or", {ctx.op("And", {cond, a}), ctx.op("And", {ctx.op("Not", {cond}), b})});
}

// ---- Squeeze / Unsqueeze / Split in the form chosen by the registering pack ----

inline Value squeeze_form(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes, bool input_form) {
  if (axes.empty()) return ctx.op("Squeeze", {x});
  if (input_form) return ctx.op("Squeeze", {x, ctx.const_i64(axes)});
  return ctx.op("Squeeze", {x}, {Attr::ints("axes", axes)});
}

inline Value unsqueeze_form(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes, bool input_form) {
  if (input_form) return ctx.op("Unsqueeze", {x, ctx.const_i64(axes)});
  return ctx.op("Unsqueeze", {x}, {Attr::ints("axes", axes)});
}

inline std::vector<Value> split_form(Ctx& ctx, const Value& x, int64_t axis, const std::vector<int64_t>& sizes,
                                     bool input_form) {
  if (sizes.size() == 1) return {x};
  // Opset 18: n pieces of ceil(D/n), the last smaller, are Split's num_outputs.
  if (input_form && ctx.opset() >= 18) {
    int64_t total = 0, n = (int64_t)sizes.size();
    for (auto s : sizes) total += s;
    bool equal_chunks = total > 0;
    for (int64_t i = 0; i < n && equal_chunks; ++i)
      equal_chunks = sizes[(size_t)i] == std::min((total + n - 1) / n, total - i * ((total + n - 1) / n));
    if (equal_chunks)
      return ctx.op_n("Split", {x}, (int32_t)n, {Attr::i("axis", axis), Attr::i("num_outputs", n)});
  }
  if (input_form)
    return ctx.op_n("Split", {x, ctx.const_i64(sizes)}, (int32_t)sizes.size(), {Attr::i("axis", axis)});
  return ctx.op_n("Split", {x}, (int32_t)sizes.size(), {Attr::i("axis", axis), Attr::ints("split", sizes)});
}

// aten::squeeze(self) / squeeze.dim(self, int dim) / squeeze.dims(self, int[] dim).
// PyTorch squeezes a named axis only when it has size 1 (otherwise it is a no-op). Static dims
// decide at export time; a dynamic dim is decided at run time: the new shape is Shape(x) with the
// size-1 candidates dropped (Compress), then Reshape.
inline void squeeze_symbolic(Ctx& ctx, bool input_form) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (r == 0) return ctx.set_output(0, x);
  std::vector<int64_t> candidates;
  Value dim = opt_input(ctx, 1);
  if (!dim.valid()) {
    for (int64_t i = 0; i < r; ++i) candidates.push_back(i);
  } else {
    if (!all_const(dim)) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
    candidates = normalize_axes(ctx, dim.to_ints(), r);
  }
  std::vector<int64_t> axes;
  bool dynamic = false;
  for (auto a : candidates) {
    int64_t d = x.dim((int32_t)a);
    if (d == 1) axes.push_back(a);
    if (d < 0) dynamic = true;
  }
  if (!dynamic) {
    if (axes.empty()) return ctx.set_output(0, x);
    return ctx.set_output(0, squeeze_form(ctx, x, axes, input_form));
  }
  // keep[i] = not a candidate, or a static non-1 candidate, or (dynamic candidate and dim != 1).
  std::vector<uint8_t> keep((size_t)r, 1), dyn((size_t)r, 0);
  for (auto a : candidates) {
    int64_t d = x.dim((int32_t)a);
    if (d == 1) keep[(size_t)a] = 0;
    if (d < 0) keep[(size_t)a] = 0, dyn[(size_t)a] = 1;
  }
  Value shape = ctx.op("Shape", {x});
  Value not_one = ctx.op("Not", {ctx.op("Equal", {shape, ctx.const_i64(std::vector<int64_t>((size_t)r, 1))})});
  Value keep_c = ctx.tensor(T2O_DTYPE_BOOL, {r}, keep.data(), keep.size());
  Value dyn_c = ctx.tensor(T2O_DTYPE_BOOL, {r}, dyn.data(), dyn.size());
  Value mask = ctx.op("Or", {keep_c, ctx.op("And", {dyn_c, not_one})});
  Value new_shape = ctx.op("Compress", {shape, mask}, {Attr::i("axis", 0)});
  ctx.set_output(0, ctx.op("Reshape", {x, new_shape}));
}

// aten::unsqueeze(self, int dim): dim counts in the output's numbering (rank + 1).
inline void unsqueeze_symbolic(Ctx& ctx, bool input_form) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  Value dim = ctx.input(1);
  if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
  int64_t d = dim.to_int();
  int64_t a = d < 0 ? d + r + 1 : d;
  if (a < 0 || a > r) fail(ctx.kind() + ": dim=" + std::to_string(d) + " out of range for rank " + std::to_string(r));
  ctx.set_output(0, unsqueeze_form(ctx, x, {a}, input_form));
}

// chunk(x, n, axis) on a dynamic axis of length D: n parts, n - 1 of ceil(D / n) and the rest
// (as torch.onnx: PyTorch gives fewer parts for the D where ceil(D / ceil(D / n)) < n, where a
// graph unpacking n parts fails in PyTorch too). Split with a run-time sizes input from 13;
// Slices with run-time bounds at 10-12; opset 9's Slice takes constant bounds only.
inline std::vector<Value> dynamic_chunks(Ctx& ctx, const Value& x, int64_t axis, int64_t n, bool input_form) {
  if (n <= 0) fail(ctx.kind() + ": chunks=" + std::to_string(n) + " must be positive");
  if (n == 1) return {x};
  if (!input_form && ctx.opset() < 10)
    unsupported(ctx.kind() + ": chunks of dynamic axis " + std::to_string(axis) + " need opset >= 10 (Slice with run-time bounds)");
  Value length = dims_tensor(ctx, x, {axis});  // [D]
  Value step = ctx.op("Div", {ctx.op("Add", {length, ctx.const_i64({n - 1})}), ctx.const_i64({n})});
  if (input_form) {
    Value rest = ctx.op("Sub", {length, ctx.op("Mul", {step, ctx.const_i64({n - 1})})});
    std::vector<Value> sizes((size_t)(n - 1), step);
    sizes.push_back(rest);
    Value split = ctx.op("Concat", sizes, {Attr::i("axis", 0)});
    return ctx.op_n("Split", {x, split}, (int32_t)n, {Attr::i("axis", axis)});
  }
  std::vector<Value> parts;
  for (int64_t i = 0; i < n; ++i) {
    Value start = ctx.op("Mul", {step, ctx.const_i64({i})});
    Value end = i + 1 < n ? ctx.op("Mul", {step, ctx.const_i64({i + 1})}) : ctx.const_i64({std::numeric_limits<int64_t>::max()});
    parts.push_back(ctx.op("Slice", {x, start, end, ctx.const_i64({axis})}));
  }
  return parts;
}

// Equal parts of a dynamic axis (split(x, k, axis), chunk(x, n, axis), unbind(x, axis)): how many
// follows the axis's size, so from opset 11 the list is an ONNX sequence (SplitToSequence, as
// torch.onnx 1.13 does): its consumers (ListUnpack, x[i], len, loops, cat/stack, a returned list)
// read it at run time. chunk below 11 keeps its n parts (Slices at 10: right wherever PyTorch
// itself gives n parts, which a graph unpacking them needs); split and unbind are refused there.
inline Value dynamic_equal_parts(Ctx& ctx, const Value& x, int64_t axis, bool unbind, bool chunk, bool input_form) {
  std::string k = ctx.kind();
  bool runtime_chunks = chunk && !ctx.input(1).is_const();
  if (runtime_chunks)
    require(ctx, feature::kSplitToSequence, "argument 'chunks' computed at run time (how many parts follows it: an ONNX sequence)");
  if (chunk && !has(ctx, feature::kSplitToSequence))
    return ctx.make_list(dynamic_chunks(ctx, x, axis, ctx.input(1).to_int(), input_form));
  if (unbind)
    require(ctx, feature::kSplitToSequence, "unbinding dynamic axis " + std::to_string(axis) +
                                                " into parts (how many follows its size: an ONNX sequence)");
  require(ctx, feature::kSplitToSequence, "splitting dynamic axis " + std::to_string(axis) +
                                              " into equal parts (how many follows its size: an ONNX sequence)");
  Value seq;
  if (unbind) {
    // No split input: parts of length 1, keepdims=0 drops the axis.
    seq = ctx.op("SplitToSequence", {x}, {Attr::i("axis", axis), Attr::i("keepdims", 0)});
  } else {
    // A 0-d split is one part length (the last part shorter); chunk's is ceil(D / n), as PyTorch's.
    Value step;
    if (chunk) {
      Value length = dim_scalar(ctx, x, axis);  // 0-d
      if (runtime_chunks) {
        // chunks traced from a size (chunk(x, x.size(0))): ceil(D / n) at run time, as PyTorch's.
        Value n = as_i64(ctx, ctx.input(1));
        step = ctx.op("Div", {ctx.op("Sub", {ctx.op("Add", {length, n}), ctx.scalar_i64(1)}), n});
      } else {
        int64_t n = ctx.input(1).to_int();
        if (n <= 0) fail(k + ": chunks=" + std::to_string(n) + " must be positive");
        step = ctx.op("Div", {ctx.op("Add", {length, ctx.scalar_i64(n - 1)}), ctx.scalar_i64(n)});
      }
      // SplitToSequence wants a positive length (ceil(0 / n) = 0 on an empty axis): 0 becomes 1
      // (Max on integers only exists from opset 12).
      Value zero = ctx.op("Cast", {ctx.op("Equal", {step, ctx.scalar_i64(0)})}, {Attr::i("to", T2O_DTYPE_INT64)});
      step = ctx.op("Add", {step, zero});
    } else {
      int64_t size = ctx.input(1).to_int();
      if (size <= 0) fail(k + ": split_size=" + std::to_string(size) + " must be positive");
      step = ctx.scalar_i64(size);
    }
    seq = ctx.op("SplitToSequence", {x, step}, {Attr::i("axis", axis)});
  }
  return typed(ctx, ctx.make_dynamic_scalar(seq, T2O_KIND_SEQUENCE), x.dtype(), -1);
}

// The split family: aten::split(self, int split_size | int[] sizes, dim),
// split_with_sizes(self, int[] sizes, dim), chunk(self, int chunks, dim), unbind(self, dim), and
// their unsafe_ variants. Result: a list (ListUnpack / __getitem__ take it apart).
inline void split_symbolic(Ctx& ctx, bool input_form) {
  std::string k = ctx.kind();
  bool unbind = k == "aten::unbind";
  bool chunk = k == "aten::chunk" || k == "aten::unsafe_chunk";
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  int64_t dim = unbind ? (ctx.num_inputs() > 1 ? ctx.input(1).to_int() : 0)
                       : (ctx.num_inputs() > 2 ? ctx.input(2).to_int() : 0);
  int64_t axis = normalize_axis(ctx, dim, r);
  int64_t D = x.dim((int32_t)axis);
  std::vector<int64_t> sizes;
  if (!unbind && ctx.input(1).kind() != T2O_KIND_INT) {
    Value s = ctx.input(1);
    if (!all_const(s)) {
      // Sizes known only at run time (traced from shapes, e.g. anchors per feature level in
      // torchvision's detection models): one Slice per part, between running sums of the sizes.
      if (ctx.opset() < 10) unsupported(k + ": argument 'split_sizes' computed at run time needs --opset 10");
      std::vector<Value> parts;
      Value start = ctx.const_i64({0}), axes = ctx.const_i64({axis});
      for (const Value& size : s.items()) {
        Value n = size.is_const() ? ctx.const_i64({size.to_int()}) : unsqueeze(ctx, as_i64(ctx, size), {0});
        Value end = ctx.op("Add", {start, n});
        parts.push_back(ctx.op("Slice", {x, start, end, axes}));
        start = end;
      }
      ctx.set_output(0, ctx.make_list(parts));
      return;
    }
    sizes = s.to_ints();
  } else {
    // A run-time chunk count decides how many parts there are, whatever D is: a sequence.
    if (D < 0 || (chunk && !ctx.input(1).is_const()))
      return ctx.set_output(0, dynamic_equal_parts(ctx, x, axis, unbind, chunk, input_form));
    int64_t step = 1;
    if (chunk) {
      int64_t n = ctx.input(1).to_int();
      if (n <= 0) fail(k + ": chunks=" + std::to_string(n) + " must be positive");
      step = (D + n - 1) / n;
    } else if (!unbind) {
      step = ctx.input(1).to_int();
      if (step <= 0) fail(k + ": split_size=" + std::to_string(step) + " must be positive");
    }
    if (D == 0) sizes.push_back(0);
    if (unbind && D == 0) sizes.clear();
    for (int64_t at = 0; at < D; at += step) sizes.push_back(std::min(step, D - at));
  }
  std::vector<Value> parts;
  if (!sizes.empty()) parts = split_form(ctx, x, axis, sizes, input_form);
  if (unbind)
    for (auto& p : parts) p = squeeze_form(ctx, p, {axis}, input_form);
  ctx.set_output(0, ctx.make_list(parts));
}


// ---- Slice: starts/ends/axes attributes at opset 9, inputs (plus steps) from 10 ----

// A start/end argument as a 1-element int64 tensor (run-time ints allowed).
inline Value bound_tensor(Ctx& ctx, const Value& v) {
  if (v.is_const() && v.kind() != T2O_KIND_TENSOR) return ctx.const_i64({v.to_int()});
  Value t = as_i64(ctx, v);
  if (v.kind() != T2O_KIND_TENSOR || v.rank() == 0) t = unsqueeze(ctx, t, {0});
  return t;
}

// x[start:end:step] along axis. start/end may be run-time ints (input form only); step is constant.
inline Value slice_axis(Ctx& ctx, const Value& x, int64_t axis, const Value& start, const Value& end, int64_t step,
                        bool input_form) {
  if (step <= 0) fail(ctx.kind() + ": step=" + std::to_string(step) + " must be positive");
  bool cs = start.is_const(), ce = end.is_const();
  if (cs && ce) {
    int64_t s = start.to_int(), e = end.to_int();
    int64_t D = x.dim((int32_t)axis);
    if (s == 0 && step == 1 && (e == kInt64Max || (D >= 0 && e >= D))) return x;  // the whole axis
    if (input_form) {
      std::vector<Value> in{x, ctx.const_i64({s}), ctx.const_i64({e}), ctx.const_i64({axis})};
      if (step != 1) in.push_back(ctx.const_i64({step}));
      return ctx.op("Slice", in);
    }
    if (step == 1)
      return ctx.op("Slice", {x}, {Attr::ints("axes", {axis}), Attr::ints("starts", {s}), Attr::ints("ends", {e})});
    // Opset 9 Slice has no steps: gather the selected positions of a static axis.
    if (D < 0) unsupported(ctx.kind() + ": step=" + std::to_string(step) + " on a dynamic axis needs opset >= 10");
    auto clampi = [&](int64_t v) { v = v < 0 ? v + D : v; return v < 0 ? 0 : v > D ? D : v; };
    std::vector<int64_t> idx;
    for (int64_t i = clampi(s); i < clampi(e); i += step) idx.push_back(i);
    return ctx.op("Gather", {x, ctx.const_i64(idx)}, {Attr::i("axis", axis)});
  }
  if (!input_form) unsupported(ctx.kind() + ": slice bounds computed at run time need opset >= 10");
  std::vector<Value> in{x, bound_tensor(ctx, start), bound_tensor(ctx, end), ctx.const_i64({axis})};
  if (step != 1) in.push_back(ctx.const_i64({step}));
  return ctx.op("Slice", in);
}

// aten::slice.Tensor(self, dim=0, start=None, end=None, step=1); aten::slice.t on lists (constant
// bounds: a sub-list); aten::narrow(self, dim, start, length).
inline void slice_symbolic(Ctx& ctx, bool input_form) {
  Value x = ctx.input(0);
  bool narrow = ctx.kind() == "aten::narrow";
  if (x.kind() == T2O_KIND_LIST) {
    Value s = opt_input(ctx, 1), e = opt_input(ctx, 2), st = opt_input(ctx, 3);
    int64_t n = x.list_size();
    int64_t a = s.valid() ? s.to_int() : 0, b = e.valid() ? e.to_int() : n, step = st.valid() ? st.to_int() : 1;
    if (step <= 0) unsupported(ctx.kind() + ": list slice with step " + std::to_string(step));
    auto clampi = [&](int64_t v) { v = v < 0 ? v + n : v; return v < 0 ? 0 : v > n ? n : v; };
    std::vector<Value> items;
    for (int64_t i = clampi(a); i < clampi(b); i += step) items.push_back(x.item(i));
    return ctx.set_output(0, ctx.make_list(items));
  }
  if (x.is_sequence())
    unsupported(ctx.kind() + ": a slice of a list whose length follows a dynamic size (an ONNX sequence; index "
                "its items or loop over them instead)");
  int64_t r = known_rank(ctx, x);
  int64_t dim = ctx.num_inputs() > 1 ? ctx.input(1).to_int() : 0;
  int64_t axis = normalize_axis(ctx, dim, r);
  if (narrow) {
    Value start = ctx.input(2), length = ctx.input(3);
    if (!length.is_const()) unsupported(ctx.kind() + ": argument 'length' computed at run time");
    int64_t len = length.to_int();
    int64_t D = x.dim((int32_t)axis);
    if (start.is_const() && start.kind() != T2O_KIND_TENSOR) {
      int64_t s = start.to_int();
      if (s < 0 && D >= 0) s += D;
      int64_t e = s + len;
      if (s < 0 && e == 0) e = kInt64Max;  // the last `len` items of a dynamic axis
      return ctx.set_output(0, slice_axis(ctx, x, axis, ctx.make_int(s), ctx.make_int(e), 1, input_form));
    }
    if (!input_form) unsupported(ctx.kind() + ": start computed at run time needs opset >= 10");
    Value s = nonneg_index(ctx, start, x, axis);  // run-time start: negative counts from the end
    Value st = unsqueeze(ctx, s, {0});
    Value en = ctx.op("Add", {st, ctx.const_i64({len})});
    return ctx.set_output(0, ctx.op("Slice", {x, st, en, ctx.const_i64({axis})}));
  }
  Value start = opt_input(ctx, 2), end = opt_input(ctx, 3), step = opt_input(ctx, 4);
  Value s = start.valid() ? start : ctx.make_int(0);
  Value e = end.valid() ? end : ctx.make_int(kInt64Max);
  if (step.valid() && !step.is_const()) {
    // x[::n] with n computed at run time: Slice's steps input (opset 10). PyTorch raises for a
    // step <= 0, so every step it runs with is one Slice reads the same way.
    if (!input_form) unsupported(ctx.kind() + ": argument 'step' computed at run time needs opset >= 10");
    return ctx.set_output(0, ctx.op("Slice", {x, bound_tensor(ctx, s), bound_tensor(ctx, e), ctx.const_i64({axis}),
                                              bound_tensor(ctx, step)}));
  }
  ctx.set_output(0, slice_axis(ctx, x, axis, s, e, step.valid() ? step.to_int() : 1, input_form));
}

// ---- scatter: Scatter (opsets 9-10), ScatterElements (11+, with `reduction` from 16) ----

// aten::scatter.src(self, dim, index, src) / scatter.value(self, dim, index, value) and their
// reduce="add"/"multiply" forms; aten::scatter_add(self, dim, index, src). ONNX needs updates of
// the index's shape: a larger src is sliced to it (PyTorch reads src's leading index.size(d)
// elements of each dim d), a scalar value expanded to it. Dims are the same only when both are
// known: where either is dynamic (-1), src is cut to Shape(index) at run time, as torch.onnx 2.x
// does (Slice with run-time ends, opset 10).
inline void scatter_symbolic(Ctx& ctx, const std::string& op_type, bool has_reduction) {
  std::string k = ctx.kind();
  Value x = ctx.input(0), index = ctx.input(2), src = ctx.input(3);
  int64_t r = known_rank(ctx, x);
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  t2o_dtype dt = x.dtype();
  std::string reduction = k == "aten::scatter_add" ? "add" : "none";
  if (ctx.num_inputs() > 4) {
    std::string red = ctx.input(4).to_string();
    reduction = red == "add" ? "add" : red == "multiply" ? "mul" : red;
    if (reduction != "add" && reduction != "mul") unsupported(k + ": reduce='" + red + "'");
  }
  if (reduction != "none" && !has_reduction) unsupported(k + ": reduction '" + reduction + "' needs opset >= 16");
  Value i = as_i64(ctx, index);
  Value updates;
  if (src.kind() == T2O_KIND_TENSOR && src.rank() == index.rank()) {
    updates = to_dtype(ctx, src, dt);
    bool same = src.dims() == index.dims() && index.has_static_shape();
    if (index.rank() > 0 && !same) {
      std::vector<int64_t> axes, starts, ends = index.dims();
      for (int64_t a = 0; a < index.rank(); ++a) axes.push_back(a), starts.push_back(0);
      if (index.has_static_shape()) {
        updates = slice(ctx, updates, axes, starts, ends);
      } else {
        require(ctx, feature::kSliceInputs, "src cut to an index of dynamic shape");
        updates = ctx.op("Slice", {updates, ctx.const_i64(starts), shape_of(ctx, index), ctx.const_i64(axes)});
      }
    }
  } else {
    updates = ctx.op("Expand", {to_dtype(ctx, src, dt), shape_of(ctx, index)});
  }
  std::vector<Attr> attrs{Attr::i("axis", axis)};
  if (reduction != "none") attrs.push_back(Attr::s("reduction", reduction));
  ctx.set_output(0, ctx.op(op_type, {x, i, updates}, attrs));
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_SHAPE_OPS_HPP
