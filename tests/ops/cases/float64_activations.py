# Activations and unary math on float64 (issue 29): each op's ONNX form must have an ONNX Runtime
# float64 kernel (Elu, Celu, Selu, HardSigmoid, LeakyRelu, PRelu, Softplus, Softsign,
# ThresholdedRelu, HardSwish, Erf, Floor, Ceil, ... are float32-only in ONNX Runtime's CPU provider)
# and compute in float64 as PyTorch does: exact float64 decompositions, never a cast to float32.
# Exported at the opsets where the forms change (Celu 12, HardSwish 14, LeakyRelu/PRelu 16,
# Mish 18, Gelu 20, Swish 24), run in ONNX Runtime and compared at rtol 1e-10.
import torch
import torch.nn.functional as F
from op_case import Fn, case

torch.manual_seed(0)
D = torch.float64
OPSETS = (9, 11, 12, 13, 14, 16, 17, 18, 20, 24)
RTOL = 1e-10


def x64(*shape):
    return (torch.randn(*shape, dtype=D) * 3).clamp(-8, 8)


def acts(name, fn, inputs=None, opsets=OPSETS, rtol=RTOL):
    return case(name, Fn(fn), inputs or [x64(3, 7)], opsets=opsets, rtol=rtol)


CASES = [
    acts("relu_family", lambda x: (F.relu(x), F.relu6(x), F.hardtanh(x, -1.5, 2.5), torch.threshold(x, 0.3, -2.0))),
    acts("sigmoid_tanh", lambda x: (torch.sigmoid(x), torch.tanh(x), F.logsigmoid(x), F.tanhshrink(x))),
    acts("elu_family", lambda x: (F.elu(x), F.elu(x, 0.7), F.selu(x), F.celu(x), F.celu(x, 1.7),
                                  torch.ops.aten.elu(x, 1.2, 1.3, 0.8))),
    acts("leaky_prelu", lambda x, w: (F.leaky_relu(x, 0.07), F.prelu(x, w), F.prelu(x, w[:1]), F.rrelu(x, training=False)),
         [x64(3, 7, 2), torch.rand(7, dtype=D)]),
    acts("hard_family", lambda x: (F.hardsigmoid(x), F.hardswish(x), F.hardshrink(x, 0.6), F.softshrink(x, 0.6))),
    acts("softplus_softsign", lambda x: (F.softplus(x), F.softplus(x, beta=2.0, threshold=3.0), F.softsign(x))),
    acts("gelu_silu_mish", lambda x: (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x))),
    acts("exp_log", lambda x: (torch.exp(x), torch.log(x.abs() + 0.1), torch.expm1(x), torch.log1p(x.abs()),
                               torch.log2(x.abs() + 0.1), torch.log10(x.abs() + 0.1), torch.exp2(x),
                               torch.sqrt(x.abs()), torch.rsqrt(x.abs() + 0.1), torch.reciprocal(x + 20))),
    acts("trig", lambda x: (torch.sin(x), torch.cos(x), torch.tan(x), torch.atan(x), torch.asin(x / 9),
                            torch.acos(x / 9), torch.sinh(x), torch.cosh(x), torch.asinh(x),
                            torch.acosh(x.abs() + 1), torch.atanh(x / 9))),
    acts("rounding", lambda x: (torch.floor(x), torch.ceil(x), torch.trunc(x), torch.frac(x), torch.round(x),
                                torch.sign(x), torch.abs(x), torch.neg(x)), opsets=(11, 13, 17)),
    acts("erf_special", lambda x: (torch.erf(x), torch.erfc(x), torch.logit(torch.sigmoid(x)),
                                   torch.logit(torch.sigmoid(x), eps=0.01), torch.deg2rad(x), torch.square(x))),
    acts("softmax_family", lambda x: (F.softmax(x, -1), F.log_softmax(x, 0), F.glu(x[:, :6], -1))),
]
