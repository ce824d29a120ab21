#!/usr/bin/env python3
"""Fixtures of the torch.save reader (core/src/program/torch_pickle.cpp, tests/unit/test_torch_pickle.cpp).

    python3 make.py [OUTDIR]        (default: torch<major>.<minor> beside this script)

Run with each PyTorch the tests cover:
    /usr/bin/python3 tests/unit/torch_save/make.py                                  # 1.13 (host)
    bash scripts/torch2x_env.sh run tests/unit/torch_save/make.py                   # 2.6
    T2O_TORCH2X_SUITE=sid bash scripts/torch2x_env.sh run tests/unit/torch_save/make.py   # 2.14

Each NAME.pt is written by torch.save and NAME.json describes what it holds, as the reader must return it:
{"tensor": {"dtype", "shape", "strides", "offset", "storage" (an index: views of one storage share it),
"values" (flattened in logical order; complex as [re, im]; "nan"/"inf"/"-inf")}}, {"dict": [[key, value]...]},
{"tuple": [...]}, {"list": [...]}, {"int": n}, {"float": x}, {"str": s}, {"bool": b}, {"none": null}.
Files the reader must refuse have NAME.json = {"error": "a part of the one-line message"}. A few files are
derived from others by rewriting the zip (big-endian records, unaligned records, a short or missing record).
With PyTorch 2.x, a tiny torch.export.save program is written too and the torch.save members of the .pt2
are kept as pt2_*.pt (the reader reads them from the .pt2's bytes).
"""
import collections
import io
import json
import math
import os
import sys
import zipfile

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "torch" + ".".join(torch.__version__.split(".")[:2]))
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(0)


def num(x):
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


class Describer:
    def __init__(self):
        self.storages = {}

    def __call__(self, obj):
        if isinstance(obj, torch.Tensor):
            t = obj.detach()
            # The storage's identity (its StorageImpl), as torch.save keys records: data_ptr() is 0 for every empty one.
            key = t.untyped_storage()._cdata if hasattr(t, "untyped_storage") else t.storage()._storage._cdata
            sid = self.storages.setdefault(key, len(self.storages))
            flat = t.reshape(-1)
            if t.dtype in (torch.float16, torch.bfloat16):
                values = [num(v) for v in flat.float().tolist()]
            elif t.dtype.is_complex:
                values = [[num(v.real), num(v.imag)] for v in flat.tolist()]
            else:
                values = [num(v) for v in flat.tolist()]
            return {"tensor": {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
                               "strides": list(t.stride()), "offset": t.storage_offset(), "storage": sid,
                               "values": values}}
        if isinstance(obj, dict):
            return {"dict": [[k, self(v)] for k, v in obj.items()]}
        if isinstance(obj, tuple):
            return {"tuple": [self(v) for v in obj]}
        if isinstance(obj, list):
            return {"list": [self(v) for v in obj]}
        if obj is None:
            return {"none": None}
        if isinstance(obj, bool):
            return {"bool": obj}
        if isinstance(obj, int):
            return {"int": obj}
        if isinstance(obj, float):
            return {"float": num(obj)}
        if isinstance(obj, str):
            return {"str": obj}
        raise TypeError(type(obj))


def save(name, obj):
    path = os.path.join(OUT, name + ".pt")
    torch.save(obj, path)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(Describer()(obj), f, indent=None, separators=(",", ":"))
        f.write("\n")
    return path


def expect_error(name, part):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump({"error": part}, f)
        f.write("\n")


def rewrite(src, dst, edit):
    """Rewrites the zip src as dst through Python's zipfile (records no longer 64-byte aligned):
    edit(name, bytes) returns the new bytes, or None to leave the member out."""
    with zipfile.ZipFile(os.path.join(OUT, src + ".pt")) as zin, \
            zipfile.ZipFile(os.path.join(OUT, dst + ".pt"), "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.w64 = torch.nn.Parameter(torch.randn(2, 2, dtype=torch.float64))
        self.frozen = torch.nn.Parameter(torch.randn(3), requires_grad=False)
        self.register_buffer("h", torch.randn(2, 3).half())
        self.register_buffer("bf", torch.randn(4).bfloat16())
        self.register_buffer("i64", torch.tensor([-(2 ** 62), 7, 2 ** 40]))
        self.register_buffer("i32", torch.tensor([[-(2 ** 31), 2 ** 31 - 1]], dtype=torch.int32))
        self.register_buffer("i16", torch.tensor([-32768, 5], dtype=torch.int16))
        self.register_buffer("i8", torch.tensor([-128, 0, 127], dtype=torch.int8))
        self.register_buffer("u8", torch.tensor([0, 200, 255], dtype=torch.uint8))
        self.register_buffer("flags", torch.tensor([True, False, True]))
        self.register_buffer("count", torch.tensor(5))
        self.bn = torch.nn.BatchNorm1d(2)
        self.seq = torch.nn.Sequential(torch.nn.Conv1d(1, 2, 2), torch.nn.ReLU())


net = Net()
# state_dict(): an OrderedDict with _metadata (BUILD), tensors detached (_rebuild_tensor_v2).
save("state_dict", net.state_dict())
# Parameters themselves (_rebuild_parameter), requires_grad True and False, in a plain dict.
save("parameters", dict(net.named_parameters()))

base = torch.arange(24, dtype=torch.float32)
save("views", {
    "base": base,
    "slice": base[3:9],
    "transposed": base.view(4, 6).t(),
    "strided": base.view(4, 6)[:, 1::2],
    "permuted": base.view(2, 3, 4).permute(2, 0, 1),
    "scalar_view": base[7],
    "empty_view": base[5:5],
    "expanded": base[2:5].view(3, 1).expand(3, 4),
    "other": torch.arange(6, dtype=torch.int64).view(2, 3)[:, 1:],
})

save("scalars", {
    "f32": torch.tensor(1.5), "f64": torch.tensor(-2.25, dtype=torch.float64),
    "f16": torch.tensor(0.5, dtype=torch.float16), "bf16": torch.tensor(3.0, dtype=torch.bfloat16),
    "i64": torch.tensor(-3), "i32": torch.tensor(9, dtype=torch.int32), "i8": torch.tensor(-1, dtype=torch.int8),
    "u8": torch.tensor(255, dtype=torch.uint8), "b": torch.tensor(True),
    "empty": torch.zeros(0), "empty3": torch.ones(2, 0, 3, dtype=torch.int32),
    "special": torch.tensor([float("inf"), float("-inf"), float("nan"), -0.0, 1e-45]),
    "c64": torch.tensor([1 + 2j, -3.5j], dtype=torch.complex64),
    "c128": torch.tensor([[0.25 - 1j]], dtype=torch.complex128),
})

t = torch.randn(2, 3)
save("nested", (
    (t, (torch.ones(2, dtype=torch.int64), [t, 1, 2.5, "s", None, True, False]),
     {"a": torch.zeros(1, 2), "b": [None, -7, 2 ** 40, -(2 ** 63), 2 ** 63 - 1, 255, 256, 65536, -129]}),
    {"kw": torch.eye(2), "n": {"deep": (1,), 3: "int key", -5: [], "": ()}, "s": "h\u00e9llo \u2603 \U0001F600",
     "f": [0.1, -1e300, float("inf"), float("nan"), -0.0]},
))

save("tensor", torch.arange(5, dtype=torch.float64).view(5, 1))
save("list", [torch.ones(1), [], [[1, 2], (3,)], {}])
save("big_dict", {i: i for i in range(1001)} | {"t": torch.full((3,), 2.0)})  # SETITEMS in batches of 1000


# Rejected: a custom class (an unknown GLOBAL), a tensor subclass.
class Custom:
    def __init__(self):
        self.x = 1


Custom.__module__ = "fixture_module"
sys.modules["fixture_module"] = sys.modules[__name__]
torch.save({"w": torch.ones(1), "c": Custom()}, os.path.join(OUT, "custom_class.pt"))
expect_error("custom_class", "fixture_module.Custom")


class MyTensor(torch.Tensor):
    pass


MyTensor.__module__ = "fixture_module"
torch.save({"t": torch.ones(2).as_subclass(MyTensor)}, os.path.join(OUT, "tensor_subclass.pt"))
expect_error("tensor_subclass", "fixture_module.MyTensor")


# Derived: the records byte-swapped with byteorder "big"; records unaligned; a short and a missing record.
STORAGE_ITEMSIZE = {"DoubleStorage": 8, "FloatStorage": 4, "HalfStorage": 2, "BFloat16Storage": 2,
                    "LongStorage": 8, "IntStorage": 4, "ShortStorage": 2, "CharStorage": 1, "ByteStorage": 1,
                    "BoolStorage": 1, "ComplexFloatStorage": 4, "ComplexDoubleStorage": 8}


def record_itemsizes(src):
    """record key -> the size of the numbers its elements are made of, read from the pickle's persistent ids."""
    import pickle
    sizes = {}

    class Scan(pickle.Unpickler):
        def find_class(self, module, name):
            if module == "collections" and name == "OrderedDict":
                return collections.OrderedDict
            if module == "torch" and name.endswith("Storage"):
                return name
            return lambda *args: None

        def persistent_load(self, pid):
            sizes[pid[2]] = STORAGE_ITEMSIZE[pid[1]]
            return None

    with zipfile.ZipFile(os.path.join(OUT, src + ".pt")) as z:
        Scan(io.BytesIO(z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0]))).load()
    return sizes


def swap_records(src, dst):
    itemsize = record_itemsizes(src)

    def edit(name, data):
        if name.endswith("/byteorder"):
            return None
        parts = name.split("/")
        if len(parts) == 3 and parts[1] == "data":
            n = itemsize[parts[2]]
            return b"".join(data[i:i + n][::-1] for i in range(0, len(data), n))
        return data
    rewrite(src, dst, edit)
    # byteorder goes last (after version), as a rewrite may order members freely.
    with zipfile.ZipFile(os.path.join(OUT, dst + ".pt"), "a", zipfile.ZIP_STORED) as z:
        top = z.namelist()[0].split("/")[0]
        z.writestr(top + "/byteorder", "big")
    with open(os.path.join(OUT, src + ".json")) as f, open(os.path.join(OUT, dst + ".json"), "w") as g:
        g.write(f.read())


swap_records("state_dict", "big_endian")
swap_records("views", "big_endian_views")
rewrite("nested", "unaligned", lambda name, data: data)
with open(os.path.join(OUT, "nested.json")) as f, open(os.path.join(OUT, "unaligned.json"), "w") as g:
    g.write(f.read())
rewrite("views", "short_record", lambda name, data: data[:-4] if name.endswith("/data/0") else data)
expect_error("short_record", "data/0")
rewrite("views", "missing_record", lambda name, data: None if name.endswith("/data/0") else data)
expect_error("missing_record", "data/0")

# PyTorch 2.x: _rebuild_tensor_v3 (what 2.x writes for dtypes without a typed storage: uint16/32/64, float8...)
# with an untyped storage and a torch.<dtype> GLOBAL; here also for float32, which libtorch 1.13 has.
if hasattr(torch._utils, "_rebuild_tensor_v3") and hasattr(torch, "UntypedStorage"):
    class V3:
        def __init__(self, t):
            self.t = t

        def __reduce_ex__(self, proto):
            t = self.t
            return (torch._utils._rebuild_tensor_v3,
                    (t.untyped_storage(), t.storage_offset(), tuple(t.size()), t.stride(), False,
                     collections.OrderedDict(), t.dtype))

    src = torch.arange(12, dtype=torch.float32).view(3, 4)
    other = torch.arange(3, dtype=torch.float64)
    torch.save({"v3": V3(src[:, 1:3]), "v3_row": V3(src[2]), "v2": other}, os.path.join(OUT, "v3.pt"))
    with open(os.path.join(OUT, "v3.json"), "w") as f:
        json.dump(Describer()({"v3": src[:, 1:3], "v3_row": src[2], "v2": other}), f, separators=(",", ":"))
        f.write("\n")
    if hasattr(torch, "uint16"):
        torch.save({"u16": torch.tensor([1, 65535], dtype=torch.uint16)}, os.path.join(OUT, "uint16.pt"))
        expect_error("uint16", "uint16")

# PyTorch 2.x: the torch.save members of a torch.export.save program.
if hasattr(torch, "export") and hasattr(torch.export, "save"):
    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)
            self.register_buffer("scale", torch.tensor([2.0, 0.5]))
            self.const = torch.arange(2, dtype=torch.float32)

        def forward(self, x, *, y=None):
            return self.lin(x) * self.scale + self.const + y.sum()

    ep = torch.export.export(Small(), (torch.ones(1, 3),), {"y": torch.full((2,), 3.0)})
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    with zipfile.ZipFile(buf) as z:
        for info in z.infolist():
            inner = z.read(info.filename)
            if inner[:4] != b"PK\x03\x04" or not info.filename.endswith(".pt"):
                continue
            name = "pt2_" + info.filename.replace("/", "_")[:-3]
            with open(os.path.join(OUT, name + ".pt"), "wb") as f:
                f.write(inner)
            obj = torch.load(io.BytesIO(inner), weights_only=False)
            with open(os.path.join(OUT, name + ".json"), "w") as f:
                json.dump(Describer()(obj), f, separators=(",", ":"))
                f.write("\n")

print(f"torch {torch.__version__}: {OUT}")
