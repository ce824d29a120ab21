#!/usr/bin/env python3
"""Writes the TorchScript operator registry of the running PyTorch, sorted, one schema per line.

    python3 tests/torch2x/dump_schemas.py OUT.txt
    # PyTorch 1.13 (Debian 12, the host):   /usr/bin/python3 tests/torch2x/dump_schemas.py tests/torch2x/schemas_1_13.txt
    # PyTorch 2.6 (Debian 13 root):         bash scripts/torch2x_env.sh run tests/torch2x/dump_schemas.py \\
    #                                           tests/torch2x/schemas_2_6.txt

Each line is str(schema) of torch._C._jit_get_all_schemas(), which begins with `name.overload(`
(`name(` for the default overload), so name and overload name can be read back from it (see
diff_schemas.py). The first line is a comment with the PyTorch version.
"""
import sys

import torch


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lines = set()
    for s in torch._C._jit_get_all_schemas():
        text = str(s)
        head = s.name + ("." + s.overload_name if s.overload_name else "") + "("
        if not text.startswith(head):  # never seen; keep the line parseable all the same
            text = f"{head}<unparsed>) # {text}"
        lines.add(text.replace("\n", " "))
    with open(sys.argv[1], "w") as f:
        f.write(f"# torch {torch.__version__}: {len(lines)} schemas from torch._C._jit_get_all_schemas()\n")
        for line in sorted(lines):
            f.write(line + "\n")
    print(f"torch {torch.__version__}: {len(lines)} schemas -> {sys.argv[1]}")


if __name__ == "__main__":
    main()
