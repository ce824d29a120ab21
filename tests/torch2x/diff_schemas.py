#!/usr/bin/env python3
"""Compares the TorchScript operator registries of PyTorch 1.13 and 2.6 (no torch needed).

    python3 tests/torch2x/diff_schemas.py [--old schemas_1_13.txt] [--new schemas_2_6.txt] [--out schema_diff.tsv]

Reads the files written by dump_schemas.py and writes a TSV, one line per schema that 2.6 has and
1.13 has not, or has differently (after normalisation: SymInt is int to TorchScript, `int[2] x=1` is
`int[2] x=[1, 1]`), plus the 1.13 schemas 2.6 dropped:

    kind      new_op | new_overload | changed | removed
    verdict   keep:<tier> | drop:<reason>    (tiers and reasons: see classify())
    key       name.overload
    schema    the 2.6 schema (the 1.13 one for `removed`)
    old       the 1.13 schema (`changed` only)
    change    what changed, `;`-separated (`changed` only): +arg (added; `=default` when it has one),
              -arg, type x: A -> B, default x: A -> B, kwarg-only x, rename a -> b, returns: A -> B

It prints a summary. The tiers say what a traced or scripted *inference* model can contain; docs/pytorch2_ops.md
explains them.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            out[line.split("(", 1)[0]] = line
    return out


def split_top(s, sep=","):
    """Splits at `sep` outside brackets and quotes."""
    parts, depth, cur, quote = [], 0, [], None
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse(schema):
    """-> (key, [args], returns); each arg is dict(type, name, default, kwonly)."""
    key = schema.split("(", 1)[0]
    i = len(key)
    depth = 0
    for j in range(i, len(schema)):
        if schema[j] == "(":
            depth += 1
        elif schema[j] == ")":
            depth -= 1
            if depth == 0:
                break
    argstr, rest = schema[i + 1:j], schema[j + 1:].strip()
    returns = rest[2:].strip() if rest.startswith("->") else rest
    args, kwonly = [], False
    for a in split_top(argstr):
        if a == "*":
            kwonly = True
            continue
        default = None
        eq = split_top(a, "=")
        if len(eq) == 2:
            a, default = eq[0], eq[1]
        typ, _, name = a.rpartition(" ")
        args.append(dict(type=typ, name=name, default=default, kwonly=kwonly))
    return key, args, returns


def norm_type(t):
    return re.sub(r"\bSymInt\b", "int", t)


def norm_default(t, d):
    if d is None:
        return None
    m = re.search(r"\[(\d+)\]\??$", norm_type(t))
    if m and not d.startswith("["):  # int[2] x=1 means [1, 1]
        d = "[" + ", ".join([d] * int(m.group(1))) + "]"
    try:
        if "." in d and not d.startswith("["):
            return repr(float(d))
    except ValueError:
        pass
    return d.replace(" ", "")


def compare(old, new):
    """The differences that matter to TorchScript between two schemas of one overload."""
    _, oa, orr = parse(old)
    _, na, nr = parse(new)
    changes = []
    oby = {a["name"]: a for a in oa}
    nby = {a["name"]: a for a in na}
    # positional renames (same position, same type, different name): not a loading problem for
    # positional calls, but a keyword call with the new name fails
    for i, (a, b) in enumerate(zip(oa, na)):
        if a["name"] != b["name"] and a["name"] not in nby and b["name"] not in oby:
            changes.append(f"rename {a['name']} -> {b['name']}")
            oby[b["name"]] = a
    for b in na:
        a = oby.get(b["name"])
        if a is None:
            changes.append(f"+{norm_type(b['type'])} {b['name']}" + (f"={b['default']}" if b["default"] is not None else "")
                           + (" (kwarg-only)" if b["kwonly"] else ""))
            continue
        ta, tb = norm_type(a["type"]), norm_type(b["type"])
        if ta != tb:
            what = "alias" if re.sub(r"\([^)]*\)", "", ta) == re.sub(r"\([^)]*\)", "", tb) else "type"
            changes.append(f"{what} {b['name']}: {ta} -> {tb}")
        da, db = norm_default(a["type"], a["default"]), norm_default(b["type"], b["default"])
        if da != db:
            changes.append(f"default {b['name']}: {a['default'] or '(none)'} -> {b['default'] or '(none)'}")
        if a["kwonly"] != b["kwonly"]:
            changes.append(f"{'kwarg-only' if b['kwonly'] else 'positional'} {b['name']}")
    renamed_from = {c.split()[1] for c in changes if c.startswith("rename ")}
    for a in oa:
        if a["name"] not in nby and a["name"] not in renamed_from:
            changes.append(f"-{norm_type(a['type'])} {a['name']}")
    if [x["name"] for x in oa if x["name"] in nby] != [x["name"] for x in na if x["name"] in oby]:
        changes.append("argument order")
    if norm_type(orr) != norm_type(nr):
        changes.append(f"returns: {orr} -> {nr}")
    return changes


# --- classification ------------------------------------------------------------------------------
# Namespaces a traced/scripted inference model does not contain (distributed, compiler, backends).
DROP_NS = {
    "_c10d_functional": "distributed", "_c10d_functional_autograd": "distributed", "c10d": "distributed",
    "_dtensor": "distributed", "symm_mem": "distributed", "inductor": "compiler-internal",
    "prims": "compiler-internal", "debugprims": "compiler-internal", "rngprims": "compiler-internal",
    "nvprims": "device:cuda", "mkldnn": "device:mkldnn", "onednn": "device:onednn",
    "vulkan_prepack": "device:vulkan", "vulkan_quantized": "device:vulkan", "_quantized": "quantized-internal",
}
DROP_PATTERNS = [  # (regex on the op name without namespace, reason); first match wins
    (r"backward", "backward"),
    (r"^_?foreach_", "optimizer/_foreach"),
    (r"^_fused_(adam|adamw|sgd|adagrad)", "optimizer"),
    (r"cudnn|miopen|mkldnn|_mps|mps_|xpu|cuda|vulkan|onednn", "device-specific"),
    (r"^_(efficient_attention|flash_attention|fill_mem_eff_dropout_mask)|^_scaled_dot_product_(flash|efficient|cudnn|fused_attention_overrideable)|_for_mps$|^_fused_sdp_choice$|^_scaled_dot_product_attention_math$",
     "device-specific (SDPA backend kernels; a trace records aten::scaled_dot_product_attention)"),
    (r"^_scaled_dot_product_flash_attention_for_cpu$", "SDPA backend kernel (a trace records aten::scaled_dot_product_attention)"),
    (r"sparse|_cslt_|^_spsolve$|semi_structured|^_to_sparse", "sparse"),
    (r"nested|jagged", "nested-tensor"),
    (r"^_(weight_int4pack_mm|weight_int8pack_mm|convert_weight_to_int4pack|wrapped_linear_prepack|wrapped_quantized_linear_prepacked|int_mm|scaled_mm|mixed_dtypes_linear)|^quantized_max_pool3d$",
     "quantized-internal / low-precision GEMM kernels"),
    (r"^_(assert_scalar|functional_assert_scalar|functional_assert_async|functional_sym_constrain_range|functional_sym_constrain_range_for_size|make_dep_token|print|propagate_xla_data|lazy_clone|chunk_cat)$|^sym_constrain_range|^slice_inverse$|_functional$",
     "torch.export / compile internal"),
    (r"^_test_|^_get_cpu_capability$", "test / introspection"),
    (r"^_unsafe_(index|index_put|masked_index|masked_index_put_accumulate)$", "inductor decomposition target"),
    (r"^oneDNNFusion", "device-specific (fuser)"),
    (r"^_linalg_eigvals$", "linalg internal (torch.linalg.eigvals records aten::linalg_eigvals)"),
]
# Kept ops that are private or reached only in particular ways.
TIER_PRIVATE = re.compile(
    r"^aten::(_native_batch_norm_legit|_batch_norm_with_update|_batch_norm_no_update|_prelu_kernel|_safe_softmax|"
    r"_reshape_copy|_assert_async|_is_all_true|_is_any_true|rrelu_with_noise)")
TIER_SCRIPT = re.compile(r"^(prim::|aten::(Generator|initial_seed|seed|manual_seed|device|get_autocast_dtype)\b)")


def classify(key):
    ns, _, rest = key.partition("::")
    name, _, overload = rest.partition(".")
    if ns in DROP_NS:
        return f"drop:{DROP_NS[ns]}"
    if ns == "quantized":
        return "drop:quantized-internal (fbgemm/onednn fusions produced by quantization passes)"
    for rx, why in DROP_PATTERNS:
        if re.search(rx, name):
            return f"drop:{why}"
    if overload.endswith("out") or overload in ("out", "output"):
        return "keep:out"
    if TIER_PRIVATE.search(key):
        return "keep:private"
    if TIER_SCRIPT.search(key):
        return "keep:script"
    return "keep:public"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", default=os.path.join(HERE, "schemas_1_13.txt"))
    ap.add_argument("--new", default=os.path.join(HERE, "schemas_2_6.txt"))
    ap.add_argument("--out", default=os.path.join(HERE, "schema_diff.tsv"))
    args = ap.parse_args()
    old, new = load(args.old), load(args.new)

    def opname(k):
        return k.split(".", 1)[0] if "::" in k else k
    old_names = {opname(k) for k in old}
    rows = []
    for k in sorted(new):
        if k not in old:
            kind = "new_overload" if opname(k) in old_names else "new_op"
            rows.append((kind, classify(k), k, new[k], "", ""))
        elif old[k] != new[k]:
            ch = compare(old[k], new[k])
            if ch:
                rows.append(("changed", classify(k), k, new[k], old[k], "; ".join(ch)))
    for k in sorted(old):
        if k not in new:
            rows.append(("removed", classify(k), k, old[k], "", ""))
    with open(args.out, "w") as f:
        f.write("kind\tverdict\tkey\tschema\told\tchange\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    from collections import Counter
    c = Counter((r[0], r[1].split(":")[0]) for r in rows)
    tiers = Counter((r[0], r[1]) for r in rows if r[1].startswith("keep"))
    print(f"{len(new)} schemas in {os.path.basename(args.new)}, {len(old)} in {os.path.basename(args.old)} -> {args.out}")
    for kind in ("new_op", "new_overload", "changed", "removed"):
        print(f"  {kind:13s} kept {c[(kind, 'keep')]:4d}  dropped {c[(kind, 'drop')]:4d}   "
              + ", ".join(f"{t.split(':')[1]} {n}" for (k, t), n in sorted(tiers.items()) if k == kind))


if __name__ == "__main__":
    sys.exit(main())
