"""Declaring single-op test cases (tests/ops/cases/<family>.py).

Each family file defines CASES, a list of case(...) entries. tests/ops/make_op_fixtures.py turns a
family into fixtures (TorchScript model + inputs + PyTorch's outputs) and the googletest binary
t2o_op_tests exports every case at each of its opsets, runs it in ONNX Runtime and compares.

    import torch
    from op_case import case

    class Relu(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x)

    CASES = [
        case("relu", Relu(), [torch.randn(2, 3, 4)]),                     # opsets 9, 13, 17
        case("relu_script", Relu(), [torch.randn(2, 3)], method="script"),
        case("topk", TopK(), [torch.randn(5, 7)], opsets=(9, 10, 11, 17)),  # every opset where its form changes
    ]

Inputs are made when the family file is imported, after torch.manual_seed(0): deterministic.
"""

import torch

DEFAULT_OPSETS = (9, 13, 17)


class Fn(torch.nn.Module):
    """A module whose forward is FN (usually a lambda): one-line cases for traced ops."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Case:
    def __init__(self, name, module, inputs, opsets, rtol, method, cli_args, compare="values", stat_tol=0.15,
                 more_inputs=(), default_dtype=None, save="jit", export_as_saved=False):
        if method not in ("trace", "script"):
            raise ValueError(f"case {name}: method must be 'trace' or 'script'")
        self.name = name
        self.module = module
        self.inputs = list(inputs)
        self.opsets = list(opsets)
        self.rtol = rtol
        self.method = method
        self.cli_args = list(cli_args)
        self.more_inputs = [list(m) for m in more_inputs]
        if compare not in ("values", "stats"):
            raise ValueError(f"case {name}: compare must be 'values' or 'stats'")
        self.compare = compare
        self.stat_tol = stat_tol
        if default_dtype not in (None, torch.float32, torch.float64):
            raise ValueError(f"case {name}: default_dtype must be torch.float32 or torch.float64")
        self.default_dtype = default_dtype
        if save not in ("jit", "torch2onnx"):
            raise ValueError(f"case {name}: save must be 'jit' or 'torch2onnx'")
        self.save = save
        if export_as_saved and save != "torch2onnx":
            raise ValueError(f"case {name}: export_as_saved needs save='torch2onnx'")
        self.export_as_saved = export_as_saved


def case(name, module, inputs, opsets=DEFAULT_OPSETS, rtol=1e-4, method="trace", cli_args=(), compare="values",
         stat_tol=0.15, more_inputs=(), default_dtype=None, save="jit", export_as_saved=False):
    """A single-op test: NAME (unique within the family, [a-z0-9_]), an nn.Module (put in eval mode),
    its example inputs, the opsets to export at, the relative tolerance |a-b| <= rtol*(1+|b|),
    trace or script, and extra torch2onnx export arguments.

    compare="stats" is for random ops: dtype and shape are compared exactly, values by their
    distribution (tests/ort/compare.js): mean and standard deviation each within stat_tol times
    PyTorch's sample standard deviation, and for integer/bool outputs every value within the range
    PyTorch's sample spans. Give outputs of a few thousand elements.

    MORE_INPUTS: further input lists the exported model also runs on (another branch taken, another
    trip count; other sizes need --dynamic-axes in CLI_ARGS), each compared with PyTorch's outputs.

    DEFAULT_DTYPE: torch.set_default_dtype while the case is traced (or scripted), saved and run in
    PyTorch (torch.float64: integer true division, Python floats, float factories give float64).
    SAVE: "jit" (ScriptModule.save; the export then needs --default-dtype in CLI_ARGS to know it)
    or "torch2onnx" (torch2onnx.save traces the module and records the default dtype in the .pt).
    EXPORT_AS_SAVED (with save="torch2onnx"): exported with no --input, from the specs and example
    values torch2onnx.save stored, as `torch2onnx export model.pt -o model.onnx` after save()."""
    return Case(name, module, inputs, opsets, rtol, method, cli_args, compare, stat_tol, more_inputs,
                default_dtype, save, export_as_saved)
