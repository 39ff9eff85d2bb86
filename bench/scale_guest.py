#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inside a guest of N possible CPUs (bench/vm-scale): BPF ns per lock
event of rstatlat at its defaults against the floor's (bench/floor.bpf.c),
both attached at once, the order alternating, as make bench measures it
on the host; here a flush of a cgroup takes the lock once per possible
CPU, so what rstatlat does once a flush is shared by that many holds.
One reader of a cgroup's cpu.stat (a ticker inside) for SECONDS a round,
ROUNDS rounds. TCG timing: compare the rows with each other, not with the
host. Usage: bench/scale_guest.py [ROUNDS [SECONDS]]"""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "live"))
from lib import TICKER, Cgroup, Rstatlat, cgroup_mounts  # noqa: E402
from locks_guest import prog_stats  # noqa: E402  (bench/, this script's directory)

FLOOR = os.path.join(ROOT, "build", "bench", "floor")
EVENTS = ("contended", "locked", "unlock")


def per_event(before, after, prefix):
    """{event: (runs, ns)} of the programs prefix_EVENT between two snapshots."""
    out = {}
    for e in EVENTS:
        name = "%s_%s" % (prefix, e)
        a, b = after.get(name, (0, 0)), before.get(name, (0, 0))
        out[e] = (a[0] - b[0], a[1] - b[1])
    return out


def ns_per_lock_event(ev):
    locked = ev["locked"][0]
    return sum(ns for _, ns in ev.values()) / locked if locked else float("nan")


def read_for(path, seconds):
    """Reads path again and again for seconds; returns the reads."""
    reads, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        with open(path, "rb") as f:
            f.read()
        reads += 1
    return reads


def tool(which):
    t = Rstatlat("-j", "1")  # as make bench runs it
    if which == "floor":
        t.args = [FLOOR]
    return t


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1")
    possible = open("/sys/devices/system/cpu/possible").read().strip()
    rows = []
    with Cgroup(cgroup_mounts()["v2"]) as cg:
        cg.spawn(TICKER)
        cg.wait_populated(1)
        path = os.path.join(cg.path, "cpu.stat")
        for r in range(rounds):
            order = ("floor", "rstatlat") if r % 2 else ("rstatlat", "floor")
            tools = {w: tool(w).start(timeout=300) for w in order}
            s0 = prog_stats()
            reads = read_for(path, seconds)
            s1 = prog_stats()
            for w in reversed(order):
                tools[w].stop(timeout=300)
            mine, floor = per_event(s0, s1, "rstat"), per_event(s0, s1, "floor")
            rows.append({"reads": reads, "mine": mine, "floor": floor,
                         "ratio": ns_per_lock_event(mine) / ns_per_lock_event(floor)})
    ratios = [x["ratio"] for x in rows]
    holds = statistics.median(x["mine"]["locked"][0] / max(x["reads"], 1) for x in rows)
    print("possible CPUs %s: %.0f holds a cpu.stat read, %d rounds of %.0f s: BPF ns per lock "
          "event %.0f / the floor's %.0f = %.2fx (%.2f-%.2f)" % (
              possible, holds, rounds, seconds,
              statistics.median(ns_per_lock_event(x["mine"]) for x in rows),
              statistics.median(ns_per_lock_event(x["floor"]) for x in rows),
              statistics.median(ratios), min(ratios), max(ratios)))
    for e in EVENTS:
        runs = [x["mine"][e][0] for x in rows]
        if not sum(runs):
            continue
        print("  %-9s %9.0f runs a round: %7.0f ns a run against the floor's %7.0f" % (
            e, statistics.median(runs),
            statistics.median(x["mine"][e][1] / max(x["mine"][e][0], 1) for x in rows),
            statistics.median(x["floor"][e][1] / max(x["floor"][e][0], 1) for x in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
