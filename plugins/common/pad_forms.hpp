// Pad from opset 18 (the `axes` input) and 19 (mode wrap), shared by the opset18 and opset19 packs.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_PAD_FORMS_HPP
#define TORCH2ONNX_PACK_COMMON_PAD_FORMS_HPP

#include <torch2onnx/plugin.hpp>

#include "pad_args.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// Pad (opset >= 18) of the axes PyTorch's pad list names, as Pad(x, pads, value, axes).
// Circular padding: mode wrap when `wrap` (opset 19) and every pad is >= 0, else opset 11's Concat
// of slices. Run-time pads: one Gather reorders PyTorch's (begin, end) pairs, last axis first, into
// ONNX's begins-then-ends for those axes.
inline Value pad_with_axes(Ctx& ctx, const PadArgs& a, bool wrap) {
  std::string mode = a.mode;
  if (mode == "circular") {
    bool nonnegative = all_const(a.pad);
    if (nonnegative)
      for (int64_t p : a.pad.to_ints()) nonnegative = nonnegative && p >= 0;
    if (!wrap || !nonnegative) return circular_pad(ctx, a);
    mode = "wrap";
  }
  int64_t k = a.pad.is_list() ? a.pad.list_size() / 2 : -1;
  if (k < 0) unsupported(ctx.kind() + ": pads given as a tensor");
  if (k == 0) return ctx.as_onnx(a.x);
  std::vector<int64_t> axes;  // ascending: the last k axes
  for (int64_t i = 0; i < k; ++i) axes.push_back(a.rank - k + i);
  Value pads;
  if (all_const(a.pad)) {
    std::vector<int64_t> p = a.pad.to_ints(), onnx((size_t)(2 * k));
    for (int64_t i = 0; i < k; ++i) {  // PyTorch pair i pads axis rank-1-i, which is axes[k-1-i]
      onnx[(size_t)(k - 1 - i)] = p[(size_t)(2 * i)];
      onnx[(size_t)(2 * k - 1 - i)] = p[(size_t)(2 * i + 1)];
    }
    pads = ctx.const_i64(onnx);
  } else {
    std::vector<int64_t> idx((size_t)(2 * k));
    for (int64_t i = 0; i < k; ++i) {
      idx[(size_t)(k - 1 - i)] = 2 * i;
      idx[(size_t)(2 * k - 1 - i)] = 2 * i + 1;
    }
    pads = ctx.op("Gather", {int_list_tensor(ctx, a.pad), ctx.const_i64(idx)}, {Attr::i("axis", 0)});
  }
  Value value = mode == "constant" ? ctx.scalar(a.x.dtype(), a.value) : Value();
  return ctx.op("Pad", {a.x, pads, value, ctx.const_i64(axes)}, {Attr::s("mode", mode)});
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_PAD_FORMS_HPP
