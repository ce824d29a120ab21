# The matmul family: matmul (1-D/2-D/N-D broadcasting), mm, bmm, mv, dot, addmm, baddbmm,
# linear, einsum (Einsum from opset 12), cosine_similarity, F.normalize.
import torch
import torch.nn.functional as F
from op_case import Fn, case


class Linear(torch.nn.Module):
    def __init__(self, bias):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3, bias=bias)

    def forward(self, x):
        return self.lin(x)


class LinearScript(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x, y):
        return self.lin(x), torch.matmul(x, y), torch.addmm(x[0], x, y.t(), beta=0.5, alpha=2.0)


class EinsumScript(torch.nn.Module):
    def forward(self, x, y):
        return torch.einsum("bij,bjk->bik", x, y)


class CosScript(torch.nn.Module):
    def forward(self, x, y):
        return F.cosine_similarity(x, y, dim=-1, eps=1e-6)


def r(*shape):
    return torch.randn(*shape)


CASES = [
    case("matmul_2d", Fn(torch.matmul), [r(3, 4), r(4, 5)]),
    case("matmul_1d_1d", Fn(torch.matmul), [r(4), r(4)]),
    case("matmul_1d_2d", Fn(torch.matmul), [r(4), r(4, 5)]),
    case("matmul_2d_1d", Fn(torch.matmul), [r(3, 4), r(4)]),
    case("matmul_nd_bcast", Fn(torch.matmul), [r(2, 1, 3, 4), r(5, 4, 6)]),
    case("matmul_nd_1d", Fn(torch.matmul), [r(2, 3, 4), r(4)]),
    case("matmul_int", Fn(torch.matmul), [torch.randint(-5, 5, (3, 4)), torch.randint(-5, 5, (4, 2))]),
    case("mm", Fn(torch.mm), [r(3, 4), r(4, 5)]),
    case("bmm", Fn(torch.bmm), [r(2, 3, 4), r(2, 4, 5)]),
    case("mv", Fn(torch.mv), [r(3, 4), r(4)]),
    case("dot", Fn(torch.dot), [r(4), r(4)]),
    case("addmm", Fn(lambda c, a, b: torch.addmm(c, a, b)), [r(3, 5), r(3, 4), r(4, 5)]),
    case("addmm_alpha_beta", Fn(lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2)), [r(5), r(3, 4), r(4, 5)]),
    case("addmm_beta0", Fn(lambda c, a, b: torch.addmm(c, a, b, beta=0)), [r(3, 5), r(3, 4), r(4, 5)]),
    case("baddbmm", Fn(lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=-1.5)),
         [r(2, 3, 5), r(2, 3, 4), r(2, 4, 5)]),
    case("baddbmm_bcast", Fn(lambda c, a, b: torch.baddbmm(c, a, b)), [r(5), r(2, 3, 4), r(2, 4, 5)]),
    case("linear_2d", Linear(True), [r(2, 4)]),
    case("linear_3d", Linear(True), [r(2, 3, 4)]),
    case("linear_nobias", Linear(False), [r(2, 4)]),
    case("linear_1d", Linear(True), [r(4)]),
    case("linear_script", LinearScript(), [r(4, 4), r(4, 4)], method="script"),
    # Einsum exists from opset 12.
    case("einsum_mm_t", Fn(lambda x, y: torch.einsum("ij,kj->ik", x, y)), [r(3, 4), r(5, 4)], opsets=(12, 13, 17)),
    case("einsum_batch", Fn(lambda x, y: torch.einsum("b i j, b j k -> b i k", x, y)), [r(2, 3, 4), r(2, 4, 5)],
         opsets=(12, 17)),
    case("einsum_ellipsis", Fn(lambda x: torch.einsum("...ii->...i", x)), [r(2, 3, 3)], opsets=(12, 17)),
    case("einsum_implicit", Fn(lambda x, y: torch.einsum("ij,jk", x, y)), [r(3, 4), r(4, 5)], opsets=(12, 17)),
    case("einsum_outer_sum", Fn(lambda x, y: torch.einsum("i,j->", x, y)), [r(3), r(4)], opsets=(12, 17)),
    case("einsum_script", EinsumScript(), [r(2, 3, 4), r(2, 4, 5)], opsets=(12, 17), method="script"),
    # cosine_similarity, normalize
    case("cosine_similarity", Fn(lambda x, y: F.cosine_similarity(x, y)), [r(3, 4, 5), r(3, 4, 5)]),
    case("cosine_similarity_bcast", Fn(lambda x, y: F.cosine_similarity(x, y, dim=-1)), [r(3, 4, 5), r(4, 5)]),
    case("cosine_similarity_bcast_dim", Fn(lambda x, y: F.cosine_similarity(x, y, dim=0)), [r(3, 4), r(1, 4)]),
    case("cosine_similarity_script", CosScript(), [r(3, 4), r(3, 4)], method="script"),
    case("normalize", Fn(lambda x: F.normalize(x, dim=1)), [r(3, 4, 5)]),
    case("normalize_p1", Fn(lambda x: F.normalize(x, p=1.0, dim=-1, eps=1e-3)), [r(3, 4)]),
]
