#!/usr/bin/python3
"""Fixtures for the signature tests (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/signatures/make_signature_fixtures.py OUT_DIR CASE

Writes OUT_DIR/CASE/: model.pt (traced, scripted, or saved by torch2onnx.save), export.json
{"runs": [{"args": [...CLI arguments after MODEL...], "checks": ["check_0", ...]} or
          {"args": [...], "error": [substrings of the one error line]}]},
or {"runs": [], "save_refusal": the message of torch2onnx.save's refusal, "save_error": [substrings]},
files the runs name (example inputs), and one directory per check with the graph inputs and
PyTorch's outputs (meta.json as tests/ort/compare.js reads it). Expected outputs come from the saved
.pt reloaded with torch.jit.load (or, for torch2onnx.save, from the original model), called with the
Python values the ONNX inputs stand for. Regenerated only when this file or the helper changes.
"""
import copy
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))


try:
    from typing import NamedTuple

    import torch

    class Pair(NamedTuple):  # at module level: TorchScript compiles NamedTuples by qualified name
        a: torch.Tensor
        b: torch.Tensor
except ImportError:  # torch missing: main() reports it
    pass


class Const:
    """A Python value the export bakes in (int=, float=, bool=, none): not a graph input."""

    def __init__(self, value):
        self.value = value


def unwrap(value):
    if isinstance(value, Const):
        return value.value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[unwrap(v) for v in value])
    if isinstance(value, tuple):
        return tuple(unwrap(v) for v in value)
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    return value


def models():
    from typing import Dict, List, Optional, Tuple

    import torch
    import torch.nn as nn
    from torch import Tensor

    class LstmHx(nn.Module):  # the documentation's LSTM with its initial state
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(10, 20, num_layers=1)

        def forward(self, input, hx: Tuple[Tensor, Tensor]):
            output, (hn, cn) = self.lstm(input, hx)
            return output, hn, cn

    class TupleImages(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)

        def forward(self, images: Tuple[Tensor, Tensor]):
            return self.conv(images[0]) + self.conv(images[1]).mean(dim=(2, 3), keepdim=True)

    class Nested(nn.Module):
        def forward(self, a, b: Tuple[Tensor, Tuple[Tensor, Tensor]]):
            x, (y, z) = b
            return a * x + y - z, z.sum()

    class DictInput(nn.Module):
        def forward(self, x: Dict[str, Tensor]):
            return x["a"] * 2 + x["b"].sum()

    class DictScripted(nn.Module):
        def forward(self, x: Dict[str, Tensor]):
            out = x["a"] * 2
            if "bias" in x:
                out = out + x["bias"]
            return out, len(x) * out

    class ListInput(nn.Module):
        def forward(self, xs: List[Tensor]):
            return torch.cat(xs, 0) * 2, xs[1] + 1

    class Primitives(nn.Module):
        def forward(self, x, n: int, alpha: float, flag: bool):
            if flag:
                return x * alpha + n
            return x - n

    class PrimitivesFirst(nn.Module):
        # run-time primitives before and between tensors: the graph inputs keep forward()'s order
        # and argument names, as a caller feeds them
        def forward(self, flag: bool, x, scale: float, n: int):
            y = x * scale + n
            if flag:
                y = y - 1
            return y

    class OptionalInTuple(nn.Module):
        def forward(self, x, t: Tuple[Tensor, Optional[Tensor]]):
            a, b = t
            if b is not None:
                return x + a * b
            return x + a

    class Bag(nn.Module):  # embedding_bag needs offsets[0] == 0; int(tensor) forces a CPU example run
        def __init__(self):
            super().__init__()
            self.bag = nn.EmbeddingBag(10, 4, mode="sum")

        def forward(self, ids, offsets):
            last = int(offsets[-1])
            return self.bag(ids, offsets), ids[last:]

    class Containers(nn.Module):  # a loop over a list argument, dict.values(), a str argument, a NamedTuple
        def forward(self, xs: List[Tensor], d: Dict[str, Tensor], mode: str, p: Pair):
            acc = torch.zeros(3)
            for t in xs:
                acc = acc + t
            for v in d.values():
                acc = acc * v
            if mode == "double":
                acc = acc * 2
            return acc + p.a * p.b

    class SaveTarget(nn.Module):  # what torch.jit.trace refuses: a float argument, dict/None outputs
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(6, 8)
            self.emb = nn.Embedding(20, 6)

        def forward(self, ids, state: Tuple[Tensor, Tensor], scale: float, extra: Optional[Tensor] = None):
            y, (h, c) = self.lstm(self.emb(ids), state)
            return {"y": y * scale, "state": (h, c), "unused": None}

    class ConvBn(nn.Module):  # torch2onnx.save(training=..., do_constant_folding=...)
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 6, 3)
            self.bn = nn.BatchNorm2d(6)
            with torch.no_grad():
                self.bn.running_mean.uniform_(-1, 1)
                self.bn.running_var.uniform_(0.5, 2.0)
                self.bn.weight.uniform_(0.5, 1.5)
                self.bn.bias.uniform_(-0.5, 0.5)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    class ReturnsNumbers(nn.Module):  # Python numbers among the outputs, as torch.onnx turns them into tensors
        # A float from sizes is a float32 tensor under the tracer: save() casts it to float64 as torch.onnx.
        def forward(self, x):
            return x * 2.0, x.shape[0], x.shape[0] > 1, x.shape[0] * 0.5, 1.5

    class NoTensor(nn.Module):  # only Python numbers in: a graph without inputs, constant outputs
        def forward(self, n: int, scale: float):
            return torch.arange(n) * scale, n * scale, n + 1

    class ScaledTanh(torch.autograd.Function):  # no symbolic(): traced through its forward()'s ops
        @staticmethod
        def forward(ctx, x, scale):
            y = torch.tanh(x) * scale
            ctx.save_for_backward(y)
            ctx.scale = scale
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * (ctx.scale - y * y / ctx.scale), None

    class UsesFunction(nn.Module):
        def forward(self, x):
            return ScaledTanh.apply(x * 2.0, 0.5) + x.sum()

    class ReluWithSymbolic(torch.autograd.Function):  # symbolic(): refused by save(), naming it
        @staticmethod
        def forward(ctx, x):
            return x.clamp(min=0)

        @staticmethod
        def symbolic(g, x):
            return g.op("Relu", x)

    class UsesSymbolic(nn.Module):
        def forward(self, x):
            return ReluWithSymbolic.apply(x) * 2.0

    class TwoInputs(nn.Module):
        def forward(self, first, second):
            return first + second, first * second

    # forward() assigning module attributes (PyTorch's test_set_attr_2, _4, _5, _modules): the export
    # computes one call from the state the model has when torch2onnx.save is called, whatever the
    # calls save() itself makes.
    class SetAttrBias(nn.Module):  # test_set_attr_2
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(10, 3, 3)
            self.conv.bias = nn.Parameter(torch.zeros(3, 10, 3))

        def set_cell_anchors(self, anchors):
            if self.conv.bias is not None:
                b = self.conv.bias
                assert b is not None
                self.conv.bias = anchors + b
            elif self.conv.weight is not None:
                self.conv.weight = torch.randn(3, 10)
                self.conv.bias = self.conv.weight[:]

        def forward(self, anchors) -> Optional[Tensor]:
            self.set_cell_anchors(anchors)
            return self.conv.bias

    class SetAttrTuple(nn.Module):  # test_set_attr_4
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(10, 3, 3)
            self.conv.bias = nn.Parameter(torch.zeros(3, 10, 3))

        def set_cell_anchors(self, anchors):
            self.conv.weight = torch.zeros(10, 3)
            if self.conv.bias is not None:
                w = self.conv.bias
                assert w is not None
                self.conv.bias = anchors + w
            else:
                self.conv.bias = torch.ones(3, 10, 3)

        def forward(self, feature_maps, anchors) -> Tuple[Tensor, Tensor]:
            self.set_cell_anchors(anchors)
            result = []
            if self.conv.bias is not None:
                a = self.conv.bias
                assert a is not None
                result += [a]
            result += [feature_maps]
            return result[0], result[1]

    class SetAttrLoop(nn.Module):  # test_set_attr_5
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(10, 3, 3)
            self.conv.bias = nn.Parameter(torch.zeros(3, 10, 3))

        def set_cell_anchors(self, anchors):
            self.conv.weight = torch.arange(10)
            for i in range(10):
                if i == 3:
                    for j in range(10):
                        w = self.conv.weight
                        self.conv.weight = torch.arange(10) + w
                self.conv.weight = self.conv.weight + torch.arange(10)
                if self.conv.bias is not None:
                    a = self.conv.bias
                    assert a is not None
                    self.conv.bias = anchors + a

        def forward(self, anchors):
            self.set_cell_anchors(anchors)
            return self.conv.weight, self.conv.bias

    def embedding(dim: int):
        return torch.exp(torch.arange(dim // 2, dtype=torch.float) * -(4 / ((dim // 2) - 1)))

    class SetAttrInner(nn.Module):  # test_set_attr_modules, eager (traced by save)
        def __init__(self):
            super().__init__()
            self.weights = embedding(8)
            self.register_buffer("_float_tensor", torch.FloatTensor(1))
            self.const = 2

        def forward(self, input):
            bsz, seq_len = input.shape[0], input.shape[1]
            self.const = 3
            self.weights = self.weights.to(self._float_tensor)
            self.weights = self.weights * self.const
            picked = self.weights.index_select(0, torch.ones((bsz * seq_len), dtype=torch.int64))
            return picked.view(bsz, seq_len, -1)

    class SetAttrModules(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = embedding(8)
            self.module = SetAttrInner()

        def forward(self, x):
            return self.module(x) + self.weights

    torch.manual_seed(0)
    return dict(LstmHx=LstmHx, TupleImages=TupleImages, Nested=Nested, DictInput=DictInput,
                DictScripted=DictScripted, ListInput=ListInput, Primitives=Primitives, PrimitivesFirst=PrimitivesFirst,
                OptionalInTuple=OptionalInTuple, Bag=Bag, SaveTarget=SaveTarget, Containers=Containers,
                ConvBn=ConvBn, ReturnsNumbers=ReturnsNumbers, TwoInputs=TwoInputs, NoTensor=NoTensor,
                UsesFunction=UsesFunction, UsesSymbolic=UsesSymbolic, SetAttrBias=SetAttrBias,
                SetAttrTuple=SetAttrTuple, SetAttrLoop=SetAttrLoop, SetAttrModules=SetAttrModules)


def cases():
    """name -> dict(model, method ('trace', 'script', 'save'), example (Python args), runs)."""
    import torch

    g = torch.Generator().manual_seed(1)
    rn = lambda *s: torch.randn(*s, generator=g)
    M = models()
    lstm_example = (rn(5, 3, 10), (rn(1, 3, 20), rn(1, 3, 20)))
    lstm_specs = ["--input", "float32[5,3,10]", "--input", "(float32[1,3,20],float32[1,3,20])"]
    lstm_checks = [lstm_example]
    lstm_dyn = ["--dynamic-axes", "input=0:seq,1:batch", "--dynamic-axes", "hx.0=1:batch",
                "--dynamic-axes", "hx.1=1:batch"]
    lstm_other = [(rn(7, 2, 10), (rn(1, 2, 20), rn(1, 2, 20))), (rn(2, 4, 10), (rn(1, 4, 20), rn(1, 4, 20)))]
    nested_example = (rn(2, 3), (rn(2, 3), (rn(2, 3), rn(2, 3))))
    nested_specs = ["--input", "float32[2,3]", "--input", "(float32[2,3],(float32[2,3],float32[2,3]))"]
    images = ((rn(1, 3, 8, 8), rn(1, 3, 8, 8)),)
    dict_example = ({"a": rn(2, 3), "b": rn(4)},)
    x4 = rn(4)
    out = {}

    def add(name, model, method, example, runs, save_kwargs=None, reference_mode="eval", save_error=None, warm=0):
        # save_error: save() must refuse, its message holding each of these texts, and write no file;
        # warm: calls of the model on the example before save() (a model whose calls change its state)
        out[name] = dict(model=model, method=method, example=example, runs=runs,
                         save_kwargs=save_kwargs or dict(output_names=["y", "h", "c"], dynamic_axes={"ids": {0: "seq"}}),
                         reference_mode=reference_mode, save_error=save_error, warm=warm)

    def ok(args, checks, opsets=(17,), shows=(), hides=()):
        # shows/hides: texts `torch2onnx show` prints (or must not) for the exported model
        return [dict(args=args + ["--opset", str(o)], checks=checks, shows=list(shows), hides=list(hides))
                for o in opsets]

    for method in ("trace", "script"):
        sfx = "" if method == "trace" else "_script"
        add("lstm_hx" + sfx, M["LstmHx"](), method, lstm_example, ok(lstm_specs, lstm_checks, (9, 13, 17)))
        add("tuple_images" + sfx, M["TupleImages"](), method, images,
            ok(["--input", "(float32[1,3,8,8],float32[1,3,8,8])"], [images]))
        add("nested_tuple" + sfx, M["Nested"](), method, nested_example,
            ok(nested_specs, [nested_example], (9, 13, 17)))
    add("check_lstm", M["LstmHx"](), "trace", lstm_example, [])  # SignatureCheck's own copy (tests run in parallel)
    add("lstm_dynamic", M["LstmHx"](), "trace", lstm_example,
        ok(lstm_specs + lstm_dyn, [lstm_example] + lstm_other))
    add("dict_input", M["DictInput"](), "trace", dict_example,
        ok(["--input", "{a:float32[2,3],b:float32[4]}"], [dict_example]))
    add("dict_input_script", M["DictScripted"](), "script", ({"a": rn(2, 3), "bias": rn(3)},),
        ok(["--input", "{a:float32[2,3],bias:float32[3]}"], [({"a": rn(2, 3), "bias": rn(3)},)])
        + ok(["--input", "{a:float32[2,3]}"], [({"a": rn(2, 3)},)])
        + [dict(args=["--input", "{bias:float32[3]}"],
                error=["reads key 'a'", "forward() argument 'x' of type Dict[str, Tensor]", "gives only bias"])])
    add("list_input_script", M["ListInput"](), "script", ([rn(2, 3), rn(1, 3), rn(4, 3)],),
        ok(["--input", "[float32[2,3],float32[1,3],float32[4,3]]"], [([rn(2, 3), rn(1, 3), rn(4, 3)],)]))
    prim = M["Primitives"]()
    add("primitives_script", prim, "script", (x4, 3, 0.5, True),
        ok(["--input", "float32[4]", "--input", "int=3", "--input", "float=0.5", "--input", "bool=true"],
           [(x4, Const(3), Const(0.5), Const(True))], (9, 13, 17))
        + ok(["--input", "float32[4]", "--input", "int=-2", "--input", "float=2.5", "--input", "bool=false"],
             [(x4, Const(-2), Const(2.5), Const(False))])
        # run-time 0-d inputs: one ONNX model, both branches
        + ok(["--input", "float32[4]", "--input", "int64[]", "--input", "float32[]", "--input", "bool[]"],
             [(x4, 3, 0.5, True), (x4, 7, -1.5, False)], (9, 13, 17))
        + [dict(args=["--input", "float32[4]", "--input", "float=3.0", "--input", "float=0.5", "--input", "bool=true"],
                error=["forward() argument 'n' of type int", "int=N", "a float constant given"]),
           dict(args=["--input", "float32[4]", "--input", "int64[2]", "--input", "float=0.5", "--input", "bool=true"],
                error=["forward() argument 'n' of type int", "a tensor given"])])
    add("primitives_first_script", M["PrimitivesFirst"](), "script", (True, x4, 0.5, 3),
        ok(["--input", "bool[]", "--input", "float32[4]", "--input", "float32[]", "--input", "int64[]"],
           [(True, x4, 0.5, 3), (False, x4, -1.5, 7)], (9, 17), shows=["(%flag : ", "%x : ", "%scale : ", "%n : "]))
    opt_example = (x4, (rn(4), Const(None)))
    add("optional_in_tuple_script", M["OptionalInTuple"](), "script", opt_example,
        ok(["--input", "float32[4]", "--input", "(float32[4],none)"], [opt_example], (9, 17))
        + ok(["--input", "float32[4]", "--input", "(float32[4],float32[4])"], [(x4, (rn(4), rn(4)))])
        + [dict(args=["--input", "float32[4]", "--input", "(none,float32[4])"],
                error=["forward() argument 't' of type Tuple[Tensor, Optional[Tensor]]", "element t.0 is Tensor",
                       "only an Optional argument can be None"])])
    ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = torch.tensor([0, 3, 5])
    add("example_inputs_script", M["Bag"](), "script", (ids, offsets),
        ok(["--input", "int64[8]", "--input", "int64[3]", "--example-inputs", "npy"], [(ids, offsets)])
        + ok(["--input", "int64[8]", "--input", "int64[3]", "--example-inputs", "pb"], [(ids, offsets)])
        + ok(["--example-inputs", "npy"], [(ids, offsets)])  # the specs from the files
        + ok(["--input", "int64[8]", "--input", "int64[3]", "--input-range", "0:0"], [(ids, offsets)])
        # made-up ids and offsets: ones are rejected (offsets start at 0), zeros are taken
        + ok(["--input", "int64[8]", "--input", "int64[3]"], [(ids, offsets)])
        + [dict(args=["--input", "int64[8]", "--input", "int64[4]", "--example-inputs", "npy"],
                error=["1_offsets.npy is int64[3] but input 'offsets' is int64[4]"]),
           dict(args=["--input", "int64[8]", "--input", "int64[3]", "--example-inputs", "wrong_dtype"],
                error=["1_offsets.npy is int32[3] but input 'offsets' is int64[3]"])])
    add("bad_inputs", M["LstmHx"](), "trace", lstm_example, [
        dict(args=["--input", "float32[5,3,10]", "--input", "float32[1,3,20]"],
             error=["--input float32[1,3,20] for forward() argument 'hx' of type Tuple[Tensor, Tensor]",
                    "a tuple of 2 expected", "a tensor given"]),
        dict(args=["--input", "float32[5,3,10]", "--input", "(float32[1,3,20])"],
             error=["forward() argument 'hx' of type Tuple[Tensor, Tensor]", "a tuple of 2 expected",
                    "a tuple/list of 1 given"]),
        dict(args=["--input", "(float32[5,3,10],float32[1])", "--input", "(float32[1,3,20],float32[1,3,20])"],
             error=["forward() argument 'input' of type Tensor", "a tensor expected"]),
        dict(args=["--input", "float32[5,3,10]", "--input", "(float32[1,3,20],float32[1,3,20]"],
             error=["bad --input '(float32[1,3,20],float32[1,3,20]'", "no closing ')'"]),
        dict(args=["--input", "float32[5,3,10]", "--input", "{h:float32[1,3,20]}"],
             error=["forward() argument 'hx' of type Tuple[Tensor, Tensor]", "a dict given"]),
        dict(args=["--input", "float32[5,3,10]"], error=["forward() takes 2 argument(s)", "but 1 --input given"]),
        dict(args=["--input", "float32[5,3,10]", "--input", "(float32[1,3,20],float32[1,3,20])",
                   "--input-range", "5:1"], error=["bad --input-range '5:1'"]),
    ])
    cont = ([rn(3), rn(3)], {"a": rn(3), "b": rn(3)}, Const("double"), Pair(rn(3), rn(3)))
    add("containers_script", M["Containers"](), "script", cont,
        ok(["--input", "(float32[3],float32[3])", "--input", "{a:float32[3],b:float32[3]}", "--input", "str=double",
            "--input", "(float32[3],float32[3])"], [cont])
        + ok(["--input", "(float32[3])", "--input", "{}", "--input", "str=half", "--input", "(float32[3],float32[3])"],
             [([rn(3)], {}, Const("half"), Pair(rn(3), rn(3)))]))
    # A scripted top-level nn.LSTM: forward is overloaded (forward__0 on a Tensor, forward__1 on a
    # PackedSequence); the Tensor overload is exported, with and without the state.
    x_seq = rn(5, 3, 10)
    state = (rn(1, 3, 20), rn(1, 3, 20))
    add("overloaded_forward_script", torch.nn.LSTM(10, 20), "script", (x_seq,),
        ok(["--input", "float32[5,3,10]"], [(x_seq,)], (9, 17))
        + ok(["--input", "float32[5,3,10]", "--input", "(float32[1,3,20],float32[1,3,20])"], [(x_seq, state)]))
    # torch2onnx.save: a .pt with its signature; export needs no --input
    st = M["SaveTarget"]()
    save_example = (torch.randint(0, 20, (5, 2), generator=g), (rn(1, 2, 8), rn(1, 2, 8)), Const(0.5))
    save_other = (torch.randint(0, 20, (9, 2), generator=g), (rn(1, 2, 8), rn(1, 2, 8)), Const(0.5))
    add("saved_signature", st, "save", save_example,
        ok([], [save_example, save_other], (9, 17))
        # explicit options win over the saved ones (here: no dynamic axes, other names)
        + ok(["--input", "int64[5,2]", "--input", "float32[1,2,8]", "--input", "float32[1,2,8]",
              "--input-names", "a,b,c"], [save_example]))
    # save(training=TRAINING): traced in training mode, recorded; the export matches PyTorch in training
    # mode (BatchNorm on the batch's statistics, not folded) with no option given.
    image = rn(2, 3, 7, 7) * 2.0 + 0.5
    add("saved_training", M["ConvBn"](), "save", (image,),
        ok([], [(image,)], (9, 14, 17), shows=["onnx::ReduceMean"], hides=["onnx::BatchNormalization"]),
        save_kwargs=dict(training=torch.onnx.TrainingMode.TRAINING), reference_mode="train")
    # save(do_constant_folding=False): the BatchNorm stays; --constant-folding overrides it.
    add("saved_no_folding", M["ConvBn"](), "save", (image,),
        ok([], [(image,)], shows=["onnx::BatchNormalization"])
        + ok(["--constant-folding"], [(image,)], hides=["onnx::BatchNormalization"])
        + [dict(args=["--training", "never"], error=["bad --training 'never'"])],
        save_kwargs=dict(do_constant_folding=False, training="eval"))
    # Python numbers returned: 0-d int64, float64 and bool outputs, as torch.onnx makes them.
    add("saved_numbers", M["ReturnsNumbers"](), "save", (rn(3, 4),), ok([], [(rn(3, 4),)], (9, 17)),
        save_kwargs=dict(output_names=["doubled"]))
    # input_names shorter than the inputs: the rest keep forward()'s names.
    a, b = rn(2, 3), rn(2, 3)
    add("saved_short_names", M["TwoInputs"](), "save", (a, b),
        ok([], [(a, b)], shows=["%x : Float(2, 3)", "%second : Float(2, 3)", "%sum : ", "%output_1 : "]),
        save_kwargs=dict(input_names=["x"], output_names=["sum"]))
    # Only Python numbers as arguments: no graph input, the outputs constants (as torch.onnx).
    add("saved_no_tensor", M["NoTensor"](), "save", (Const(3), Const(2.5)),
        ok([], [(Const(3), Const(2.5))], (9, 17)), save_kwargs=dict(output_names=["values"]))
    # A torch.autograd.Function without symbolic(): its forward()'s ops, as torch.onnx 1.13 inlines it.
    xf = rn(3, 4)
    add("saved_autograd_function", M["UsesFunction"](), "save", (xf,), ok([], [(xf,), (rn(3, 4),)], (9, 17)),
        save_kwargs=dict(output_names=["y"]))
    # One with symbolic(): torch.onnx calls that Python; save() refuses, naming it and the way out.
    add("saved_symbolic_function", M["UsesSymbolic"](), "save", (xf,), [], save_kwargs=dict(output_names=["y"]),
        save_error=["torch.autograd.Function", "ReluWithSymbolic", "has a symbolic()",
                    "torch2onnx_ops.symbolic", "remove symbolic()"])
    # forward() assigns module attributes: one call from the state at save() (after one call by the user:
    # the bias is then anchors + zeros), in a scripted module (prim::SetAttr) and in an eager one.
    anchors = torch.ones(3, 10, 3)
    add("saved_set_attr_script", torch.jit.script(M["SetAttrBias"]()), "save", (anchors,),
        ok([], [(anchors,), (rn(3, 10, 3),)], (9, 17)), save_kwargs=dict(output_names=["bias"]), warm=1)
    feature_maps = rn(5, 11, 30)
    add("saved_set_attr_tuple_script", torch.jit.script(M["SetAttrTuple"]()), "save", (feature_maps, anchors),
        ok([], [(feature_maps, anchors)], (11, 17)), save_kwargs=dict(output_names=["bias", "maps"]), warm=1)
    add("saved_set_attr_loop_script", torch.jit.script(M["SetAttrLoop"]()), "save", (anchors,),
        ok([], [(anchors,), (rn(3, 10, 3),)], (11, 17)), save_kwargs=dict(output_names=["weight", "bias"]), warm=2)
    tokens = rn(3, 256)
    add("saved_set_attr_modules", M["SetAttrModules"](), "save", (tokens,),
        ok([], [(tokens,), (rn(2, 7),)], (9, 17)),
        save_kwargs=dict(input_names=["x"], dynamic_axes={"x": [0, 1]}), warm=1)
    return out


def write_tensor(path, t):
    import make_fixtures as mf
    return mf.write_tensor(path, t)


def npy_bytes(t):
    import torch2onnx
    return torch2onnx._npy_bytes(t)


def tensor_proto(t):
    """An ONNX TensorProto (dims, data_type INT64 = 7 or FLOAT = 1, raw_data), written by hand."""
    import torch

    def varint(n):
        b = b""
        while True:
            c = n & 0x7F
            n >>= 7
            if n:
                b += bytes([c | 0x80])
            else:
                return b + bytes([c])

    code = {torch.int64: 7, torch.float32: 1}[t.dtype]
    out = b"".join(b"\x08" + varint(d) for d in t.shape)  # field 1 dims
    out += b"\x10" + varint(code)  # field 2 data_type
    raw = t.contiguous().numpy().tobytes()
    out += b"\x4a" + varint(len(raw)) + raw  # field 9 raw_data
    return out


def flat_tensors(value):
    """The graph inputs a Python argument stands for: tensors, and numbers as 0-d tensors."""
    import torch
    if isinstance(value, Const):
        return []
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, bool):
        return [torch.tensor(value)]
    if isinstance(value, int):
        return [torch.tensor(value, dtype=torch.int64)]
    if isinstance(value, float):
        return [torch.tensor(value, dtype=torch.float32)]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flat_tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat_tensors(v)]
    return []  # None


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    out_dir, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    import make_fixtures as mf

    target = os.path.join(out_dir, name)
    mf.generate_once(target, __file__, lambda _digest: generate(target, name), fresh=True,
                     extra_sources=[os.path.join(SOURCE_DIR, "python", "torch2onnx", "__init__.py")])


def generate(target, name):
    """Writes case `name` into the (empty) directory target."""
    import torch
    import torch2onnx

    torch.set_num_threads(1)
    all_cases = cases()
    if name not in all_cases:
        raise SystemExit(f"unknown case {name}; known: {', '.join(all_cases)}")
    case = all_cases[name]
    model, method, example = case["model"], case["method"], case["example"]
    model.eval()
    pt = os.path.join(target, "model.pt")
    if case["save_error"]:
        try:
            torch2onnx.save(model, unwrap(example), pt, **case["save_kwargs"])
        except ValueError as e:
            message = str(e)
        else:
            raise SystemExit(f"{name}: torch2onnx.save did not refuse")
        if os.path.exists(pt):
            raise SystemExit(f"{name}: the refused save left {pt}")
        with open(os.path.join(target, "export.json"), "w") as f:
            json.dump({"runs": [], "save_refusal": message, "save_error": case["save_error"]}, f, indent=1)
        return
    if method == "save":
        with torch.no_grad():
            for _ in range(case["warm"]):
                model(*unwrap(example))
        torch2onnx.save(model, unwrap(example), pt, **case["save_kwargs"])
        reference = model.train(case["reference_mode"] == "train")
    else:
        ts = torch.jit.script(model) if method == "script" else torch.jit.trace(model, unwrap(example),
                                                                                 check_trace=False, strict=False)
        ts.save(pt)
        # An overloaded forward (a scripted nn.LSTM) has no `forward` to call on the loaded module.
        reference = torch.jit.load(pt).eval() if "forward" in ts._c._method_names() else model
    # example inputs for --example-inputs: .npy and .pb files, one per graph input, in name order
    leaves = flat_tensors(example)
    for sub, fmt in (("npy", "npy"), ("pb", "pb"), ("wrong_dtype", "npy")) if name.startswith("example") else ():
        os.makedirs(os.path.join(target, sub))
        for k, t in enumerate(leaves):
            if sub == "wrong_dtype" and k == 1:
                t = t.to(torch.int32)
            fname = f"{k}_{['ids', 'offsets'][k] if name.startswith('example_inputs') else 'input'}.{fmt}"
            with open(os.path.join(target, sub, fname), "wb") as f:
                f.write(npy_bytes(t) if fmt == "npy" else tensor_proto(t))
    check_index = 0
    runs = []
    for run in case["runs"]:
        # Files of the fixture are named relative to it ("@fixture/npy"): the directory is generated once
        # into the machine's fixture cache and read from other build trees (the test resolves the prefix).
        r = {"args": [a if a not in ("npy", "pb", "wrong_dtype") else "@fixture/" + a for a in run["args"]]}
        if "error" in run:
            r["error"] = run["error"]
            r["exit"] = run.get("exit", 2)
        else:
            r["checks"] = []
            r["shows"], r["hides"] = run["shows"], run["hides"]
            for args in run["checks"]:
                d = f"check_{check_index}"
                check_index += 1
                os.makedirs(os.path.join(target, d))
                with torch.no_grad():
                    outs = []
                    # save()'s model: each check calls a copy (a forward() that assigns attributes
                    # changes the model; the export computes one call from its state at save()).
                    ref = copy.deepcopy(reference) if method == "save" else reference
                    torch2onnx._flatten_outputs(ref(*unwrap(args)), outs)
                rtol = 1e-4
                meta = {"inputs": [write_tensor(os.path.join(target, d, f"input_{k}.bin"), t)
                                   for k, t in enumerate(flat_tensors(args))],
                        "outputs": [write_tensor(os.path.join(target, d, f"expected_{k}.bin"), t)
                                    for k, t in enumerate(outs)],
                        "rtol": rtol}
                with open(os.path.join(target, d, "meta.json"), "w") as f:
                    json.dump(meta, f, indent=1)
                r["checks"].append(d)
        runs.append(r)
    with open(os.path.join(target, "export.json"), "w") as f:
        json.dump({"runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
