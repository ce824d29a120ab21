// Ops whose results changed between PyTorch releases: the one table of those changes. A symbolic
// asks `follows(ctx, change)` and never reads ctx.torch_version() itself, as forms.hpp does for
// opsets. The release is the libtorch the host runs the model with (ABI 1.4; 1.13 on older hosts),
// so the exported graph computes what the model's own runs compute.
// Releases checked: 1.13 (Debian 12) and 2.6 (Debian 13) behave as before each change, 2.14 (Debian
// sid) after it; `since` is the first supported release known to have it.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_TORCH_SEMANTICS_HPP
#define TORCH2ONNX_PACK_COMMON_TORCH_SEMANTICS_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>

namespace t2o {
namespace pack {

struct TorchChange {
  int32_t since;  // major * 100 + minor of the first release with the new behaviour
};
namespace torch_change {
// arange with float bounds and an int64 dtype: the length is ceil((end - start) / step) of the
// double bounds, as for the narrower integer types (before: of the bounds truncated to int64;
// arange(8.5, dtype=int64) had 8 elements, now 9). A step that truncates to 0 gives start repeated
// rather than an error.
constexpr TorchChange kArangeDoubleLength{214};
// quantile/nanquantile of a float32 input: the rank q * (n - 1) is computed in double from the
// float32 q (before: in float32), so floor/ceil/round of a rank near an integer or a half differ.
constexpr TorchChange kQuantileDoubleRank{214};
}  // namespace torch_change

inline bool follows(const Ctx& ctx, TorchChange change) { return ctx.torch_version() >= change.since; }

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_TORCH_SEMANTICS_HPP
