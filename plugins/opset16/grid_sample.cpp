// aten::grid_sampler -> GridSample (new in opset 16; 4-D input only until opset 20).
// PyTorch's enum codes: interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
// 1 border, 2 reflection (the ONNX attribute strings have the same names).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
static void grid_sample(Ctx& ctx) {
  Value x = ctx.input(0), grid = ctx.input(1);
  int64_t mode = ctx.input(2).to_int(), padding = ctx.input(3).to_int();
  bool align = ctx.input(4).to_bool();
  static const char* modes[] = {"bilinear", "nearest", "bicubic"};
  static const char* paddings[] = {"zeros", "border", "reflection"};
  if (mode < 0 || mode > 2) unsupported(ctx.kind() + ": interpolation_mode=" + std::to_string(mode));
  if (padding < 0 || padding > 2) unsupported(ctx.kind() + ": padding_mode=" + std::to_string(padding));
  if (x.rank() != 4) unsupported(ctx.kind() + ": a " + std::to_string(x.rank()) + "-D input (GridSample-16 is 4-D only)");
  ctx.set_output(0, ctx.op("GridSample", {x, grid},
                           {Attr::s("mode", modes[mode]), Attr::s("padding_mode", paddings[padding]),
                            Attr::i("align_corners", align ? 1 : 0)}));
}

T2O_SYMBOLIC("aten::grid_sampler", 16) { grid_sample(ctx); }
T2O_SYMBOLIC("aten::grid_sampler_2d", 16) { grid_sample(ctx); }
