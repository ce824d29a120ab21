# arange and linspace with float bounds or step and an integer dtype (issue 29). PyTorch's kernel
# reads the bounds as int64 (truncated toward zero) for the values; arange's length comes from the
# truncated bounds for int64 (arange(8.5, dtype=int64) has 8 elements) and from the float bounds,
# ceil((end - start) / step), for narrower integer types (int32: 9); linspace truncates start and
# end first. Constant bounds (a constant tensor at every opset) and bounds computed at run time
# (Range, opset 11). Values, dtype and shape compared with PyTorch.
import torch
from op_case import case

torch.manual_seed(0)


class ArangeConst(torch.nn.Module):
    def forward(self, x):
        return (torch.arange(8.5, dtype=torch.int64), torch.arange(1, 8.5, 1.5, dtype=torch.int64),
                torch.arange(8.5, dtype=torch.int32), torch.arange(1, 8.5, 1.5, dtype=torch.int32),
                torch.arange(-2.5, 3, dtype=torch.int64), torch.arange(-2.5, 3, dtype=torch.int16),
                torch.arange(7.9, 0.2, -2.5, dtype=torch.int64), torch.arange(0.5, 3.9, 1.7, dtype=torch.int8),
                torch.arange(1, 8.5, 1.5, dtype=torch.uint8), x)


class ArangeRuntime(torch.nn.Module):
    # n comes from the input's size: Range at run time.
    def forward(self, x):
        n = x.size(0)
        return (torch.arange(n, 8.5, 1.5, dtype=torch.int64), torch.arange(n, 8.5, 1.5, dtype=torch.int32),
                torch.arange(n + 0.5, dtype=torch.int64), torch.arange(n + 0.5, dtype=torch.int32),
                torch.arange(-0.5, n, 1.75, dtype=torch.int16), torch.arange(0.5, n + 4.25, 1.25) * 2)


class ArangeRuntimeFloat(torch.nn.Module):
    # bounds read from a tensor's values (scripted: float(t) at run time; the example run's t is 1)
    def forward(self, x, t):
        e = float(t) * 2.75
        return torch.arange(1, e, 1.5, dtype=torch.int64) + x.sum().long(), torch.arange(e, dtype=torch.int32)


class LinspaceConst(torch.nn.Module):
    def forward(self, x):
        return (torch.linspace(-3.7, 5.2, 5, dtype=torch.int64), torch.linspace(0.5, 5.7, 6, dtype=torch.int32),
                torch.linspace(5, 0, 4, dtype=torch.int64), torch.linspace(-7.9, 7.9, 7, dtype=torch.int16), x)


class LinspaceRuntime(torch.nn.Module):
    def forward(self, x, t):
        s = float(t)
        return torch.linspace(-s, 5.2, 5, dtype=torch.int64), torch.linspace(s, 2 * s, 4, dtype=torch.int32) + x


X = torch.randn(3)
CASES = [
    case("arange_float_bounds_int_dtype", ArangeConst(), [X], opsets=(9, 11, 17)),
    case("arange_float_bounds_int_dtype_script", ArangeConst(), [X], opsets=(9, 11, 17), method="script"),
    case("arange_runtime_float_int_dtype", ArangeRuntime(), [torch.randn(3)], opsets=(11, 17),
         cli_args=("--dynamic-axes", "x=0"), more_inputs=[[torch.randn(6)], [torch.randn(1)]]),
    case("arange_runtime_float_int_dtype_script", ArangeRuntime(), [torch.randn(3)], opsets=(11, 17),
         method="script", cli_args=("--dynamic-axes", "x=0"), more_inputs=[[torch.randn(6)]]),
    case("arange_value_bounds_int_dtype", ArangeRuntimeFloat(), [torch.ones(2), torch.tensor(1)], opsets=(11, 17),
         method="script", more_inputs=[[torch.ones(2), torch.tensor(3)], [torch.ones(2), torch.tensor(2)]]),
    case("linspace_float_bounds_int_dtype", LinspaceConst(), [X], opsets=(9, 17)),
    case("linspace_runtime_int_dtype", LinspaceRuntime(), [torch.ones(4, dtype=torch.int32), torch.tensor(3.7)],
         opsets=(9, 17), method="script",
         more_inputs=[[torch.ones(4, dtype=torch.int32), torch.tensor(-1.2)]]),
]
