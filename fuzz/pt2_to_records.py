#!/usr/bin/env python3
"""Seeds for fuzz_pt2_program from .pt2 files (fuzz/fuzz_pt2_program.cpp says the forms).
   python3 fuzz/pt2_to_records.py OUT_DIR [--slim] [--deflate] NAME=MODEL.pt2...
writes, per model, NAME.raw (byte 0, then the file as it is) and NAME.records (byte 1: records, the
program's JSON first, then the other members in the archive's order; the target zips them again with
correct CRCs). --slim: the JSON minified, without the fields the reader ignores (module_call_graph,
guards_code, verifiers), so mutations land on what is read. --deflate: byte 3 (members deflated)."""
import json
import os
import sys
import zipfile

args = sys.argv[1:]
out_dir = args.pop(0)
slim = "--slim" in args
deflate = "--deflate" in args
args = [a for a in args if not a.startswith("--")]
os.makedirs(out_dir, exist_ok=True)
for arg in args:
    name, path = arg.split("=", 1)
    with open(path, "rb") as f:
        raw = f.read()
    if not slim and not deflate:
        with open(os.path.join(out_dir, name + ".raw"), "wb") as f:
            f.write(b"\x00" + raw)
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        programs = [i for i in infos if i.filename.endswith(".json") and
                    (i.filename == "serialized_exported_program.json" or "/models/" in i.filename)]
        parts = []
        for info in programs + [i for i in infos if i not in programs]:
            body = z.read(info)
            if slim and info in programs:
                j = json.loads(body)
                for key in ("guards_code", "verifiers"):
                    j.pop(key, None)
                j["graph_module"].pop("module_call_graph", None)
                body = json.dumps(j, separators=(",", ":")).encode()
            parts.append(b"@@@" + info.filename.encode() + b"\n" + body)
    suffix = (".slim" if slim else "") + (".deflated" if deflate else "") + ".records"
    with open(os.path.join(out_dir, name + suffix), "wb") as f:
        f.write((b"\x03" if deflate else b"\x01") + b"\n".join(parts))
