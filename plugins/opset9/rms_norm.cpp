// aten::rms_norm (PyTorch 2.4+: nn.RMSNorm, F.rms_norm) -> its decomposition as PyTorch 2.6 computes
// it (common/rms_norm.hpp: eps in the input's dtype, float statistics for float16/bfloat16), the
// same ONNX the core's RMSNorm pattern gives below 23. RMSNormalization from 23: opset23/rms_norm.cpp.
#include <torch2onnx/plugin.hpp>

#include "common/rms_norm.hpp"

using namespace t2o;
using namespace t2o::pack;

// rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None)
T2O_SYMBOLIC("aten::rms_norm", 9) { ctx.set_output(0, rms_norm_decomposed(ctx, rms_norm_args(ctx))); }
