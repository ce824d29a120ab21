# conv_tbc (time, batch, channel convolution) and as_strided with static sizes/strides/offset.
import torch
from op_case import Fn, case


class ConvTbc(torch.nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3, 4, 5))
        self.b = torch.nn.Parameter(torch.randn(5))
        self.pad = pad

    def forward(self, x):
        return torch.conv_tbc(x, self.w, self.b, self.pad)


CASES = [
    case("conv_tbc", ConvTbc(0), [torch.randn(7, 2, 4)]),
    case("conv_tbc_pad", ConvTbc(2), [torch.randn(6, 3, 4)]),
    case("conv_tbc_dynamic", ConvTbc(1), [torch.randn(7, 2, 4)], cli_args=("--dynamic-axes", "x=0,1")),
    case("as_strided", Fn(lambda x: (torch.as_strided(x, (3, 3), (1, 2)), torch.as_strided(x, (2, 2, 2), (6, 1, 3), 1),
                                     x.as_strided((4,), (5,)), torch.as_strided(x, (), ()),
                                     torch.as_strided(x + 1, (2, 3), (3, 1), 4))),
         [torch.randn(4, 5)]),
]
