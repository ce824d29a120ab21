# &, |, ^ (and bitwise_and/or/xor, in-place) on integer tensors of every width, decomposed below
# opset 18 (from opset 11); bool operands still go to And/Or/Xor.
import torch
from op_case import Fn, case

OPSETS = (11, 13, 17)


class Ops(torch.nn.Module):
    def forward(self, a, b):
        c = a.clone()
        c &= b
        return (a & b, a | b, a ^ b, torch.bitwise_and(a, b), torch.bitwise_or(a, 5), torch.bitwise_xor(a, -3),
                a & 12, c, a[0] | b)


def ints(dtype, lo, hi):
    return torch.randint(lo, hi, (3, 4), dtype=dtype)


CASES = [
    case("int64", Ops(), [torch.tensor([[5, -1, 0, 123456789012], [-(2 ** 63), 2 ** 63 - 1, 7, -8], [3, 3, -3, 1]]),
                          torch.tensor([[3, 7, -1, -987654321], [-1, -2 ** 62, 12, 15], [5, -6, 2, 0]])], opsets=OPSETS),
    case("int32", Ops(), [ints(torch.int32, -2 ** 31, 2 ** 31 - 1), ints(torch.int32, -2 ** 31, 2 ** 31 - 1)], opsets=OPSETS),
    case("int16", Ops(), [ints(torch.int16, -2 ** 15, 2 ** 15 - 1), ints(torch.int16, -2 ** 15, 2 ** 15 - 1)], opsets=OPSETS),
    case("int8", Ops(), [ints(torch.int8, -128, 127), ints(torch.int8, -128, 127)], opsets=OPSETS),
    case("uint8", Fn(lambda a, b: (a & b, a | b, a ^ b, a ^ 255)), [ints(torch.uint8, 0, 255), ints(torch.uint8, 0, 255)],
         opsets=OPSETS),
    case("broadcast_mixed", Fn(lambda a, b: (a & b, b | a, a ^ b)),
         [torch.randint(-100, 100, (2, 3, 4)), torch.randint(-100, 100, (4,), dtype=torch.int32)], opsets=OPSETS),
    case("bool", Fn(lambda a, b: (a & b, a | b, a ^ b, torch.logical_and(a, b))), [torch.rand(3, 4) > 0.5, torch.rand(4) > 0.5],
         opsets=OPSETS),
]
