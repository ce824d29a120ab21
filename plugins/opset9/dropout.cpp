// aten::dropout, aten::feature_dropout, aten::alpha_dropout, aten::feature_alpha_dropout (+ in-place):
// identity in inference. (ONNX Dropout's `ratio` became an input at 12; emitting no node avoids it.)
#include <torch2onnx/plugin.hpp>

using namespace t2o;

namespace {

// (input, p, train)
void dropout(Ctx& ctx) {
  Value train = ctx.input(2);
  if (!train.is_const()) unsupported(ctx.kind() + ": argument 'train' is computed at run time");
  if (train.to_bool()) {
    double p = ctx.input(1).is_const() ? ctx.input(1).to_float() : -1;
    if (p != 0.0) unsupported(ctx.kind() + ": train=True (export the model in eval())");
  }
  ctx.set_output(0, ctx.input(0));
}

}  // namespace

T2O_SYMBOLIC("aten::dropout", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::dropout_", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::feature_dropout", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::feature_dropout_", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::alpha_dropout", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::alpha_dropout_", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::feature_alpha_dropout", 9) { dropout(ctx); }
T2O_SYMBOLIC("aten::feature_alpha_dropout_", 9) { dropout(ctx); }
