#!/usr/bin/env python3
"""Hostile files for tests/hostile: edited copies of examples/tiny_cnn/tiny_cnn.pt and other inputs
whose names and contents hold control characters, invalid UTF-8, very long strings, or claims (sizes,
nesting) that the bytes do not back. Standard library only (zipfile, pickletools): no torch.

    make_hostile.py TINY_CNN_PT OUT_DIR

Writes OUT_DIR/cases.json, a list of {"name", "kind", "hex": {ROLE: hex of the bytes}} the test reads
(ROLE: model, onnx, example_dir, verify_dir, plugin_dir, input_spec), and the files; corrupt/c000.pt to
c099.pt are seeded random corruptions of the model.
Deterministic: the same bytes on every run.
"""
import json
import os
import pickletools
import random
import struct
import sys
import zipfile

ESC = "\x1b[31m"  # a terminal colour sequence
RLO = "\u202e"  # right-to-left override


def members(pt):
    with zipfile.ZipFile(pt) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def write_zip(path, items, deflated=()):
    """items: (name, bytes); stored (as torch writes records) unless the name is in `deflated`."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in items:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if name in deflated else zipfile.ZIP_STORED
            z.writestr(info, data)


def replaced(items, name, fn):
    out = [(n, fn(d) if n == name else d) for n, d in items]
    assert any(n == name for n, _ in items), name
    return out


def ops_of(pkl):
    return list(pickletools.genops(pkl))


def long1(value):
    raw = value.to_bytes(8, "little", signed=True)
    return b"\x8a\x08" + raw


def patch_int_after(pkl, predicate, skip, value):
    """Replaces the `skip`-th integer opcode after the first op matching predicate with LONG1 value."""
    ops = ops_of(pkl)
    start = next(i for i, (op, arg, pos) in enumerate(ops) if predicate(op, arg))
    seen = 0
    for k in range(start + 1, len(ops)):
        op, arg, pos = ops[k]
        if op.name in ("BININT", "BININT1", "BININT2", "LONG1"):
            if seen == skip:
                end = ops[k + 1][2]
                return pkl[:pos] + long1(value) + pkl[end:]
            seen += 1
    raise AssertionError("no integer to patch")


def tensor_spans(pkl, pick):
    """Byte spans of a tensor's rebuild in a TorchScript data.pkl, the first for which pick(spans, pkl)
    holds: the callable (GLOBAL, or BINGET of its memo slot), the memo slot, the argument tuple, the
    storage's class global, the sizes and strides tuples, requires_grad, and the end of the REDUCE."""
    ops = ops_of(pkl)
    g = next(i for i, (op, arg, _) in enumerate(ops) if op.name == "GLOBAL" and arg == "torch._utils _rebuild_tensor_v2")
    assert ops[g + 1][0].name == "BINPUT"
    memo = ops[g + 1][1]
    span = lambda i: (ops[i][2], ops[i + 1][2])
    tuple_end = lambda m: next(i for i in range(m, len(ops)) if ops[i][0].name == "TUPLE")
    globals_memo = {ops[i + 1][1]: arg for i, (op, arg, _) in enumerate(ops[:-1])
                    if op.name == "GLOBAL" and ops[i + 1][0].name == "BINPUT"}
    global_at = lambda i: ops[i][1] if ops[i][0].name == "GLOBAL" else (
        globals_memo.get(ops[i][1], "") if ops[i][0].name == "BINGET" else "")
    for c in range(g, len(ops)):
        if not (c == g or (ops[c][0].name == "BINGET" and ops[c][1] == memo)):
            continue
        m = c + 2 if c == g else c + 1  # the argument tuple's MARK ... TUPLE, then REDUCE
        storage = next(i for i in range(m, len(ops)) if global_at(i).endswith("Storage"))
        persid = next(i for i in range(m, len(ops)) if ops[i][0].name == "BINPERSID")
        marks = [i for i in range(persid, len(ops)) if ops[i][0].name == "MARK"][:2]
        depth, k = 0, m
        while True:
            name = ops[k][0].name
            depth += name == "MARK"
            depth -= name == "TUPLE"
            if depth == 0:
                break
            k += 1
        assert ops[k + 1][0].name == "REDUCE"
        grad = tuple_end(marks[1]) + 1
        spans = {"global": span(c), "memo": memo if c == g else None, "args": (ops[m][2], ops[k + 1][2]),
                 "storage": span(storage), "storage_class": global_at(storage),
                 "sizes": (ops[marks[0]][2], ops[tuple_end(marks[0]) + 1][2]),
                 "strides": (ops[marks[1]][2], ops[grad][2]), "grad": span(grad), "end": ops[k + 2][2]}
        if pick(spans, pkl):
            return spans
    raise AssertionError("no such tensor")


first_tensor = lambda pkl: tensor_spans(pkl, lambda t, p: True)


def edit(data, edits):
    """Replaces byte spans (start, end) -> bytes; spans do not overlap."""
    for (a, b), new in sorted(edits, key=lambda e: -e[0][0]):
        data = data[:a] + new + data[b:]
    return data


def ints_tuple(values):
    return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"


def binunicode(text):
    return b"X" + struct.pack("<I", len(text)) + text.encode()


def quantized_buffer(pkl, storage_class, sizes=None, strides=None, qparams=b""):
    """The first float buffer (requires_grad False: libtorch refuses gradients of a quantized tensor)
    of the model rebuilt by torch._utils._rebuild_qtensor on a `storage_class` storage, with other
    sizes/strides and `qparams` (pickled) after the strides."""
    t = tensor_spans(pkl, lambda t, p: p[t["grad"][0]] == 0x89 and t["storage_class"] == "torch FloatStorage")
    assert t["memo"] is None  # a BINGET of the callable: the memo slot stays _rebuild_tensor_v2
    edits = [(t["global"], b"ctorch._utils\n_rebuild_qtensor\n"), (t["storage"], b"ctorch\n" + storage_class + b"\n"),
             ((t["strides"][1], t["strides"][1]), qparams)]
    if sizes is not None:
        edits.append((t["sizes"], ints_tuple(sizes)))
    if strides is not None:
        edits.append((t["strides"], ints_tuple(strides)))
    return edit(pkl, edits)


def double_tensor(key, n):
    """_rebuild_tensor_v2 of n doubles on the storage `key` (1-d, contiguous)."""
    persid = b"(" + binunicode("storage") + b"ctorch\nDoubleStorage\n" + binunicode(key) + binunicode("cpu") + \
        b"J" + struct.pack("<i", n) + b"tQ"
    return b"ctorch._utils\n_rebuild_tensor_v2\n(" + persid + b"K\x00" + ints_tuple([n]) + ints_tuple([1]) + b"\x89}tR"


def patch_cd(zip_bytes, name, offset, fmt, value):
    """Sets a field of `name`'s central directory entry (offset from the entry's start)."""
    b = bytearray(zip_bytes)
    p = b.rfind(b"PK\x05\x06")
    cd_offset = struct.unpack_from("<I", b, p + 16)[0]
    q = cd_offset
    while b[q:q + 4] == b"PK\x01\x02":
        n, e, c = struct.unpack_from("<HHH", b, q + 28)
        if b[q + 46:q + 46 + n].decode() == name:
            struct.pack_into(fmt, b, q + offset, value)
            return bytes(b)
        q += 46 + n + e + c
    raise AssertionError(name)


def patch_eocd(zip_bytes, offset, fmt, value):
    b = bytearray(zip_bytes)
    p = b.rfind(b"PK\x05\x06")
    struct.pack_into(fmt, b, p + offset, value)
    return bytes(b)


def npy(header_dict_text, data):
    header = header_dict_text.encode("latin-1") if isinstance(header_dict_text, str) else header_dict_text
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def varint(v):
    out = b""
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def tensor_proto(dims, data_type, raw):
    """ONNX TensorProto by hand: dims (1), data_type (2), raw_data (9)."""
    out = b"".join(b"\x08" + varint(d) for d in dims)
    out += b"\x10" + varint(data_type)
    return out + b"\x4a" + varint(len(raw)) + raw


def main(pt, out):
    os.makedirs(out, exist_ok=True)
    items = members(pt)
    prefix = items[0][0].split("/")[0]
    code = prefix + "/code/__torch__.py"
    data_pkl = prefix + "/data.pkl"
    deflated_code = {n for n, _ in items if "/code/" in n}
    cases = []

    def add(name, kind, **files):
        # Paths and specs as the hex of their bytes: they hold what JSON cannot (lone surrogates).
        cases.append({"name": name, "kind": kind, "hex": {k: os.fsencode(v).hex() for k, v in files.items()}})

    def model(file_name, its, deflated=deflated_code):
        path = os.path.join(out, file_name)
        write_zip(path, its, deflated)
        return path

    def raw(file_name, data):
        path = os.path.join(out, file_name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    # ---- the control: rebuilt by zipfile, unchanged (must export) ----
    add("control", "ok", model=model("control.pt", items))

    # ---- bytes that reach the error line (issue 28, part 1) ----
    forward_bad_byte = lambda d: d.replace(b"def forward(", b"def \xce\x1b[2J" + RLO.encode() + b"forward(", 1)
    add("code_invalid_utf8", "printable", model=model("code_bad_byte.pt", replaced(items, code, forward_bad_byte)))
    add("version_bytes", "printable",
        model=model("version.pt", replaced(items, prefix + "/version", lambda d: b"\xe5\xd7O\xfe\x1b]0;owned\x07\n")))
    long_name = b"x = " + b"a" * 60000 + b"\x1b[31m\xff" + b"\n"
    add("code_long_line", "printable",
        model=model("code_long.pt", replaced(items, code, lambda d: d.replace(b"def forward(", long_name + b"def forward(", 1))))
    add("pickle_global_bytes", "printable",
        model=model("global.pt", replaced(items, data_pkl, lambda d: d.replace(
            b"torch._utils\n_rebuild_tensor_v2\n", b"torch.\x1b[2J\xff" + RLO.encode() + b"\n_rebuild_tensor_v2\n", 1))))
    evil_name = "ev\x1b[2Jil" + RLO + "gnp.\udcff\x07"  # \udcff: the byte 0xff in a file name
    add("file_name_missing", "printable", model=os.path.join(out, evil_name + ".pt"))
    evil_dir = os.path.join(out, "dir" + ESC)
    os.makedirs(evil_dir, exist_ok=True)
    add("file_name_corrupt", "printable",
        model=model(os.path.join("dir" + ESC, "m\x1b[0m\udcfe.pt"), replaced(items, code, forward_bad_byte)))
    add("signature_bytes", "printable",
        model=model("signature.pt", items + [(prefix + "/extra/torch2onnx_signature.json",
                                              b'{"version": 1, "inputs": ["float32[1,\x1b[31m\xff' + "\u2066".encode() + b']"]}')]))
    os.makedirs(os.path.join(out, "npy_descr"), exist_ok=True)
    raw(os.path.join("npy_descr", "x.npy"),
        npy(b"{'descr': '\x1b[31m" + RLO.encode() + b"\xff', 'fortran_order': False, 'shape': (1, 3, 32, 32), }", b"\0" * 16))
    add("npy_descr_bytes", "printable", example_dir=os.path.join(out, "npy_descr"))
    add("input_spec_bytes", "printable", input_spec="float32[1,\x1b[2J\udcff" + RLO + "]")
    add("input_spec_long", "printable", input_spec="float32[" + "1," * 30000 + "\x1b]")
    raw("garbage\x1b[31m.onnx", b"\x1b[2J\xff\xfe" + RLO.encode() + b"not onnx" * 10)
    add("onnx_garbage", "printable", onnx=os.path.join(out, "garbage\x1b[31m.onnx"))
    os.makedirs(os.path.join(out, "pack_bytes"), exist_ok=True)
    raw(os.path.join("pack_bytes", "evil\x1b[31m.json"),
        b'{"torch2onnx_pack": 1, "name": "\x1b]0;t\x07 \xff' + RLO.encode() + b'", "version": "1", "ops": []}')
    add("json_pack_bytes", "pack", plugin_dir=os.path.join(out, "pack_bytes"))

    # ---- claims the bytes do not back (issue 28, part 2) ----
    base = open(os.path.join(out, "control.pt"), "rb").read()
    first_storage = prefix + "/data/0"
    add("member_beyond_file", "bounds",
        model=raw("member_beyond.pt", patch_cd(patch_cd(base, first_storage, 20, "<I", 0x7FFFFF00), first_storage, 24, "<I", 0x7FFFFF00)))
    add("stored_sizes_differ", "bounds",
        model=raw("stored_sizes.pt", patch_cd(base, first_storage, 24, "<I", 0xFFFFFFF0)))
    add("directory_beyond_file", "bounds", model=raw("cd_beyond.pt", patch_eocd(base, 16, "<I", 0x7FFFFFF0)))
    add("entry_count_lies", "bounds", model=raw("entries.pt", patch_eocd(patch_eocd(base, 8, "<H", 0xFFFE), 10, "<H", 0xFFFE)))
    # 256 MiB of zeros deflated to ~250 KiB, as the signature torch2onnx reads first.
    bomb = os.path.join(out, "deflate_bomb.pt")
    write_zip(bomb, items, deflated_code)
    with zipfile.ZipFile(bomb, "a") as z:
        info = zipfile.ZipInfo(prefix + "/extra/torch2onnx_signature.json", date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with z.open(info, "w", force_zip64=False) as f:
            chunk = b"\0" * (1 << 20)
            for _ in range(256):
                f.write(chunk)
    add("deflate_bomb", "bounds", model=bomb)
    is_cpu = lambda op, arg: op.name in ("BINUNICODE", "SHORT_BINUNICODE") and arg == "cpu"
    add("storage_declares_more", "bounds",
        model=model("storage_more.pt", replaced(items, data_pkl, lambda d: patch_int_after(d, is_cpu, 0, 1 << 40))))
    is_persid = lambda op, arg: op.name == "BINPERSID"
    add("tensor_declares_terabytes", "bounds",
        model=model("tensor_tb.pt", replaced(items, data_pkl, lambda d: patch_int_after(d, is_persid, 1, 1 << 42))))
    add("tensor_offset_beyond", "bounds",
        model=model("tensor_offset.pt", replaced(items, data_pkl, lambda d: patch_int_after(d, is_persid, 0, 1 << 30))))
    # Quantized tensors (torch._utils._rebuild_qtensor): libtorch sets their sizes, strides and
    # per-channel parameters on the storage unchecked, as for plain tensors.
    per_tensor = b"K\x00G" + struct.pack(">d", 0.05) + b"K\x00\x87"  # (per_tensor_affine, scale, zero point)
    add("qtensor_declares_more", "bounds", model=model("qtensor_more.pt", replaced(items, data_pkl, lambda d: quantized_buffer(
        d, b"QInt8Storage", sizes=[1 << 24], qparams=per_tensor))))
    # per_channel_affine along axis 0 of a 16-channel buffer with 3 scales and 3 zero points
    per_channel = b"(K\x01" + double_tensor("1", 3) + double_tensor("2", 3) + b"K\x00t"
    add("qtensor_channels_lie", "bounds", model=model("qtensor_channels.pt", replaced(items, data_pkl, lambda d: quantized_buffer(
        d, b"QInt8Storage", qparams=per_channel))))
    per_channel_axis = b"(K\x01" + double_tensor("1", 3) + double_tensor("2", 3) + b"K\x07t"
    add("qtensor_axis_beyond", "bounds", model=model("qtensor_axis.pt", replaced(items, data_pkl, lambda d: quantized_buffer(
        d, b"QInt8Storage", qparams=per_channel_axis))))
    # quint4x2: two elements a byte, rows of 300 need 150 bytes each, 2 rows 300 of the record's 64
    add("qtensor_sub_byte_more", "bounds", model=model("qtensor_4bit.pt", replaced(items, data_pkl, lambda d: quantized_buffer(
        d, b"QUInt4x2Storage", sizes=[2, 300], strides=[300, 1], qparams=per_tensor))))

    def from_type(pkl):  # torch._tensor._rebuild_from_type_v2(_rebuild_tensor_v2, Tensor, args, {}) with huge sizes
        t = first_tensor(pkl)
        args = edit(pkl[t["args"][0]:t["args"][1]], [((t["sizes"][0] - t["args"][0], t["sizes"][1] - t["args"][0]),
                                                      ints_tuple([16, 3, 3, 1 << 30]))])
        wrapped = (b"ctorch._tensor\n_rebuild_from_type_v2\n(" + pkl[t["global"][0]:t["args"][0]] + b"ctorch\nTensor\n" + args +
                   b"}tR")
        return pkl[:t["global"][0]] + wrapped + pkl[t["end"]:]
    add("tensor_from_type_declares_more", "bounds", model=model("tensor_from_type.pt", replaced(items, data_pkl, from_type)))
    add("pickle_nested_tuples", "bounds",
        model=model("pickle_tuples.pt", replaced(items, data_pkl, lambda d: b"\x80\x02" + b"(" * 300000 + b"t" * 300000 + b".")))
    add("pickle_nested_lists", "bounds",
        model=model("pickle_lists.pt", replaced(items, data_pkl, lambda d: b"\x80\x02" + b"]" * 300000 + b"a" * 299999 + b".")))
    nested_code = b"def f(x):\n  return " + b"(" * 200000 + b"x" + b")" * 200000 + b"\n"
    add("code_nested_brackets", "bounds",
        model=model("code_brackets.pt", replaced(items, code, lambda d: d + nested_code), ()))
    deep_blocks = b"def g(x):\n" + b"".join(b"  " * (k + 1) + b"if True:\n" for k in range(300)) + b"  " * 301 + b"pass\n"
    add("code_nested_blocks", "bounds", model=model("code_blocks.pt", replaced(items, code, lambda d: d + deep_blocks), ()))
    chain = b"def h(x):\n  return x" + b" + x" * 400000 + b"\n"
    add("code_operator_chain", "bounds", model=model("code_chain.pt", replaced(items, code, lambda d: d + chain), ()))
    subscripts = b"    _c = x" + b"[0]" * 100000 + b"\n    fc = self.fc\n"
    add("code_subscript_chain", "bounds",
        model=model("code_subscripts.pt", replaced(items, code, lambda d: d.replace(b"    fc = self.fc\n", subscripts, 1)), ()))
    # A class-level "NAME = value" without a type: libtorch 1.13 dereferences the missing type (a crash
    # found by fuzz_torchscript_load).
    add("code_untyped_class_constant", "bounds",
        model=model("code_class_constant.pt", replaced(items, code, lambda d: d.replace(b"  __buffers__ = []\n",
                                                                                     b"  __buffers__ = []\n  _versions__ = []\n", 1))))
    # A source-range record whose text refers to string 200 of a short table: libtorch indexes its table
    # unchecked when it reports an error (a SEGV found by fuzz_torchscript_load); the code is broken too,
    # so that libtorch would report one.
    def bad_string_index(d):
        at = d.index(b"build_intlist\n")
        k = d.index(b"](K", at) + 3
        return d[:k] + b"\xc8" + d[k + 1:]
    add("debug_range_string_index", "bounds",
        model=model("debug_range.pt", replaced(replaced(items, code + ".debug_pkl", bad_string_index), code,
                                               lambda d: d.replace(b"def forward(", b"def forward<(", 1))))
    add("signature_nested", "bounds",
        model=model("signature_nested.pt", items + [(prefix + "/extra/torch2onnx_signature.json", b"[" * 2000000)]))
    os.makedirs(os.path.join(out, "npy_huge"), exist_ok=True)
    raw(os.path.join("npy_huge", "input_0.npy"),
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100000), }", b"\0" * 16))
    add("npy_huge_shape", "bounds", example_dir=os.path.join(out, "npy_huge"), verify_dir=os.path.join(out, "npy_huge"))
    os.makedirs(os.path.join(out, "pb_huge"), exist_ok=True)
    raw(os.path.join("pb_huge", "input_0.pb"), tensor_proto([100000, 100000, 100000], 1, b"\0" * 16))
    add("pb_huge_dims", "bounds", example_dir=os.path.join(out, "pb_huge"), verify_dir=os.path.join(out, "pb_huge"))
    # What libtorch's zip reader checks in its constructor (which leaks when it throws): refused first.
    add("version_newer", "bounds", model=model("version_newer.pt", replaced(items, prefix + "/version", lambda d: b"11\n")))
    add("version_missing", "bounds", model=model("version_missing.pt", [(n, d) for n, d in items if n != prefix + "/version"]))
    add("first_member_outside_folder", "bounds", model=model("outside_folder.pt", [("stray", b"x")] + items))
    # A member name holding a NUL byte (zipfile cannot write one: patched in after). miniz gives libtorch
    # the name up to the NUL, so it and our checks would read different names; found by
    # fuzz_torchscript_load (libtorch's reader threw from its constructor, leaking its zip state).
    nul_tmp = model("member_name_nul_tmp.pt", [(prefix + "/nul@name", b"x")] + items)
    with open(nul_tmp, "rb") as f:
        nul_zip = f.read()
    os.remove(nul_tmp)
    add("member_name_nul", "bounds", model=raw("member_name_nul.pt", nul_zip.replace(b"/nul@name", b"/nul\0name")))
    # Found by fuzz_torchscript_load: libtorch unpickles the code's debug pickles (source ranges) too,
    # allocating a string's claimed length first (1.6 GB here).
    add("debug_pickle_string_claims", "bounds", model=model("debug_pkl.pt", replaced(
        items, code + ".debug_pkl", lambda d: b"\x80\x02X" + struct.pack("<I", 1677721649) + b"def f")))
    # Found by fuzz_torchscript_load: libtorch grows its memo to the highest index written (27 GB here).
    add("pickle_memo_index", "bounds", model=model("memo_index.pt", replaced(
        items, data_pkl, lambda d: b"\x80\x02)r" + struct.pack("<I", 1701274079) + b".")))
    # miniz finds records case-insensitively: DATA.PKL is libtorch's data.pkl, checked as one.
    add("pickle_name_upper_case", "bounds", model=model("upper_case.pt", [
        ((prefix + "/DATA.PKL") if n == data_pkl else n, patch_int_after(d, is_cpu, 0, 1 << 40) if n == data_pkl else d)
        for n, d in items]))
    os.makedirs(os.path.join(out, "pack_nested"), exist_ok=True)
    raw(os.path.join("pack_nested", "deep.json"), b'{"torch2onnx_pack": 1, "name": "deep", "ops": ' + b"[" * 4000000)
    add("json_pack_nested", "pack", plugin_dir=os.path.join(out, "pack_nested"))
    add("input_spec_nested", "bounds", input_spec="(" * 60000 + "float32[1,3,32,32]" + ")" * 60000)

    # ---- corrupted copies: random bytes flipped, cut or inserted (seeded) ----
    rng = random.Random(28)
    corrupt_dir = os.path.join(out, "corrupt")
    os.makedirs(corrupt_dir, exist_ok=True)
    original = open(pt, "rb").read()
    for k in range(100):
        data = bytearray(original)
        how = k % 4
        if how == 0:  # a few random bytes
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif how == 1:  # cut
            data = data[: rng.randrange(len(data))]
        elif how == 2:  # a run of random bytes
            at = rng.randrange(len(data))
            data[at:at + 64] = bytes(rng.randrange(256) for _ in range(64))
        else:  # bytes inserted
            at = rng.randrange(len(data))
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
        with open(os.path.join(corrupt_dir, "c%03d.pt" % k), "wb") as f:
            f.write(bytes(data))

    with open(os.path.join(out, "cases.json"), "w", encoding="utf-8", errors="surrogateescape") as f:
        json.dump(cases, f, indent=1, ensure_ascii=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
