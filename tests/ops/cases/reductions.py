# Reductions: sum, mean, prod, amax/amin, max/min (all overloads), argmax/argmin, var/std,
# norms, logsumexp, cumsum, all/any, aminmax.
import torch
import torch.nn.functional as F
from op_case import Fn, case


# Scripted modules can't take lambdas or *args: one class each.
class SumScript(torch.nn.Module):
    def forward(self, x):
        return x.sum([1, 2], keepdim=True) + x.sum(dtype=torch.float64).float()


class MeanScript(torch.nn.Module):
    def forward(self, x):
        return torch.mean(x, -1)


class MaxDimScript(torch.nn.Module):
    def forward(self, x):
        v, i = torch.max(x, 2)
        return v, i, torch.max(x), x.argmax(1)


class StdScript(torch.nn.Module):
    def forward(self, x):
        return torch.std(x, 1), torch.var(x, [0, 2], correction=0), x.var(unbiased=False)


class NormScript(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.vector_norm(x, 2.0, [1]), x.norm(1, dim=0), torch.logsumexp(x, 1)


def x34():
    return [torch.randn(3, 4, 5)]


def ints():
    return [torch.randint(-5, 5, (3, 4), dtype=torch.int64)]


# ReduceSum changes at 13; Reduce* at 18 (beyond the checker's 17).
SUM_OPSETS = (9, 11, 13, 17)

CASES = [
    # sum / mean
    case("sum_all", Fn(lambda x: x.sum()), x34(), opsets=SUM_OPSETS),
    case("sum_dim_keep", Fn(lambda x: x.sum(1, keepdim=True)), x34(), opsets=SUM_OPSETS),
    case("sum_dims_neg", Fn(lambda x: x.sum((0, -1))), x34(), opsets=SUM_OPSETS),
    case("sum_dtype", Fn(lambda x: x.sum(dtype=torch.float64)), x34(), opsets=SUM_OPSETS),
    case("sum_int", Fn(lambda x: x.sum(1)), ints(), opsets=SUM_OPSETS),
    case("sum_bool", Fn(lambda x: (x > 0).sum(0)), x34(), opsets=SUM_OPSETS),
    case("sum_script", SumScript(), x34(), opsets=SUM_OPSETS, method="script"),
    case("mean_all", Fn(lambda x: x.mean()), x34()),
    case("mean_dim", Fn(lambda x: x.mean((1, 2), keepdim=True)), x34()),
    case("mean_script", MeanScript(), x34(), method="script"),
    # prod / amax / amin / logsumexp
    case("prod_all", Fn(lambda x: x.prod()), [torch.rand(3, 4) + 0.5]),
    case("prod_dim", Fn(lambda x: x.prod(1, keepdim=True)), x34()),
    case("prod_int", Fn(lambda x: x.prod(0)), ints()),
    case("amax", Fn(lambda x: x.amax((0, 2))), x34()),
    case("amin_keep", Fn(lambda x: x.amin(-1, keepdim=True)), x34()),
    case("amax_all", Fn(lambda x: x.amax()), x34()),
    case("logsumexp", Fn(lambda x: torch.logsumexp(x, 1)), x34()),
    case("logsumexp_keep", Fn(lambda x: torch.logsumexp(x, (0, 2), keepdim=True)), x34()),
    # max / min
    case("max_all", Fn(lambda x: x.max()), x34()),
    case("min_all_int", Fn(lambda x: x.min()), ints()),
    case("max_dim", Fn(lambda x: x.max(1)), x34()),
    case("min_dim_keep", Fn(lambda x: x.min(-1, keepdim=True)), x34()),
    case("max_dim_script", MaxDimScript(), x34(), method="script"),
    case("max_binary", Fn(lambda x, y: torch.max(x, y)), [torch.randn(3, 4), torch.randn(4)]),
    case("min_binary", Fn(lambda x, y: torch.min(x, y)), [torch.randn(3, 4), torch.randn(3, 1)]),
    case("max_binary_int", Fn(lambda x, y: torch.max(x, y)), ints() + ints(), opsets=(9, 12, 13, 17)),
    case("max_binary_bool", Fn(lambda x, y: torch.max(x > 0, y > 0)), x34() + x34(), opsets=(9, 12, 17)),
    case("min_binary_mixed", Fn(lambda x, y: torch.min(x, y)), ints() + [torch.randn(3, 4)], opsets=(9, 12, 17)),
    case("aminmax", Fn(lambda x: torch.aminmax(x, dim=1)), x34()),
    case("aminmax_all", Fn(lambda x: torch.aminmax(x)), x34()),
    # argmax / argmin
    case("argmax", Fn(lambda x: x.argmax(1)), x34()),
    case("argmin_keep", Fn(lambda x: x.argmin(-1, keepdim=True)), x34()),
    case("argmax_none", Fn(lambda x: x.argmax()), x34()),
    case("argmax_none_keep", Fn(lambda x: x.argmax(keepdim=True)), x34()),
    case("argmin_int", Fn(lambda x: x.argmin(0)), ints()),
    # var / std
    case("var_all", Fn(lambda x: x.var()), x34()),
    case("var_dim_biased", Fn(lambda x: x.var(1, unbiased=False)), x34()),
    case("var_correction", Fn(lambda x: torch.var(x, (0, 2), correction=2, keepdim=True)), x34()),
    case("std_all", Fn(lambda x: x.std(unbiased=False)), x34()),
    case("std_dim", Fn(lambda x: x.std((1, 2), keepdim=True)), x34()),
    case("std_script", StdScript(), x34(), method="script"),
    case("var_mean", Fn(lambda x: torch.var_mean(x, 1)), x34()),
    case("std_mean_keep", Fn(lambda x: torch.std_mean(x, -1, keepdim=True)), x34()),
    # norms
    case("norm_fro_all", Fn(lambda x: x.norm()), x34()),
    case("norm_fro_dim", Fn(lambda x: torch.norm(x, "fro", dim=(1, 2))), x34()),
    case("norm_p1", Fn(lambda x: x.norm(1, dim=1)), x34()),
    case("norm_p2_keep", Fn(lambda x: x.norm(2, dim=-1, keepdim=True)), x34()),
    case("norm_inf", Fn(lambda x: x.norm(float("inf"), dim=1)), x34()),
    case("norm_ninf", Fn(lambda x: x.norm(float("-inf"), dim=1)), x34()),
    case("norm_p3", Fn(lambda x: x.norm(3, dim=2)), x34()),
    case("norm_p0", Fn(lambda x: torch.relu(x).norm(0, dim=2)), x34()),
    case("norm_scalar_p", Fn(lambda x: x.norm(3)), x34()),
    case("vector_norm", Fn(lambda x: torch.linalg.vector_norm(x, 2, dim=(0, 1))), x34()),
    case("vector_norm_all", Fn(lambda x: torch.linalg.vector_norm(x, 1)), x34()),
    case("vector_norm_inf", Fn(lambda x: torch.linalg.vector_norm(x, float("inf"), dim=-1, keepdim=True)), x34()),
    case("norm_script", NormScript(), x34(), method="script"),
    # cumsum (CumSum exists from 11)
    case("cumsum", Fn(lambda x: x.cumsum(1)), x34(), opsets=(11, 13, 17)),
    case("cumsum_neg_dtype", Fn(lambda x: torch.cumsum(x, -1, dtype=torch.float64)), x34(), opsets=(11, 13, 17)),
    case("cumsum_int", Fn(lambda x: x.cumsum(0)), ints(), opsets=(11, 17)),
    case("cumsum_bool", Fn(lambda x: (x > 0).cumsum(1)), x34(), opsets=(11, 17)),
    # all / any
    case("all", Fn(lambda x: (x > -1).all()), x34()),
    case("any_dim", Fn(lambda x: (x > 1).any(1)), x34()),
    case("all_dim_keep", Fn(lambda x: (x > -1).all(2, keepdim=True)), x34()),
    case("any_float", Fn(lambda x: torch.relu(x).any(0)), x34()),
]
