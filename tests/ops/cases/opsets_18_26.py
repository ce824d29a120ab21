# Ops whose ONNX form changes at opsets 18-26 (plugins/opset18 ... opset26): each exported at the
# opset before the change (when an earlier form exists) and at the change.
import torch
import torch.nn.functional as F
from op_case import Fn, case

torch.manual_seed(0)
X = torch.randn(2, 4, 5, 6) * 2
I32 = torch.randint(-100, 100, (3, 4), dtype=torch.int32)
I64 = torch.randint(-2**40, 2**40, (3, 4), dtype=torch.int64)
U8 = torch.randint(0, 255, (3, 4), dtype=torch.uint8)
B = torch.rand(3, 4) > 0.5


class GroupNorm(torch.nn.Module):
    def __init__(self, groups, channels, affine):
        super().__init__()
        self.m = torch.nn.GroupNorm(groups, channels, eps=1e-3, affine=affine)
        if affine:
            torch.nn.init.normal_(self.m.weight)
            torch.nn.init.normal_(self.m.bias)

    def forward(self, x):
        return self.m(x)


# grid in [-1.2, 1.2]: some points fall outside, exercising the padding modes.
GRID2 = torch.rand(2, 3, 5, 2) * 2.4 - 1.2
GRID3 = torch.rand(1, 2, 3, 4, 3) * 2.4 - 1.2
THETA2 = torch.randn(2, 2, 3)
THETA3 = torch.randn(2, 3, 4)

CASES = [
    # 18: BitwiseAnd/Or/Xor/Not on integers (no earlier form for & | ^); bool keeps And/Or/Xor/Not.
    case("bitwise_int32", Fn(lambda a, b: (a & b, a | b, a ^ b, ~a, a & 7, torch.bitwise_xor(a, -3))), [I32, I32.flip(0)],
         opsets=(18,)),
    case("bitwise_int64_uint8", Fn(lambda a, b: (a & a.flip(1), a | 12345, ~a, b ^ b.flip(0), ~b, b & 0x0F)), [I64, U8],
         opsets=(18,)),
    case("bitwise_inplace", Fn(lambda a: a.clone().bitwise_and_(a.flip(0)).bitwise_or_(5)), [I32], opsets=(18,)),
    case("bitwise_not_bool", Fn(lambda a, b: (~a, a & b, a | b, a ^ b, ~(a.int() + 1))),
         [B, B.flip(0)], opsets=(17, 18)),
    # 18: Col2Im for nn.Fold (batched and unbatched, with stride/padding/dilation).
    case("fold", torch.nn.Fold(output_size=(5, 6), kernel_size=(2, 3)), [torch.randn(2, 3 * 2 * 3, 16)], opsets=(18,)),
    case("fold_strided", torch.nn.Fold(output_size=(7, 8), kernel_size=3, dilation=(1, 2), padding=1, stride=2),
         [torch.randn(2, 2 * 9, 4 * 3)], opsets=(18,)),
    case("fold_unbatched", torch.nn.Fold(output_size=(4, 4), kernel_size=2, stride=2), [torch.randn(3 * 4, 4)],
         opsets=(18,)),
    # 18: Mish.
    case("mish", Fn(lambda a: F.mish(a)), [X], opsets=(17, 18)),
    case("mish_double", Fn(lambda a: F.mish(a.double())), [X], opsets=(18,)),  # ORT has no double Softplus
    # 18: Split with num_outputs (equal pieces, the last smaller); other sizes keep the sizes input.
    case("chunk_uneven", Fn(lambda a: torch.chunk(a, 3, dim=3) + torch.chunk(a, 4, dim=1) + torch.split(a, 2, dim=2)),
         [X], opsets=(17, 18)),
    case("split_sizes", Fn(lambda a: torch.split(a, [1, 2, 3], dim=3) + tuple(torch.unbind(a, 1))), [X], opsets=(17, 18)),
    # 18: Reduce* with axes as an input (common/forms.hpp), every reduction the packs emit.
    case("reduce_axes", Fn(lambda a: (a.mean((1, 3)), a.mean(-1, keepdim=True), a.amax(2), a.amin((0, 2), keepdim=True),
                                      a.prod(1), torch.logsumexp(a, 3), a.sum((1, 2)), a.max(1)[0], a.min(dim=2).values,
                                      a.mean(), (a > 0).all(1), (a > 0).any(), torch.norm(a, dim=1), a.norm(p=1, dim=-1),
                                      a.var(2), a.std((1, 3), keepdim=True))),
         [X], opsets=(17, 18, 20)),
    # 18: ScatterElements reduction max/min (scatter_reduce amax/amin; sum/prod as add/mul).
    case("scatter_reduce", Fn(lambda a, i, s: (a.scatter_reduce(1, i, s, "amax"), a.scatter_reduce(1, i, s, "amin"),
                                               a.scatter_reduce(1, i, s, "sum"), a.scatter_reduce(1, i, s, "prod"))),
         [torch.randn(3, 5), torch.randint(0, 5, (3, 4)), torch.randn(3, 6)], opsets=(18,)),
    case("scatter_reduce_exclude_self_mean", Fn(lambda a, i, s: tuple(a.scatter_reduce(0, i, s, red, include_self=inc)
                                                                   for red in ("amax", "amin", "sum", "prod", "mean")
                                                                   for inc in (False, True))),
         [torch.randn(5, 3), torch.randint(0, 5, (4, 3)), torch.randn(4, 3)], opsets=(18,)),
    case("scatter_reduce_int", Fn(lambda a, i, s: tuple(a.scatter_reduce(1, i, s, red, include_self=inc)
                                                     for red in ("amax", "amin", "mean", "sum") for inc in (False, True))),
         [torch.randint(-20, 20, (3, 5)), torch.randint(0, 5, (3, 6)), torch.randint(-20, 20, (3, 6))], opsets=(18,)),
    # 18: GroupNormalization (per-group scale: affine applied after); 21: per-channel scale and bias.
    case("group_norm", GroupNorm(2, 4, True), [X], opsets=(17, 18, 20, 21)),
    case("group_norm_plain_3d", GroupNorm(3, 6, False), [torch.randn(2, 6, 7)], opsets=(17, 18, 21)),
    # 18: Pad with axes (only the padded axes); 19: circular padding is mode wrap.
    case("pad_modes", Fn(lambda a: (F.pad(a, (1, 2)), F.pad(a, (1, 0, 2, 1), value=1.5), F.pad(a, (2, 1, 1, 2), "reflect"),
                                    F.pad(a, (0, 2, 3, 0), "replicate"), F.pad(a, (1, 1, 1, 1, 1, 1), value=-1.0))),
         [X], opsets=(17, 18, 19)),
    case("pad_circular", Fn(lambda a: (F.pad(a, (1, 2, 2, 0), "circular"), F.pad(a[0], (3, 1), "circular"))), [X],
         opsets=(17, 18, 19)),
    # 20: Gelu (both approximations).
    case("gelu", Fn(lambda a: (F.gelu(a), F.gelu(a, approximate="tanh"))), [X], opsets=(17, 20)),
    # 20: GridSample modes renamed (linear/cubic) and 5-D inputs.
    case("grid_sample_modes", Fn(lambda a, g: tuple(F.grid_sample(a, g, mode=m, padding_mode=p, align_corners=c)
                                                    for m in ("bilinear", "nearest", "bicubic")
                                                    for p, c in (("zeros", False), ("border", True), ("reflection", False)))),
         [X, GRID2], opsets=(17, 20)),
    case("grid_sample_3d", Fn(lambda a, g: (F.grid_sample(a, g, align_corners=False),
                                            F.grid_sample(a, g, mode="nearest", padding_mode="border", align_corners=True))),
         [torch.randn(1, 2, 4, 5, 6), GRID3], opsets=(20,)),
    # 20: AffineGrid.
    case("affine_grid", Fn(lambda t2, t3: (F.affine_grid(t2, [2, 3, 5, 7], align_corners=False),
                                           F.affine_grid(t2, [2, 1, 4, 4], align_corners=True),
                                           F.affine_grid(t3, [2, 1, 3, 4, 5], align_corners=False))),
         [THETA2, THETA3], opsets=(20,)),
    # 24: Swish for silu.
    case("silu", Fn(lambda a: F.silu(a)), [X], opsets=(23, 24, 25)),  # 25: back to x*sigmoid(x) (ORT 1.30)
    case("silu_double", Fn(lambda a: F.silu(a.double())), [X], opsets=(24,)),  # ORT fuses x*sigmoid(x) for float only
    # 26: CumProd (integer inputs give int64, as in PyTorch; dtype argument).
    case("cumprod", Fn(lambda a, i: (torch.cumprod(a, 1), torch.cumprod(a, -1), torch.cumprod(i, 0),
                                      torch.cumprod(a, 2, dtype=torch.float64))),
         [torch.rand(2, 3, 4) + 0.5, torch.randint(-3, 4, (4, 3), dtype=torch.int32)], opsets=(26,)),
]

# 18: Resize with antialias (F.interpolate(antialias=True)), down- and upsampling, sizes and scales.
CASES += [
    case("interpolate_antialias", Fn(lambda a: (F.interpolate(a, size=(3, 4), mode="bilinear", antialias=True),
                                                F.interpolate(a, scale_factor=0.5, mode="bilinear", antialias=True),
                                                F.interpolate(a, size=(9, 7), mode="bilinear", antialias=True),
                                                F.interpolate(a, size=(3, 3), mode="bicubic", antialias=True))),
         [torch.randn(1, 2, 8, 10)], opsets=(18,)),
]
