#!/usr/bin/env python3
"""Damaged and unsupported .pt2 programs, each made here from a committed fixture (tests/pt2/fixtures)
by rewriting one member of its zip: `torch2onnx export` must refuse each with exit status 1, one
stderr line that starts "torch2onnx: error: " and names the problem, and no output file. `check`
says the same line with its own status for a model it cannot read (2), and lists an op nothing
converts in its table (status 1). No torch needed: only zipfile and json.

    check_bad_programs.py TORCH2ONNX FIXTURES_DIR      (exit 0 when every case holds; 1 listing failures)
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile


def rewrite(src, dst, edit):
    """Copies the zip `src` to `dst`, every member through edit(name, bytes) -> bytes or None (dropped)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)


def edit_json(member_suffix, change):
    def edit(name, data):
        if not name.endswith(member_suffix):
            return data
        j = json.loads(data)
        change(j)
        return json.dumps(j).encode()
    return edit


def first_user_input(j):
    g = j["graph_module"]["graph"]
    for spec in j["graph_module"]["signature"]["input_specs"]:
        if "user_input" in spec:
            return g["tensor_values"][spec["user_input"]["arg"]["as_tensor"]["name"]]
    raise SystemExit("fixture without a user input")


def set_dtype(j, value):
    first_user_input(j)["dtype"] = value


def shorten_first_weight(name, data):
    return data[: len(data) // 2] if name.endswith("data/weights/weight_0") else data


def pickle_weights(j):
    for meta in j["config"].values():
        meta["use_pickle"] = True


def torchbind_input(j):
    j["graph_module"]["signature"]["input_specs"].insert(
        0, {"custom_obj": {"arg": {"name": "obj", "class_fqn": "__torch__.torch.classes.my.Obj"}, "custom_obj_name": "obj"}})
    j["graph_module"]["graph"]["inputs"].insert(0, {"as_custom_obj": {"name": "obj", "class_fqn": "my.Obj"}})


def map_node(j):
    # A higher-order operator torch2onnx converts, called with the arguments of another op: one line
    # naming what it expected.
    nodes = j["graph_module"]["graph"]["nodes"]
    nodes[0] = dict(nodes[0], target="torch.ops.higher_order.map_impl")


def corrupt_pickle(name, data):
    if not name.endswith("serialized_state_dict.pt"):
        return data
    at = data.find(b"data.pkl")
    body = bytearray(data)
    # Past the local header: the pickle's first opcodes become garbage.
    for k in range(at + 40, min(at + 60, len(body))):
        body[k] = 0xFE
    return bytes(body)


def truncated_json(name, data):
    return data[: len(data) // 3] if name.endswith(".json") and "weights" not in name else data


def main(cli, fixtures):
    v26 = os.path.join(fixtures, "torch2.6", "resnet_tiny", "model.pt2")
    v214 = os.path.join(fixtures, "torch2.14", "resnet_tiny", "model.pt2")
    cases = [
        # (name, source, edit, extra args, expected text)
        ("short weight record", v214, shorten_first_weight, [], "needs"),
        ("unknown dtype number", v214, edit_json("models/model.json", lambda j: set_dtype(j, 99)), [],
         "unknown dtype number 99"),
        ("unknown dtype number 2.6", v26, edit_json("serialized_exported_program.json", lambda j: set_dtype(j, 77)), [],
         "unknown dtype number 77"),
        ("pickled weights (tensor subclass)", v214, edit_json("model_weights_config.json", pickle_weights), [],
         "pickled"),
        ("TorchBind object input", v214, edit_json("models/model.json", torchbind_input), [], "TorchBind"),
        ("map_impl with another op's arguments", v26, edit_json("serialized_exported_program.json", map_node), [],
         "map_impl takes 3 arguments"),
        ("corrupt state-dict pickle", v26, corrupt_pickle, [], "serialized_state_dict.pt"),
        ("truncated program JSON", v214, truncated_json, [], "not valid JSON"),
        ("no such program", v214, lambda n, d: d, ["--model", "other"], "no program named 'other'"),
    ]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, src, edit, extra, expected) in enumerate(cases):
            model = os.path.join(tmp, f"case{k}.pt2")
            rewrite(src, model, edit)
            for command in ("export", "check"):
                out = os.path.join(tmp, f"case{k}.onnx")
                argv = [cli, command, model] + (["-o", out] if command == "export" else []) + extra
                r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
                lines = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith("torch2onnx: warning")]
                where = f"{label} ({command})"
                want = 1 if command == "export" else 2  # check: exit 2 for a program it cannot read
                if r.returncode != want:
                    failures.append(f"{where}: exit {r.returncode}, expected {want}; stderr: {r.stderr.strip()[:300]}")
                elif len(lines) != 1 or not lines[0].startswith("torch2onnx: error: "):
                    failures.append(f"{where}: expected one error line, got {len(lines)}: {r.stderr.strip()[:300]}")
                elif expected not in lines[0]:
                    failures.append(f"{where}: '{expected}' not in: {lines[0][:300]}")
                elif os.path.exists(out):
                    failures.append(f"{where}: an output file was written")
                else:
                    print(f"{where}: {lines[0][:200]}")
    for f in failures:
        print("FAIL " + f)
    print(f"{2 * len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
