// torchvision's rois tensor [K, 5] (batch index, x1, y1, x2, y2) split into what ONNX's RoiAlign
// takes: boxes [K, 4] and int64 batch indices [K] (the float index truncated, as torchvision does).
#ifndef TORCH2ONNX_PACK_TORCHVISION_ROIS_HPP
#define TORCH2ONNX_PACK_TORCHVISION_ROIS_HPP

#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"

namespace t2o {
namespace pack {

struct RoiColumns {
  Value boxes, batch_indices;
};

inline RoiColumns split_rois(Ctx& ctx, const Value& rois) {
  if (rois.rank() != 2 || rois.dim(1) != 5)
    unsupported(ctx.kind() + ": argument 'rois' must be [K, 5] (batch index, x1, y1, x2, y2); a list of per-image "
                             "boxes is converted to that form by torchvision's Python wrapper");
  RoiColumns r;
  r.boxes = slice(ctx, rois, {1}, {1}, {5});
  Value index = ctx.op("Gather", {rois, ctx.scalar_i64(0)}, {Attr::i("axis", 1)});
  r.batch_indices = ctx.op("Cast", {index}, {Attr::i("to", T2O_DTYPE_INT64)});
  return r;
}

}  // namespace pack
}  // namespace t2o

#endif
