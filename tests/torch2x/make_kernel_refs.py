#!/usr/bin/env python3
"""PyTorch 2.6's outputs for the ops of torch2onnx's compatibility library (compat/, issue 25).

    bash scripts/torch2x_env.sh run tests/torch2x/make_kernel_refs.py tests/torch2x/kernel_refs/refs.pt

Runs inside the Debian 13 root (PyTorch 2.6). For each case below: the op as PyTorch 2.6 names it,
its arguments (tensors made here, seeded) and what 2.6 returns (tensors, numbers, or the first line
of the error it raises), torch.save()d into one file with the SHA-256 of this script. The
TorchScript-language ops (prim::nbytes, aten::Generator, …) are a scripted module saved beside it
(script_ops.pt) with its outputs. The ctest
torch2x.compat_kernels (check_kernel_refs.py, under the host's PyTorch 1.13) calls the same ops
from libtorch2onnx_compat.so and compares; it fails when this script changed after the file was made.
"""
import hashlib
import os
import sys

import torch

CASES = []


def case(name, op, *args, tol="exact", mutated=(), **kwargs):
    """tol: "exact" (values bit for bit, NaN equal), "ulp:N" (N units in the last place of the
    expected value, for kernels whose arithmetic order differs), "layout" (shape, dtype, strides
    only: uninitialised memory). mutated: positions of arguments the op changes in place; their
    values after the call are compared too."""
    CASES.append(dict(name=name, op=op, args=list(args), kwargs=kwargs, tol=tol, mutated=list(mutated)))


g = torch.Generator().manual_seed(25)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


NEG_INF = float("-inf")

# --- scaled_dot_product_attention -------------------------------------------------------------
SDPA = "aten::scaled_dot_product_attention"
for dt in (torch.float32, torch.float64):
    n = str(dt).split(".")[1]
    case(f"sdpa_plain_{n}", SDPA, r(2, 2, 3, 4, dtype=dt), r(2, 2, 3, 4, dtype=dt), r(2, 2, 3, 4, dtype=dt), tol="ulp:8")
    case(f"sdpa_3d_{n}", SDPA, r(2, 3, 4, dtype=dt), r(2, 5, 4, dtype=dt), r(2, 5, 6, dtype=dt), tol="ulp:8")
    case(f"sdpa_2d_{n}", SDPA, r(3, 4, dtype=dt), r(5, 4, dtype=dt), r(5, 2, dtype=dt), tol="ulp:8")
    mask = torch.tensor([[True, False, True, True, False], [False] * 5, [True] * 5])
    case(f"sdpa_bool_mask_{n}", SDPA, r(2, 2, 3, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt), mask,
         tol="ulp:8")
    fmask = r(3, 5, dtype=dt)
    fmask[1] = NEG_INF
    case(f"sdpa_float_mask_{n}", SDPA, r(2, 2, 3, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt),
         fmask, tol="ulp:8")
    case(f"sdpa_causal_L3_S5_{n}", SDPA, r(2, 2, 3, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt),
         None, 0.0, True, tol="ulp:8")
    case(f"sdpa_causal_L5_S3_{n}", SDPA, r(1, 2, 5, 4, dtype=dt), r(1, 2, 3, 4, dtype=dt), r(1, 2, 3, 4, dtype=dt),
         None, 0.0, True, tol="ulp:8")
    case(f"sdpa_scale_{n}", SDPA, r(2, 2, 3, 4, dtype=dt), r(2, 2, 3, 4, dtype=dt), r(2, 2, 3, 4, dtype=dt),
         scale=0.3, tol="ulp:8")
    case(f"sdpa_negative_scale_{n}", SDPA, r(2, 2, 3, 4, dtype=dt), r(2, 2, 3, 4, dtype=dt), r(2, 2, 3, 4, dtype=dt),
         scale=-0.5, tol="ulp:8")
    case(f"sdpa_gqa_{n}", SDPA, r(2, 4, 3, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt),
         enable_gqa=True, tol="ulp:8")
    case(f"sdpa_gqa_causal_{n}", SDPA, r(1, 6, 4, 4, dtype=dt), r(1, 2, 4, 4, dtype=dt), r(1, 3, 4, 4, dtype=dt),
         None, 0.0, True, enable_gqa=True, tol="ulp:8")
case("sdpa_float32_mask_float64_query", SDPA, r(1, 2, 3, 4, dtype=torch.float64), r(1, 2, 5, 4, dtype=torch.float64),
     r(1, 2, 5, 4, dtype=torch.float64), r(3, 5), tol="ulp:8")
case("sdpa_broadcast_batch", SDPA, r(2, 2, 3, 4), r(1, 2, 5, 4), r(1, 2, 5, 4), tol="ulp:8")
# is_causal with a mask: 2.6's fused CPU kernel applies both; its math backend (3-D, grouped heads,
# broadcast batch, a 3-D mask, …) refuses.
case("sdpa_causal_and_float_mask", SDPA, r(1, 2, 3, 4), r(1, 2, 5, 4), r(1, 2, 5, 4), r(3, 5), 0.0, True, tol="ulp:8")
case("sdpa_causal_and_bool_mask_4d", SDPA, r(2, 2, 5, 4, dtype=torch.float64), r(2, 2, 3, 4, dtype=torch.float64),
     r(2, 2, 3, 4, dtype=torch.float64), torch.rand(2, 1, 5, 3, generator=g) > 0.4, 0.0, True, tol="ulp:8")
case("sdpa_causal_and_mask_3d_refused", SDPA, r(1, 3, 4), r(1, 3, 4), r(1, 3, 4), torch.ones(3, 3, dtype=torch.bool),
     0.0, True)
case("sdpa_causal_and_mask_broadcast_refused", SDPA, r(2, 2, 3, 4), r(1, 2, 3, 4), r(1, 2, 3, 4),
     torch.ones(3, 3, dtype=torch.bool), 0.0, True)
case("sdpa_causal_and_3d_mask_refused", SDPA, r(1, 2, 3, 4), r(1, 2, 3, 4), r(1, 2, 3, 4),
     torch.ones(1, 3, 3, dtype=torch.bool), 0.0, True)

# --- rms_norm ---------------------------------------------------------------------------------
for dt in (torch.float32, torch.float64):
    n = str(dt).split(".")[1]
    case(f"rms_norm_eps_none_{n}", "aten::rms_norm", r(2, 3, 4, dtype=dt), [4], tol="ulp:2")
    case(f"rms_norm_weight_eps_{n}", "aten::rms_norm", r(2, 3, 4, dtype=dt), [3, 4], r(3, 4, dtype=dt), 1e-5, tol="ulp:2")
    case(f"rms_norm_1d_{n}", "aten::rms_norm", r(6, dtype=dt), [6], None, 0.1, tol="ulp:2")
    case(f"rms_norm_tiny_{n}", "aten::rms_norm", r(2, 4, dtype=dt) * 1e-5, [4], tol="ulp:2")
for dt in (torch.float16, torch.bfloat16):
    n = str(dt).split(".")[1]
    case(f"rms_norm_eps_none_{n}", "aten::rms_norm", r(2, 8, dtype=dt), [8], tol="ulp:1")
    case(f"rms_norm_eps_weight_{n}", "aten::rms_norm", r(2, 8, dtype=dt) * 1e-3, [8], r(8, dtype=dt), 1e-6, tol="ulp:1")
case("rms_norm_weight_promotes", "aten::rms_norm", r(2, 4), [4], r(4, dtype=torch.float64), tol="ulp:2")
case("rms_norm_bad_shape", "aten::rms_norm", r(2, 4), [3])

# --- _safe_softmax ----------------------------------------------------------------------------
x = r(3, 4)
x[1] = NEG_INF
x[2, 0] = NEG_INF
case("safe_softmax_rows", "aten::_safe_softmax", x, -1, tol="ulp:1")
case("safe_softmax_dim0", "aten::_safe_softmax", x, 0, tol="ulp:1")
case("safe_softmax_dtype", "aten::_safe_softmax", x, 1, torch.float64, tol="ulp:1")
case("safe_softmax_0d", "aten::_safe_softmax", torch.tensor(NEG_INF), 0)
case("safe_softmax_float64", "aten::_safe_softmax", r(2, 3, dtype=torch.float64), -1, tol="ulp:1")

# --- squeeze.dims -----------------------------------------------------------------------------
x = r(1, 3, 1, 2)
for op in ("aten::squeeze.dims", "aten::squeeze_copy.dims"):
    short = op.split("::")[1].replace(".", "_")
    case(f"{short}_two", op, x, [0, -2])
    case(f"{short}_not_one", op, x, [1, 3])
    case(f"{short}_empty_list", op, x, [])
    case(f"{short}_0d", op, torch.tensor(2.5), [0])
    case(f"{short}_0d_negative", op, torch.tensor(2.5), [-1])
    case(f"{short}_repeated", op, x, [0, 0])
    case(f"{short}_out_of_range", op, x, [4])
case("squeeze__dims", "aten::squeeze_.dims", r(1, 3, 1), [0, 2], mutated=[0])

# --- all.dims / any.dims, _is_all_true / _is_any_true -----------------------------------------
b = torch.rand(2, 3, 4, generator=g) > 0.3
for op in ("aten::all.dims", "aten::any.dims"):
    short = op.split("::")[1].split(".")[0]
    case(f"{short}_dims_02", op, b, [0, 2])
    case(f"{short}_dims_neg_keepdim", op, b, [-1, 1], True)
    case(f"{short}_dims_none", op, b)
    case(f"{short}_dims_none_keepdim", op, b, None, True)
    case(f"{short}_dims_empty", op, b, [], True)
    case(f"{short}_dims_empty_float", op, torch.tensor([[0.0, float("nan")], [2.0, -0.0]]), [])
    case(f"{short}_dims_float", op, r(2, 3) * (torch.rand(2, 3, generator=g) > 0.5), [1])
    case(f"{short}_dims_uint8", op, (torch.rand(2, 3, generator=g) > 0.5).to(torch.uint8), [0])
    case(f"{short}_dims_0d", op, torch.tensor(0.0), [0], True)
    case(f"{short}_dims_empty_tensor", op, torch.zeros(0, 3, dtype=torch.bool), [0])
    case(f"{short}_dims_repeated", op, b, [1, -2])
case("is_all_true", "aten::_is_all_true", torch.tensor([True, True]))
case("is_all_true_false", "aten::_is_all_true", torch.tensor([[True, False]]))
case("is_any_true", "aten::_is_any_true", torch.tensor([False, True]))
case("is_any_true_empty", "aten::_is_any_true", torch.zeros(0, dtype=torch.bool))

# --- linspace / logspace Tensor overloads -----------------------------------------------------
t0, t1 = torch.tensor(-1.5), torch.tensor(2.0)
case("linspace_tt", "aten::linspace.Tensor_Tensor", t0, t1, 7)
case("linspace_ts_dtype", "aten::linspace.Tensor_Scalar", t0, 3, 5, dtype=torch.float64)
case("linspace_st_int", "aten::linspace.Scalar_Tensor", 0, torch.tensor(10), 4, dtype=torch.int64)
case("linspace_tt_one_step", "aten::linspace.Tensor_Tensor", t0, t1, 1)
case("linspace_tt_not_0d", "aten::linspace.Tensor_Tensor", torch.zeros(1), t1, 3)
case("logspace_tt", "aten::logspace.Tensor_Tensor", t0, t1, 5, tol="ulp:1")
case("logspace_ts_base2", "aten::logspace.Tensor_Scalar", t0, 3.0, 4, 2.0, tol="ulp:1")
case("logspace_st_dtype", "aten::logspace.Scalar_Tensor", 0.0, torch.tensor(2.0), 3, dtype=torch.float64, tol="ulp:1")

# --- nonzero_static ---------------------------------------------------------------------------
x = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]])
case("nonzero_static_pad", "aten::nonzero_static", x, size=5)
case("nonzero_static_cut", "aten::nonzero_static", x, size=2)
case("nonzero_static_fill", "aten::nonzero_static", x, size=4, fill_value=7)
case("nonzero_static_bool_3d", "aten::nonzero_static", torch.rand(2, 2, 3, generator=g) > 0.5, size=6, fill_value=-2)
case("nonzero_static_0d", "aten::nonzero_static", torch.tensor(3.0), size=2)
case("nonzero_static_zero_size", "aten::nonzero_static", x, size=0)

# --- empty_permuted ---------------------------------------------------------------------------
case("empty_permuted", "aten::empty_permuted", [2, 3, 4], [2, 0, 1], tol="layout")
case("empty_permuted_dtype", "aten::empty_permuted", [2, 3, 4, 5], [0, 2, 3, 1], dtype=torch.float64, tol="layout")
case("empty_permuted_bad_layout", "aten::empty_permuted", [2, 3], [0, 0])

# --- batch norm (aten IR) ---------------------------------------------------------------------
def bn_args(c=3):
    return r(2, c, 4), r(c), r(c), r(c) * 0.1, r(c).abs() + 0.5


for training in (False, True):
    x, w, bias, rm, rv = bn_args()
    case(f"native_batch_norm_legit_training_{training}", "aten::_native_batch_norm_legit", x, w, bias, rm, rv, training,
         0.1, 1e-5, tol="ulp:4", mutated=[3, 4])
x, w, bias, _, _ = bn_args()
case("native_batch_norm_legit_no_stats", "aten::_native_batch_norm_legit.no_stats", x, w, bias, True, 0.1, 1e-5,
     tol="ulp:4")
x, w, bias, rm, rv = bn_args()
case("native_batch_norm_legit_no_training", "aten::_native_batch_norm_legit_no_training", x, w, bias, rm, rv, 0.1, 1e-5,
     tol="ulp:4")
x, w, bias, rm, rv = bn_args()
case("batch_norm_with_update", "aten::_batch_norm_with_update", x, w, bias, rm, rv, 0.1, 1e-5, tol="ulp:4",
     mutated=[3, 4])
x, w, bias, rm, rv = bn_args()
case("batch_norm_no_update", "aten::_batch_norm_no_update", x, None, None, rm, rv, 0.1, 1e-3, tol="ulp:4")

# --- small private ops ------------------------------------------------------------------------
case("prelu_kernel", "aten::_prelu_kernel", r(2, 3, 4), r(1, 3, 1))
case("prelu_kernel_scalar_weight", "aten::_prelu_kernel", r(5, dtype=torch.float64), r(1, dtype=torch.float64))
case("assert_async_msg_true", "aten::_assert_async.msg", torch.tensor(2.0), "never shown")
case("assert_async_msg_false", "aten::_assert_async.msg", torch.tensor(False), "the message")
case("reshape_copy", "aten::_reshape_copy", r(3, 4).t(), [-1, 6])
case("reshape_copy_0d", "aten::_reshape_copy", r(1, 1), [])

# --- var / std / var_mean / std_mean with a Scalar correction ---------------------------------
for dt in (torch.float32, torch.float64):
    n = str(dt).split(".")[1]
    x = r(3, 5, dtype=dt) + 4
    for op in ("aten::var.correction", "aten::std.correction", "aten::var_mean.correction", "aten::std_mean.correction"):
        short = op.split("::")[1].split(".")[0]
        case(f"{short}_all_half_{n}", op, x, correction=0.5, tol="ulp:4")
        case(f"{short}_dim1_{n}", op, x, [1], correction=1.5, keepdim=True, tol="ulp:4")
        case(f"{short}_dims_neg_{n}", op, x, [-1, 0], correction=0.25, tol="ulp:4")
        case(f"{short}_int_{n}", op, x, [0], correction=0, tol="ulp:4")
        case(f"{short}_none_{n}", op, x, [1], tol="ulp:4")
case("var_correction_over_n", "aten::var.correction", r(3), correction=3.5)
case("var_correction_int_input", "aten::var.correction", torch.arange(4), correction=0.5)

# --- pad_sequence with padding_side -----------------------------------------------------------
seqs = [r(2, 3), r(4, 3), r(1, 3)]
for side in ("left", "right"):
    for batch_first in (False, True):
        case(f"pad_sequence_{side}_bf{int(batch_first)}", "aten::pad_sequence", seqs, batch_first, -1.0, side)
case("pad_sequence_1d", "aten::pad_sequence", [torch.arange(3), torch.arange(1)], True, 9.0, "left")
case("pad_sequence_bad_side", "aten::pad_sequence", seqs, False, 0.0, "middle")

# --- TorchScript-language ops -----------------------------------------------------------------
case("nbytes", "prim::nbytes", r(3, 4))
case("nbytes_view", "prim::nbytes", r(4, 6)[:, :2])
case("itemsize_half", "prim::itemsize", r(2, dtype=torch.float16))
case("itemsize_int64", "prim::itemsize", torch.zeros(2, dtype=torch.int64))
case("is_xla", "prim::is_xla", r(1))


class ScriptOps(torch.nn.Module):
    """The TorchScript-language ops, as scripted code saved by 2.6 calls them (saved as
    script_ops.pt beside the references: the checker loads and runs it under 1.13)."""

    def forward(self, x):
        g = torch.Generator(seed=x.numel())
        g.manual_seed(x.numel() + 5)
        return (x.nbytes, x.itemsize, x.is_xla, x.is_mtia, x.is_maia, g.initial_seed(), str(torch.device("cpu", 1)),
                torch.get_autocast_dtype("cpu"))


SCRIPT_INPUTS = [r(2, 3, dtype=torch.float16), r(4, 5, dtype=torch.float64)[:, :2], torch.zeros((), dtype=torch.int8)]


def resolve(op):
    ns, name = op.split("::")
    name, _, overload = name.partition(".")
    packet = getattr(getattr(torch.ops, ns), name)
    return getattr(packet, overload or "default")


def clone(v):
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, list):
        return [clone(e) for e in v]
    return v


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(__file__, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    records = []
    for c in CASES:
        args, kwargs = clone(c["args"]), clone(c["kwargs"])
        rec = dict(c, args=clone(c["args"]), kwargs=clone(c["kwargs"]))
        try:
            out = resolve(c["op"])(*args, **kwargs)
            rec["out"] = list(out) if isinstance(out, tuple) else out
            rec["after"] = [args[i] for i in c["mutated"]]
        except Exception as e:  # the op refuses these arguments: the error, first line
            rec["error"] = str(e).strip().splitlines()[0]
        records.append(rec)
    scripted = torch.jit.script(ScriptOps())
    scripted.save(os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "script_ops.pt"))
    script = [dict(input=x, out=scripted(x)) for x in SCRIPT_INPUTS]
    torch.save(dict(generator_sha256=digest, torch_version=torch.__version__, cases=records, script_ops=script),
               sys.argv[1])
    print(f"{len(records)} cases, {sum('error' in r for r in records)} of them errors, torch {torch.__version__}")


if __name__ == "__main__":
    main()
