// com.microsoft pack: aten::gelu as ONNX Runtime's fused contrib ops.
//   approximate='none' -> com.microsoft Gelu      (one node instead of Div/Erf/Add/Mul/Mul)
//   approximate='tanh' -> com.microsoft FastGelu
// Registered for the default domain's opsets (from 9) with T2O_SYMBOLIC_OVERRIDE: the pack exists to
// replace the bundled decomposition, and being an explicit pack (--enable-pack / --plugin-path) it
// wins over the bundled symbolic at every target opset.
// Only ONNX Runtime runs these nodes; other runtimes need the default export.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

using namespace t2o;

namespace {
constexpr const char* kDomain = "com.microsoft";
}

// aten::gelu(Tensor self, *, str approximate='none') -> Tensor
T2O_SYMBOLIC_EX("aten::gelu", "", 9, T2O_SYMBOLIC_OVERRIDE) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (dt != T2O_DTYPE_FLOAT && dt != T2O_DTYPE_FLOAT16 && dt != T2O_DTYPE_BFLOAT16 && dt != T2O_DTYPE_UNDEFINED)
    unsupported("com.microsoft Gelu takes float, float16 or bfloat16 tensors (got ONNX dtype " +
                std::to_string((int)dt) + ")");
  std::string approximate = "none";
  if (ctx.num_inputs() > 1 && ctx.input(1).kind() == T2O_KIND_STRING) approximate = ctx.input(1).to_string();
  const char* op_type = nullptr;
  if (approximate == "none") op_type = "Gelu";
  else if (approximate == "tanh") op_type = "FastGelu";
  else unsupported("aten::gelu: approximate='" + approximate + "'");
  ctx.require_opset(kDomain, 1);
  ctx.set_output(0, ctx.op(op_type, {x}, {}, kDomain));
}

T2O_PLUGIN("com.microsoft", T2O_VERSION_STRING)
