#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The before/after workload: a deep, busy cgroup tree whose top's stat
files are read over and over under `rstatlat -j`. Runs on the host or
inside a guest (tests/vm/demo, tests/vm/run's seed A/B).

Usage: demo_workload.py OUT.json [READS]
       demo_workload.py OUT.json --seconds S   (rstatlat -j -d S --irqoff auto
                                               --flush-parts timed: the seed's
                                               question is irq time; cpu.stat,
                                               io.stat and memory.stat read in
                                               turn until it ends)
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "live"))
from lib import TICKER, Cgroup, Rstatlat, cgroup_mounts, reader  # noqa: E402

DEPTH, LEAVES = 4, 4


def busy_tree(top):
    """The chain top/l1/l2/l3 with LEAVES busy leaves under the bottom;
    returns the cgroups to remove, innermost first."""
    chain, parent = [], top.path
    for i in range(DEPTH - 1):
        c = Cgroup(parent, "l%d" % (i + 1)).__enter__()
        chain.append(c)
        parent = c.path
    leaves = [Cgroup(parent, "leaf%d" % i).__enter__() for i in range(LEAVES)]
    for leaf in leaves:
        leaf.spawn(TICKER)
    for leaf in leaves:
        leaf.wait_populated(1)
    return leaves + chain[::-1]


def stat_files(top, names):
    # io.stat and memory.stat only where their controllers are on v2
    return [os.path.join(top.path, f) for f in names if os.path.exists(os.path.join(top.path, f))]


def read_n(top, reads):
    tool = Rstatlat("-j").start(timeout=120)
    for path in stat_files(top, ("cpu.stat", "io.stat")):
        reader(path, reads, timeout=600)
    time.sleep(0.5)
    return tool.stop(timeout=120)


def read_for(top, seconds):
    tool = Rstatlat("-j", "-d", str(seconds), "--irqoff", "auto",
                    "--flush-parts", "timed").start(timeout=120)
    files = stat_files(top, ("cpu.stat", "io.stat", "memory.stat"))
    while tool.p.poll() is None:
        for path in files:
            with open(path) as f:
                f.read()
    return tool.stop(timeout=120)


def main():
    out = sys.argv[1]
    with Cgroup(cgroup_mounts()["v2"], "rsl-demo") as top:
        made = busy_tree(top)
        try:
            if len(sys.argv) > 3 and sys.argv[2] == "--seconds":
                rc, stdout, err = read_for(top, float(sys.argv[3]))
            else:
                rc, stdout, err = read_n(top, int(sys.argv[2]) if len(sys.argv) > 2 else 300)
            if rc:
                sys.exit("rstatlat exited %d: %s" % (rc, err))
            with open(out, "wb") as f:
                f.write(stdout.splitlines()[-1] + b"\n")
        finally:
            for c in made:
                c.__exit__(None, None, None)


if __name__ == "__main__":
    main()
