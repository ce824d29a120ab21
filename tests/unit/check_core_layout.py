#!/usr/bin/env python3
"""The core's layout rules a compiler cannot check (core/src/*/README.md, docs/architecture.md):

- core/src/ holds one folder per stage, in pipeline order, plus common/ and tools/; each folder opens
  with a README.md saying what it owns and what it may include;
- a stage includes only its own headers, earlier stages' and common/'s: no stage reaches into a
  later one (tools/ and the top-level files may include every stage); common/ includes no stage.

    check_core_layout.py CORE_SRC_DIR      exit 0 when every rule holds, 1 listing each violation
"""
import os
import re
import sys

ORDER = ["common", "load", "program", "signature", "prepare", "run", "convert", "assemble", "tools"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main(src):
    problems = []
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for d in folders:
        if d not in ORDER:
            problems.append(f"core/src/{d}/: not a stage folder ({', '.join(ORDER)}); add it to the order "
                            "in tests/unit/check_core_layout.py and docs/architecture.md")
        elif not os.path.isfile(os.path.join(src, d, "README.md")):
            problems.append(f"core/src/{d}/: no README.md saying what it owns and what it may include")
    for root, _, files in os.walk(src):
        rel_root = os.path.relpath(root, src)
        stage = rel_root.split(os.sep)[0] if rel_root != "." else None
        for f in files:
            if not f.endswith((".cpp", ".hpp", ".h", ".in")):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            for inc in INCLUDE.findall(text):
                target = inc.split("/")[0]
                if target not in ORDER or "/" not in inc:
                    continue  # a sibling header, a public header or a generated one
                where = os.path.relpath(path, os.path.dirname(src))
                if stage is None or stage == "tools":
                    continue
                if stage == "common" and target != "common":
                    problems.append(f"{where}: common/ includes {inc} (common/ may include no stage)")
                elif ORDER.index(target) > ORDER.index(stage):
                    problems.append(f"{where}: {stage}/ includes {inc}, a later stage ({target}/)")
    for p in problems:
        print(p)
    if not problems:
        print(f"core layout: {len(folders)} folders, every include points down the pipeline")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1]))
