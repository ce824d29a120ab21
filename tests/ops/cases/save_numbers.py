# torch2onnx.save on models that return Python numbers or lists of them, or call .item() / .tolist()
# (PyTorch's test_item, test_prim_min, test_tolist, test_uninitialized_intList in
# test/onnx/test_pytorch_onnx_onnxruntime.py). Tracing cannot record a TorchScript module's int or list
# result ("Tracer cannot set value trace for type Int"): save() keeps such a module's TorchScript as it
# is, and the export returns an int as a 0-d int64 tensor, a float as a 0-d float64 one, a bool as a
# 0-d bool, a list of numbers as one 1-D tensor (its length known only at run time too), as torch.onnx
# returns them (tests/fixtures/make_fixtures.py flattens PyTorch's outputs the same way).
from typing import List, Tuple

import torch
from torch import Tensor
from op_case import case


class Item(torch.nn.Module):  # test_item (its `i` an argument with a default here: the inputs are tensors)
    def forward(self, x, y, i: int = 3):
        return int(x[y[i]].item())


class ItemFloat(torch.nn.Module):  # a Python float: float64, as PyTorch's
    def forward(self, x):
        return x.sum().item() * 0.1


class ToList(torch.nn.Module):  # test_tolist
    def forward(self, input):
        res: List[int] = input.tolist()
        return res


class ToListBool(torch.nn.Module):
    def forward(self, x):
        res: List[bool] = (x > 0).tolist()
        return res


@torch.jit.script
def list_append(boxes: List[Tensor]):
    temp = []
    for i, b in enumerate(boxes):  # enumerate: a prim::min in the graph
        temp.append(torch.full_like(b[:, 1], i))
    return temp[0]


class Min(torch.nn.Module):  # test_prim_min (traced; the scripted function returns a tensor)
    def forward(self, x):
        boxes = [x for _ in range(3)]
        return list_append(boxes)


class MinInt(torch.nn.Module):  # test_prim_min's second model
    def forward(self, x):
        i = 3
        return min(x[i], i)


class UninitializedList(torch.nn.Module):  # test_uninitialized_intList
    def forward(self, x):
        y = list(range(x.size(0)))
        if y[0] < 5:
            if x.size(0) == 3:
                y.append(10)
        else:
            y.append(11)
        return y


class Mixed(torch.nn.Module):  # tensors and numbers together, flattened in order
    def forward(self, x) -> Tuple[Tensor, int, List[int], bool]:
        n = int(x.sum().item())
        return x * 2, x.size(0) + n, [x.size(1), n, 7], bool(n > 0)


S = torch.jit.script
X6 = torch.arange(6, dtype=torch.float)
IDX = torch.tensor([0, 1, 2, 3, 4], dtype=torch.long)

CASES = [
    case("item", S(Item()), [X6, IDX], save="torch2onnx",
         more_inputs=[[torch.arange(6, dtype=torch.float) * 2.5, torch.tensor([5, 4, 3, 1, 0])]]),
    case("item_float", S(ItemFloat()), [torch.randn(3, 4)], save="torch2onnx", rtol=1e-6,
         more_inputs=[[torch.randn(3, 4)]]),
    case("tolist", S(ToList()), [torch.randint(100, (1,))], save="torch2onnx",
         more_inputs=[[torch.randint(100, (1,))]]),
    case("tolist_3", S(ToList()), [torch.randint(-50, 50, (3,))], save="torch2onnx",
         more_inputs=[[torch.randint(-50, 50, (3,))]]),
    case("tolist_bool", S(ToListBool()), [torch.randn(4)], save="torch2onnx", more_inputs=[[torch.randn(4)]]),
    case("prim_min", Min(), [torch.rand(5, 5)], opsets=(11, 13, 17), save="torch2onnx"),
    case("prim_min_int", S(MinInt()), [torch.arange(6, dtype=torch.int64)], save="torch2onnx",
         more_inputs=[[torch.tensor([9, 8, 7, 1, 5, 4])]]),
    # the list's length follows x.size(0) (a sequence inside, carried by the loop from opset 13): another
    # size, another branch
    case("uninitialized_int_list", S(UninitializedList()), [torch.ones((3, 4), dtype=torch.int)], opsets=(13, 17),
         save="torch2onnx", cli_args=("--dynamic-axes", "x=0,1"),
         more_inputs=[[torch.ones((2, 4), dtype=torch.int)], [torch.ones((7, 3), dtype=torch.int)]]),
    case("mixed", S(Mixed()), [torch.randn(3, 4) + 1], save="torch2onnx", more_inputs=[[torch.randn(3, 4) - 1]]),
]
