#!/usr/bin/python3
"""Fixtures for the module-state tests (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/freezing/make_freezing_fixtures.py OUT_DIR [--list]

Models whose forward() reads module attributes (tensors, numbers, strings, lists, tuples, dicts,
Optional, buffers, self.training, submodules in ModuleList/ModuleDict/Sequential, attributes read
inside if/loop blocks), scripted and traced, models that write their state and read it back inside
one call (exported with the values of that call, warning per attribute), and models whose writes a
private copy of the state would not reproduce (refused).
Writes, per case, OUT_DIR/CASE/model.pt, OUT_DIR/CASE/export.json ({"cli_args": [...], "refusal":
null or the text the one-line error must contain, "state_warnings": the attributes warned about}) and, for the cases that export, OUT_DIR/CASE/
size_0/ (inputs and PyTorch's outputs, meta.json as tests/ort/compare.js reads it). All cases in
one process, under a lock, only when this file changed. --list prints the case names.
"""
import json
import os
import shutil
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))

# name -> (class name, method, refusal): refusal None = exports and matches PyTorch.
CASES = {
    "tensor_attrs_script": ("TensorAttrs", "script", None),
    "tensor_attrs_trace": ("TensorAttrs", "trace", None),
    "number_attrs_script": ("NumberAttrs", "script", None),
    "optional_attrs_script": ("OptionalAttrs", "script", None),
    "training_flag_script": ("TrainingFlag", "script", None),
    "buffers_script": ("Buffers", "script", None),
    "buffers_trace": ("Buffers", "trace", None),
    "containers_script": ("Containers", "script", None),
    "containers_trace": ("Containers", "trace", None),
    "blocks_script": ("Blocks", "script", None),
    "submodule_attrs_script": ("SubmoduleAttrs", "script", None),
    "returned_attr_script": ("ReturnedAttr", "script", None),
    "state_written_elsewhere_script": ("WrittenElsewhere", "script", None),
    "interface_script": ("InterfaceCall", "script", None),
    # State written and read inside one call: the values of one call on the saved state, as torch.onnx,
    # with one warning per attribute (STATE_WARNINGS).
    "counter_script": ("Counter", "script", None),
    "running_mean_script": ("RunningMean", "script", None),
    "inplace_buffer_script": ("InplaceBuffer", "script", None),
    "inplace_buffer_trace": ("InplaceBuffer", "trace", None),
    "conditional_write_script": ("ConditionalWrite", "script", None),
    "loop_state_script": ("LoopState", "script", None),
    "optional_cache_script": ("OptionalCache", "script", None),
    # Two buffers holding one tensor: a write through one is seen through the other, which a private
    # copy would lose.
    "tied_buffers_script": ("TiedBuffers", "script", "attribute 'first' of the top-level module"),
}

# name -> the attributes the export warns about ("state 'stats.running' is written inside forward()").
STATE_WARNINGS = {
    "counter_script": ["calls"],
    "running_mean_script": ["stats.running"],
    "inplace_buffer_script": ["total"],
    "inplace_buffer_trace": ["total"],
    "conditional_write_script": ["inner.1.seen_large"],
    "loop_state_script": ["acc", "history", "steps"],
    "optional_cache_script": ["cache"],
}


def models():
    import torch
    import torch.nn as nn
    from typing import Dict, List, Optional, Tuple

    class TensorAttrs(nn.Module):
        # Plain tensor attributes, a list and a tuple of numbers, a list and a tuple of tensors.
        def __init__(self):
            super().__init__()
            self.scale = torch.randn(4)
            self.offsets = [0.5, -1.0, 2.0]
            self.shape = (2, 2)
            self.tensors = [torch.randn(4), torch.randn(4)]
            self.pair = (torch.randn(4), torch.ones(4))

        def forward(self, x):
            y = x * self.scale + self.offsets[1]
            for t in self.tensors:
                y = y + t
            y = y * self.pair[0] - self.pair[1]
            return y.reshape(x.size(0), self.shape[0], self.shape[1])

    class NumberAttrs(nn.Module):
        # int, float, bool and str attributes, and a dict of floats.
        def __init__(self):
            super().__init__()
            self.repeats = 2
            self.alpha = 0.25
            self.use_bias = True
            self.act = "tanh"
            self.weights: Dict[str, float] = {"a": 1.5, "b": -0.5}

        def forward(self, x):
            y = x * self.alpha
            if self.use_bias:
                y = y + self.repeats
            if self.act == "tanh":
                y = torch.tanh(y)
            else:
                y = torch.relu(y)
            return y * self.weights["a"] + self.weights["b"]

    class OptionalAttrs(nn.Module):
        bias: Optional[torch.Tensor]
        mask: Optional[torch.Tensor]

        def __init__(self):
            super().__init__()
            self.bias = torch.randn(4)
            self.mask = None

        def forward(self, x):
            bias, mask = self.bias, self.mask  # TorchScript refines locals, not attributes
            if bias is not None:
                x = x + bias
            if mask is not None:
                x = x * mask
            return x

    class TrainingFlag(nn.Module):
        # self.training (export runs the model in eval mode, as torch.onnx does by default).
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            y = self.drop(self.lin(x))
            if self.training:
                return y * 100.0
            return y + 1.0

    class Buffers(nn.Module):
        # Buffers (one None), and a BatchNorm's running statistics read in eval mode.
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", torch.randn(4))
            self.register_buffer("std", torch.rand(4) + 0.5)
            self.register_buffer("unused", None)
            self.bn = nn.BatchNorm1d(4)
            with torch.no_grad():
                self.bn.running_mean.uniform_(-1, 1)
                self.bn.running_var.uniform_(0.5, 1.5)

        def forward(self, x):
            return self.bn((x - self.mean) / self.std)

    class Containers(nn.Module):
        # ModuleList iterated (with enumerate) and indexed by constants, ModuleDict by key and
        # iterated, Sequential indexed (also from the end).
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
            self.acts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})
            self.head = nn.Sequential(nn.Linear(4, 6), nn.Sigmoid(), nn.Linear(6, 3))

        def forward(self, x):
            for i, layer in enumerate(self.layers):
                x = layer(x) + i
            x = self.layers[1](x)
            x = self.layers[-1](x)
            x = self.acts["tanh"](x)
            for act in self.acts.values():
                x = act(x)
            return self.head[-1](self.head[1](self.head[0](x)))

    class Blocks(nn.Module):
        # Attributes read inside an if on the data and a loop whose trip count is an attribute.
        def __init__(self):
            super().__init__()
            self.w = torch.randn(4)
            self.steps = 3
            self.threshold = 0.0

        def forward(self, x):
            for _ in range(self.steps):
                if bool(x.sum() > self.threshold):
                    x = x * self.w
                else:
                    x = x + self.w
            return x

    class Scale(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s
            self.register_buffer("shift", torch.full((4,), s))

        def forward(self, x):
            return x * self.s + self.shift

    class SubmoduleAttrs(nn.Module):
        # Another module's attributes read directly, and inside a loop over a ModuleList.
        def __init__(self):
            super().__init__()
            self.scales = nn.ModuleList([Scale(0.5), Scale(2.0), Scale(-1.0)])
            self.first = Scale(3.0)

        def forward(self, x):
            for m in self.scales:
                x = x * m.s + m.shift
            return self.first(x) + self.first.s

    class ReturnedAttr(nn.Module):
        # A tensor attribute returned as an output.
        def __init__(self):
            super().__init__()
            self.table = torch.randn(3, 4)

        def forward(self, x):
            return x + 1.0, self.table

    class WrittenElsewhere(nn.Module):
        # An attribute written by another method (not forward): forward only reads it.
        def __init__(self):
            super().__init__()
            self.temperature = 2.0

        @torch.jit.export
        def set_temperature(self, t: float):
            self.temperature = t

        def forward(self, x):
            return torch.softmax(x / self.temperature, dim=-1)

    @torch.jit.interface
    class Activation(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            pass

    class Swish(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * torch.sigmoid(x)

    class InterfaceCall(nn.Module):
        # A submodule typed by a module interface (swappable implementation).
        act: Activation

        def __init__(self):
            super().__init__()
            self.act = Swish()

        def forward(self, x):
            return self.act.forward(x) + 1.0

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            return x * self.calls

    class Stats(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("running", torch.zeros(4))

        def forward(self, x):
            self.running = 0.9 * self.running + 0.1 * x.mean(0)
            return x - self.running

    class RunningMean(nn.Module):
        def __init__(self):
            super().__init__()
            self.stats = Stats()

        def forward(self, x):
            return self.stats(x) * 2.0

    class InplaceBuffer(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("total", torch.zeros(4))

        def forward(self, x):
            self.total.add_(x.sum(0))
            return x + self.total

    class Flagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.seen_large = False

        def forward(self, x):
            if bool(x.max() > 10.0):
                self.seen_large = True
            return x

    class ConditionalWrite(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.ReLU(), Flagger())

        def forward(self, x):
            return self.inner(x) + 1.0

    class LoopState(nn.Module):
        # Assigned, written in place and appended to inside a loop and its branches, read back in the
        # loop and after it. The example's rows take both branches.
        history: List[torch.Tensor]

        def __init__(self):
            super().__init__()
            self.register_buffer("acc", torch.linspace(-1.0, 1.0, 4))
            self.steps = 1
            self.history = []

        def forward(self, x):
            for i in range(x.size(0)):
                if bool(x[i].sum() > 0):
                    self.acc = self.acc + x[i]
                    self.steps += 1
                else:
                    self.acc.mul_(0.5)
                self.history.append(self.acc * self.steps)
            return self.acc * self.steps, torch.stack(self.history, 0)

    LoopState.example = staticmethod(lambda: torch.tensor([[1.0, 2.0, -0.5, 0.25], [-3.0, 0.5, -1.0, 0.0],
                                                            [0.5, 0.5, 0.5, -0.25]]))

    class OptionalCache(nn.Module):
        # An Optional attribute assigned, then read back and refined.
        cache: Optional[torch.Tensor]

        def __init__(self):
            super().__init__()
            self.cache = None

        def forward(self, x):
            self.cache = torch.tanh(x)
            cache = self.cache
            if cache is not None:
                return x + cache
            return x

    class TiedBuffers(nn.Module):
        def __init__(self):
            super().__init__()
            shared = torch.zeros(4)
            self.register_buffer("first", shared)
            self.register_buffer("second", shared)

        def forward(self, x):
            self.first.add_(x.sum(0))
            return x * self.second

    return dict(locals())


def write_case(out_dir, name, digest, classes):
    import torch
    import make_fixtures as mf
    class_name, method, refusal = CASES[name]
    torch.manual_seed(zlib.crc32(name.encode()))
    module = classes[class_name]().eval()
    x = getattr(classes[class_name], "example", lambda: torch.randn(2, 4))()
    target = os.path.join(out_dir, name)
    tmp = target + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    ts = torch.jit.script(module) if method == "script" else torch.jit.trace(module, (x,), check_trace=False)
    pt = os.path.join(tmp, "model.pt")
    ts.save(pt)
    if refusal is None:
        d = os.path.join(tmp, "size_0")
        os.makedirs(d)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(mf.outputs_meta(pt, [x], 1e-4, d, method), f, indent=1)
    with open(os.path.join(tmp, "export.json"), "w") as f:
        json.dump({"source_hash": digest, "cli_args": ["--input", mf.cli_spec(x)], "refusal": refusal,
                   "state_warnings": STATE_WARNINGS.get(name, [])}, f, indent=1)
    shutil.rmtree(target, ignore_errors=True)
    os.rename(tmp, target)


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out_dir = sys.argv[1]
    import make_fixtures as mf

    def generate(digest):
        import torch
        torch.set_num_threads(1)
        classes = models()
        for name in CASES:
            write_case(out_dir, name, digest, classes)

    mf.generate_once(out_dir, __file__, generate)


if __name__ == "__main__":
    main()
