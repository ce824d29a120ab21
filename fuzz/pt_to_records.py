#!/usr/bin/env python3
"""Seeds for fuzz_torchscript_load from TorchScript files (fuzz/fuzz_torchscript_load.cpp says the form).
   python3 fuzz/pt_to_records.py OUT_DIR MODEL.pt...
writes, per model, NAME.raw (byte 0, then the file as it is) and NAME.records (byte 3: records, lazy
weights; the target zips them again with correct CRCs)."""
import os
import sys
import zipfile

out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
for path in sys.argv[2:]:
    name = os.path.basename(os.path.dirname(path)) if os.path.basename(path) == "model.pt" else os.path.splitext(os.path.basename(path))[0]
    name = name.split("-")[0]
    with open(path, "rb") as f:
        raw = f.read()
    with open(os.path.join(out_dir, name + ".raw"), "wb") as f:
        f.write(b"\x00" + raw)
    parts = []
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            parts.append(b"@@@" + info.filename.encode() + b"\n" + z.read(info))
    with open(os.path.join(out_dir, name + ".records"), "wb") as f:
        f.write(b"\x03" + b"\n".join(parts))
