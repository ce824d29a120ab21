#!/usr/bin/env python3
"""torch2onnx.export() under PyTorch 2.x: the Python half of ctest python_export.torch2.* (run.sh), run
inside a root of scripts/torch2x_env.sh (PyTorch 2.6 or 2.14).

    bash scripts/torch2x_env.sh run -o WORK tests/python_export/make_programs.py WORK

The host's torch2onnx cannot run in the root, so export() is given `torch2onnx=fake_torch2onnx.py`,
which captures the .pt2 and the argument list export() ran it with into WORK/CASE/ (model.pt2,
argv.json); the host half (check_onnx.py) converts them with the real program and compares the ONNX
model in ONNX Runtime with PyTorch's outputs written here (meta.json, in<i>.bin, out<i>.bin and, for
dynamic dims, sizes<k>/ at other sizes: tests/ort/compare.js's layout). WORK/index.json lists the cases
with the options export() was given. Checked here, in each PyTorch: export() runs torch.export and
returns its ExportedProgram, takes an ExportedProgram as it is, removes its temporary .pt2, turns the
program's warning lines into ExportWarning at the caller's line and its error line into ExportError,
finds the program through TORCH2ONNX, and refuses what torch.export refuses in one line."""
import inspect
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
import torch  # noqa: E402
from torch import nn  # noqa: E402

import torch2onnx  # noqa: E402

WORK = os.path.abspath(sys.argv[1])
STUB = os.path.join(HERE, "fake_torch2onnx.py")
DTYPES = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool"}
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def flat(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flat(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat(v)]
    raise TypeError(type(value))


def write_io(d, inputs, outputs, dims=None):
    os.makedirs(d, exist_ok=True)
    meta = {"rtol": 1e-4, "inputs": [], "outputs": []}
    if dims:
        meta["dims"] = dims
    for kind, tensors in (("in", inputs), ("out", outputs)):
        for i, t in enumerate(tensors):
            name = f"{kind}{i}.bin"
            t = t.detach().contiguous()
            data = (t.to(torch.uint8) if t.dtype == torch.bool else t).numpy().tobytes()
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
            meta["inputs" if kind == "in" else "outputs"].append(
                {"file": name, "dtype": DTYPES[t.dtype], "shape": list(t.shape)})
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def call_export(name, model, args, **options):
    """export() through the stand-in; WORK/NAME/ receives the capture. Returns (program, warnings)."""
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    os.environ["T2O_PYEXPORT_CAPTURE"] = d
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        program = torch2onnx.export(model, args, os.path.join(d, "model.onnx"), torch2onnx=STUB, **options)
    return program, seen


def check_capture(name, program, seen):
    d = os.path.join(WORK, name)
    expect(isinstance(program, torch.export.ExportedProgram), f"{name}: export() returns the ExportedProgram")
    ours = [w for w in seen if issubclass(w.category, torch2onnx.ExportWarning)]
    expect(len(ours) == 1 and str(ours[0].message) == "stand-in for torch2onnx: the program was captured"
           and os.path.abspath(ours[0].filename) == os.path.abspath(__file__),
           f"{name}: the program's warning line is one ExportWarning at the caller's line "
           f"({[(str(w.message), w.filename) for w in ours]})")
    with open(os.path.join(d, "argv.json")) as f:
        argv = json.load(f)
    expect(os.path.isfile(os.path.join(d, "model.pt2")), f"{name}: the .pt2 was captured")
    expect(not os.path.exists(os.path.dirname(argv[2])), f"{name}: the temporary directory is gone")
    return argv


CASES = []


def case(name, kind, options, sizes=0, **extra):
    entry = {"name": name, "kind": kind, "options": options, "sizes": sizes}
    entry.update(extra)
    CASES.append(entry)


# --- models ----------------------------------------------------------------------------------------
class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(h, 1), 1))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(16)
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 16)

    def forward(self, x):
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln(x))))


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x, y, mask=None):
        h = self.fc(x) + y
        return h.relu(), (h.masked_fill(~mask, 0.0).sum(-1), torch.cat([x, y], -1))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.tanh(self.fc(x)) + x


class Blocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()

    def forward(self, x):
        return self.b(self.a(x)).softmax(-1)


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count.add_(1)
        return x * self.count


@torch.library.custom_op("t2o_pyexport::scale_shift", mutates_args=())
def scale_shift(x: torch.Tensor, s: float) -> torch.Tensor:
    return x * s + 1


@scale_shift.register_fake
def _(x, s):
    return torch.empty_like(x)


class UsesCustomOp(nn.Module):
    def forward(self, x):
        return scale_shift(x, 2.0).relu()


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


def source_line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def main():
    print(f"torch {torch.__version__}", flush=True)
    os.makedirs(WORK, exist_ok=True)
    g = torch.Generator().manual_seed(0)

    def randn(*shape):
        return torch.randn(*shape, generator=g)

    # static: a CNN with BatchNorm (running statistics) in eval mode; names given
    m = Cnn().eval()
    with torch.no_grad():
        m.bn.running_mean.copy_(randn(4) * 0.1)
        m.bn.running_var.copy_(torch.rand(4, generator=g) + 0.5)
    x = randn(2, 3, 8, 8)
    options = {"input_names": ["image"], "output_names": ["logits"]}
    program, seen = call_export("static_cnn", m, (x,), **options)
    check_capture("static_cnn", program, seen)
    with torch.no_grad():
        write_io(os.path.join(WORK, "static_cnn"), [x], [m(x)])
    case("static_cnn", "model", options)

    # dynamic batch (torch.export.Dim), a single tensor as args, opset 18
    m = Encoder().eval()
    x = randn(3, 5, 16)
    batch = torch.export.Dim("batch", min=1, max=8)
    options = {"opset_version": 18}
    program, seen = call_export("dynamic_batch", m, x, dynamic_shapes={"x": {0: batch}}, **options)
    check_capture("dynamic_batch", program, seen)
    d = os.path.join(WORK, "dynamic_batch")
    with torch.no_grad():
        write_io(d, [x], [m(x)], {"batch": 3})
        for k, b in enumerate((1, 6), 1):
            xs = randn(b, 5, 16)
            write_io(os.path.join(d, f"sizes{k}"), [xs], [m(xs)], {"batch": b})
    case("dynamic_batch", "model", options, sizes=2)

    # a nested tuple output, two positional inputs and a keyword one (kwargs=), weights outside
    m = TwoHeads().eval()
    x, y, mask = randn(3, 6), randn(3, 4), randn(3, 4) > 0
    options = {"output_names": ["relu", "masked_sum", "joined"], "external_data": True}
    program, seen = call_export("tuple_output", m, (x, y), kwargs={"mask": mask}, **options)
    check_capture("tuple_output", program, seen)
    with torch.no_grad():
        write_io(os.path.join(WORK, "tuple_output"), [x, y, mask], flat(m(x, y, mask=mask)))
    case("tuple_output", "model", options, external_data=True)

    # an ExportedProgram made by the caller (dynamic rows), converted as it is; modules as functions
    m = Blocks().eval()
    x = randn(4, 8)
    rows = torch.export.Dim("rows", min=2, max=16)
    ep = torch.export.export(m, (x,), dynamic_shapes={"x": {0: rows}}, strict=False)
    options = {"opset_version": 15, "export_modules_as_functions": True}
    program, seen = call_export("exported_program", ep, (), **options)
    check_capture("exported_program", program, seen)
    expect(program is ep, "exported_program: the ExportedProgram given is the one converted")
    d = os.path.join(WORK, "exported_program")
    with torch.no_grad():
        write_io(d, [x], [m(x)], {"rows": 4})
        xs = randn(9, 8)
        write_io(os.path.join(d, "sizes1"), [xs], [m(xs)], {"rows": 9})
    case("exported_program", "model", options, sizes=1)

    # a buffer written in forward(): torch2onnx warns, naming it (what it then exports for the new
    # value is tests/pt2's to check; here only that the warning reaches Python)
    m = Counter().eval()
    x = randn(2, 3)
    program, seen = call_export("buffer_write", m, (x,))
    check_capture("buffer_write", program, seen)
    case("buffer_write", "warning", {}, expect_warning="'count'")

    # a custom op no pack converts: torch2onnx refuses it, naming the op and this file's line
    m = UsesCustomOp().eval()
    x = randn(2, 3)
    program, seen = call_export("custom_op", m, (x,))
    check_capture("custom_op", program, seen)
    line = source_line(UsesCustomOp.forward, "scale_shift(")
    case("custom_op", "error", {}, expect_error=["t2o_pyexport::scale_shift", f"make_programs.py:{line}"])

    # --- refusals and finding the program, here ---------------------------------------------------
    os.environ["T2O_PYEXPORT_CAPTURE"] = os.path.join(WORK, "scratch")
    os.makedirs(os.environ["T2O_PYEXPORT_CAPTURE"], exist_ok=True)
    f = os.path.join(WORK, "unused.onnx")
    try:
        torch2onnx.export(DataDependent().eval(), (randn(3),), f, torch2onnx=STUB)
        expect(False, "torch.export's refusal (a branch on a value) raises ExportError")
    except torch2onnx.ExportError as e:
        msg = str(e)
        expect(msg.startswith("torch.export.export: ") and "\n" not in msg and e.__cause__ is not None,
               f"torch.export's refusal is one line, its exception the cause: {msg}")
    os.environ["T2O_PYEXPORT_FAIL"] = "{pt2}: the stand-in refuses this model"
    try:
        torch2onnx.export(Cnn().eval(), (randn(1, 3, 4, 4),), f, torch2onnx=STUB)
        expect(False, "the program's error line raises ExportError")
    except torch2onnx.ExportError as e:
        expect(str(e) == "the stand-in refuses this model" and e.returncode == 1,
               f"the program's error line is the ExportError's message, without its prefix and the "
               f"temporary .pt2's name: {e}")
    del os.environ["T2O_PYEXPORT_FAIL"]
    try:
        torch2onnx.export(Cnn().eval(), (randn(1, 3, 4, 4),), f, torch2onnx=os.path.join(WORK, "no-such-program"))
        expect(False, "a torch2onnx= that is no program raises ExportError")
    except torch2onnx.ExportError as e:
        expect("no-such-program" in str(e) and "is not an executable file" in str(e), f"torch2onnx= missing: {e}")
    os.environ["TORCH2ONNX"] = STUB  # no argument: the environment variable
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch2onnx.export(Cnn().eval(), (randn(1, 3, 4, 4),), f)
    del os.environ["TORCH2ONNX"]
    expect(any(issubclass(w.category, torch2onnx.ExportWarning) for w in seen), "TORCH2ONNX names the program")
    try:
        torch2onnx.export(ep, (), f, dynamic_shapes={"x": {0: rows}}, torch2onnx=STUB)
        expect(False, "dynamic_shapes with an ExportedProgram is refused")
    except ValueError as e:
        expect("ExportedProgram" in str(e), f"dynamic_shapes with an ExportedProgram: {e}")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch2onnx.export(Cnn().train(), (randn(2, 3, 4, 4),), f, torch2onnx=STUB)
    expect(any("training mode" in str(w.message) for w in seen), "a model in training mode: a warning")
    for bad, what in (({"opset_version": "17"}, TypeError), ({"input_names": "x"}, TypeError),
                      ({"output_names": ["a,b"]}, ValueError)):
        try:
            torch2onnx.export(Cnn().eval(), (randn(1, 3, 4, 4),), f, torch2onnx=STUB, **bad)
            expect(False, f"{bad} refused")
        except what:
            expect(True, f"{bad}: {what.__name__}")

    with open(os.path.join(WORK, "index.json"), "w") as fh:
        json.dump({"torch": torch.__version__, "cases": CASES, "failures": failures}, fh, indent=1)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)


if __name__ == "__main__":
    main()
