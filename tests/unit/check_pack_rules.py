#!/usr/bin/env python3
"""The packs' rules that a compiler cannot check (plugins/README.md, "One rule for opset variation"):

1. Op files (plugins/**/*.cpp) never read ctx.opset(): an op's own form change is a registration in
   opsetN/, auxiliary nodes go through plugins/common/ helpers (forms.hpp: has/require and the
   feature table). Exceptions are listed below with their reason.
2. No registration at opset N repeats, word for word, the body registered for the same op at the
   highest lower opset: it would add a version boundary to the support matrix where nothing changes.
3. No hand-written "rank unknown" refusal: known_rank() (common/util.hpp) says it once.
4. Op files never read ctx.torch_version() either: common/torch_semantics.hpp's table (follows()).

Usage: check_pack_rules.py PLUGINS_DIR. Prints every violation with file:line; exit 1 if any.
"""
import os
import re
import sys

# file (relative to plugins/) -> why it may read ctx.opset()
ALLOWED_OPSET_READS = {
    "onnx_ops/symbolic.cpp": "checks that an onnx_symbolic node's declared opset equals the target",
}

SYMBOLIC = re.compile(r'T2O_SYMBOLIC\("([^"]+)",\s*(\d+)\)\s*(\{.*?\n\}|\{[^\n]*\})', re.S)


SHARED_CALL = re.compile(r"^\{ t2o::pack::\w+\(ctx[^;]*\); \}$")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    root = sys.argv[1]
    problems = []
    bodies = {}  # op -> {opset: (file, normalized body)}
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if not name.endswith((".cpp", ".hpp", ".c")):
                continue
            text = open(path, encoding="utf-8").read()
            code = strip_comments(text)
            if name.endswith(".cpp") and "ctx.opset()" in code and rel not in ALLOWED_OPSET_READS:
                for i, line in enumerate(text.splitlines(), 1):
                    if "ctx.opset()" in line and not line.strip().startswith("//"):
                        problems.append(f"{rel}:{i}: reads ctx.opset() in an op file; use forms.hpp's "
                                        "has()/require() or register the new form in opsetN/")
            if name.endswith(".cpp") and "torch_version()" in code:
                for i, line in enumerate(text.splitlines(), 1):
                    if "torch_version()" in line and not line.strip().startswith("//"):
                        problems.append(f"{rel}:{i}: reads ctx.torch_version() in an op file; use "
                                        "common/torch_semantics.hpp's follows() and its table")
            for i, line in enumerate(text.splitlines(), 1):
                if rel != "common/util.hpp" and re.search(r'unsupported\([^;]*(rank unknown|unknown rank)', line):
                    problems.append(f"{rel}:{i}: hand-written unknown-rank refusal; use known_rank()")
            for m in SYMBOLIC.finditer(code):
                op, opset, body = m.group(1), int(m.group(2)), " ".join(m.group(3).split())
                bodies.setdefault(op, {})[opset] = (rel, body)
    for op, by_opset in bodies.items():
        versions = sorted(by_opset)
        for lower, higher in zip(versions, versions[1:]):
            # Only calls of shared helpers compare: an unqualified call may name a file-local function.
            if by_opset[lower][1] == by_opset[higher][1] and SHARED_CALL.match(by_opset[higher][1]):
                problems.append(f"{by_opset[higher][0]}: {op} at opset {higher} repeats the body registered at "
                                f"{lower} ({by_opset[lower][0]}): nothing changes there, drop the registration")
    for p in problems:
        print(p)
    print(f"check_pack_rules: {len(problems)} problem(s) in {root}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
