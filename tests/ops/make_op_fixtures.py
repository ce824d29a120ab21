#!/usr/bin/python3
"""Makes the fixtures of one op family (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/ops/make_op_fixtures.py OUT_DIR FAMILY
    /usr/bin/python3 tests/ops/make_op_fixtures.py OUT_DIR --all     every family, in one process

Imports tests/ops/cases/FAMILY.py and writes, for each case, OUT_DIR/FAMILY/CASE/ with model.pt,
input_K.bin, expected_K.bin and meta.json (the format of tests/fixtures/make_fixtures.py, which
tests/ort/compare.js reads), then OUT_DIR/FAMILY/cases.json:
    {"source_hash": ..., "cases": [{"name", "opsets", "cli_args", "error"}]}
A case that fails to build, trace or run in PyTorch is listed with its "error" (the test reports it),
unless TORCH_REFUSES names it for this PyTorch: then it is listed with "skipped", the reason and
PyTorch's error (the test skips it, naming both).
Inputs are recorded as the case gives them: tracing, saving and PyTorch's run each get copies, so a model
that writes into its inputs (x.index_add_(...), x.set_(y)) is compared on the values it was given.
A case's further input sets (case(..., more_inputs=...)) go to OUT_DIR/FAMILY/CASE/more_K/.
The family is generated once per version of its case file, this harness and torch, into the fixture
cache outside the build tree (OUT_DIR/FAMILY is a link into it: make_fixtures.generate_once).
"""
import json
import os
import shutil
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "cases"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))


# Cases a newer PyTorch itself refuses to build, trace or run (its own checks or tracer, not the
# exporter): (family, case or "*") -> (first PyTorch release, why). Made by PyTorch 1.13 they test the
# exporter as before; under these releases there is no model to export.
TORCH_REFUSES = {
    ("index_add_broadcast", "*"): ((2, 14), "PyTorch 2.14's index_add no longer broadcasts a source with size-1 "
                                            "dims (it checks source's shape equals self's outside dim)"),
    ("indexing", "index_add_0d_self"): ((2, 14), "PyTorch 2.14's index_add refuses a 0-d self with a 1-d source"),
    ("pooling", "max_unpool*"): ((2, 14), "PyTorch 2.14 cannot trace nn.MaxUnpool (its torch._check of the "
                                          "output size gets a traced tensor: 'cond must be a bool')"),
    ("view_int_size", "traced_view_dtype_loads_as_reshape"): (
        (2, 14), "PyTorch 2.14's tracer records view(dtype) as an aten::view its own alias analysis rejects"),
    ("parity_results", "index_add_dynamic"): ((2, 14), "PyTorch 2.14's index_add no longer broadcasts a source with "
                                                       "size-1 dims (the case's other batch size)"),
}

# Cases whose model, as a newer PyTorch writes it, needs a later opset than the case's lowest: (family,
# case) -> (first PyTorch release, lowest opset, why). Below it the export is refused in one line (as it
# should be); the generator drops those opsets and says why in the case's "narrowed" (the test names it).
TORCH_OPSETS = {
    ("transformer_models", "transformer_script_tgt_mask"): (
        (2, 14), 16, "PyTorch 2.14's scripted nn.MultiheadAttention returns None from one branch of an If "
                     "(an ONNX optional: opset 16)"),
}


def torch_version():
    import torch
    return tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


def torch_refuses(family, name):
    """The reason this PyTorch refuses the case (TORCH_REFUSES), or None."""
    import fnmatch
    version = torch_version()
    for (fam, pattern), (since, why) in TORCH_REFUSES.items():
        if fam == family and fnmatch.fnmatchcase(name, pattern) and version >= since:
            return why
    return None


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    out_dir = sys.argv[1]
    families = [sys.argv[2]]
    if families == ["--all"]:
        families = sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "cases"))
                          if f.endswith(".py") and not f.startswith("_"))
    import make_fixtures as mf

    for family in families:
        target = os.path.join(out_dir, family)
        sources = (os.path.join(HERE, "op_case.py"), __file__, mf.__file__,
                   os.path.join(os.path.dirname(os.path.dirname(HERE)), "python", "torch2onnx", "__init__.py"))
        mf.generate_once(target, os.path.join(HERE, "cases", family + ".py"),
                         lambda digest: generate(target, family, digest), extra_sources=sources)


def generate(target, family, digest):
    import importlib
    import torch
    import make_fixtures as mf

    torch.set_num_threads(1)
    torch.manual_seed(0)
    module = importlib.import_module(family)
    tmp = target
    listed = []
    names = set()
    for c in module.CASES:
        if c.name in names:
            raise SystemExit(f"{family}: case name '{c.name}' used twice")
        names.add(c.name)
        d = os.path.join(tmp, c.name)
        os.makedirs(d)
        entry = {"name": c.name, "opsets": c.opsets, "cli_args": c.cli_args, "error": None, "skipped": None}
        since, lowest, why = TORCH_OPSETS.get((family, c.name), ((99, 0), 0, ""))
        if torch_version() >= since and any(o < lowest for o in c.opsets):
            entry["opsets"] = [o for o in c.opsets if o >= lowest]
            entry["narrowed"] = f"not at opsets {[o for o in c.opsets if o < lowest]}: {why}"
        saved_default = torch.get_default_dtype()
        try:
            if c.default_dtype is not None:  # traced, saved and run in PyTorch under this default
                torch.set_default_dtype(c.default_dtype)
            m = c.module.eval()
            pt = os.path.join(d, "model.pt")
            if c.save == "torch2onnx":
                import torch2onnx
                torch2onnx.save(m, tuple(copies(c.inputs)), pt)
            else:
                with torch.no_grad():
                    ts = (torch.jit.script(m) if c.method == "script"
                          else torch.jit.trace(m, tuple(copies(c.inputs)), check_trace=False))
                ts.save(pt)
            meta = outputs_meta(pt, c.inputs, c.rtol, d, c.method)
            if c.export_as_saved:  # no --input: the signature torch2onnx.save stored gives specs and values
                meta["cli_inputs"] = []
            if c.compare != "values":  # random ops: compared by distribution (tests/ort/compare.js)
                meta["compare"] = c.compare
                meta["stat_tol"] = c.stat_tol
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1)
            # Further input sets: more_K/ holds inputs and PyTorch's outputs in the same format.
            for k, more in enumerate(c.more_inputs):
                dk = os.path.join(d, f"more_{k}")
                os.makedirs(dk)
                with open(os.path.join(dk, "meta.json"), "w") as f:
                    json.dump(outputs_meta(pt, more, c.rtol, dk, c.method), f, indent=1)
            entry["more"] = len(c.more_inputs)
        except Exception as e:  # reported by the test, with the case's name
            error = f"{type(e).__name__}: {e}".splitlines()[0]
            why = torch_refuses(family, c.name)
            if why:
                entry["skipped"] = f"{why} ({error})"
            else:
                entry["error"] = error
                traceback.print_exc()
        finally:
            torch.set_default_dtype(saved_default)
        listed.append(entry)
    with open(os.path.join(tmp, "cases.json"), "w") as f:
        json.dump({"source_hash": digest, "family": family, "cases": listed}, f, indent=1)


def copies(inputs):
    """Fresh copies of a case's inputs (tensors cloned, containers rebuilt, anything else as is)."""
    import torch
    if isinstance(inputs, torch.Tensor):
        return inputs.clone()
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(copies(v) for v in inputs)
    if isinstance(inputs, dict):
        return {k: copies(v) for k, v in inputs.items()}
    return inputs


def outputs_meta(pt, inputs, rtol, d, method):
    """make_fixtures.outputs_meta with PyTorch run on copies: the input files hold INPUTS as given,
    not as a model writing into them left them."""
    import make_fixtures as mf
    meta = mf.outputs_meta(pt, copies(inputs), rtol, d, method)
    meta["inputs"] = [mf.write_tensor(os.path.join(d, f"input_{k}.bin"), t) for k, t in enumerate(inputs)]
    meta["cli_inputs"] = [mf.cli_spec(t) for t in inputs]
    return meta


if __name__ == "__main__":
    main()
