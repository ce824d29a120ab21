#!/usr/bin/env python3
"""Markdown tables for docs/pytorch2_ops.md from the schema diff and the probe results (no torch needed).

    python3 tests/torch2x/probe_report.py [RESULTS_DIR]      # default tests/torch2x/probe_results

Reads schema_diff.tsv (diff_schemas.py), RESULTS_DIR/emitted.json (probe_models.py under PyTorch 2.6)
and RESULTS_DIR/load_1.13.json (probe_load.py under PyTorch 1.13); prints three tables: the kept new
ops/overloads, the kept changed schemas, and one row per probe model.
"""
import csv
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Best-effort PyTorch release that added each op/overload (from the PyTorch pull requests that added
# them and the release branch dates; "≤2.6" when unknown). Out variants follow their op.
ADDED = {
    "aten::scaled_dot_product_attention": "2.0 (public; `scale` 2.1, `enable_gqa` 2.5)",
    "aten::rms_norm": "2.4 (pytorch#121364)",
    "aten::_safe_softmax": "2.5 (pytorch#131060)",
    "aten::squeeze.dims": "2.0 (pytorch#89017)", "aten::squeeze_.dims": "2.0 (pytorch#89017)",
    "aten::squeeze_copy.dims": "2.0 (pytorch#89017)",
    "aten::all.dims": "2.2 (pytorch#110310)", "aten::any.dims": "2.2 (pytorch#110310)",
    "aten::linspace": "2.1 or 2.2 (pytorch#104889, mid-2023)", "aten::logspace": "2.1 or 2.2 (pytorch#104889, mid-2023)",
    "aten::nonzero_static": "2.1 (pytorch#97417)",
    "aten::empty_permuted": "2.1 (pytorch#95208)",
    "aten::_native_batch_norm_legit": "2.0", "aten::_native_batch_norm_legit.no_stats": "2.0",
    "aten::_native_batch_norm_legit_no_training": "2.1",
    "aten::_batch_norm_with_update": "2.3", "aten::_batch_norm_no_update": "2.3",
    "aten::_prelu_kernel": "2.0",
    "aten::_assert_async.msg": "2.1", "aten::_is_all_true": "2.1", "aten::_is_any_true": "2.1",
    "aten::_reshape_copy": "≤2.6",
    "prim::nbytes": "2.1 (pytorch#98322: the properties)", "prim::itemsize": "2.1 (pytorch#98322: the properties)",
    "prim::awaitable_nowait": "2.0", "prim::awaitable_wait": "2.0",
    "prim::is_xla": "≤2.6", "prim::is_mtia": "≤2.6", "prim::is_maia": "2.5?",
    "aten::Generator": "≤2.6", "aten::seed": "≤2.6", "aten::initial_seed": "≤2.6",
    "aten::manual_seed.generator": "≤2.6", "aten::device.with_index": "≤2.6",
    "aten::get_autocast_dtype": "2.4?",
    "aten::pad_sequence": "2.5 (pytorch#131884: padding_side)",
    "aten::var": "2.0 (correction: Scalar)", "aten::std": "2.0 (correction: Scalar)",
    "aten::var_mean": "2.0 (correction: Scalar)", "aten::std_mean": "2.0 (correction: Scalar)",
}


def added(key):
    base = key.split("(")[0]
    for k in (base, base.rsplit("_out", 1)[0] if base.endswith("_out") else base, base.split(".")[0]):
        if k in ADDED:
            return ADDED[k]
    if base.endswith(".out"):
        return added(base[:-4])
    return "≤2.6"


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "probe_results")
    rows = list(csv.DictReader(open(os.path.join(HERE, "schema_diff.tsv")), delimiter="\t"))
    emitted = json.load(open(os.path.join(res, "emitted.json")))["models"]
    loadf = sorted(glob.glob(os.path.join(res, "load_1.13*.json")))
    loads = json.load(open(loadf[-1]))["models"] if loadf else {}

    seen = {}  # schema key -> [model files]
    for m, r in emitted.items():
        for kind, schemas in r.get("ops", {}).items():
            for s in schemas:
                if s != "(no schema)":
                    seen.setdefault(s.split("(", 1)[0], []).append(m)

    def first(m):
        ld = loads.get(m, {})
        if ld.get("load") == "ok":
            return "loads"
        lines = [x.strip() for x in ld.get("error", "?").splitlines() if x.strip()]
        # a schema line first: the reason is on the next line
        return " ".join(lines[:2]) if lines and lines[0].startswith(("aten::", "prim::")) else (lines[0] if lines else "?")

    def load_cell(models):
        errs = sorted({first(m) for m in models})
        return "; ".join(f"`{e}`" if e != "loads" else "loads" for e in errs)

    print("### New ops and overloads (kept)\n")
    print("| op / overload | tier | PyTorch 2.6 schema | added in | emitted by the 2.6 probes | 1.13 on load |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if r["kind"] not in ("new_op", "new_overload") or not r["verdict"].startswith("keep"):
            continue
        k = r["key"]
        ms = sorted(set(seen.get(k, [])))
        em = ("yes: " + ", ".join(ms) if len(ms) <= 6 else f"yes: {len(ms)} probes ({', '.join(ms[:4])}, ...)") if ms \
            else ("no" if k in NOT_EMITTED else "untested")
        if ms:
            ld = load_cell(ms)
        elif r["kind"] == "new_op":
            ld = f"(expected) `Unknown builtin op: {k.split('.')[0]}.`"
        else:
            ld = "(expected) `Arguments for call are not valid.` unless another overload accepts the arguments"
        print(f"| `{k}` | {r['verdict'].split(':')[1]} | `{r['schema']}` | {added(k)} | {em} | {ld} |")

    print("\n### Changed schemas of existing overloads (kept)\n")
    print("| overload | change (1.13 -> 2.6) | added in | emitted by the 2.6 probes | 1.13 on load |")
    print("|---|---|---|---|---|")
    for r in rows:
        if r["kind"] != "changed" or not r["verdict"].startswith("keep"):
            continue
        k = r["key"]
        ms = sorted(set(seen.get(k, [])))
        em = "yes: " + ", ".join(ms) if ms else "untested"
        print(f"| `{k}` | {r['change']} | {added(k)} | {em} | {load_cell(ms) if ms else '—'} |")

    print("\n### Probe models\n")
    print("| model | note | new/changed ops in its 2.6 graph | 1.13 `torch.jit.load` | 1.13 run vs 2.6 |")
    print("|---|---|---|---|---|")
    notable = {r["key"]: r for r in rows if r["kind"] in ("new_op", "new_overload", "changed")}
    for m in sorted(emitted):
        r = emitted[m]
        if not r.get("ok"):
            print(f"| {m} | {r.get('note', '')} | (2.6 failed: {r.get('error')}) | | |")
            continue
        keys = sorted({s.split("(", 1)[0] for ss in r["ops"].values() for s in ss if s.split("(", 1)[0] in notable})
        ld = loads.get(m, {})
        load = "loads" if ld.get("load") == "ok" else f"`{ld.get('error_type', '?')}: {first(m)}`"
        run = ld.get("run", "—") if ld.get("load") == "ok" else "—"
        if run == "error":
            run = f"error: {ld.get('run_error')}"
        print(f"| {m} | {r.get('note', '')} | {', '.join(f'`{k}`' for k in keys) or '—'} | {load} | {run} |")


# Kept ops the probes tried to provoke and that never appeared in a 2.6 TorchScript graph.
NOT_EMITTED = {
    "aten::_safe_softmax", "aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit.no_stats",
    "aten::_native_batch_norm_legit_no_training", "aten::_prelu_kernel", "aten::_assert_async.msg",
    "aten::_batch_norm_with_update", "aten::_batch_norm_no_update",
}

if __name__ == "__main__":
    main()
