#!/usr/bin/python3
"""Fixtures for `torch2onnx check` and the fallback export modes (Debian's /usr/bin/python3).

    /usr/bin/python3 tests/check/make_check_fixtures.py OUT_DIR

Writes OUT_DIR/several_ops.pt: a traced model with several kinds of unconvertible ops:
  aten::special_bessel_j0 x2 and aten::special_airy_ai x1 (no pack converts them: Bessel and Airy
  functions have no ONNX form and no series here), aten::round x1 (only from opset 11),
  aten::linalg_matrix_norm with ord='nuc' (the symbolic refuses: ONNX has no SVD);
OUT_DIR/custom_ops.pt: a scripted model calling custom ops t2ocheck::op_a (x2) and t2ocheck::op_b
(x1), defined here with torch.library but unknown to torch2onnx (no pack declares them);
OUT_DIR/data_if.pt: a scripted model whose branches on x.dtype and x.dim() fold at export but whose
`if x.sum() > 0` depends on the data (one prim::If that must stay unconvertible);
OUT_DIR/defaults.pt: scripted forward(x, y: Optional[Tensor] = None, scale: float = 2.0);
OUT_DIR/no_default.pt: scripted forward(x, y, z: Optional[Tensor] = None) (y has no default).
"""
import os
import sys
from typing import Optional


def generate(out):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class SeveralOps(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)

        def forward(self, x):
            y = self.conv(x)
            a = torch.special.bessel_j0(y)
            b = torch.special.airy_ai(y)
            c = torch.round(y)
            d = torch.special.bessel_j0(a)
            e = torch.linalg.matrix_norm(y, ord="nuc")  # refused: ONNX has no SVD
            return a + b + c + d, e

    torch.manual_seed(0)
    torch.jit.trace(SeveralOps().eval(), torch.randn(1, 3, 7, 7)).save(os.path.join(out, "several_ops.pt"))

    lib = torch.library.Library("t2ocheck", "DEF")
    lib.define("op_a(Tensor x, float alpha) -> Tensor")
    lib.define("op_b(Tensor x) -> Tensor")
    lib.impl("op_a", lambda x, alpha: x * alpha, "CPU")
    lib.impl("op_b", lambda x: x + 1, "CPU")

    class CustomOps(nn.Module):
        def forward(self, x):
            y = torch.ops.t2ocheck.op_a(x, 2.0)
            y = torch.ops.t2ocheck.op_b(y)
            return torch.relu(torch.ops.t2ocheck.op_a(y, 0.5))

    torch.jit.script(CustomOps()).save(os.path.join(out, "custom_ops.pt"))

    class DataIf(nn.Module):
        def forward(self, x):
            if x.dtype != torch.float32:
                x = x.float()
            if x.dim() != 2:
                x = x.flatten(1)
            if bool(x.sum() > 0):
                return x * 2.0
            return x - 1.0

    torch.jit.script(DataIf()).save(os.path.join(out, "data_if.pt"))

    class LoopBody(nn.Module):
        """An op no pack converts, inside a loop body inside a branch."""

        def forward(self, x):
            if bool(x.sum() > 0):
                # A trip count from the data: the loop stays a loop (a constant one is unrolled).
                for i in range(int(x.abs().sum()) % 3 + 1):
                    x = x + torch.special.bessel_j0(x[0])
            return x

    torch.jit.script(LoopBody()).save(os.path.join(out, "loop_body.pt"))

    class Defaults(nn.Module):
        def forward(self, x, y: Optional[torch.Tensor] = None, scale: float = 2.0):
            if y is None:
                return x * scale
            return x + y

    torch.jit.script(Defaults()).save(os.path.join(out, "defaults.pt"))

    class NoDefault(nn.Module):
        def forward(self, x, y, z: Optional[torch.Tensor] = None):
            return x + y if z is None else x + y + z

    torch.jit.script(NoDefault()).save(os.path.join(out, "no_default.pt"))


def main():
    # Generated once per machine and version of this file, renamed into place when complete (every
    # test process runs this; the others wait for the first, and none reads a half-written archive).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures"))
    import make_fixtures as mf
    out = sys.argv[1]
    mf.generate_once(out, os.path.abspath(__file__), lambda _digest: generate(out))


if __name__ == "__main__":
    main()
