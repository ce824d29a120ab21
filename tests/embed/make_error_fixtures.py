#!/usr/bin/python3
"""Models whose export fails inside libtorch, for the error-line tests (tests/embed/test_embed.cpp).

    /usr/bin/python3 tests/embed/make_error_fixtures.py OUT_DIR

Writes OUT_DIR/quantized_load.pt: a module whose __setstate__ packs its weight with
quantized::linear_prepack, as quantized modules' do, but from a float tensor, so torch.jit.load fails
inside the TorchScript interpreter (libtorch's message opens with "The following operation failed in
the TorchScript interpreter." and a traceback; the reason is its last RuntimeError line).
OUT_DIR/matmul.pt: a scripted model whose forward multiplies its two arguments (torch.mm), exported
with shapes that do not multiply, so the example run fails in the interpreter.
"""
import os
import sys
from typing import Tuple

import torch


class QuantizedLoad(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.randn(4, 4)

    def forward(self, x):
        return x + self.w

    @torch.jit.export
    def __getstate__(self):
        return (self.w, self.training)

    @torch.jit.export
    def __setstate__(self, state: Tuple[torch.Tensor, bool]):
        self.w = state[0]
        self.training = state[1]
        self.w = torch.ops.quantized.linear_unpack(torch.ops.quantized.linear_prepack(state[0], None))[0]


class MatMul(torch.nn.Module):
    def forward(self, a, b):
        c = a * 2
        return torch.mm(c, b)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, module in (("quantized_load", QuantizedLoad()), ("matmul", MatMul())):
        tmp = os.path.join(out, name + ".pt.tmp")
        torch.jit.script(module).save(tmp)
        os.replace(tmp, os.path.join(out, name + ".pt"))


if __name__ == "__main__":
    main()
