# Optional[Tensor] values decided at run time in scripted models (torch.onnx 1.13's form, which it writes from opset 15; ONNX Runtime loads it from 16): an
# If/Loop output that is None on one path is an ONNX optional (Optional, with a `type` attribute for
# the empty one), `is None` / `is not None` OptionalHasElement, the refinement to Tensor
# (prim::unchecked_cast) OptionalGetElement. Each model runs on inputs that take the None path and on
# inputs that take the tensor path (more_inputs). Below opset 16: tests/refusals (optional_if).
from typing import Optional

import torch
from op_case import case

torch.manual_seed(0)

OPSETS = (16, 18)  # If/Loop/Identity carry optionals from 16 (If-13 with optionals does not load in ONNX Runtime); OptionalHasElement/GetElement-18


class IsNone(torch.nn.Module):
    """The brief's second model: `y` is None unless the sum is positive."""

    def forward(self, x):
        y: Optional[torch.Tensor] = None
        if bool(x.sum() > 0):
            y = x * 2
        if y is None:
            return x
        return y


class IsNotNone(torch.nn.Module):
    def forward(self, x):
        y: Optional[torch.Tensor] = None
        if bool(x.sum() > 0):
            y = x * 2
        if y is not None:
            return y + 3
        return x - 1


class FlagInput(torch.nn.Module):
    """The condition is a run-time bool input; the optional crosses a second If unchanged."""

    def forward(self, x, flag):
        y: Optional[torch.Tensor] = None
        if bool(flag):
            y = x * 2
        z: Optional[torch.Tensor] = y
        if bool(x.mean() > 10):  # never taken: z stays y, passed through an If as an optional
            z = x
        out = x + 1
        if z is not None:
            out = out + z
        return out


class NoneInThen(torch.nn.Module):
    """None in the then-branch, an int64 tensor of another shape in the else-branch."""

    def forward(self, x):
        idx: Optional[torch.Tensor] = None
        if bool(x.sum() > 0):
            idx = None
        else:
            idx = torch.argmax(x, dim=1)
        if idx is None:
            return x.sum(1)
        return idx.to(torch.float32)


class LoopCarried(torch.nn.Module):
    """None on entry, a tensor after the first iteration; the trip count from data (0 keeps None)."""

    def forward(self, x, n):
        y: Optional[torch.Tensor] = None
        for _ in range(int(n.sum())):
            if y is None:
                y = x
            else:
                y = y * 2 + x
        if y is None:
            return x * 0 - 1
        return y


class Decided(torch.nn.Module):
    """A condition known at export time (a static size): the optional folds away, no ONNX optional."""

    def forward(self, x):
        y: Optional[torch.Tensor] = None
        if x.size(0) > 1:
            y = x.relu()
        if y is None:
            return x
        return y + 1


NEG = torch.randn(3, 4).abs().neg()
POS = torch.randn(3, 4).abs()

CASES = [
    case("is_none", IsNone(), [NEG], opsets=OPSETS, method="script", more_inputs=[[POS]]),
    case("is_not_none", IsNotNone(), [POS], opsets=OPSETS, method="script", more_inputs=[[NEG]]),
    case("flag_input", FlagInput(), [torch.randn(2, 5), torch.tensor(True)], opsets=OPSETS, method="script",
         more_inputs=[[torch.randn(2, 5), torch.tensor(False)]]),
    case("none_in_then", NoneInThen(), [NEG], opsets=OPSETS, method="script", more_inputs=[[POS]]),
    case("loop_carried", LoopCarried(), [torch.randn(2, 3), torch.tensor([2, 1])], opsets=OPSETS, method="script",
         more_inputs=[[torch.randn(2, 3), torch.tensor([0, 0])], [torch.randn(2, 3), torch.tensor([1, 0])]]),
    case("decided", Decided(), [torch.randn(3, 4)], opsets=(9, 15), method="script"),
]
