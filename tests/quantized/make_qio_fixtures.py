#!/usr/bin/python3
"""Fixtures of quantized tensors at the graph boundary (run with Debian's /usr/bin/python3, torch 1.13).

    /usr/bin/python3 tests/quantized/make_qio_fixtures.py OUT_DIR --all
    /usr/bin/python3 tests/quantized/make_qio_fixtures.py --list

Writes OUT_DIR/NAME/: model.pt, meta.json and the arrays tests/ort/compare.js reads, twice: at the
example inputs (NAME/) and at a second set on another grid (NAME/second/), both compared with PyTorch.
A quantized input is fed as torch.onnx 1.13's verification feeds it (torch.onnx.utils.
unpack_quantized_tensor): NAME_value (uint8/int8, int_repr), NAME_scale (float64, 0-d) and
NAME_zero_point (int64, 0-d), by name; a quantized result is compared as it unpacks PyTorch's for the
comparison: int_repr, scale (float32, 0-d) and zero point (0-d, the integer type). Integer values of a
result computed in float by ONNX Runtime and in integers by qnnpack may differ by one step ("int_atol" 1
for conv/linear/add/mul); relu, pooling and quantize_per_tensor match exactly.
With "saved": the model is saved by torch2onnx.save with quantized example tensors, and exported
without --input. "dequantized": the --dequantized-io form (float32 inputs and results of the
dequantized values).
Regenerated only when this file changes.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "python"))

INT_ATOL = 1


def _models():
    import torch
    import torch.nn as nn
    import torch.nn.quantized as nnq

    torch.backends.quantized.engine = "qnnpack"

    class Conv(nn.Module):
        def __init__(self, per_channel=False):
            super().__init__()
            torch.manual_seed(3)
            self.conv = nnq.Conv2d(3, 4, 3, padding=1)
            w = torch.randn(4, 3, 3, 3) * 0.3
            if per_channel:
                qw = torch.quantize_per_channel(w, torch.tensor([0.01, 0.02, 0.015, 0.008], dtype=torch.double),
                                                torch.zeros(4, dtype=torch.long), 0, torch.qint8)
            else:
                qw = torch.quantize_per_tensor(w, 0.01, 0, torch.qint8)
            self.conv.set_weight_bias(qw, torch.randn(4) * 0.1)
            self.conv.scale, self.conv.zero_point = 0.05, 120

        def forward(self, x):
            return self.conv(x)

    class Linear(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(4)
            self.fc = nnq.Linear(8, 5)
            self.fc.set_weight_bias(torch.quantize_per_tensor(torch.randn(5, 8) * 0.3, 0.01, 0, torch.qint8),
                                    torch.randn(5) * 0.1)
            self.fc.scale, self.fc.zero_point = 0.04, 110

        def forward(self, x):
            return self.fc(x)

    class Binary(nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.kind = kind
            self.f = nnq.QFunctional()
            self.f.scale, self.f.zero_point = 0.06, 100

        def forward(self, x, y):
            return self.f.add(x, y) if self.kind == "add" else self.f.mul(x, y)

    class Relu(nn.Module):
        def forward(self, x):
            return torch.relu(x)

    class Pool(nn.Module):  # an ATen op PyTorch runs on the quantized tensor: its result keeps x's grid
        def forward(self, x):
            return torch.nn.functional.avg_pool2d(x, 2)

    class Quantize(nn.Module):
        def __init__(self, dtype):
            super().__init__()
            self.dtype = dtype

        def forward(self, x):
            if self.dtype == torch.quint8:
                return torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)
            return torch.quantize_per_tensor(x, 0.04, -3, torch.qint8)

    class Both(nn.Module):  # a quantized argument and results of both kinds
        def __init__(self):
            super().__init__()
            self.conv = Conv()

        def forward(self, x):
            # the conv's integer result may be a step off in ONNX Runtime: requantized on a coarser grid,
            # it stays within a step; the float result is the argument's values, exact
            y = self.conv(x).dequantize()
            return torch.quantize_per_tensor(torch.relu(y), 0.1, 0, torch.quint8), x.dequantize() * 2

    class Dequantize(nn.Module):
        def forward(self, x):
            return x.dequantize() * 2

    class PerChannel(nn.Module):
        def forward(self, x):
            return torch.quantize_per_channel(x, torch.tensor([0.05, 0.1, 0.02]), torch.tensor([10, 0, 5]), 1,
                                              torch.quint8)

    class QuantizeList(nn.Module):  # a returned list of quantized results (and a float one): a triple each
        def forward(self, x):
            return [torch.quantize_per_tensor(x, 0.05, 10, torch.quint8), x + 1,
                    torch.quantize_per_tensor(x * 2, 0.04, -3, torch.qint8)]

    class ReluList(nn.Module):  # list items on the argument's grid (known at run time)
        def forward(self, x):
            return [torch.relu(x), x.dequantize() * 2, x]

    class BranchGrid(nn.Module):  # the grid chosen in a branch: QuantizeLinear takes it as run-time values
        def forward(self, x):
            if bool(x.sum() > 0):
                scale = 0.05
                zero_point = 10
            else:
                scale = 0.1
                zero_point = 3
            return torch.quantize_per_tensor(x, scale, zero_point, torch.quint8)

    class BranchTwoGrids(nn.Module):  # each branch quantizes on its own constant grid: which is a run-time choice
        def forward(self, x):
            if bool(x.sum() > 0):
                q = torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)
            else:
                q = torch.quantize_per_tensor(x, 0.1, 3, torch.quint8)
            return q

    class Unary(nn.Module):  # an ATen op on the quantized argument (PyTorch's test_quantized_unary_ops)
        def __init__(self, op):
            super().__init__()
            self.op = op

        def forward(self, x):
            if self.op == "sigmoid":
                return torch.sigmoid(x)
            if self.op == "tanh":
                return torch.tanh(x)
            if self.op == "hardsigmoid_":
                return torch.nn.functional.hardsigmoid(x, inplace=True)
            return torch.nn.functional.hardsigmoid(x)

    class SigmoidThenAdd(nn.Module):  # a fixed-grid result read by a quantized op
        def __init__(self):
            super().__init__()
            self.f = nnq.QFunctional()
            self.f.scale, self.f.zero_point = 0.01, 30

        def forward(self, x):
            return self.f.add(torch.sigmoid(x), torch.tanh(x))

    class BranchFixedGrids(nn.Module):  # sigmoid's grid in one branch, tanh's in the other: chosen at run time
        def forward(self, x):
            if bool(x.dequantize().sum() > 0):
                y = torch.sigmoid(x)
            else:
                y = torch.tanh(x)
            return y

    class Call(nn.Module):  # a module whose forward() names its argument otherwise
        def __init__(self, module):
            super().__init__()
            self.module = module

        def forward(self, x):
            return self.module(x)

    class DequantizedSigmoid(nn.Module):
        def forward(self, x):
            return torch.sigmoid(x).dequantize()

    return {"Conv": Conv, "Linear": Linear, "Binary": Binary, "Relu": Relu, "Pool": Pool, "Quantize": Quantize,
            "Both": Both, "PerChannel": PerChannel, "Dequantize": Dequantize,
            "QuantizeList": QuantizeList, "ReluList": ReluList, "BranchGrid": BranchGrid,
            "BranchTwoGrids": BranchTwoGrids, "Unary": Unary, "SigmoidThenAdd": SigmoidThenAdd,
            "BranchFixedGrids": BranchFixedGrids, "DequantizedSigmoid": DequantizedSigmoid, "Call": Call, "nnq": nnq}


def _q(shape, scale, zp, dtype, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    return torch.quantize_per_tensor(torch.randn(*shape, generator=g), scale, zp, dtype)


def _f(shape, seed):
    import torch
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# name -> (model, save: "script"/"trace"/"saved", [first inputs], [second inputs], extra options)
# Inputs: ("q", shape, scale, zero point, dtype name, seed) or ("f", shape, seed) ("f+"/"f-": all positive
# or all negative).
CASES = {
    "qio_conv": ("Conv()", "trace", [("q", (1, 3, 6, 6), 1 / 64, 128, "quint8", 1)],
                 [("q", (1, 3, 6, 6), 0.03, 100, "quint8", 2)], {"int_atol": INT_ATOL}),
    "qio_conv_per_channel": ("Conv(per_channel=True)", "trace", [("q", (1, 3, 6, 6), 1 / 64, 128, "quint8", 1)],
                             [("q", (1, 3, 6, 6), 0.02, 90, "quint8", 2)], {"int_atol": INT_ATOL}),
    "qio_linear": ("Linear()", "script", [("q", (3, 8), 0.02, 128, "quint8", 3)],
                   [("q", (3, 8), 0.05, 60, "quint8", 4)], {"int_atol": INT_ATOL}),
    "qio_add": ("Binary('add')", "trace", [("q", (2, 3, 4), 0.02, 128, "quint8", 5), ("q", (2, 3, 4), 0.03, 120, "quint8", 6)],
                [("q", (2, 3, 4), 0.05, 90, "quint8", 7), ("q", (2, 3, 4), 0.01, 130, "quint8", 8)], {"int_atol": INT_ATOL}),
    "qio_mul": ("Binary('mul')", "script", [("q", (2, 5), 0.02, 128, "quint8", 9), ("q", (2, 5), 0.03, 120, "quint8", 10)],
                [("q", (2, 5), 0.04, 100, "quint8", 11), ("q", (2, 5), 0.02, 140, "quint8", 12)], {"int_atol": INT_ATOL}),
    "qio_relu": ("Relu()", "trace", [("q", (2, 3, 4), 1 / 64, 128, "quint8", 13)],
                 [("q", (2, 3, 4), 0.03, 70, "quint8", 14)], {}),
    "qio_relu_qint8": ("Relu()", "script", [("q", (2, 6), 0.02, 0, "qint8", 15)],
                       [("q", (2, 6), 0.05, -7, "qint8", 16)], {}),
    "qio_pool": ("Pool()", "trace", [("q", (1, 2, 4, 4), 1 / 64, 128, "quint8", 17)],
                 [("q", (1, 2, 4, 4), 0.04, 90, "quint8", 18)], {"int_atol": INT_ATOL}),
    "qio_quantize": ("Quantize(torch.quint8)", "trace", [("f", (2, 3), 19)], [("f", (2, 3), 20)], {}),
    "qio_quantize_qint8": ("Quantize(torch.qint8)", "script", [("f", (2, 3), 21)], [("f", (2, 3), 22)], {}),
    "qio_both": ("Both()", "trace", [("q", (1, 3, 6, 6), 1 / 64, 128, "quint8", 23)],
                 [("q", (1, 3, 6, 6), 0.025, 110, "quint8", 24)], {"int_atol": INT_ATOL}),
    "qio_saved": ("Conv()", "saved", [("q", (1, 3, 5, 5), 0.03, 120, "quint8", 25)],
                  [("q", (1, 3, 5, 5), 0.02, 130, "quint8", 26)], {"int_atol": INT_ATOL}),
    "qio_dequantized": ("Relu()", "trace", [("q", (2, 3, 4), 1 / 64, 128, "quint8", 27)],
                        [("q", (2, 3, 4), 1 / 64, 128, "quint8", 28)], {"dequantized": True}),
    "qio_list": ("QuantizeList()", "script", [("f", (2, 3), 35)], [("f", (2, 3), 36)], {}),
    "qio_list_trace": ("QuantizeList()", "trace", [("f", (2, 3), 37)], [("f", (2, 3), 38)], {}),
    "qio_list_dequantized": ("QuantizeList()", "script", [("f", (2, 3), 39)], [("f", (2, 3), 40)],
                             {"dequantized": True}),
    "qio_list_relu": ("ReluList()", "script", [("q", (2, 3, 4), 1 / 64, 128, "quint8", 41)],
                      [("q", (2, 3, 4), 0.03, 70, "quint8", 42)], {}),
    "qio_branch_grid": ("BranchGrid()", "script", [("f+", (2, 3), 43)], [("f-", (2, 3), 44)], {}),
    "qio_branch_two_grids": ("BranchTwoGrids()", "script", [("f+", (2, 3), 45)], [("f-", (2, 3), 46)], {}),
    "qio_per_channel_result": ("PerChannel()", "trace", [("f", (2, 3), 29)], [("f", (2, 3), 30)], {}),
    # a qint32 argument (int32 values); a qint32 result is refused (QuantizeLinear gives 8-bit integers only;
    # torch.onnx 1.13 casts its zero point to uint8 and returns uint8 values)
    "qio_dequantize_qint32": ("Dequantize()", "trace", [("q", (2, 3), 0.01, 0, "qint32", 31)],
                              [("q", (2, 3), 0.003, 0, "qint32", 32)], {}),
    "qio_relu_qint32": ("Relu()", "trace", [("q", (2, 3), 0.01, 0, "qint32", 33)],
                        [("q", (2, 3), 0.01, 0, "qint32", 34)], {}),
    # ATen ops whose result PyTorch puts on a fixed grid (its own scale and zero point per dtype), whatever the
    # argument's: the result's grid stays constant when the argument comes on another
    "qio_sigmoid": ("Unary('sigmoid')", "trace", [("q", (1, 4, 2, 3), 0.26, 128, "quint8", 47)],
                    [("q", (1, 4, 2, 3), 0.03, 70, "quint8", 48)], {"int_atol": INT_ATOL}),
    "qio_sigmoid_qint8": ("Unary('sigmoid')", "script", [("q", (2, 3, 4), 0.05, 0, "qint8", 49)],
                          [("q", (2, 3, 4), 0.02, -9, "qint8", 50)], {"int_atol": INT_ATOL}),
    "qio_tanh": ("Unary('tanh')", "script", [("q", (2, 3, 4), 0.03, 128, "quint8", 51)],
                 [("q", (2, 3, 4), 0.05, 100, "quint8", 52)], {"int_atol": INT_ATOL}),
    "qio_tanh_qint8": ("Unary('tanh')", "trace", [("q", (2, 3, 4), 0.03, 0, "qint8", 53)],
                       [("q", (2, 3, 4), 0.01, 5, "qint8", 54)], {"int_atol": INT_ATOL}),
    "qio_hardsigmoid": ("Unary('hardsigmoid')", "trace", [("q", (2, 3, 4), 0.05, 128, "quint8", 55)],
                        [("q", (2, 3, 4), 0.03, 90, "quint8", 56)], {"int_atol": INT_ATOL}),
    "qio_hardsigmoid_qint8": ("Unary('hardsigmoid_')", "script", [("q", (2, 3, 4), 0.05, 0, "qint8", 57)],
                              [("q", (2, 3, 4), 0.04, -3, "qint8", 58)], {"int_atol": INT_ATOL}),
    "qio_sigmoid_add": ("SigmoidThenAdd()", "script", [("q", (2, 3, 4), 0.03, 128, "quint8", 59)],
                        [("q", (2, 3, 4), 0.05, 100, "quint8", 60)], {"int_atol": INT_ATOL}),
    "qio_sigmoid_saved": ("Unary('sigmoid')", "saved", [("q", (2, 3, 4), 0.04, 120, "quint8", 61)],
                          [("q", (2, 3, 4), 0.02, 130, "quint8", 62)], {"int_atol": INT_ATOL}),
    # torch.ao.nn.quantized.Sigmoid(scale, zero_point): quantized::sigmoid on a grid QNNPACK cannot make
    # (only 1/256 and 0 for quint8), made (and run for the reference) under oneDNN, the model's own engine
    "qio_quantized_sigmoid": ("Call(nnq.Sigmoid(0.005, 20))", "trace", [("q", (1, 4, 2, 3), 0.26, 128, "quint8", 63)],
                              [("q", (1, 4, 2, 3), 0.03, 70, "quint8", 64)], {"int_atol": INT_ATOL, "engine": "onednn"}),
    "qio_fixed_grids_branch": ("BranchFixedGrids()", "script", [("q", (2, 3), 0.05, 128, "quint8", 65)],
                               [("q", (2, 3), 0.05, 128, "quint8", 66)], {}),
    # PyTorch's qint32 sigmoid is on the grid (2^-32, 0), which saturates at 0.5: refused
    "qio_sigmoid_qint32": ("DequantizedSigmoid()", "trace", [("q", (2, 3), 0.01, 0, "qint32", 67)],
                           [("q", (2, 3), 0.02, 0, "qint32", 68)], {}),
}


def _make(spec):
    import torch
    if spec[0] == "f":
        return _f(spec[1], spec[2])
    if spec[0] in ("f+", "f-"):  # a positive or negative sum (which branch a model takes)
        t = _f(spec[1], spec[2]).abs() + 0.1
        return t if spec[0] == "f+" else -t
    return _q(spec[1], spec[2], spec[3], getattr(torch, spec[4]), spec[5])


def _npy_free_write(path, t):
    with open(path, "wb") as f:
        f.write(t.detach().contiguous().numpy().tobytes())


DT = {"torch.float32": "float32", "torch.float64": "float64", "torch.int64": "int64", "torch.uint8": "uint8",
      "torch.int8": "int8", "torch.int32": "int32"}
QVALUES = {"torch.quint8": "torch.uint8", "torch.qint8": "torch.int8", "torch.qint32": "torch.int32"}


def _write_set(d, names, inputs, outputs, options):
    """meta.json and arrays of one input set: inputs unpacked (or dequantized), outputs likewise."""
    import torch
    os.makedirs(d, exist_ok=True)
    meta = {"inputs": [], "outputs": [], "rtol": 1e-6}
    dequantized = options.get("dequantized")

    def add(kind, name, t, k, extra=None):
        f = "%s_%d.bin" % (kind, k)
        _npy_free_write(os.path.join(d, f), t)
        entry = {"file": f, "dtype": DT[str(t.dtype)], "shape": list(t.shape)}
        if name:
            entry["name"] = name
        entry.update(extra or {})
        meta[kind + "s"].append(entry)

    k = 0
    for name, t in zip(names, inputs):
        if t.is_quantized and not dequantized:  # torch.onnx.utils.unpack_quantized_tensor(cast_onnx_accepted=True)
            add("input", name + "_value", t.int_repr(), k)
            add("input", name + "_scale", torch.tensor(t.q_scale(), dtype=torch.float64), k + 1)
            add("input", name + "_zero_point", torch.tensor(t.q_zero_point(), dtype=torch.int64), k + 2)
            k += 3
        else:
            add("input", name, t.dequantize() if t.is_quantized else t, k)
            k += 1
    k = 0
    for t in outputs:
        per_tensor = t.is_quantized and t.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric)
        if per_tensor and not dequantized:  # cast_onnx_accepted=False: float scale, zero point of the values' type
            vtype = getattr(torch, QVALUES[str(t.dtype)].split(".")[1])
            add("output", None, t.int_repr(), k, {"int_atol": options.get("int_atol", 0)})
            add("output", None, torch.tensor(t.q_scale(), dtype=torch.float32), k + 1)
            add("output", None, torch.tensor(t.q_zero_point(), dtype=vtype), k + 2)
            k += 3
        else:
            add("output", None, t.dequantize() if t.is_quantized else t, k)
            k += 1
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def _generate(target, name, digest):
    import torch
    import torch2onnx
    torch.backends.quantized.engine = "qnnpack"
    models = _models()
    code, save, first_specs, second_specs, options = CASES[name]
    torch.backends.quantized.engine = options.get("engine", "qnnpack")
    model = eval(code, dict(models, torch=torch)).eval()
    first = [_make(s) for s in first_specs]
    second = [_make(s) for s in second_specs]
    names = ["x", "y"][:len(first)]
    path = os.path.join(target, "model.pt")
    if save == "saved":
        torch2onnx.save(model, tuple(first), path)
    elif save == "trace":
        torch.jit.trace(model, tuple(first)).save(path)
    else:
        torch.jit.script(model).save(path)
    reloaded = torch.jit.load(path).eval()
    cli = []
    if save != "saved":
        for t in first:
            dt = {torch.quint8: "quint8", torch.qint8: "qint8", torch.qint32: "qint32", torch.float32: "float32"}[t.dtype]
            cli.append("%s[%s]" % (dt, ",".join(str(d) for d in t.shape)))
    for d, inputs in ((target, first), (os.path.join(target, "second"), second)):
        with torch.no_grad():
            out = reloaded(*[t.clone() for t in inputs])  # (an in-place op must not change the written inputs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        _write_set(d, names, inputs, outs, options)
    with open(os.path.join(target, "case.json"), "w") as f:
        json.dump({"cli_inputs": cli, "source_hash": digest,
                   "extra": ["--dequantized-io"] if options.get("dequantized") else []}, f, indent=1)


def check_save_refuses_per_channel():
    """torch2onnx.save refuses a per-channel quantized example (torch.onnx takes one scale per input)."""
    import tempfile
    import torch
    import torch2onnx
    x = torch.quantize_per_channel(torch.randn(2, 3), torch.tensor([0.1, 0.2, 0.3]), torch.tensor([0, 1, 2]), 1,
                                   torch.quint8)
    with tempfile.TemporaryDirectory() as d:
        try:
            torch2onnx.save(_models()["Relu"](), (x,), os.path.join(d, "m.pt"))
        except TypeError as e:
            if "per channel" in str(e):
                return
            raise
    raise AssertionError("torch2onnx.save accepted a per-channel quantized example")


def generate(out_dir, name):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures"))
    import make_fixtures as mf
    target = os.path.join(out_dir, name)
    saver = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python",
                         "torch2onnx", "__init__.py")
    mf.generate_once(target, os.path.abspath(__file__), lambda digest: _generate(target, name, digest),
                     extra_sources=(saver,))


def main(argv):
    if argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if len(argv) == 3 and argv[2] == "--all":
        check_save_refuses_per_channel()
        for name in CASES:
            generate(argv[1], name)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
