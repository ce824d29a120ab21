#!/usr/bin/env python3
"""Lists every distinct node target in the committed .pt2 fixtures, per PyTorch version and IR, with
the number of nodes and of programs using it (subgraphs of higher-order ops included). Plain Python
(reads the zips' JSON; no torch):

    python3 tests/pt2/op_targets.py > tests/pt2/op_targets.txt
"""
import collections
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def program_json(path):
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            if n.endswith("serialized_exported_program.json") or (n.endswith(".json") and n.split("/")[-2:-1] == ["models"]):
                return json.loads(z.read(n))
    raise RuntimeError(f"{path}: no program JSON")


def graphs(g):
    yield g
    for n in g.get("nodes", []):
        for a in n.get("inputs", []):
            sub = a.get("arg", {}).get("as_graph")
            if sub:
                yield from graphs(sub["graph"])


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(HERE, "fixtures")
    out = ["# Node targets in the programs of tests/pt2/fixtures (tests/pt2/op_targets.py):",
           "# first every target with the version/IR sets it occurs in, then per PyTorch version and IR:",
           "# target, nodes, programs using it."]
    sections = []
    where = collections.defaultdict(list)
    for version in sorted(os.listdir(root), key=lambda v: [int(x) for x in v.replace("torch", "").split(".")]):
        index = json.load(open(os.path.join(root, version, "index.json")))
        by_ir = collections.defaultdict(lambda: (collections.Counter(), collections.Counter()))
        programs = collections.Counter()
        for c in index["cases"]:
            if c["kind"] != "model":
                continue
            j = program_json(os.path.join(root, version, c["name"], "model.pt2"))
            nodes, progs = by_ir[c["ir"]]
            programs[c["ir"]] += 1
            seen = set()
            for g in graphs(j["graph_module"]["graph"]):
                for n in g["nodes"]:
                    nodes[n["target"]] += 1
                    seen.add(n["target"])
            for t in seen:
                progs[t] += 1
        for ir in sorted(by_ir):
            nodes, progs = by_ir[ir]
            sections.append("")
            sections.append(f"## {version} (torch {index['torch']}), IR {ir}: {programs[ir]} programs, "
                            f"{len(nodes)} distinct targets")
            for t in sorted(nodes):
                sections.append(f"{t}\t{nodes[t]}\t{progs[t]}")
                where[t].append(f"{version.replace('torch', '')}/{ir}")
    out.append("")
    out.append(f"## all versions and IRs: {len(where)} distinct targets")
    for t in sorted(where):
        out.append(f"{t}\t{' '.join(where[t])}")
    out += sections
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
