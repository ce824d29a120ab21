#!/usr/bin/python3
"""A model with a complex64 input (Debian's /usr/bin/python3).

    /usr/bin/python3 tests/patterns/make_complex_input_fixture.py OUT_DIR

Writes OUT_DIR/model.pt and a compare.js fixture whose input is the (real, imaginary) pairs of the
complex input, float32 [4, 8, 2], as the exported model takes it, and PyTorch's outputs.
"""
import json
import os
import sys

import torch


class ComplexInput(torch.nn.Module):
    def forward(self, z):
        return torch.view_as_real(torch.fft.ifft(z, norm="ortho")), z.abs(), z.imag


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    z = torch.randn(4, 8, dtype=torch.complex64)
    model = torch.jit.trace(ComplexInput().eval(), (z,))
    model.save(os.path.join(out, "model.pt"))
    outputs = torch.jit.load(os.path.join(out, "model.pt"))(z)
    torch.view_as_real(z).contiguous().numpy().tofile(os.path.join(out, "input_0.bin"))
    meta = {"inputs": [{"file": "input_0.bin", "dtype": "float32", "shape": [4, 8, 2]}], "outputs": [], "rtol": 1e-4}
    for k, y in enumerate(outputs):
        y.contiguous().numpy().tofile(os.path.join(out, f"expected_{k}.bin"))
        meta["outputs"].append({"file": f"expected_{k}.bin", "dtype": "float32", "shape": list(y.shape)})
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    main()
