# Matrix and dispatching norms: linalg_matrix_norm ('fro', 1, -1, inf, -inf over any two dims),
# linalg_norm (vector or matrix by ord/dim), torch.norm(p='fro') over two dims. (Vector norms:
# reductions.py. 'nuc' and ord +-2 need an SVD ONNX lacks: refused.)
import torch
from op_case import Fn, case


class MatrixNormScript(torch.nn.Module):
    def forward(self, x):
        return (torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, 1.0, dim=(0, 2)),
                torch.linalg.norm(x, dim=1), torch.linalg.norm(x, float("inf"), dim=(2, 1), keepdim=True))


INF = float("inf")


def x345():
    return [torch.randn(3, 4, 5)]


def x45():
    return [torch.randn(4, 5)]


CASES = [
    case("matrix_fro", Fn(lambda x: torch.linalg.matrix_norm(x)), x345()),
    case("matrix_fro_keep", Fn(lambda x: torch.linalg.matrix_norm(x, "fro", dim=(0, 2), keepdim=True)), x345()),
    case("matrix_1", Fn(lambda x: torch.linalg.matrix_norm(x, 1)), x345()),
    case("matrix_neg1_dims", Fn(lambda x: torch.linalg.matrix_norm(x, -1, dim=(2, 0))), x345()),
    case("matrix_inf_keep", Fn(lambda x: torch.linalg.matrix_norm(x, INF, keepdim=True)), x345()),
    case("matrix_ninf", Fn(lambda x: torch.linalg.matrix_norm(x, -INF, dim=(-1, 0))), x345()),
    case("matrix_dtype", Fn(lambda x: torch.linalg.matrix_norm(x, 1, dtype=torch.float64)), x45()),
    case("norm_default", Fn(lambda x: torch.linalg.norm(x)), x345()),
    case("norm_vector_dim", Fn(lambda x: torch.linalg.norm(x, 3, dim=-1)), x345()),
    case("norm_vector_1d", Fn(lambda x: torch.linalg.norm(x[0, 0], INF)), x345()),
    case("norm_two_dims", Fn(lambda x: torch.linalg.norm(x, dim=(0, 1), keepdim=True)), x345()),
    case("norm_matrix_2d", Fn(lambda x: torch.linalg.norm(x, 1)), x45()),
    case("norm_matrix_fro", Fn(lambda x: torch.linalg.norm(x, "fro", dim=(1, 2))), x345()),
    case("norm_matrix_ninf", Fn(lambda x: torch.linalg.norm(x, -INF, dim=(0, 2))), x345()),
    case("torch_norm_fro_dims", Fn(lambda x: torch.norm(x, p="fro", dim=(0, 2), keepdim=True)), x345()),
    case("script", MatrixNormScript(), x345(), method="script"),
]
