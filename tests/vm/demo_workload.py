#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The before/after workload: a deep, busy cgroup tree whose top is read
over and over (cpu.stat and io.stat) under `rstatlat -j`. Runs on the host
or inside a guest (tests/vm/demo). Usage: demo_workload.py OUT.json [READS]
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "live"))
from lib import TICKER, Cgroup, Rstatlat, cgroup_mounts  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
READER = os.path.join(ROOT, "build", "bench", "reader")
DEPTH, LEAVES = 4, 4


def main():
    out, reads = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300
    v2 = cgroup_mounts()["v2"]
    with Cgroup(v2, "rsl-demo") as top:
        # the chain top/l1/l2/l3 with LEAVES busy leaves under the bottom
        chain, parent = [], top.path
        for i in range(DEPTH - 1):
            c = Cgroup(parent, "l%d" % (i + 1)).__enter__()
            chain.append(c)
            parent = c.path
        leaves = [Cgroup(parent, "leaf%d" % i).__enter__() for i in range(LEAVES)]
        try:
            for leaf in leaves:
                leaf.spawn(TICKER)
            for leaf in leaves:
                leaf.wait_populated(1)
            tool = Rstatlat("-j").start(timeout=120)
            # io.stat only where the io controller is on v2 (not on this host)
            for f in [f for f in ("cpu.stat", "io.stat") if os.path.exists(
                    os.path.join(top.path, f))]:
                subprocess.run([READER, os.path.join(top.path, f), "1", "-n", str(reads)],
                               check=True, capture_output=True, timeout=600)
            time.sleep(0.5)
            rc, stdout, err = tool.stop(timeout=120)
            if rc:
                sys.exit("rstatlat exited %d: %s" % (rc, err))
            with open(out, "wb") as f:
                f.write(stdout.splitlines()[-1] + b"\n")
        finally:
            for c in leaves + chain[::-1]:
                c.__exit__(None, None, None)


if __name__ == "__main__":
    main()
