// aten::max_pool1d/2d/3d (+ _with_indices), aten::avg_pool1d/2d/3d, aten::adaptive_avg_pool1d/2d/3d,
// aten::adaptive_max_pool1d/2d/3d -> MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool.
//
// ceil_mode: MaxPool/AveragePool have no ceil_mode attribute before opset 10, so ceil_mode=True
// is exported as extra end padding computed from the static input shape (valid at every opset,
// and exact: PyTorch's rule that the last window must start inside the input or left padding is
// applied). With dynamic spatial dims, opset >= 10 falls back to the ceil_mode attribute.
// MaxPool dilations need opset 10.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// PyTorch's pooled size of one axis.
int64_t pooled_size(int64_t len, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  int64_t num = len + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil ? (num + s - 1) / s : num / s) + 1;  // num >= 0 for valid arguments
  if (ceil && (out - 1) * s >= len + p) --out;
  return out;
}

struct Pool {
  std::vector<int64_t> kernel, stride, pads, dilation;  // pads: begins then ends
  bool ceil_attr = false;                               // emit ceil_mode=1 (opset >= 10)
};

// Static spatial lengths (the last n dims) of a node input, batched or not; empty when any is
// unknown. (Read from the TorchScript input: values emitted by the symbolic carry no shape.)
std::vector<int64_t> spatial_lengths(const Value& x, size_t n) {
  std::vector<int64_t> lens;
  int32_t r = x.rank();
  if (r != (int32_t)n + 2 && r != (int32_t)n + 1) return {};
  for (size_t i = 0; i < n; ++i) {
    int64_t len = x.dim(r - (int32_t)n + (int32_t)i);
    if (len < 0) return {};
    lens.push_back(len);
  }
  return lens;
}

// Adds the end padding ceil_mode needs for spatial lengths `lens` (empty = dynamic).
void apply_ceil(Ctx& ctx, const std::vector<int64_t>& lens, Pool& p, size_t n) {
  if (lens.empty()) {
    require(ctx, feature::kPoolCeilMode, "ceil_mode=True with dynamic spatial dims");
    p.ceil_attr = true;
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t len = lens[i];
    int64_t out = pooled_size(len, p.kernel[i], p.stride[i], p.pads[i], p.dilation[i], true);
    int64_t need = (out - 1) * p.stride[i] + p.dilation[i] * (p.kernel[i] - 1) + 1;  // covered length
    int64_t extra = need - (len + p.pads[i] + p.pads[n + i]);
    if (extra > 0) p.pads[n + i] += extra;
  }
}

Pool parse_pool(Ctx& ctx, size_t n, const Value& kernel, const Value& stride, const Value& padding,
                const Value& dilation) {
  Pool p;
  std::vector<int64_t> ones(n, 1), zeros(n, 0);
  p.kernel = expand_ints(ctx, kernel, n, "kernel_size");
  p.stride = expand_ints(ctx, stride, n, "stride", p.kernel);
  std::vector<int64_t> pad = expand_ints(ctx, padding, n, "padding", zeros);
  p.pads = pad;
  p.pads.insert(p.pads.end(), pad.begin(), pad.end());
  p.dilation = dilation.valid() ? expand_ints(ctx, dilation, n, "dilation", ones) : ones;
  return p;
}

bool is_ones(const std::vector<int64_t>& v) {
  for (auto x : v)
    if (x != 1) return false;
  return true;
}

// MaxPool with `outputs` outputs (2: values and Indices).
std::vector<Value> emit_max_pool(Ctx& ctx, const Value& x, const Pool& p, int32_t outputs = 1) {
  std::vector<Attr> attrs{Attr::ints("kernel_shape", p.kernel), Attr::ints("strides", p.stride),
                          Attr::ints("pads", p.pads)};
  if (!is_ones(p.dilation)) {
    require(ctx, feature::kPoolDilations, "dilation=" + str(p.dilation));
    attrs.push_back(Attr::ints("dilations", p.dilation));
  }
  if (p.ceil_attr) attrs.push_back(Attr::i("ceil_mode", 1));
  return ctx.op_n("MaxPool", {x}, outputs, attrs);
}

// max_poolNd(self, kernel_size, stride, padding, dilation, ceil_mode)
void max_pool(Ctx& ctx, size_t n) {
  Pool p = parse_pool(ctx, n, ctx.input(1), opt_input(ctx, 2), opt_input(ctx, 3), opt_input(ctx, 4));
  bool ceil = ctx.num_inputs() > 5 && ctx.input(5).to_bool();
  std::vector<int64_t> lens = spatial_lengths(ctx.input(0), n);
  Value y = with_batch(ctx, ctx.input(0), (int64_t)n, [&](const Value& x) {
    Pool q = p;
    if (ceil) apply_ceil(ctx, lens, q, n);
    return emit_max_pool(ctx, x, q)[0];
  });
  ctx.set_output(0, y);
}

// max_poolNd_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (values,
// indices). MaxPool's Indices (storage_order 0) count over the whole N x C x spatial tensor,
// PyTorch's within each (n, c) plane: idx mod plane_size (as idx - idx / s * s: Mod needs opset 10).
// Padding does not enter either numbering.
void max_pool_with_indices(Ctx& ctx, size_t n) {
  Pool p = parse_pool(ctx, n, ctx.input(1), opt_input(ctx, 2), opt_input(ctx, 3), opt_input(ctx, 4));
  bool ceil = ctx.num_inputs() > 5 && ctx.input(5).to_bool();
  Value x0 = ctx.input(0);
  int32_t r = x0.rank();
  if (r != (int32_t)n + 1 && r != (int32_t)n + 2)
    fail(ctx.kind() + ": expected a " + std::to_string(n + 2) + "-D input, got rank " + std::to_string(r));
  std::vector<int64_t> lens = spatial_lengths(x0, n);
  if (ceil) apply_ceil(ctx, lens, p, n);
  bool unbatched = r == (int32_t)n + 1;
  Value x = unbatched ? unsqueeze(ctx, x0, {0}) : ctx.as_onnx(x0);
  std::vector<Value> out = emit_max_pool(ctx, x, p, 2);
  Value plane;
  if (!lens.empty()) {
    int64_t size = 1;
    for (auto l : lens) size *= l;
    plane = ctx.scalar_i64(size);
  } else {
    std::vector<int64_t> spatial;
    for (size_t i = 0; i < n; ++i) spatial.push_back(r - (int64_t)n + (int64_t)i);
    plane = reduce(ctx, "ReduceProd", dims_tensor(ctx, x0, spatial), {0}, false);
  }
  Value idx = out[1];
  Value local = ctx.op("Sub", {idx, ctx.op("Mul", {ctx.op("Div", {idx, plane}), plane})});
  Value values = out[0];
  if (unbatched) values = squeeze(ctx, values, {0}), local = squeeze(ctx, local, {0});
  ctx.set_output(0, values);
  ctx.set_output(1, local);
}

// avg_poolNd(self, kernel_size, stride, padding, ceil_mode, count_include_pad[, divisor_override])
void avg_pool(Ctx& ctx, size_t n) {
  Pool p = parse_pool(ctx, n, ctx.input(1), opt_input(ctx, 2), opt_input(ctx, 3), Value());
  bool ceil = ctx.num_inputs() > 4 && ctx.input(4).to_bool();
  bool include_pad = ctx.num_inputs() > 5 ? ctx.input(5).to_bool() : true;
  Value divisor = opt_input(ctx, 6);
  double rescale = 1.0;
  if (divisor.valid()) {
    // Without ceil_mode every window lies within the padded input, so sum / d equals the average
    // counting the padding times kernel_size / d. With ceil_mode windows may overhang: refused.
    int64_t d = divisor.to_int(), prod = 1;
    for (auto k : p.kernel) prod *= k;
    if (ceil || d == 0) unsupported(ctx.kind() + ": divisor_override=" + std::to_string(d) + " with ceil_mode=True");
    include_pad = true;
    rescale = (double)prod / (double)d;
  }
  bool any_pad = false;
  for (auto v : p.pads) any_pad = any_pad || v != 0;

  Value x0 = ctx.input(0);
  std::vector<int64_t> lens = spatial_lengths(x0, n);
  Value y = with_batch(ctx, x0, (int64_t)n, [&](const Value& x_in) {
    Value x = x_in;
    Pool q = p;
    std::vector<int64_t> ceil_lens = lens;
    int64_t count_include_pad = 0;
    if (include_pad && any_pad) {
      if (!ceil) {
        count_include_pad = 1;  // every window lies within the padded input: divisor = kernel size
      } else {
        // Windows may run past the padded input; PyTorch's divisor then counts the explicit
        // padding but not the overhang: pad explicitly with zeros, exclude only the extra padding.
        std::vector<int64_t> pads(2 * (n + 2), 0);
        for (size_t i = 0; i < n; ++i) pads[2 + i] = p.pads[i], pads[n + 4 + i] = p.pads[n + i];
        x = pad_constant(ctx, x, x0.dtype(), pads, 0.0);
        q.pads.assign(2 * n, 0);
        for (size_t i = 0; i < ceil_lens.size(); ++i) ceil_lens[i] += p.pads[i] + p.pads[n + i];
      }
    }
    if (ceil) apply_ceil(ctx, ceil_lens, q, n);
    std::vector<Attr> attrs{Attr::ints("kernel_shape", q.kernel), Attr::ints("strides", q.stride),
                            Attr::ints("pads", q.pads), Attr::i("count_include_pad", count_include_pad)};
    if (q.ceil_attr) attrs.push_back(Attr::i("ceil_mode", 1));
    Value avg = ctx.op("AveragePool", {x}, attrs);
    return rescale == 1.0 ? avg : ctx.op("Mul", {avg, ctx.scalar(x0.dtype(), rescale)});
  });
  ctx.set_output(0, y);
}

// Adaptive pooling whose windows differ in size (output_size does not divide the input size):
// PyTorch's window i on an axis of length L pooled to O is [floor(i*L/O), ceil((i+1)*L/O)).
// Mean and max over a box are separable, so each axis is pooled in turn: one Slice + Reduce per
// output index, concatenated. Needs static spatial dims (checked by the caller).
Value adaptive_windows(Ctx& ctx, const Value& x0, size_t n, bool is_max, const std::vector<int64_t>& out) {
  int32_t r = x0.rank();
  Value x = ctx.as_onnx(x0);
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = r - (int64_t)n + (int64_t)i;
    int64_t len = x0.dim((int32_t)axis);
    int64_t o = out[i] == -2 ? len : out[i];
    if (o == len) continue;  // windows of one element
    std::vector<Value> parts;
    for (int64_t j = 0; j < o; ++j) {
      int64_t start = j * len / o, end = ((j + 1) * len + o - 1) / o;
      Value win = slice(ctx, x, {axis}, {start}, {end});
      parts.push_back(reduce(ctx, is_max ? "ReduceMax" : "ReduceMean", win, {axis}, true));
    }
    x = parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", axis)});
  }
  return x;
}

// adaptive_{avg,max}_poolNd(self, output_size)
void adaptive_pool(Ctx& ctx, size_t n, bool is_max) {
  Value x0 = ctx.input(0);
  Value size_arg = ctx.input(1);
  if (!all_const(size_arg)) unsupported(ctx.kind() + ": output_size computed at run time");
  int32_t r = x0.rank();
  std::vector<int64_t> out;
  // Items may be None (keep the input's size).
  std::vector<Value> items = size_arg.kind() == T2O_KIND_LIST ? size_arg.items() : std::vector<Value>{size_arg};
  if (items.size() == 1 && n > 1) items.assign(n, items[0]);
  if (items.size() != n) fail(ctx.kind() + ": output_size should have " + std::to_string(n) + " entries");
  for (size_t i = 0; i < n; ++i) out.push_back(items[i].is_none() ? -2 : items[i].to_int());

  bool global = true;
  for (auto o : out) global = global && o == 1;
  if (global) {
    // GlobalMaxPool/GlobalAveragePool keep spatial dims as 1, like PyTorch.
    Value y = with_batch(ctx, x0, (int64_t)n,
                         [&](const Value& x) { return ctx.op(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {x}); });
    ctx.set_output(0, y);
  } else {
    known_rank(ctx, x0);
    std::vector<int64_t> kernel;
    for (size_t i = 0; i < n; ++i)
      if (x0.dim(r - (int32_t)n + (int32_t)i) < 0)
        unsupported(ctx.kind() + ": output_size=" + str(out) + " on a dynamic spatial dim (only (1,...,1) is exportable)");
    for (size_t i = 0; i < n; ++i) {
      int64_t len = x0.dim(r - (int32_t)n + (int32_t)i);
      int64_t o = out[i] == -2 ? len : out[i];
      if (o <= 0) fail(ctx.kind() + ": output_size=" + str(out));
      if (len % o != 0) {
        ctx.set_output(0, adaptive_windows(ctx, x0, n, is_max, out));
        if (is_max && ctx.num_outputs() > 1) ctx.set_output(1, ctx.make_none());
        return;
      }
      kernel.push_back(len / o);
    }
    std::vector<Attr> attrs{Attr::ints("kernel_shape", kernel), Attr::ints("strides", kernel),
                            Attr::ints("pads", std::vector<int64_t>(2 * n, 0))};
    Value y = with_batch(ctx, x0, (int64_t)n,
                         [&](const Value& x) { return ctx.op(is_max ? "MaxPool" : "AveragePool", {x}, attrs); });
    ctx.set_output(0, y);
  }
  if (is_max && ctx.num_outputs() > 1) {
    // adaptive_max_poolNd also returns indices; ONNX MaxPool's are flattened differently.
    // Bound to None: a graph that actually uses them fails loudly at the consumer.
    ctx.set_output(1, ctx.make_none());
  }
}

}  // namespace

T2O_SYMBOLIC("aten::max_pool1d", 9) { max_pool(ctx, 1); }
T2O_SYMBOLIC("aten::max_pool2d", 9) { max_pool(ctx, 2); }
T2O_SYMBOLIC("aten::max_pool3d", 9) { max_pool(ctx, 3); }
T2O_SYMBOLIC("aten::max_pool1d_with_indices", 9) { max_pool_with_indices(ctx, 1); }
T2O_SYMBOLIC("aten::max_pool2d_with_indices", 9) { max_pool_with_indices(ctx, 2); }
T2O_SYMBOLIC("aten::max_pool3d_with_indices", 9) { max_pool_with_indices(ctx, 3); }
T2O_SYMBOLIC("aten::avg_pool1d", 9) { avg_pool(ctx, 1); }
T2O_SYMBOLIC("aten::avg_pool2d", 9) { avg_pool(ctx, 2); }
T2O_SYMBOLIC("aten::avg_pool3d", 9) { avg_pool(ctx, 3); }
T2O_SYMBOLIC("aten::adaptive_avg_pool1d", 9) { adaptive_pool(ctx, 1, false); }
T2O_SYMBOLIC("aten::adaptive_avg_pool2d", 9) { adaptive_pool(ctx, 2, false); }
T2O_SYMBOLIC("aten::adaptive_avg_pool3d", 9) { adaptive_pool(ctx, 3, false); }
T2O_SYMBOLIC("aten::adaptive_max_pool1d", 9) { adaptive_pool(ctx, 1, true); }
T2O_SYMBOLIC("aten::adaptive_max_pool2d", 9) { adaptive_pool(ctx, 2, true); }
T2O_SYMBOLIC("aten::adaptive_max_pool3d", 9) { adaptive_pool(ctx, 3, true); }
