#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How often compare's gates fire between runs of one workload on one
kernel (false alarms), and the smallest hold p99 change they catch, with
one run and with replicated runs (--before/--after) per side. Root.

Records RUNS runs of the compare workload (a ticking process in a v2
cgroup, two threads re-reading its cpu.stat for SECONDS, rstatlat -j
around it), then draws random disjoint splits of them:
  false alarms  the default gates (tighter with 3+ runs a side) and
                hold.p99>+20% one run against one, scoped to the
                workload's cgroup
  sensitivity   the AFTER runs' holds scaled by a factor (re-bucketed in
                the rstatlat/1 layout), 5 runs a side: how often the
                defaults and hold.p99>+5% confirm the change, per factor

  python3 bench/compare_noise.py [--runs N] [--seconds S] [--splits K] [--keep DIR]
Used by bench/run (make bench); prints a summary and returns it as a dict.
"""
import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "live"))
from lib import ROOT, TICKER, Cgroup, Rstatlat, cgroup_mounts, hammer_cmd, unique  # noqa: E402

BIN = os.path.join(ROOT, "rstatlat")
FACTORS = (1.05, 1.1, 1.2, 1.3, 1.5, 2.0)


def record(n, seconds, out_dir):
    name = unique("rsl-noise")
    files = []
    for i in range(n):
        with Cgroup(cgroup_mounts()["v2"], name) as cg:
            cg.spawn(TICKER)
            cg.wait_populated(1)
            tool = Rstatlat("-j").start()
            subprocess.run(hammer_cmd(cg.path + "/cpu.stat", 2, seconds=seconds), check=True,
                           capture_output=True)
            rc, out, err = tool.stop()
            if rc:
                sys.exit("bench: rstatlat exited %d: %s" % (rc, err))
        path = os.path.join(out_dir, "run%02d.json" % i)
        with open(path, "wb") as f:
            f.write(out.splitlines()[-1] + b"\n")
        files.append(path)
    return "/" + name, files


# The rstatlat/1 bucket layout (src/hist.h).
LOW, SUB_BITS, HIGH = 4, 4, 34
LAST = 1 + (HIGH - LOW + 1) * (1 << SUB_BITS) - 1


def bucket(v):
    if v < (1 << LOW):
        return 0
    msb = v.bit_length() - 1
    if msb > HIGH:
        return LAST
    return 1 + (msb - LOW) * 16 + ((v >> (msb - SUB_BITS)) & 15)


def lower(b):
    return 0 if b == 0 else (16 + (b - 1) % 16) << ((b - 1) // 16)


def scaled(dist, f):
    d = copy.deepcopy(dist)
    counts = {}
    for b in dist["buckets"]:
        mid = int(((b["ge"] + b["le"]) / 2) * f)
        counts[bucket(mid)] = counts.get(bucket(mid), 0) + b["count"]
    d["buckets"] = [{"ge": lower(i), "le": lower(i + 1) - 1, "count": counts[i]}
                    for i in sorted(counts)]
    top = max(counts)
    d["max"] = max(lower(top), min(int(dist["max"] * f), lower(top + 1) - 1))
    d["sum"] = int(dist["sum"] * f)
    return d


def scaled_file(path, f, out_dir):
    with open(path) as fh:
        obj = json.loads(fh.read().splitlines()[-1])
    for row in obj["cgroups"]:
        row["hold_ns"] = scaled(row["hold_ns"], f)
        if row.get("irqoff_ns"):
            row["irqoff_ns"] = scaled(row["irqoff_ns"], f)
    out = os.path.join(out_dir, "x%.2f-%s" % (f, os.path.basename(path)))
    with open(out, "w") as fh:
        fh.write(json.dumps(obj) + "\n")
    return out


def compare(before, after, *args):
    argv = [BIN, "compare", "-f", "json"] + list(args)
    if len(before) == 1 and len(after) == 1:
        argv += [before[0], after[0]]
    else:
        argv += [a for b in before for a in ("--before", b)]
        argv += [a for b in after for a in ("--after", b)]
    r = subprocess.run(argv, capture_output=True, timeout=60)
    if r.returncode not in (0, 1, 4):
        sys.exit("bench: compare exited %d: %s" % (r.returncode, r.stderr.decode()))
    return r.returncode


def splits(files, k, n, rng):
    for _ in range(n):
        pick = rng.sample(files, 2 * k)
        yield pick[:k], pick[k:]


def measure(cgroup, files, n_splits, tmp, rng):
    """False alarms of the default gates (which tighten with 3+ runs a side)
    and of hold.p99>+20% one run against one; how often the defaults and
    hold.p99>+5% catch scaled holds with 5 runs a side."""
    out = {"runs": len(files), "false_alarms": {}, "caught": {}}
    cases = [("defaults", k) for k in (1, 3, 5)] + [("hold.p99>+20%", 1)]
    for gate, k in cases:
        if 2 * k > len(files):
            continue
        args = ("--cgroup", cgroup) + (() if gate == "defaults" else ("--fail-on", gate))
        rcs = [compare(b, a, *args) for b, a in splits(files, k, n_splits, rng)]
        out["false_alarms"]["%s %dv%d" % (gate, k, k)] = {
            "splits": len(rcs), "failed": rcs.count(1), "inconclusive": rcs.count(4)}
    scaled_runs = {f: {p: scaled_file(p, f, tmp) for p in files} for f in FACTORS}
    for gate in ("defaults", "hold.p99>+5%"):
        if len(files) < 10:
            break
        args = ("--cgroup", cgroup) + (() if gate == "defaults" else ("--fail-on", gate))
        caught = {}
        for f in FACTORS:
            rcs = [compare(b, [scaled_runs[f][p] for p in a], *args)
                   for b, a in splits(files, 5, max(n_splits // 4, 10), rng)]
            caught["x%.2f" % f] = round(rcs.count(1) / len(rcs), 3)
        out["caught"]["%s 5v5" % gate] = caught
    return out


def print_summary(r):
    print("compare noise: %d runs of one workload" % r["runs"])
    for k, v in r["false_alarms"].items():
        print("  %s: %d of %d splits failed (%.1f%%), %d inconclusive" % (
            k, v["failed"], v["splits"], 100.0 * v["failed"] / v["splits"], v["inconclusive"]))
    for k, v in r["caught"].items():
        print("  caught by %s: %s" % (k, ", ".join(
            "%s %.0f%%" % (f, 100 * p) for f, p in v.items())))


def run(n=20, seconds=2, n_splits=200, keep=None, seed=1):
    tmp = keep or tempfile.mkdtemp(prefix="rsl-noise-")
    os.makedirs(tmp, exist_ok=True)
    cgroup, files = record(n, seconds, tmp)
    r = measure(cgroup, files, n_splits, tmp, random.Random(seed))
    print_summary(r)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--splits", type=int, default=200)
    ap.add_argument("--keep", help="keep the recordings in this directory")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: needs root")
    run(args.runs, args.seconds, args.splits, args.keep)


if __name__ == "__main__":
    main()
