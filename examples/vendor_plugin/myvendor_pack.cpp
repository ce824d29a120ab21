// An example vendor pack, built out of tree against the installed SDK (see CMakeLists.txt).
//
// It teaches torch2onnx two custom TorchScript ops of the (imaginary) vendor "myvendor" and
// overrides one bundled symbolic:
//
//   myvendor::fused_gelu(Tensor x, float alpha=1.0) -> Tensor
//       -> node FusedGelu of the vendor's ONNX domain com.myvendor. The domain has two versions:
//          version 1 takes alpha as an attribute, version 2 as a second (scalar) input.
//          `--custom-opset com.myvendor=1` selects version 1; without it the newest is used.
//   myvendor::scaled_add(Tensor a, Tensor b, float alpha) -> Tensor      (a + alpha * b)
//       -> standard ONNX (Mul, Add): such a model runs in any ONNX runtime.
//   aten::gelu (override of the bundled symbolic)
//       -> the vendor's fused com.myvendor FusedGelu with alpha = 1. A pack given with
//          --plugin-path takes precedence over the bundled packs at every target opset.
//
// The schemas are declared with T2O_SCHEMA, so a model calling torch.ops.myvendor.fused_gelu loads
// in torch2onnx without the vendor's libtorch kernels. (While torch2onnx runs the model once to
// learn shapes, such an op's outputs take the shape and dtype of its first tensor argument.)
#include <torch2onnx/plugin.hpp>

using namespace t2o;

namespace {

constexpr const char* kDomain = "com.myvendor";

// FusedGelu in the form of the given version of com.myvendor.
Value fused_gelu(Ctx& ctx, const Value& x, double alpha, int64_t version) {
  if (version == 1) return ctx.op("FusedGelu", {x}, {Attr::f("alpha", alpha)}, kDomain);
  return ctx.op("FusedGelu", {x, ctx.scalar(x.dtype(), alpha)}, {}, kDomain);
}

double constant_float(Ctx& ctx, int32_t i, const char* name) {
  Value v = ctx.input(i);
  if (v.is_none()) return 1.0;
  if (!v.is_const()) unsupported(ctx.kind() + ": '" + name + "' must be a constant");
  return v.to_float();
}

}  // namespace

T2O_SCHEMA("myvendor::fused_gelu(Tensor x, float alpha=1.0) -> Tensor");
T2O_SCHEMA("myvendor::scaled_add(Tensor a, Tensor b, float alpha) -> Tensor");

// Registered under com.myvendor: the target version of that domain selects the symbolic, as --opset
// does for the default domain. Version 1: alpha is an attribute.
T2O_SYMBOLIC_EX("myvendor::fused_gelu", kDomain, 1, 0u) {
  ctx.set_output(0, fused_gelu(ctx, ctx.input(0), constant_float(ctx, 1, "alpha"), 1));
}

// Version 2 of com.myvendor (used for targets >= 2): alpha is an input.
T2O_SYMBOLIC_EX("myvendor::fused_gelu", kDomain, 2, 0u) {
  ctx.set_output(0, fused_gelu(ctx, ctx.input(0), constant_float(ctx, 1, "alpha"), 2));
}

// Standard ONNX: a + alpha * b.
T2O_SYMBOLIC("myvendor::scaled_add", 9) {
  Value a = ctx.input(0), b = ctx.input(1);
  double alpha = constant_float(ctx, 2, "alpha");
  Value scaled = alpha == 1.0 ? b : ctx.op("Mul", {b, ctx.scalar(b.dtype(), alpha)});
  ctx.set_output(0, ctx.op("Add", {a, scaled}));
}

// Override: aten::gelu(Tensor self, *, str approximate='none') as the vendor's fused op.
T2O_SYMBOLIC("aten::gelu", 9) {
  if (ctx.num_inputs() > 1 && ctx.input(1).kind() == T2O_KIND_STRING && ctx.input(1).to_string() != "none")
    unsupported("myvendor FusedGelu implements approximate='none' only");
  // Dispatched by the default domain's opset; emits into com.myvendor at the version the export
  // uses (--custom-opset, or an earlier node's), else the newest.
  int64_t version = ctx.opset(kDomain);
  if (version == 0) {
    version = 2;
    ctx.require_opset(kDomain, version);
  }
  ctx.set_output(0, fused_gelu(ctx, ctx.input(0), 1.0, version));
}

T2O_PLUGIN("myvendor", "1.0")
