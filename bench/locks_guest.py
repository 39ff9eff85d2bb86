#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inside a 6.16+ guest that allows fentry (bench/vm-locks): what telling
the locks apart costs. cpu.stat and memory.stat of one cgroup read at once
(two reader threads each, 2 s) with --lock-rows off and on, interleaved,
three rounds: BPF run time per run of the unlock program (which asks for
a hold's lock) and of the lock scope programs, and all of rstatlat's BPF
time per hold, from bpf_stats. TCG timing: compare the rows, not with the
host."""
import json
import os
import statistics
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "live"))
from lib import BIN, MEMHOG, TICKER, Cgroup, Rstatlat, cgroup_mounts  # noqa: E402


def prog_stats():
    """{program name: (run_cnt, run_time_ns)} of the loaded programs."""
    progs = json.loads(subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                                      check=True).stdout)
    return {p.get("name", ""): (p.get("run_cnt", 0), p.get("run_time_ns", 0)) for p in progs}


def delta(after, before, names):
    cnt = sum(after.get(n, (0, 0))[0] - before.get(n, (0, 0))[0] for n in names)
    ns = sum(after.get(n, (0, 0))[1] - before.get(n, (0, 0))[1] for n in names)
    return cnt, ns


def read_both(cg):
    threads = [threading.Thread(target=subprocess.run, args=(
        [BIN, "load", "hammer", "--in", cg.path, "--file", f, "--threads", "2", "-d", "2"],),
        kwargs={"capture_output": True, "check": True})
        for f in ("cpu.stat", "memory.stat")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main():
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1")
    unlock = ["rstat_unlock"]
    scopes = ["scope_flush_ent", "scope_flush_exi", "scope_cputime_e", "scope_cputime_x"]
    res = {m: {"unlock": [], "scope": [], "per_hold": [], "scope_runs": []}
           for m in ("off", "on")}
    with Cgroup(cgroup_mounts()["v2"]) as cg:
        cg.spawn(TICKER)
        cg.spawn(MEMHOG)
        cg.wait_populated(2)
        for _ in range(3):
            for mode in ("off", "on"):
                tool = Rstatlat("-j", "--lock-rows", mode, "--cause-sample", "0").start(
                    timeout=120)
                s0 = prog_stats()
                read_both(cg)
                s1 = prog_stats()
                tool.stop(timeout=120)
                names = [n for n in s1 if n.startswith(("rstat_", "scope_", "memcg_"))]
                holds, _ = delta(s1, s0, unlock)
                _, total = delta(s1, s0, names)
                cnt, ns = delta(s1, s0, unlock)
                res[mode]["unlock"].append(ns / max(cnt, 1))
                res[mode]["per_hold"].append(total / max(holds, 1))
                scnt, sns = delta(s1, s0, [n for n in s1 if n.startswith("scope_")])
                res[mode]["scope"].append(sns / scnt if scnt else 0)
                res[mode]["scope_runs"].append(scnt / max(holds, 1))
    med = {m: {k: statistics.median(v) for k, v in r.items()} for m, r in res.items()}
    print("| --lock-rows | unlock ns/run | scope ns/run | scope runs/hold | BPF ns/hold |")
    print("|---|---:|---:|---:|---:|")
    for m, r in med.items():
        print("| %s | %.0f | %.0f | %.3f | %.0f |" % (m, r["unlock"], r["scope"],
                                                     r["scope_runs"], r["per_hold"]))
    print("\non over off, BPF time per hold: %.2fx (median of 3 interleaved rounds; "
          "programs named %s)" % (med["on"]["per_hold"] / med["off"]["per_hold"],
                                   ", ".join(unlock + scopes)))


if __name__ == "__main__":
    main()
