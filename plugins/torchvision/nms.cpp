// torchvision::nms -> NonMaxSuppression on one batch and one class, then the kept box indices
// (column 2 of its [K, 3] result) with a Gather, as torch.onnx exports it.
//
// NonMaxSuppression keeps boxes in descending score order and drops a box whose IoU with a kept one
// is > iou_threshold, as torchvision does; its corner-pair box format takes torchvision's
// [x1, y1, x2, y2] as is (IoU is the same with x and y swapped). max_output_boxes_per_class is
// int64 max: every box that survives (0 would mean none).
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"

#include <cstdint>
#include <limits>

using namespace t2o;
using namespace t2o::pack;

// torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor
T2O_SYMBOLIC("torchvision::nms", 10) {
  Value boxes = ctx.input(0), scores = ctx.input(1), threshold = ctx.input(2);
  if (boxes.dtype() != T2O_DTYPE_FLOAT || scores.dtype() != T2O_DTYPE_FLOAT)
    unsupported("torchvision::nms: arguments 'dets' and 'scores' must be float32 (NonMaxSuppression computes IoU "
                "in float32)");
  if (!threshold.is_const()) unsupported("torchvision::nms: argument 'iou_threshold' is computed at run time");
  Value batched_boxes = unsqueeze(ctx, boxes, {0});         // [1, N, 4]
  Value batched_scores = unsqueeze(ctx, scores, {0, 1});    // [1, 1, N]
  Value max_boxes = ctx.const_i64({std::numeric_limits<int64_t>::max()});
  Value iou = ctx.const_f32({(float)threshold.to_float()});
  Value selected = ctx.op("NonMaxSuppression", {batched_boxes, batched_scores, max_boxes, iou});  // [K, 3]
  ctx.set_output(0, ctx.op("Gather", {selected, ctx.scalar_i64(2)}, {Attr::i("axis", 1)}));
}
