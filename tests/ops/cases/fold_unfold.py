# nn.Unfold (aten::im2col) and nn.Fold (aten::col2im): kernel, dilation, padding, stride; batched
# and unbatched; Fold(Unfold(x)) round trips.
import torch
import torch.nn.functional as F
from op_case import Fn, case


def f(*shape):
    return torch.randn(*shape)


class Unfold(torch.nn.Module):
    def forward(self, x):
        return (F.unfold(x, 2), F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                F.unfold(x, 3, padding=(0, 2), stride=2), torch.nn.Unfold(1)(x))


class Fold(torch.nn.Module):
    def forward(self, a, b, c):
        return (F.fold(a, (4, 5), 2), F.fold(b, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                F.fold(c, (6, 7), 3, padding=(0, 2), stride=2))


CASES = [
    case("unfold", Unfold(), [f(2, 3, 5, 6)]),
    case("unfold_unbatched", Fn(lambda x: F.unfold(x, (3, 2), padding=(1, 0), stride=(1, 2))), [f(3, 5, 6)]),
    case("unfold_dynamic_batch", Fn(lambda x: F.unfold(x, 2, stride=2)), [f(2, 3, 4, 6)],
         cli_args=("--dynamic-axes", "input=0,1")),
    case("fold", Fold(), [f(2, 12, 12), f(2, 18, 12), f(1, 18, 10)]),
    case("fold_unbatched", Fn(lambda x: F.fold(x, (5, 5), 3, stride=2, padding=1)), [f(18, 9)]),
    case("fold_unfold", Fn(lambda x: F.fold(F.unfold(x, 3, padding=1, dilation=2, stride=(1, 2)), (6, 7), 3,
                                            padding=1, dilation=2, stride=(1, 2))), [f(2, 3, 6, 7)]),
]
