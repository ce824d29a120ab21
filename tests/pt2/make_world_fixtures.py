#!/usr/bin/env python3
"""Fixtures for the torch.export world beyond straight-line programs (issue 42): torch.cond,
while_loop, torch.onnx.ops, custom ops converted by a JSON pack, data-dependent sizes, pytree inputs
and outputs, buffer and input mutations, torch.no_grad()/autocast regions. Same conventions and
output format as make_fixtures.py (whose helpers it imports); run it in both roots and commit:

    bash scripts/torch2x_env.sh run tests/pt2/make_world_fixtures.py tests/pt2/fixtures_world/torch2.6
    T2O_TORCH2X_SUITE=sid bash scripts/torch2x_env.sh run tests/pt2/make_world_fixtures.py tests/pt2/fixtures_world/torch2.14

Each case is exported at its example inputs; every case also has input sets (sets<k>/) that take the
other branch, other trip counts, other mask densities or other sizes (make(**kw) with other
arguments; "dims" in meta.json names the dynamic dims' sizes of a set). Beyond make_fixtures.py's
index fields a case may carry:
  plugin_path     a pack directory (relative to tests/pt2) the test passes as --plugin-path
  known_failure   why torch2onnx fails on it today (the test reports the case, does not fail on it)
and an error case's meta.json may hold "expect_all": substrings that must all be in the one line.
A `_core` case is the program after ep.run_decompositions(); for a program that writes buffers or
inputs, its expected outputs are the user's outputs followed by the new values of the state it
writes, in the order of the program's output specs (named NAME.updated by torch2onnx); so are the
training-IR case's, which writes the state in place (the decomposed program's are its reference).
"""
import copy
import hashlib
import json
import os
import shutil
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.export import Dim  # noqa: E402

from make_fixtures import export, one_line, r, seed_of, write_set  # noqa: E402

RANGES = {"batch": (1, 8), "seq": (2, 16), "n": (2, 32), "w": (2, 15), "past": (1, 16)}
TORCH_214 = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 8)

CASES = []
# Cases torch2onnx fails on today, by name (both versions) or "name@2.6"/"name@2.14": the reason.
KNOWN_FAILURES = {}


def case(name, opsets=(17,), core=False, rtol=1e-4, plugin_path=None, needs=None):
    """The decorated function returns (model, make, example, dynamic, others): make(**kw) -> args;
    example: the kwargs of the example inputs; others: kwargs of other input sets; dynamic(D) ->
    dynamic_shapes (D: torch.export.Dim by name, for the kwargs named in RANGES) or None.
    needs: a reason string when this PyTorch cannot run the case (skipped, printed)."""
    def deco(fn):
        CASES.append({"name": name, "fn": fn, "opsets": list(opsets), "core": core, "rtol": rtol,
                      "plugin_path": plugin_path, "needs": needs})
        return fn
    return deco


# Cases whose declared ONNX output dims differ from the program's recorded ones (output_dims in the
# index: symbols of the inputs kept, fixed sizes fixed, unbacked sizes their own dim_param).
KNOWN_DIMS_FAILURES = {}


def line_of(marker):
    """The line of this file holding `# LINE:marker` (what a node's stack_trace names)."""
    with open(os.path.abspath(__file__)) as f:
        for k, text in enumerate(f, 1):
            if text.rstrip().endswith("# LINE:" + marker):
                return k
    raise RuntimeError(marker)


# --- 1. torch.cond ---------------------------------------------------------------------------------
class CondParams(nn.Module):
    """pred from data; both branches use parameters; two outputs of different shapes."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 3), nn.Linear(4, 3)
        self.scale = nn.Parameter(torch.tensor([1.5, -0.5, 2.0]))

    def forward(self, x):
        def yes(x):
            y = self.a(x)
            return y * self.scale, y.sum(0)

        def no(x):
            y = torch.relu(self.b(x))
            return y - self.scale, y.amax(0)
        return torch.cond(x.sum() > 0, yes, no, (x,))


def signed(batch, sign):
    return ((r(batch, 4).abs() + 0.1) * sign,)


@case("cond_params", opsets=(13, 17, 23), core=True)
def _():
    return (CondParams(), signed, {"batch": 2, "sign": 1.0}, lambda D: ({0: D["batch"]},),
            [{"batch": 2, "sign": -1.0}, {"batch": 5, "sign": -1.0}, {"batch": 1, "sign": 1.0}])


class CondNested(nn.Module):
    """A cond inside a branch of a cond, operands beyond the predicate's tensor, an int output."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, y):
        def inner_yes(x, y):
            return self.lin(x) + y, (x > 0).to(torch.int64).sum(1)

        def inner_no(x, y):
            return x * y, (x < 0).to(torch.int64).sum(1)

        def outer_yes(x, y):
            return torch.cond(x.max() > 1.0, inner_yes, inner_no, (x, y))

        def outer_no(x, y):
            return x - y, torch.zeros(x.shape[0], dtype=torch.int64)
        return torch.cond(x.mean() > 0, outer_yes, outer_no, (x, y))


def nested_inputs(batch, shift, top):
    x = r(batch, 4).clamp(-0.9, 0.9) + shift
    x[0, 0] = top
    return x, r(batch, 4)


@case("cond_nested", opsets=(13, 17, 23))
def _():
    # example: mean > 0 and max > 1 (inner yes); others: inner no, outer no, and another batch
    return (CondNested(), nested_inputs, {"batch": 3, "shift": 0.5, "top": 2.0},
            lambda D: ({0: D["batch"]}, {0: D["batch"]}),
            [{"batch": 3, "shift": 0.2, "top": 0.5}, {"batch": 3, "shift": -0.5, "top": 2.0},
             {"batch": 6, "shift": -0.5, "top": 0.0}])


class CondShape(nn.Module):
    """The predicate from a dynamic size (a SymBool), branches of different ops, a parameter in one."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        return torch.cond(x.shape[0] > 3, lambda x: (x * self.w).cumsum(0), lambda x: x.flip(0) - 1, (x,))


@case("cond_shape_pred")
def _():
    return (CondShape(), lambda batch: (r(batch, 4),), {"batch": 5}, lambda D: ({0: D["batch"]},),
            [{"batch": 2}, {"batch": 8}, {"batch": 1}])


# --- 2. while_loop ---------------------------------------------------------------------------------
def while_loop(cond_fn, body_fn, carried):
    from torch._higher_order_ops.while_loop import while_loop as wl
    return wl(cond_fn, body_fn, carried)


class WhileCount(nn.Module):
    """The trip count from an input; carried int64, float32, int32 and float64 tensors."""

    def forward(self, n, x):
        def cond(i, acc, hits, total):
            return i < n

        def body(i, acc, hits, total):
            nxt = acc * 0.5 + x
            return i + 1, nxt, hits + (nxt > 0).to(torch.int32), total + nxt.sum().to(torch.float64)
        i0 = torch.zeros((), dtype=torch.int64)
        return while_loop(cond, body, (i0, torch.zeros_like(x), torch.zeros(x.shape, dtype=torch.int32),
                                        torch.zeros((), dtype=torch.float64)))


def count_inputs(trips, batch):
    return torch.tensor(trips, dtype=torch.int64), r(batch, 3)


@case("while_count", opsets=(13, 17, 23), core=True)
def _():
    return (WhileCount(), count_inputs, {"trips": 3, "batch": 2}, lambda D: (None, {0: D["batch"]}),
            [{"trips": 0, "batch": 2}, {"trips": 7, "batch": 4}, {"trips": 1, "batch": 1}])


class WhileParams(nn.Module):
    """A recurrence with a parameter inside the body, stopping on a value (not a count)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, h, limit):
        def cond(k, h):
            return (k < 20) & (h.abs().sum() < limit)

        def body(k, h):
            return k + 1, torch.tanh(self.lin(h)) + h
        return while_loop(cond, body, (torch.zeros((), dtype=torch.int64), h))


def params_inputs(batch, limit):
    return r(batch, 4) * 0.1, torch.tensor(limit)


@case("while_params", opsets=(13, 17, 23))
def _():
    return (WhileParams(), params_inputs, {"batch": 2, "limit": 6.0}, lambda D: ({0: D["batch"]}, None),
            [{"batch": 2, "limit": 0.01}, {"batch": 3, "limit": 30.0}, {"batch": 1, "limit": 2.0}])


# --- 2b. map and scan -------------------------------------------------------------------------------
def hop_map(fn, xs, *args):
    from torch._higher_order_ops.map import map as m
    return m(fn, xs, *args)


def hop_scan(fn, init, xs, **kw):
    from torch._higher_order_ops.scan import scan
    return scan(fn, init, xs, **kw)


class MapRows(nn.Module):
    """map over the rows of a tensor with extra operands (a tensor, a Linear's parameters: 2.6's map
    cannot close over parameters, nor map a tuple with a dynamic size); two results."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, xs, y):
        def row(x, y, w, b):
            return F.linear(x * y, w, b), (x - y).abs().sum()
        return hop_map(row, xs, y, self.lin.weight, self.lin.bias)


def map_inputs(n):
    return r(n, 3), r(3)


@case("map_rows", opsets=(13, 17))
def _():
    # 2.6's map specializes the mapped size (the program then checks it is 4): other values only.
    if not TORCH_214:
        return MapRows(), map_inputs, {"n": 4}, None, [{"n": 4}]
    return (MapRows(), map_inputs, {"n": 4}, lambda D: ({0: D["n"]}, None), [{"n": 2}, {"n": 7}])


class ScanCumulative(nn.Module):
    """A running sum and product carried (two carries), each step's values stacked (two outputs)."""

    def forward(self, init, xs):
        def step(carry, x):
            c, p = carry
            nc = c + x
            return (nc, p * x), (nc * 2, (p > 0).to(torch.int64))
        return hop_scan(step, (init, torch.ones_like(init)), xs)


def scan_inputs(n, w):
    return r(w), r(n, w)


@case("scan_cumulative", opsets=(13, 17))
def _():
    return (ScanCumulative(), scan_inputs, {"n": 5, "w": 3}, lambda D: ({0: D["w"]}, {0: D["n"], 1: D["w"]}),
            [{"n": 2, "w": 3}, {"n": 9, "w": 4}])


class ScanRnn(nn.Module):
    """An Elman RNN as a scan: parameters of a Linear read inside the step (extra operands), the
    hidden state carried, every step's output stacked; dim=1 (batch-first), in reverse. (2.6's scan
    wants the new carry's requires_grad to be the initial one's: parameters without gradients.)"""

    def __init__(self):
        super().__init__()
        self.ih, self.hh = nn.Linear(3, 4), nn.Linear(4, 4)
        self.requires_grad_(False)

    def forward(self, h0, xs):
        def step(h, x):
            h = torch.tanh(self.ih(x) + self.hh(h))
            return h, h.sum(-1)
        return hop_scan(step, h0, xs, dim=1, reverse=True)


def rnn_inputs(batch, seq):
    return r(batch, 4), r(batch, seq, 3)


@case("scan_rnn_reverse", opsets=(13, 17))
def _():
    return (ScanRnn(), rnn_inputs, {"batch": 2, "seq": 5}, lambda D: ({0: D["batch"]}, {0: D["batch"], 1: D["seq"]}),
            [{"batch": 3, "seq": 2}, {"batch": 1, "seq": 8}])


# --- 3. torch.onnx.ops (2.14) ----------------------------------------------------------------------
NO_ONNX_OPS = None if hasattr(torch.onnx, "ops") else f"torch.onnx.ops does not exist in PyTorch {torch.__version__}"


class Rotary(nn.Module):
    def forward(self, x, cos, sin, pos, x3):
        a = torch.onnx.ops.rotary_embedding(x, cos, sin, pos)
        b = torch.onnx.ops.rotary_embedding(x, cos, sin, pos, interleaved=True)
        c = torch.onnx.ops.rotary_embedding(x3, cos, sin, pos, num_heads=2)
        return a, b, c


def rotary_inputs(batch, seq):
    return (r(batch, 2, seq, 8), r(32, 4), r(32, 4), torch.randint(0, 32, (batch, seq)), r(batch, seq, 16))


@case("onnx_rotary_embedding", opsets=(17, 23), needs=NO_ONNX_OPS)
def _():
    return (Rotary(), rotary_inputs, {"batch": 2, "seq": 3},
            lambda D: ({0: D["batch"], 2: D["seq"]}, None, None, {0: D["batch"], 1: D["seq"]},
                       {0: D["batch"], 1: D["seq"]}),
            [{"batch": 1, "seq": 7}, {"batch": 3, "seq": 2}])


class Attention(nn.Module):
    """4-D attention with a float mask (all four outputs) and 3-D grouped-query causal attention."""

    def forward(self, q, k, v, mask, q3, k3, v3):
        y, pk, pv, qk = torch.onnx.ops.attention(q, k, v, mask)
        y3 = torch.onnx.ops.attention(q3, k3, v3, is_causal=True, q_num_heads=4, kv_num_heads=2)[0]
        return y, pk, pv, qk, y3


def attention_inputs(seq):
    return (r(2, 2, seq, 4), r(2, 2, seq, 4), r(2, 2, seq, 4), r(seq, seq), r(1, seq, 16), r(1, seq, 8),
            r(1, seq, 8))


@case("onnx_attention", opsets=(17, 23), needs=NO_ONNX_OPS, rtol=1e-3)
def _():
    def dyn(D):
        s = {2: D["seq"]}
        s3 = {1: D["seq"]}
        return (s, s, s, {0: D["seq"], 1: D["seq"]}, s3, s3, s3)
    return (Attention(), attention_inputs, {"seq": 3}, dyn, [{"seq": 5}, {"seq": 2}])


class AttentionPast(nn.Module):
    """attention with past keys/values: the present ones (concatenated) among the outputs, a bool mask."""

    def forward(self, q, k, v, past_k, past_v, mask):
        y, pk, pv, _ = torch.onnx.ops.attention(q, k, v, mask, past_k, past_v, scale=0.7)
        return y, pk, pv


def attention_past_inputs(seq, past):
    return (r(1, 2, seq, 4), r(1, 2, seq, 4), r(1, 2, seq, 4), r(1, 2, past, 4), r(1, 2, past, 4),
            torch.rand(seq, past + seq) > 0.3)


@case("onnx_attention_past", opsets=(17, 23), needs=NO_ONNX_OPS, rtol=1e-3)
def _():
    def dyn(D):
        s, p = {2: D["seq"]}, {2: D["past"]}
        return (s, s, s, p, p, None)
    # the mask's second dim is past + seq: given as static sizes per set (export keeps it symbolic or not)
    return (AttentionPast(), attention_past_inputs, {"seq": 3, "past": 4}, None,
            [{"seq": 3, "past": 4}])


class Symbolic(nn.Module):
    """symbolic of a standard ONNX op (so ONNX Runtime runs it), its shape symbolic: PyTorch gives
    zeros of the declared dtype and shape, so its result enters the outputs times zero."""

    def forward(self, x):
        v = torch.onnx.ops.symbolic("Relu", (x,), {}, dtype=x.dtype, shape=x.shape,
                                    metadata_props={"source": "t2o test"})
        return x + v * 0, v.shape[0] * torch.ones(1)


@case("onnx_symbolic", opsets=(17, 23), needs=NO_ONNX_OPS)
def _():
    return (Symbolic(), lambda batch: (r(batch, 4),), {"batch": 2}, lambda D: ({0: D["batch"]},),
            [{"batch": 5}, {"batch": 1}])


class SymbolicMulti(nn.Module):
    """symbolic_multi_out with an attribute and outputs of two dtypes (static shapes: 2.14 cannot
    serialize symbolic ones in it); TopK's k a constant input."""

    def forward(self, x):
        k = torch.tensor([2], dtype=torch.int64)
        values, indices = torch.onnx.ops.symbolic_multi_out(
            "TopK", (x, k), {"axis": -1, "largest": 1}, dtypes=(x.dtype, torch.int64), shapes=((3, 2), (3, 2)))
        return values * 0 + x[:, :2], indices * 0 + 1


@case("onnx_symbolic_multi_out", opsets=(17, 23), needs=NO_ONNX_OPS)
def _():
    return (SymbolicMulti(), lambda seed: (r(3, 4) * seed,), {"seed": 1.0}, None, [{"seed": -2.0}])


# --- 4. custom ops converted by a JSON pack (tests/pt2/world_pack/t2o_test_ops.json) ---------------
@torch.library.custom_op("t2o_test::leaky_scale", mutates_args=())
def leaky_scale(x: torch.Tensor, slope: float) -> torch.Tensor:
    return F.leaky_relu(x, slope)


@leaky_scale.register_fake
def _(x, slope):
    return torch.empty_like(x)


@torch.library.custom_op("t2o_test::hard_sigmoid_ab", mutates_args=())
def hard_sigmoid_ab(x: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    return (x * alpha + beta).clamp(0, 1)


@hard_sigmoid_ab.register_fake
def _(x, alpha, beta):
    return torch.empty_like(x)


@torch.library.custom_op("t2o_test::power", mutates_args=())
def power(base: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
    return torch.pow(base, exponent)


@power.register_fake
def _(base, exponent):
    return torch.empty_like(base)


class CustomOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = torch.ops.t2o_test.leaky_scale(self.lin(x), 0.2)
        return torch.ops.t2o_test.hard_sigmoid_ab(y, 0.3, 0.4), y


@case("custom_op_pack", plugin_path="world_pack")
def _():
    return (CustomOps(), lambda batch: (r(batch, 4),), {"batch": 2}, lambda D: ({0: D["batch"]},),
            [{"batch": 5}, {"batch": 1}])


class CustomPower(nn.Module):
    def forward(self, x, e):
        return torch.ops.t2o_test.power(x.abs() + 0.5, e) + 1


@case("custom_op_pack_two_inputs", plugin_path="world_pack")
def _():
    return (CustomPower(), lambda n: (r(3, n), r(3, n)), {"n": 4}, lambda D: ({1: D["n"]}, {1: D["n"]}),
            [{"n": 9}])


# --- 5. data-dependent sizes -----------------------------------------------------------------------
class NonzeroMask(nn.Module):
    def forward(self, x):
        m = x > 0
        return torch.nonzero(m), x[m] * 2, torch.masked_select(x, m).sum(0, keepdim=True)


@case("data_dependent_nonzero", core=True)
def _():
    # mask densities: about half, all, none
    return (NonzeroMask(), lambda n, shift: (r(n, 3) + shift,), {"n": 4, "shift": 0.0},
            lambda D: ({0: D["n"]},), [{"n": 4, "shift": 10.0}, {"n": 6, "shift": -10.0}, {"n": 9, "shift": 0.5}])


class MaskGather(nn.Module):
    """Rows kept by a mask of another input, then arithmetic on the kept rows."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, x, keep):
        rows = x[keep]
        idx = keep.nonzero().squeeze(1)
        return self.lin(rows), idx, rows.shape[0] * torch.ones(1, dtype=torch.int64)


@case("data_dependent_mask_rows", opsets=(13, 17, 23))
def _():
    return (MaskGather(), lambda n, p: (r(n, 4), torch.rand(n) < p), {"n": 5, "p": 0.5},
            lambda D: ({0: D["n"]}, {0: D["n"]}), [{"n": 5, "p": 1.1}, {"n": 8, "p": 0.2}, {"n": 3, "p": -1.0}])


class ItemSize(nn.Module):
    """A size read from a tensor (item(): an unbacked symbol) with torch._check guards
    (_assert_scalar nodes), used to slice and to make a new tensor."""

    def forward(self, x, k):
        n = k.item()
        if hasattr(torch, "_check_is_size") and not TORCH_214:
            torch._check_is_size(n)  # 2.6: else slicing guards on u0 == 1
        torch._check(n >= 1)
        torch._check(n <= x.shape[0])
        return x[:n] * 2, torch.arange(n) + 1


@case("data_dependent_item")
def _():
    return (ItemSize(), lambda n, k: (r(n, 3), torch.tensor(k)), {"n": 6, "k": 4},
            lambda D: ({0: D["n"]}, None), [{"n": 6, "k": 1}, {"n": 9, "k": 9}, {"n": 3, "k": 2}])


# --- 6. pytrees ------------------------------------------------------------------------------------
class PytreeDict(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, inputs, extra):
        x, (y, z) = inputs["x"], inputs["pair"]
        h = self.lin(x) + extra["bias"]
        return {"out": h, "stats": (h.sum(1), [y * z, z - extra["shift"]])}


def pytree_inputs(batch):
    return ({"x": r(batch, 4), "pair": (r(batch, 3), r(batch, 3))}, {"bias": r(4), "shift": r(batch, 3)})


@case("pytree_dict", opsets=(17, 23))
def _():
    def dyn(D):
        b = {0: D["batch"]}
        return ({"x": b, "pair": (b, b)}, {"bias": None, "shift": b})
    return (PytreeDict(), pytree_inputs, {"batch": 2}, dyn, [{"batch": 5}])


class PytreeList(nn.Module):
    def forward(self, xs, pair):
        total = xs[0] + xs[1] * xs[2]
        return [total, (pair[0] @ pair[1], {"n": total.sum(), "m": pair[1].mean(0)})], xs[2]


@case("pytree_list")
def _():
    return (PytreeList(), lambda n: ([r(2, n), r(2, n), r(2, n)], (r(3, 4), r(4, n))), {"n": 3},
            lambda D: ([{1: D["n"]}] * 3, (None, {1: D["n"]})), [{"n": 7}])


# --- 7. state written in forward -------------------------------------------------------------------
class BufferCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("total", torch.full((3,), 0.5))
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        self.count.add_(1)
        self.total.add_(x.sum(0))
        return self.lin(x) * self.count + self.total


@case("buffer_mutation", core=True)
def _():
    return (BufferCounter(), lambda batch: (r(batch, 3),), {"batch": 2}, lambda D: ({0: D["batch"]},),
            [{"batch": 4}])


class CacheWrite(nn.Module):
    """A cache buffer written by slice assignment (a KV-cache write) and an input written in place."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 16))

    def forward(self, x, acc):
        n = x.shape[1]
        self.cache[:, :n] = x
        acc.mul_(2)
        return self.cache.sum(1), acc + 1


@case("buffer_slice_and_input_mutation", core=True)
def _():
    return (CacheWrite(), lambda w: (r(2, w), r(3)), {"w": 4}, lambda D: ({1: D["w"]}, None), [{"w": 9}, {"w": 2}])


# --- 8. no_grad / autocast regions -----------------------------------------------------------------
class NoGrad(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 2)

    def forward(self, x):
        h = torch.relu(self.a(x))
        with torch.no_grad():
            g = self.b(h) * 2
            with torch.enable_grad():
                k = h.sum(1, keepdim=True)
        return g + k, h


@case("no_grad_region")
def _():
    return (NoGrad(), lambda batch: (r(batch, 4),), {"batch": 2}, lambda D: ({0: D["batch"]},), [{"batch": 6}])


class Autocast(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.lin(x)
        return y.float() + x


@case("autocast_region", rtol=2e-2)
def _():
    return (Autocast(), lambda batch: (r(batch, 4),), {"batch": 2}, lambda D: ({0: D["batch"]},), [{"batch": 3}])


# --- error cases -----------------------------------------------------------------------------------
ERRORS = []


def error(name, expect, expect_all=None, needs=None, check_lists=None):
    """check_lists: texts `torch2onnx check` must print (exit 1) for the program (the op, its line)."""
    def deco(fn):
        ERRORS.append({"name": name, "fn": fn, "expect": expect, "expect_all": expect_all, "needs": needs,
                       "check_lists": check_lists})
        return fn
    return deco


class CustomNoPack(nn.Module):
    def forward(self, x):
        return torch.ops.t2o_test.leaky_scale(x, 0.1) + 1  # LINE:custom


@error("error_custom_op_no_pack", "t2o_test",
       expect_all=["leaky_scale", f"make_world_fixtures.py:{line_of('custom')}"],
       check_lists=["t2o_test::leaky_scale", f"make_world_fixtures.py:{line_of('custom')}"])
def _(path):
    torch.export.save(export(CustomNoPack(), (r(2, 3),), None)[0], path)


class AssociativeScan(nn.Module):
    def forward(self, xs):
        from torch._higher_order_ops.associative_scan import associative_scan
        return associative_scan(lambda a, b: a + b, xs, 0)  # LINE:associative_scan


@error("error_associative_scan", "associative_scan",
       expect_all=["higher-order operator", f"make_world_fixtures.py:{line_of('associative_scan')}"],
       check_lists=["associative_scan", f"make_world_fixtures.py:{line_of('associative_scan')}"],
       needs=None if TORCH_214 else "2.6's associative_scan runs on CUDA only")
def _(path):
    torch.export.save(export(AssociativeScan(), (r(5, 3),), None)[0], path)


# --- writing -------------------------------------------------------------------------------------
def clone_tree(args):
    return torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, args)


def run_program(prog, args, with_state):
    """ep.module() of a copy of the program (state as saved: ep.module() shares and writes the
    program's state tensors; torch.export.load is no way round it: 2.6 loads a while_loop's carried
    values as a list it then refuses, 2.14 a wrap_with_set_grad_enabled without its val), on a copy of
    args; with_state: the new values of the state the program writes appended after the user's
    outputs, in its output specs' order."""
    prog = copy.deepcopy(prog)
    mod = prog.module()
    call_args = clone_tree(args)
    with torch.no_grad():
        out = mod(*call_args)
    if not with_state:
        return out
    flat_in = torch.utils._pytree.tree_leaves(call_args)
    user_inputs = [s.arg.name for s in prog.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    state = dict(mod.named_buffers())
    state.update(dict(mod.named_parameters()))
    extra = []
    for s in prog.graph_signature.output_specs:
        if s.kind.name in ("BUFFER_MUTATION", "PARAMETER_MUTATION"):
            extra.append(state[s.target].detach().clone())
        elif s.kind.name == "USER_INPUT_MUTATION":
            extra.append(flat_in[user_inputs.index(s.target)].detach().clone())
    if not extra:
        return out
    return [torch.utils._pytree.tree_leaves(out), extra]


def state_names(prog):
    """The names torch2onnx gives the written state's outputs: NAME.updated, NAME the buffer's
    state-dict path or the user input's name, in the order of the output specs."""
    names = []
    for s in prog.graph_signature.output_specs:
        if s.kind.name in ("BUFFER_MUTATION", "PARAMETER_MUTATION", "USER_INPUT_MUTATION"):
            names.append(f"{s.target}.updated")
    return names


def output_dims(prog, with_state):
    """The program's recorded output shapes, in torch2onnx's output order (user outputs, then the
    written state for a core program): ints, and symbols as text (s77, u0, 2*s77)."""
    node = [n for n in prog.graph.nodes if n.op == "output"][0]
    args = dict(zip([s.arg.name if hasattr(s.arg, "name") else None for s in prog.graph_signature.output_specs],
                    node.args[0]))
    user, state = [], []
    for spec in prog.graph_signature.output_specs:
        a = args.get(getattr(spec.arg, "name", None))
        v = a.meta.get("val") if hasattr(a, "meta") else None
        dims = [int(d) if isinstance(d, int) else str(d) for d in v.shape] if isinstance(v, torch.Tensor) else None
        if spec.kind.name == "USER_OUTPUT":
            user.append(dims)
        elif with_state and spec.kind.name in ("BUFFER_MUTATION", "PARAMETER_MUTATION", "USER_INPUT_MUTATION"):
            state.append(dims)
    return user + state


def known_failure(name):
    version = "2.14" if TORCH_214 else "2.6"
    return KNOWN_FAILURES.get(f"{name}@{version}") or KNOWN_FAILURES.get(name)


def make_case(out_dir, c, index):
    name = c["name"]
    if c["needs"]:
        raise Skip(c["needs"])
    torch.manual_seed(seed_of(name))
    model, make, example, dynamic, others = c["fn"]()
    model.eval()
    args = make(**example)
    dims = {k: v for k, v in example.items() if k in RANGES}
    D = {k: Dim(k, min=RANGES[k][0], max=RANGES[k][1]) for k in dims}
    ep, strict = export(model, clone_tree(args), dynamic(D) if dynamic else None)
    variants = [(name, "training", ep)]
    if c["core"]:
        try:
            variants.append((name + "_core", "core", ep.run_decompositions()))
        except Exception as e:
            print(f"SKIP {name}_core: run_decompositions failed: {one_line(e)}", flush=True)
            index["skipped"].append({"name": name + "_core", "reason": "run_decompositions: " + one_line(e)})
    # A training-IR program writes state in place (no mutation specs): torch2onnx returns the new
    # values as the decomposed program does, so that program gives the expected state outputs.
    core_prog = next((p for _, ir, p in variants if ir == "core"), None)
    for vname, ir, prog in variants:
        d = os.path.join(out_dir, vname)
        os.makedirs(d)
        path = os.path.join(d, "model.pt2")
        torch.export.save(prog, path)
        if ir == "training" and core_prog is not None and state_names(core_prog):
            prog = core_prog  # the reference for the outputs; model.pt2 is the training IR
        write_set(d, args, run_program(prog, args, True), c["rtol"], {"dims": dims} if dims else None)
        entry = {"name": vname, "kind": "model", "opsets": c["opsets"], "ir": ir,
                 "strict": "default" if strict is None else "non-strict"}
        if dims:
            entry["dims"] = {k: {"example": v, "min": RANGES[k][0], "max": RANGES[k][1]} for k, v in dims.items()}
        if c["plugin_path"]:
            entry["plugin_path"] = c["plugin_path"]
        if state_names(prog):
            entry["state_outputs"] = state_names(prog)
        why = known_failure(vname)
        if why:
            entry["known_failure"] = why
        entry["output_dims"] = output_dims(prog, True)
        dims_why = KNOWN_DIMS_FAILURES.get(vname)
        if dims_why:
            entry["known_dims_failure"] = dims_why
        sets = []
        for k, other in enumerate(others, 1):
            torch.manual_seed(seed_of(f"{name}/sets{k}"))
            oargs = make(**other)
            odims = {n: v for n, v in other.items() if n in RANGES}
            write_set(os.path.join(d, f"sets{k}"), oargs, run_program(prog, oargs, True), c["rtol"],
                      {"dims": odims, "set": other})
            sets.append(f"sets{k}")
        if sets:
            entry["sizes"] = sets
        index["cases"].append(entry)
        print(f"{vname}: {ir}{'' if strict is None else ' (non-strict)'} {json.dumps(example)}"
              f"{' + ' + ', '.join(sets) if sets else ''}{' (known failure)' if why else ''}", flush=True)


class Skip(Exception):
    pass


def make_error_case(out_dir, e, index):
    if e["needs"]:
        raise Skip(e["needs"])
    d = os.path.join(out_dir, e["name"])
    os.makedirs(d)
    torch.manual_seed(seed_of(e["name"]))
    e["fn"](os.path.join(d, "model.pt2"))
    meta = {"kind": "error", "expect_error": e["expect"]}
    if e["expect_all"]:
        meta["expect_all"] = e["expect_all"]
    if e["check_lists"]:
        meta["check_lists"] = e["check_lists"]
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    entry = {"name": e["name"], "kind": "error", "opsets": [17]}
    why = known_failure(e["name"])
    if why:
        entry["known_failure"] = why
    index["cases"].append(entry)
    print(f"{e['name']}: error case", flush=True)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[1]
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    torch.set_num_threads(1)
    index = {"torch": torch.__version__,
             "generator_sha256": hashlib.sha256(open(__file__, "rb").read()).hexdigest(),
             "cases": [], "skipped": []}
    only = set(os.environ.get("T2O_PT2_ONLY", "").split(",")) - {""}
    for c, make in [(c, make_case) for c in CASES] + [(e, make_error_case) for e in ERRORS]:
        if only and c["name"] not in only:
            continue
        try:
            make(out_dir, c, index)
        except Exception as e:
            for n in (c["name"], c["name"] + "_core"):
                shutil.rmtree(os.path.join(out_dir, n), ignore_errors=True)
            index["cases"] = [x for x in index["cases"] if x["name"] not in (c["name"], c["name"] + "_core")]
            reason = str(e) if isinstance(e, Skip) else one_line(e)
            print(f"SKIP {c['name']}: {reason}", flush=True)
            if os.environ.get("T2O_PT2_TRACE") and not isinstance(e, Skip):
                traceback.print_exc()
            index["skipped"].append({"name": c["name"], "reason": reason})
    with open(os.path.join(out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
