#!/usr/bin/env python3
"""Where a test run's time went: wall and CPU time per ctest label, and the slowest tests.

    python3 scripts/test_times.py BUILD_DIR [--junit FILE] [--wall SECONDS] [--top N]

Reads ctest's own timing (the JUnit file `ctest --output-junit` wrote, by default
BUILD_DIR/test_results.xml), the labels of each test (`ctest --show-only=json-v1`), and the CPU time
each test's processes used (BUILD_DIR/test_cpu/<test>.cpu, written by the tests' shared main,
tests/common/test_main.cpp, and by tests/common/cpu_time.sh for script tests: "user system" seconds,
children included). Prints a table per label (tests, failures, summed wall time of its tests, CPU
time, the longest test) and the N slowest tests. --wall gives the whole run's elapsed time for the
last line. Uses only the standard library (no torch): it runs at the end of every test run.
"""
import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def cpu_file_name(test):
    test = test.split("  # GetParam()")[0]  # gtest_discover_tests appends the parameter to the name
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in test) + ".cpu"


def short(test):
    return test.split("  # GetParam()")[0]


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--junit")
    ap.add_argument("--wall", type=float)
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args(argv)
    junit = args.junit or os.path.join(args.build_dir, "test_results.xml")
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test_times: no timing to report ({junit}: {e})")
        return 0
    shown = subprocess.run(["ctest", "--test-dir", args.build_dir, "--show-only=json-v1"],
                           capture_output=True, text=True)
    labels = {}
    if shown.returncode == 0:
        for t in json.loads(shown.stdout).get("tests", []):
            for p in t.get("properties", []):
                if p.get("name") == "LABELS":
                    labels[t["name"]] = p.get("value") or []
    cpu_dir = os.path.join(args.build_dir, "test_cpu")
    rows = []
    for case in root.iter("testcase"):
        name = case.get("name")
        wall = float(case.get("time") or 0)
        failed = case.find("failure") is not None or case.get("status") in ("fail", "failed")
        skipped = case.find("skipped") is not None or case.get("status") in ("notrun", "disabled")
        cpu = None
        try:
            with open(os.path.join(cpu_dir, cpu_file_name(name))) as f:
                user, system = (float(x) for x in f.read().split()[:2])
                cpu = user + system
        except (OSError, ValueError):
            pass
        rows.append((name, wall, cpu, failed, skipped, labels.get(name) or ["(none)"]))

    per_label = {}
    for name, wall, cpu, failed, skipped, labs in rows:
        for lab in labs:
            e = per_label.setdefault(lab, {"n": 0, "fail": 0, "wall": 0.0, "cpu": 0.0, "cpu_missing": 0,
                                           "longest": ("", 0.0)})
            e["n"] += 1
            e["fail"] += failed
            e["wall"] += wall
            if cpu is None:
                e["cpu_missing"] += 1
            else:
                e["cpu"] += cpu
            if wall > e["longest"][1]:
                e["longest"] = (name, wall)

    def fmt(s):
        return f"{s:8.1f}"

    print()
    print("Test time per label (wall: the label's tests' durations summed; CPU: their processes' user+system)")
    print(f"{'label':<16} {'tests':>5} {'failed':>6} {'wall s':>8} {'CPU s':>8}  longest test")
    total_wall = total_cpu = 0.0
    for lab in sorted(per_label, key=lambda k: -per_label[k]["wall"]):
        e = per_label[lab]
        cpu = fmt(e["cpu"]) + ("*" if e["cpu_missing"] else " ")
        print(f"{lab:<16} {e['n']:>5} {e['fail']:>6} {fmt(e['wall'])} {cpu} {short(e['longest'][0])} "
              f"({e['longest'][1]:.1f} s)")
    for name, wall, cpu, *_ in rows:
        total_wall += wall
        total_cpu += cpu or 0.0
    print(f"{'all':<16} {len(rows):>5} {sum(r[3] for r in rows):>6} {fmt(total_wall)} {fmt(total_cpu)} ")
    if any(e["cpu_missing"] for e in per_label.values()):
        print("(* some tests of the label recorded no CPU time)")
    print()
    print(f"The {args.top} slowest tests")
    for name, wall, cpu, failed, skipped, labs in sorted(rows, key=lambda r: -r[1])[: args.top]:
        c = f"{cpu:7.1f}" if cpu is not None else "      -"
        print(f"  {wall:7.1f} s wall {c} s CPU  {short(name)} [{','.join(labs)}]{'  FAILED' if failed else ''}")
    if args.wall:
        print(f"\nWhole run: {args.wall:.0f} s wall for {total_wall:.0f} s of tests "
              f"({total_wall / max(args.wall, 1e-9):.2f} tests running on average)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
