// aten::grid_sampler -> GridSample-20: the modes are named linear/nearest/cubic (opset 16's
// bilinear/bicubic are not valid names any more), and 5-D (volumetric) inputs are allowed.
// PyTorch's enum codes: interpolation 0 bilinear, 1 nearest, 2 bicubic (4-D only); padding 0 zeros,
// 1 border, 2 reflection.
// grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/util.hpp"

using namespace t2o;
using namespace t2o::pack;

static void grid_sample(Ctx& ctx) {
  Value x = ctx.input(0), grid = ctx.input(1);
  int64_t mode = ctx.input(2).to_int(), padding = ctx.input(3).to_int();
  bool align = ctx.input(4).to_bool();
  static const char* modes[] = {"linear", "nearest", "cubic"};
  static const char* paddings[] = {"zeros", "border", "reflection"};
  if (mode < 0 || mode > 2) unsupported(ctx.kind() + ": interpolation_mode=" + std::to_string(mode));
  if (padding < 0 || padding > 2) unsupported(ctx.kind() + ": padding_mode=" + std::to_string(padding));
  int32_t r = x.rank();
  if (r != 4 && r != 5) unsupported(ctx.kind() + ": a " + std::to_string(r) + "-D input (4-D or 5-D expected)");
  if (r == 5 && mode == 2) unsupported(ctx.kind() + ": bicubic interpolation of a 5-D input (PyTorch has none)");
  ctx.set_output(0, ctx.op("GridSample", {x, grid},
                           {Attr::s("mode", modes[mode]), Attr::s("padding_mode", paddings[padding]),
                            Attr::i("align_corners", align ? 1 : 0)}));
}

T2O_SYMBOLIC("aten::grid_sampler", 20) { grid_sample(ctx); }
T2O_SYMBOLIC("aten::grid_sampler_2d", 20) { grid_sample(ctx); }
T2O_SYMBOLIC("aten::grid_sampler_3d", 20) { grid_sample(ctx); }
