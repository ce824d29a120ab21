#!/usr/bin/env python3
"""Checks libtorch2onnx_compat.so's kernels against PyTorch 2.6's outputs (ctest torch2x.compat_kernels).

    /usr/bin/python3 tests/torch2x/check_kernel_refs.py LIBRARY REFS [GENERATOR]

Under the host's PyTorch 1.13: loads LIBRARY (torch.ops.load_library), then for every case of REFS
(make_kernel_refs.py's file, made under PyTorch 2.6) calls the op with the case's arguments and
compares with what 2.6 returned: dtype, shape and values (bit for bit, or within the case's ulps
where the arithmetic order differs; inf/NaN in the same places), the arguments the op changes in
place, or an error where 2.6 raised one. Each case runs again on the meta device (the example run's
first pass) and must give the same dtype and shape. Fails when GENERATOR's SHA-256 differs from the
one REFS records (the fixtures are stale: regenerate them). The scripted module saved beside REFS
(script_ops.pt: prim::nbytes, aten::Generator, …) is loaded and run and must return 2.6's values.
"""
import hashlib
import os
import sys

import torch

# Where libtorch 1.13 has the overload with an older schema, the library adds one under its own
# name (compat/src/var_std.cpp, pad_sequence.cpp).
RENAMED = {
    "aten::var.correction": "aten::var.t2o_scalar_correction",
    "aten::std.correction": "aten::std.t2o_scalar_correction",
    "aten::var_mean.correction": "aten::var_mean.t2o_scalar_correction",
    "aten::std_mean.correction": "aten::std_mean.t2o_scalar_correction",
    "aten::pad_sequence": "aten::pad_sequence.t2o_padding_side",
}


def resolve(op):
    ns, name = RENAMED.get(op, op).split("::")
    name, _, overload = name.partition(".")
    return getattr(getattr(getattr(torch.ops, ns), name), overload or "default")


def clone(v, device=None):
    if isinstance(v, torch.Tensor):
        return v.to(device) if device else v.clone()
    if isinstance(v, list):
        return [clone(e, device) for e in v]
    return v


def flat(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def ulps(got, exp):
    """The largest |got - exp| in units of exp's dtype epsilon times the larger of |exp| and the
    tensor's largest |exp| / 8 (matmul and reductions round relative to their terms, not to a small
    result), and whether inf/NaN sit in the same places."""
    finite = torch.isfinite(exp)
    same_specials = torch.equal(torch.isnan(got), torch.isnan(exp)) and torch.equal(got[~finite & ~torch.isnan(exp)],
                                                                                      exp[~finite & ~torch.isnan(exp)])
    if not finite.any():
        return 0.0, same_specials
    g, e = got[finite].double(), exp[finite].double()
    scale = torch.maximum(e.abs(), e.abs().max() / 8).clamp_min(torch.finfo(exp.dtype).tiny)
    return float(((g - e).abs() / (scale * torch.finfo(exp.dtype).eps)).max()), same_specials


def compare(name, got, exp, tol):
    """'' when got matches exp, else why not."""
    if isinstance(exp, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            return f"expected a tensor, got {type(got).__name__}"
        if got.dtype != exp.dtype or got.shape != exp.shape:
            return f"expected {exp.dtype}{list(exp.shape)}, got {got.dtype}{list(got.shape)}"
        if tol == "layout":
            return "" if got.stride() == exp.stride() else f"expected strides {exp.stride()}, got {got.stride()}"
        if not exp.is_floating_point() or tol == "exact":
            same = torch.equal(got, exp) or (exp.is_floating_point() and torch.equal(torch.isnan(got), torch.isnan(exp))
                                             and torch.equal(got.nan_to_num(0.0), exp.nan_to_num(0.0)))
            return "" if same else f"values differ (max |diff| {float((got.double() - exp.double()).abs().max())})"
        allowed = float(tol.split(":")[1])
        err, specials = ulps(got, exp)
        if not specials:
            return "inf/NaN in other places"
        return "" if err <= allowed else f"values differ by {err:.2f} ulp (allowed {allowed:g})"
    return "" if got == exp and type(got) == type(exp) else f"expected {exp!r}, got {got!r}"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    torch.ops.load_library(sys.argv[1])
    refs = torch.load(sys.argv[2])
    failures = []
    if len(sys.argv) == 4:
        with open(sys.argv[3], "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest != refs["generator_sha256"]:
            failures.append(f"{sys.argv[2]} is stale: made by a make_kernel_refs.py with SHA-256 "
                            f"{refs['generator_sha256'][:12]}…, the file now has {digest[:12]}…; regenerate it "
                            "(bash scripts/torch2x_env.sh run tests/torch2x/make_kernel_refs.py "
                            "tests/torch2x/kernel_refs/refs.pt)")
    worst = {}
    for c in refs["cases"]:
        name, op = c["name"], resolve(c["op"])
        args, kwargs = clone(c["args"]), clone(c["kwargs"])
        try:
            got = op(*args, **kwargs)
            raised = None
        except Exception as e:
            raised = str(e).strip().splitlines()[0]
        if "error" in c:
            if raised is None:
                failures.append(f"{name}: PyTorch 2.6 raises ({c['error']}), the compat kernel returned")
            continue
        if raised is not None:
            failures.append(f"{name}: raised {raised}")
            continue
        exp = c["out"]
        pairs = list(zip(flat(got), flat(exp))) if isinstance(exp, list) else [(got, exp)]
        if isinstance(exp, list) and len(flat(got)) != len(exp):
            failures.append(f"{name}: {len(flat(got))} outputs, expected {len(exp)}")
            continue
        pairs += [(args[i], after) for i, after in zip(c["mutated"], c["after"])]
        for k, (g, e) in enumerate(pairs):
            why = compare(name, g, e, c["tol"])
            if why:
                failures.append(f"{name}: output {k}: {why}")
            elif isinstance(e, torch.Tensor) and e.is_floating_point() and c["tol"].startswith("ulp"):
                worst[c["op"]] = max(worst.get(c["op"], 0.0), ulps(g, e)[0])
        # The meta device: same dtypes and shapes, no data.
        if any(isinstance(e, torch.Tensor) for _, e in pairs):
            try:
                meta = op(*clone(c["args"], "meta"), **clone(c["kwargs"], "meta"))
                for k, (m, e) in enumerate(zip(flat(meta), flat(exp))):
                    if isinstance(e, torch.Tensor) and (m.dtype != e.dtype or m.shape != e.shape):
                        failures.append(f"{name}: meta output {k}: {m.dtype}{list(m.shape)}, expected "
                                        f"{e.dtype}{list(e.shape)}")
            except Exception as e:
                failures.append(f"{name}: on the meta device: {str(e).strip().splitlines()[0]}")
    # The TorchScript-language ops: 2.6's scripted module, loaded and run here.
    script = torch.jit.load(os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])), "script_ops.pt"))
    for k, c in enumerate(refs["script_ops"]):
        got = script(c["input"])
        if got != c["out"]:
            failures.append(f"script_ops input {k}: expected {c['out']}, got {got}")
    # Not in the references: PyTorch drops weights at random there; the kernel refuses.
    q = torch.ones(1, 1, 2, 4)
    try:
        resolve("aten::scaled_dot_product_attention")(q, q, q, None, 0.1)
        failures.append("sdpa with dropout_p=0.1: expected a refusal")
    except RuntimeError as e:
        if "dropout_p=0.1" not in str(e):
            failures.append(f"sdpa with dropout_p=0.1: unexpected error {str(e).splitlines()[0]}")
    for op, err in sorted(worst.items()):
        print(f"  {op}: largest difference {err:.2f} ulp")
    print(f"{len(refs['cases'])} cases against PyTorch {refs['torch_version']}, {len(failures)} failures")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
