#!/usr/bin/python3
"""Prints PyTorch's type promotion table as JSON, for tests/unit/test_promote.cpp.

For every pair of operand forms (a tensor with dims, a 0-d tensor, a Python number) and every
dtype, torch.result_type(a, b), plus torch.promote_types for every dtype pair. Dtypes are named as
ONNX numbers them (the helper's numbering). Run with Debian's /usr/bin/python3 (it has torch).
"""
import json
import torch

ONNX = {
    torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int16: 5, torch.int32: 6, torch.int64: 7,
    torch.bool: 9, torch.float16: 10, torch.float64: 11, torch.complex64: 14, torch.complex128: 15,
    torch.bfloat16: 16,
}
NUMBERS = {"bool": True, "int": 3, "float": 1.5, "complex": 1 + 2j}


def operand(form, dtype_or_number):
    if form == "number":
        return NUMBERS[dtype_or_number]
    shape = (2,) if form == "tensor" else ()
    return torch.zeros(shape, dtype=dtype_or_number)


def main():
    forms = [("tensor", d) for d in ONNX] + [("zero_dim", d) for d in ONNX] + [("number", n) for n in NUMBERS]
    rows = []
    for fa, a in forms:
        for fb, b in forms:
            if fa == "number" and fb == "number":
                continue  # torch.result_type needs a tensor
            r = torch.result_type(operand(fa, a), operand(fb, b))
            if r not in ONNX:
                continue  # complex32 (float16 with a complex number): no ONNX type
            rows.append({"a": [fa, ONNX[a] if fa != "number" else a], "b": [fb, ONNX[b] if fb != "number" else b],
                         "result": ONNX[r]})
    pairs = [[ONNX[a], ONNX[b], ONNX[torch.promote_types(a, b)]] for a in ONNX for b in ONNX]
    print(json.dumps({"result_type": rows, "promote_types": pairs}))


if __name__ == "__main__":
    main()
