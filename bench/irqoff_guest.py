#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inside a guest with the preemptirq tracepoints (bench/vm-irqoff): reader
throughput with --irqoff off, lock and trace, and the BPF cost of the
irq_disable/irq_enable programs. TCG timing: compare the rows, not with
the host."""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "live"))
from lib import TICKER, Cgroup, Rstatlat, cgroup_mounts, hammer_cmd  # noqa: E402


def rate(path, secs=2):
    """Reads/s of two threads re-reading path (rstatlat load hammer -j)."""
    out = subprocess.run(hammer_cmd(path, 2, seconds=secs) + ["-j"], capture_output=True,
                         check=True).stdout
    return json.loads(out)["reads_per_s"]


def prog_stats(prefixes):
    progs = json.loads(subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                                      check=True).stdout)
    cnt = ns = 0
    for p in progs:
        if any(p.get("name", "").startswith(x) for x in prefixes):
            cnt += p.get("run_cnt", 0)
            ns += p.get("run_time_ns", 0)
    return cnt, ns


def main():
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1")
    with Cgroup(cgroup_mounts()["v2"]) as cg:
        cg.spawn(TICKER)
        cg.wait_populated(1)
        path = os.path.join(cg.path, "cpu.stat")
        rates = {c: [] for c in ("bare", "off", "lock", "trace")}
        cost = {}
        for rnd in range(3):
            for c in rates:
                tool = Rstatlat("-j", "--irqoff", c).start(timeout=120) if c != "bare" else None
                c0, n0 = prog_stats(["irqs_o"])
                t0 = time.time()
                rates[c].append(rate(path))
                c1, n1 = prog_stats(["irqs_o"])
                if c == "trace" and c1 > c0:
                    cost.setdefault("runs_per_s", []).append((c1 - c0) / (time.time() - t0))
                    cost.setdefault("ns", []).append((n1 - n0) / (c1 - c0))
                if tool:
                    tool.stop(timeout=120)
    med = {c: statistics.median(v) for c, v in rates.items()}
    print("| --irqoff | reads/s | vs bare |")
    print("|---|---:|---:|")
    for c, v in med.items():
        print("| %s | %.0f | %.1f%% |" % (c, v, 100 * v / med["bare"]))
    if cost:
        print("\ntrace: irq_disable/irq_enable programs ran %.0f times/s, %.0f ns each "
              "(median of 3)" % (statistics.median(cost["runs_per_s"]),
                                 statistics.median(cost["ns"])))


if __name__ == "__main__":
    main()
