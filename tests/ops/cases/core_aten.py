# Ops of PyTorch's core ATen IR that torch.export programs hold after run_decompositions(), called
# through torch.ops.aten in PyTorch 1.13 (scripted): _softmax/_log_softmax (half_to_float),
# _to_copy (a cast or a copy), native_group_norm (its mean and rstd outputs compared too); and the
# dynamic forms those programs need: unflatten with sizes computed at run time (aten::size of
# dynamic dims, a -1 among them; an empty axis from opset 14), cumprod over a dynamic axis (a Scan:
# exact with zeros, negatives, integers; an empty input too).

import torch
from op_case import case

aten = torch.ops.aten

class PrivateSoftmax(torch.nn.Module):
    def forward(self, x, d):
        return (aten._softmax(x, 1, False), aten._softmax(x, 0, False), aten._softmax(x, -1, False),
                aten._log_softmax(x, 1, False), aten._log_softmax(x, 2, False), aten._softmax(d, 0, False),
                aten._log_softmax(d, -1, False))

class PrivateSoftmax0d(torch.nn.Module):
    def forward(self, x):
        return aten._softmax(x, 0, False), aten._log_softmax(x, -1, False)

class ToCopy(torch.nn.Module):
    def forward(self, x, i):
        return (aten._to_copy(x, dtype=torch.float64), aten._to_copy(x), aten._to_copy(i, dtype=torch.float32),
                aten._to_copy(x, dtype=torch.int32), aten._to_copy(i, dtype=torch.bool),
                aten._to_copy(x, dtype=torch.float32, layout=torch.strided, device=torch.device("cpu"),
                              non_blocking=False, memory_format=torch.contiguous_format),
                aten._to_copy(i) + 1, aten._to_copy(x, memory_format=torch.preserve_format) * 2)

class NativeGroupNorm(torch.nn.Module):
    def __init__(self, c, groups, affine, eps):
        super().__init__()
        self.groups = groups
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.rand(c) + 0.5) if affine else None
        self.bias = torch.nn.Parameter(torch.randn(c)) if affine else None

    def forward(self, x):
        n, c = x.shape[0], x.shape[1]
        hxw = x.numel() // (n * c)
        return aten.native_group_norm(x, self.weight, self.bias, n, c, hxw, self.groups, self.eps)

class UnflattenRuntime(torch.nn.Module):
    def forward(self, x):
        b, s, d = x.shape[0], x.shape[1], x.shape[2]
        return (x.flatten(0, 1).unflatten(0, [b, s]), x.flatten(1, 2).unflatten(1, [-1, d]),
                x.unflatten(2, [d, 1]), x.flatten(0, 1).unflatten(0, [-1, s]) + 1,
                x.unflatten(-1, [1, d, 1]).sum(2))

class UnflattenRuntimeEmpty(torch.nn.Module):
    def forward(self, x):
        b, s, d = x.shape[0], x.shape[1], x.shape[2]
        return x.flatten(0, 1).unflatten(0, [b, s]), x.flatten(1, 2).unflatten(1, [-1, d]), x.unflatten(2, [d, 1])


class CumprodDynamic(torch.nn.Module):
    def forward(self, x, i, v):
        return (torch.cumprod(x, 0), torch.cumprod(x, 1), torch.cumprod(x, -1), torch.cumprod(i, 0),
                torch.cumprod(i, 1, dtype=torch.float64), torch.cumprod(v, 0), torch.cumprod(i > 0, 0))

def with_zeros(*shape):
    t = torch.randn(*shape) * 2
    t[t.abs() < 0.4] = 0.0  # zeros and negatives: what exp(cumsum(log)) gets wrong
    return t

def ints(*shape):
    return torch.randint(-3, 4, shape)

DYN = ("--dynamic-axes", "x=0,1,2", "--dynamic-axes", "i=0,1", "--dynamic-axes", "v=0")
CASES = [
    case("softmax_private", PrivateSoftmax(), [torch.randn(3, 4, 5), torch.randn(6, dtype=torch.float64)],
         method="script", opsets=(9, 12, 13)),
    case("softmax_private_0d", PrivateSoftmax0d(), [torch.tensor(1.5)], method="script", opsets=(9, 13)),
    case("to_copy", ToCopy(), [torch.randn(3, 4) * 5, ints(3, 4)], method="script"),
    case("native_group_norm", NativeGroupNorm(6, 2, True, 1e-5), [torch.randn(2, 6, 4, 5)], method="script",
         opsets=(9, 13, 17, 18)),
    case("native_group_norm_plain", NativeGroupNorm(6, 3, False, 1e-3), [torch.randn(2, 6, 7) * 3 + 1],
         method="script", opsets=(9, 13, 18)),
    case("native_group_norm_dynamic", NativeGroupNorm(4, 4, True, 1e-5), [torch.randn(2, 4, 3, 5)],
         method="script", opsets=(9, 18), cli_args=("--dynamic-axes", "x=0,2,3"),
         more_inputs=[[torch.randn(3, 4, 2, 7)], [torch.randn(1, 4, 1, 1)]]),
    case("unflatten_runtime", UnflattenRuntime(), [torch.randn(2, 3, 4)], method="script", opsets=(9, 13, 14, 17),
         cli_args=("--dynamic-axes", "x=0,1,2"), more_inputs=[[torch.randn(4, 1, 6)], [torch.randn(1, 5, 2)]]),
    # a dynamic dim that is 0 at run time: an empty axis, exact from 14 (allowzero)
    case("unflatten_runtime_empty", UnflattenRuntimeEmpty(), [torch.randn(2, 3, 4)], method="script", opsets=(14, 17),
         cli_args=("--dynamic-axes", "x=0,1,2"), more_inputs=[[torch.randn(2, 0, 3)], [torch.randn(0, 2, 3)]]),
    case("cumprod_dynamic", CumprodDynamic(), [with_zeros(4, 3, 5), ints(5, 3), with_zeros(6)], method="script",
         opsets=(9, 13, 17, 26), cli_args=DYN,
         more_inputs=[[with_zeros(2, 5, 3), ints(7, 2), with_zeros(1)], [with_zeros(1, 1, 1), ints(1, 4), with_zeros(9)]]),
    # empty at run time: the scanned axis, or another one
    case("cumprod_dynamic_empty", CumprodDynamic(), [with_zeros(4, 3, 5), ints(5, 3), with_zeros(6)], method="script",
         opsets=(9, 17), cli_args=DYN,
         more_inputs=[[with_zeros(0, 5, 3), ints(0, 2), with_zeros(0)], [with_zeros(2, 0, 3), ints(3, 0), with_zeros(2)]]),
]
