# Activation functions (nn modules and functionals), softmax/log_softmax over every dim.
import torch
import torch.nn.functional as F
from op_case import Fn, case


class Act(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)


class ScriptActs(torch.nn.Module):
    def forward(self, x):
        return F.gelu(x, approximate="tanh"), F.softmax(x, dim=1), F.hardswish(x), F.elu(x, 0.5), F.leaky_relu(x, 0.2)


X = torch.randn(2, 3, 4, 5) * 3
X3 = torch.randn(2, 5, 7)

CASES = [
    case("relu_relu6", Fn(lambda a: (torch.relu(a), F.relu6(a))), [X]),
    case("leaky_relu", Act(torch.nn.LeakyReLU(0.2)), [X]),
    case("prelu_channels", Act(torch.nn.PReLU(3, init=0.3)), [X]),
    case("prelu_single", Act(torch.nn.PReLU()), [X]),
    case("prelu_2d", Act(torch.nn.PReLU(4, init=0.1)), [torch.randn(5, 4)]),
    case("elu", Act(torch.nn.ELU(alpha=0.5)), [X]),
    case("elu_scales", Fn(lambda a: torch.ops.aten.elu(a, 0.7, 1.5, 2.0)), [X]),
    case("selu", Act(torch.nn.SELU()), [X]),
    case("celu", Act(torch.nn.CELU(alpha=2.0)), [X]),
    case("gelu", Act(torch.nn.GELU()), [X]),
    case("gelu_tanh", Act(torch.nn.GELU(approximate="tanh")), [X]),
    case("silu_mish", Fn(lambda a: (F.silu(a), F.mish(a))), [X]),
    case("hardswish", Act(torch.nn.Hardswish()), [X], opsets=(9, 13, 14, 17)),
    case("hardsigmoid", Act(torch.nn.Hardsigmoid()), [X]),
    case("hardtanh", Act(torch.nn.Hardtanh(-0.5, 0.7)), [X], opsets=(9, 11, 13, 17)),
    case("softplus", Act(torch.nn.Softplus(beta=2, threshold=5)), [X]),
    case("softplus_default", Act(torch.nn.Softplus()), [X]),
    case("softsign", Fn(lambda a: (F.softsign(a), torch.ops.aten.softsign(a) if hasattr(torch.ops.aten, "softsign") else a)), [X]),
    case("sigmoid_tanh", Fn(lambda a: (torch.sigmoid(a), torch.tanh(a))), [X]),
    case("logsigmoid_shrink", Fn(lambda a: (F.logsigmoid(a), F.tanhshrink(a), F.softshrink(a, 0.7), F.hardshrink(a, 0.6),
                                            F.threshold(a, 0.3, -2.0))), [X]),
    case("softmax_dims", Fn(lambda a: tuple(F.softmax(a, dim=d) for d in range(-4, 4))), [X]),
    case("log_softmax_dims", Fn(lambda a: tuple(F.log_softmax(a, dim=d) for d in range(3))), [X3]),
    case("softmax_1d", Fn(lambda a: (F.softmax(a, dim=0), F.log_softmax(a, dim=-1))), [torch.randn(7)]),
    case("softmax_dtype", Fn(lambda a: (F.softmax(a, dim=1, dtype=torch.float64), F.log_softmax(a, 0, dtype=torch.float64))), [X3]),
    case("acts_script", ScriptActs(), [X], method="script", opsets=(9, 13, 14, 17)),
]
