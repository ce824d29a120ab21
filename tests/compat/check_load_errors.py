#!/usr/bin/env python3
"""Loading TorchScript whose saved code calls ops libtorch 1.13 lacks (ctest torch2x.compat_load_errors).

    /usr/bin/python3 tests/compat/check_load_errors.py TORCH2ONNX

Saves a small scripted model with the host's PyTorch 1.13, then writes copies whose code/*.py calls
other ops (as a PyTorch 2.x file would) and runs `TORCH2ONNX check` on each, in a fresh temporary
directory:
  - an op no libtorch has (aten::some_op_from_2_9, as torch.X and as ops.aten.X; prim::…): the
    error is one line naming the op, where the code calls it, and that it comes from a PyTorch newer
    than the libtorch torch2onnx was built with — never libtorch's "Unknown builtin op";
  - a new overload or argument of an op 1.13 has (squeeze over a list of dims, pad_sequence's
    padding_side) with --no-default-libraries: one line naming the op, never libtorch's
    "Arguments for call are not valid" dump;
  - the same calls with the compatibility library (loaded by default): the model loads and its
    example run goes through (check names only conversion problems, never a load error), and
    `verify` of squeeze over a list of dims matches ONNX Runtime.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import torch

LIBTORCH = "libtorch 1.13"


class M(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1


def variant(base, dst, call):
    """A copy of base whose forward computes `call` instead of torch.relu(x)."""
    with zipfile.ZipFile(base) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith(".py") and "/code/" in info.filename:
                assert b"torch.relu(x)" in data
                data = data.replace(b"torch.relu(x)", call.encode())
            zout.writestr(info, data)


def run(exe, model, *extra):
    p = subprocess.run([exe, "check", model, "--input", "float32[2,3,4]", *extra], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr.strip()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    exe = sys.argv[1]
    failures = []
    tmp = tempfile.mkdtemp(prefix="t2o-compat-load-")
    try:
        base = os.path.join(tmp, "base.pt")
        torch.jit.script(M()).save(base)

        def expect_line(name, call, fragments, *extra):
            model = os.path.join(tmp, name + ".pt")
            variant(base, model, call)
            rc, _, err = run(exe, model, *extra)
            lines = err.splitlines()
            problems = []
            if rc == 0:
                problems.append("exit status 0")
            if len(lines) != 1:
                problems.append(f"{len(lines)} lines on stderr")
            for f in fragments:
                if f not in err:
                    problems.append(f"no '{f}'")
            for bad in ("Unknown builtin op", "Arguments for call are not valid", "Expected at most"):
                if bad in err:
                    problems.append(f"libtorch's '{bad}'")
            print(f"{name}: {err}")
            if problems:
                failures.append(f"{name}: {', '.join(problems)}")

        def expect_load(name, call):
            model = os.path.join(tmp, name + ".pt")
            variant(base, model, call)
            rc, out, err = run(exe, model)
            print(f"{name}: exit {rc}: {' | '.join(l.strip() for l in (out + err).strip().splitlines())}")
            # Loaded and typed by the example run: check reports every node as converted, or the op
            # as one no pack converts (the symbolics are another matter).
            if "cannot load TorchScript" in err or not (rc == 0 or "no pack converts it" in out):
                failures.append(f"{name}: does not load with the compatibility library: {err or out}")

        newer = "an op of a PyTorch newer than the libtorch torch2onnx was built with (" + LIBTORCH
        expect_line("unknown_torch_call", "torch.some_op_from_2_9(x)",
                    ["aten::some_op_from_2_9", "code/__torch__.py:8", newer])
        expect_line("unknown_ops_call", "ops.aten.some_op_from_2_9(x)",
                    ["aten::some_op_from_2_9", "code/__torch__.py:8", newer])
        expect_line("unknown_prim", "torch.mul(x, ops.prim.some_prim_from_2_9(x))", ["prim::some_prim_from_2_9", newer])
        expect_line("sdpa_without_library", "torch.scaled_dot_product_attention(x, x, x)",
                    ["aten::scaled_dot_product_attention", newer, "libtorch2onnx_compat.so, is not loaded"],
                    "--no-default-libraries")
        expect_line("squeeze_dims_without_library", "torch.squeeze(x, [0, 1])",
                    ["aten::squeeze", "none of its " + LIBTORCH, "code/__torch__.py:8"], "--no-default-libraries")
        expect_line("pad_sequence_side_without_library", "torch.pad_sequence([x], True, 0., \"left\")",
                    ["aten::pad_sequence", "none of its " + LIBTORCH], "--no-default-libraries")
        expect_load("sdpa_with_library", "torch.scaled_dot_product_attention(x, x, x)")
        expect_load("squeeze_dims_with_library", "torch.squeeze(x, [0, 1])")
        expect_load("pad_sequence_side_with_library", "torch.pad_sequence([x], True, 0., \"left\")")
        expect_load("rms_norm_with_library", "torch.rms_norm(x, [4])")
        # A PyTorch 2.x op the packs already convert: libtorch runs the library's kernel, ONNX Runtime
        # the export, and verify compares them.
        model = os.path.join(tmp, "squeeze_dims_with_library.pt")
        p = subprocess.run([exe, "verify", model, "--input", "float32[1,1,4]"], capture_output=True, text=True,
                           timeout=300)
        print(f"verify squeeze_dims_with_library: exit {p.returncode}: {(p.stdout + p.stderr).strip().splitlines()[-1:]}")
        if p.returncode != 0:
            failures.append(f"verify squeeze_dims_with_library: {p.stdout}{p.stderr}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
