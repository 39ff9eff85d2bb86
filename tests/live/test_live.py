#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Live tier: the real BPF object on this kernel, real cgroups, real flushes,
numbers checked against ftrace's own record of the same events.

Prints one line per test and a tally 'live: N passed, N failed, N skipped'.
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import Skip, Tier, check  # noqa: E402
import command_tests  # noqa: E402
import export_tests  # noqa: E402
import findings_tests  # noqa: E402
import flush_tests  # noqa: E402
import load_tests  # noqa: E402
import hostile_tests  # noqa: E402
import image_tests  # noqa: E402
from lib import (BIN, BUSY, MEMHOG, ROOT, TICKER, TRACEFS, Cgroup, Ftrace, Rstatlat,  # noqa: E402
                 cgroup_mounts, exact_quantile, find_cgroup, ftrace_flushes, ftrace_run,
                 INNER_FTRACE, INNER_OURS, compare, json_lines, last_possible_cpu, nest_gap,
                 mount_tracefs, pair_holds, hammer_cmd, poller_cmd, read_stat, reader, realtime, reap,
                 run, unique)

MOUNTS = cgroup_mounts()
TIER = Tier("live", after=reap)
test = TIER.test


def per_event_pairs(slow, recs, cgid):
    """Pairs rstatlat's per-hold reports with ftrace's holds, per CPU in order."""
    ftrace, pending = {}, {}
    for _, cpu, ts, ev, cg, lock_cpu in recs:
        if cg != cgid:
            continue
        if ev == "cgroup_rstat_locked":
            pending[cpu] = ts
        elif ev == "cgroup_rstat_unlock" and cpu in pending:
            ftrace.setdefault(cpu, []).append((ts - pending.pop(cpu), lock_cpu))
    ours = {}
    for r in slow:
        ours.setdefault(r["cpu"], []).append(r)
    pairs = []
    for cpu, holds in ftrace.items():
        mine = ours.get(cpu, [])
        check(len(mine) == len(holds), "CPU %d: %d reports, ftrace %d holds" %
              (cpu, len(mine), len(holds)))
        for (f, lock_cpu), r in zip(holds, mine):
            check(r["lock_cpu"] == lock_cpu, "reports out of step with ftrace on CPU %d" % cpu)
            pairs.append((f, r["duration_ns"]))
    return pairs


def check_against_ftrace(cg, stat_file, reads, label, *args):
    """Runs reads of stat_file under ftrace and rstatlat -t 1ns -j twice,
    once with rstatlat's hold windows inside ftrace's and once with
    ftrace's inside rstatlat's (lib.ftrace_run, inner), and checks in each:

    - counts (locked, contended, holds) equal ftrace's exactly;
    - every hold rstatlat reported pairs with ftrace's on the same CPU, in
      order, for the same lock cpu, and nests as the order says: no longer
      than ftrace's when inside it, no shorter when around it. Exact on any
      machine: both read CLOCK_MONOTONIC on one CPU with irqs off, and the
      probes run in the order they were registered;
    - histogram p50/p90/p99 are within 10% of the exact quantiles of the
      same holds as rstatlat measured them.

    Why not within N% of ftrace's per hold: each window also holds the
    other tracer's probe at one end, and that probe's cost (tens of ns,
    50-250 ns on the first hold of a flush, when it runs cold) is the
    machine's, not rstatlat's; the detail line reports it.
    """
    details = []
    for inner in (INNER_OURS, INNER_FTRACE):
        row, gap = check_one_nesting(cg, stat_file, reads, label, inner, *args)
        details.append(gap)
    return row, "%s: %s" % (label, "; ".join(details))


def check_one_nesting(cg, stat_file, reads, label, inner, *args):
    reports, recs = ftrace_run(lambda: reader(os.path.join(cg.path, stat_file), reads),
                               "-t", "1ns", *args, inner=inner)
    summary = reports[-1]
    rows = find_cgroup(summary, cg.id)
    check(len(rows) == 1, "cgroup %d not in report" % cg.id)
    row = rows[0]
    holds, counts, _ = pair_holds(recs, cg.id)
    check(counts["locked"] > 100, "only %d flush locks" % counts["locked"])
    for key, want in (("locked", counts["locked"]), ("contended", counts["contended"])):
        check(row[key] == want, "%s: %s %d, ftrace %d" % (label, key, row[key], want))
    check(row["hold_ns"]["count"] == len(holds),
          "%s: holds %d, ftrace %d" % (label, row["hold_ns"]["count"], len(holds)))
    check(summary["lost"]["ringbuf_full"] == 0, "reports dropped")
    # holds only: a flusher elsewhere on the host (an agent reading every
    # cgroup's stats) can make the reader wait, and -t reports waits too
    slow = [r for r in reports if r["type"] == "slow" and r["kind"] == "hold" and
            r["cgroup"]["id"] == cg.id]
    pairs = per_event_pairs(slow, recs, cg.id)
    check(len(pairs) == len(holds), "%s: %d holds paired of %d" % (label, len(pairs), len(holds)))
    gaps = sorted(nest_gap(inner, b, f) for f, b in pairs)
    bad = [g for g in gaps if g < 0]
    check(not bad, "%s, %s inside: %d of %d holds do not nest (by %d ns at most)" % (
        label, inner, len(bad), len(gaps), -min(gaps)))
    ours = [b for _, b in pairs]
    quantiles = []
    for q in ("p50", "p90", "p99"):
        got, exact = row["hold_ns"][q], exact_quantile(ours, int(q[1:]) / 100)
        check(abs(got - exact) <= 0.10 * exact, "%s: hold %s %d ns vs exact %d ns" %
              (label, q, got, exact))
        quantiles.append("%s %d/%d" % (q, got, exact))
    return row, "%s inside: %d locks nest, gap median %d p90 %d ns, hist/exact %s" % (
        inner, counts["locked"], gaps[len(gaps) // 2], gaps[9 * len(gaps) // 10],
        ", ".join(quantiles))


@test
def v2_cpu_stat_matches_ftrace():
    with Cgroup(MOUNTS["v2"]) as cg:
        for _ in range(2):
            cg.spawn(BUSY)
        cg.wait_populated(2)
        row, detail = check_against_ftrace(cg, "cpu.stat", 3000, "cpu.stat",
                                           "-c", "/" + cg.name)
        check(row["hierarchy"] == 0 and row["path"] == "/" + cg.name, "path %r" % row["path"])
        return detail


@test
def v1_memory_stat_matches_ftrace():
    if "memory" not in MOUNTS:
        raise Skip("no v1 memory hierarchy mounted")
    with Cgroup(MOUNTS["memory"]) as cg:
        cg.spawn(MEMHOG)
        cg.wait_populated(1)
        time.sleep(0.3)
        # memcg flushes only once enough updates piled up: many reads
        row, detail = check_against_ftrace(cg, "memory.stat", 20000, "memory.stat")
        check(row["path"] == "memory:/" + cg.name, "path %r" % row["path"])
        check(row["hierarchy"] > 0, "v1 hierarchy id expected")
        return detail


@test
def whole_flushes_match_ftrace():
    """Flushes rebuilt from ftrace's events by the same definition: equal
    count and holds; the medians nest, run once each way (lib.ftrace_run,
    inner). Each tracer's probe lies inside the other's window at one end
    (on this VM that moved the medians 20-40% apart, either way), so only
    the nesting is exact: a median no longer than ftrace's with rstatlat's
    windows inside, no shorter with ftrace's inside, give or take the half
    bucket (3.125%) p50 is estimated within."""
    return "; ".join(whole_flushes_nest(inner) for inner in (INNER_OURS, INNER_FTRACE))


def whole_flushes_nest(inner):
    ncpus, last_cpu = os.cpu_count(), last_possible_cpu()
    with Cgroup(MOUNTS["v2"]) as cg:
        cg.spawn(TICKER)
        cg.wait_populated(1)
        reports, recs = ftrace_run(lambda: reader(os.path.join(cg.path, "cpu.stat"), 2000),
                                   inner=inner)
        row = find_cgroup(reports[-1], cg.id)[0]
    flushes = ftrace_flushes(recs, cg.id, last_cpu)
    check(len(flushes) == 2000, "ftrace: %d flushes for 2000 reads" % len(flushes))
    check(row["flush_ns"]["count"] == len(flushes),
          "flushes: rstatlat %d, ftrace %d" % (row["flush_ns"]["count"], len(flushes)))
    check(reports[-1]["lost"]["flush_unfinished"] == 0, "unfinished flushes")
    holds = sum(h for _, h in flushes)
    check(row["flush_holds"] == holds, "holds in flushes: %d vs %d" % (row["flush_holds"], holds))
    check(row["flush_holds_max"] == max(h for _, h in flushes) == last_cpu + 1,
          "a cpu.stat flush takes the lock once per possible CPU: max %d, %d CPUs" %
          (row["flush_holds_max"], last_cpu + 1))
    ft50 = exact_quantile([d for d, _ in flushes], 0.5)
    got50 = row["flush_ns"]["p50"]
    slack = 0.03125 * max(got50, ft50) + 1
    check(nest_gap(inner, got50, ft50) >= -slack,
          "%s inside: flush p50 %d ns, ftrace's %d ns: does not nest" % (inner, got50, ft50))
    return "%s inside: %d flushes, %d holds (%d per flush, %d CPUs); p50 %d ns vs ftrace %d ns" % (
        inner, len(flushes), holds, row["flush_holds_max"], ncpus, got50, ft50)


@test
def per_process_counts_match_ftrace():
    with Cgroup(MOUNTS["v2"]) as cg:
        cg.spawn(BUSY)
        cg.wait_populated(1)
        # the readers stay alive until rstatlat has stopped: a flusher that
        # exits folds into its comm's row (short_lived_flushers_fold_by_comm)
        reader = ("import sys, time\nfor _ in range(%d):\n    open(sys.argv[1]).read()\n"
                  "print('done', flush=True)\ntime.sleep(60)\n")
        ps = []

        def two_readers():
            for n in (50, 120):
                ps.append(subprocess.Popen([sys.executable, "-c", reader % n,
                                            cg.path + "/cpu.stat"], stdout=subprocess.PIPE))
            for p in ps:
                p.stdout.readline()
        try:
            reports, recs = ftrace_run(two_readers, "-p")
        finally:
            for p in ps:
                p.kill()
                p.wait()
        report = reports[-1]
        _, counts, by_pid = pair_holds(recs, cg.id)
        procs = [p for p in report["processes"] if p["cgroup"]["id"] == cg.id]
        got = {p["pid"]: p["locked"] for p in procs}
        check(got == by_pid, "per-process locked %s, ftrace %s" % (got, by_pid))
        row = find_cgroup(report, cg.id)[0]
        check(row["locked"] == counts["locked"], "cgroup total is the sum of its processes")
        top = max(by_pid, key=by_pid.get)
        check(row["top_flusher"]["pid"] == top, "top flusher %s, expected %d" %
              (row["top_flusher"], top))
        check(all(p["own_cgroup"] for p in procs), "own cgroup missing")
        return "%d processes, locked %s" % (len(procs), sorted(got.values()))


@test
def hostile_cgroup_name_is_escaped():
    # \udcff is how Python spells the raw byte 0xff in a file name
    name = unique("rsl-evil") + "-\x1b[31m\"q'\\\t\x07\udcff\udcfe"
    with Cgroup(MOUNTS["v2"], name=name) as cg:
        tool = Rstatlat("-j").start()
        read_stat(cg.path + "/cpu.stat", 5)
        rc, out, err = tool.stop()
        check(rc == 0, "json run failed: %s" % err)
        report = json.loads(out.decode("utf-8"))  # strict UTF-8 and JSON
        rows = find_cgroup(report, cg.id)
        check(len(rows) == 1, "hostile cgroup not reported")
        # invalid UTF-8 bytes map to U+0080..U+00FF (rstatlat(8))
        want = "/" + name.replace("\udcff", "\u00ff").replace("\udcfe", "\u00fe")
        check(rows[0]["path"] == want, "path %r, want %r" % (rows[0]["path"], want))

        tool = Rstatlat("0.3", "-n", "0").start()
        read_stat(cg.path + "/cpu.stat", 5)
        time.sleep(0.5)
        rc, out, err = tool.stop()
        check(rc == 0, "table run failed")
        bad = [b for b in set(out) if (b < 0x20 and b != 0x0a) or b == 0x7f]
        check(not bad, "raw control bytes on the terminal: %s" % bad)
        check(b"\\x1b[31m" in out and b"\\xff" in out, "escaped name not shown")
        check(b"\x1b[H" not in out, "redraw codes written to a pipe")
        return "JSON and table clean"


@test
def removed_cgroup_keeps_its_name():
    tool = Rstatlat("-j").start()
    with Cgroup(MOUNTS["v2"]) as cg:
        read_stat(cg.path + "/cpu.stat", 3)
        cgid, name = cg.id, cg.name
    check(not os.path.exists(cg.path), "cgroup not removed")
    rc, out, err = tool.stop()
    rows = find_cgroup(json_lines(out)[-1], cgid)
    check(rows and rows[0]["path"] == "/" + name, "removed cgroup shown as %r" % rows)
    return "path %s after rmdir" % rows[0]["path"]


@test
def intervals_and_summary():
    with Cgroup(MOUNTS["v2"]) as cg:
        tool = Rstatlat("-j", "0.5", "3").start()
        deadline = time.time() + 2.2
        while time.time() < deadline:
            read_stat(cg.path + "/cpu.stat", 10)
            time.sleep(0.05)
        out, _ = tool.p.communicate(timeout=10)
        rc = tool.p.returncode
        reports = json_lines(out)
        check(rc == 0, "exit %d" % rc)
        types = [r["type"] for r in reports]
        check(types == ["interval"] * 3 + ["summary"], "types %s" % types)
        for r in reports:
            check(r["schema"] == "rstatlat/1", "schema")
            for k in ("release", "cpus_possible", "cpus_online"):
                check(k in r["kernel"], "kernel.%s" % k)
            me = r["self"]
            check(0 < me["map_bytes"] <= 64 << 20 and me["entries"] == 10000 and
                  1 <= me["entries_used"] <= me["entries_peak"] <= me["entries"], "self %s" % me)
        cpu = sum(r["self"]["cpu_user_ns"] + r["self"]["cpu_system_ns"] for r in reports[:3])
        whole = reports[3]["self"]["cpu_user_ns"] + reports[3]["self"]["cpu_system_ns"]
        check(0 < cpu <= whole, "CPU time of the intervals %d ns, of the run %d ns" % (cpu, whole))
        per = [find_cgroup(r, cg.id) for r in reports[:3]]
        total = sum(p[0]["locked"] for p in per if p)
        summ = find_cgroup(reports[3], cg.id)[0]
        # reads continue between the last interval and exit
        check(summ["locked"] >= total > 0, "intervals %d, summary %d" % (total, summ["locked"]))
        for p in per:
            if p:
                h = p[0]["hold_ns"]
                check(h["max"] >= h["p99"] >= h["p50"] > 0, "quantiles ordered %s" % h)
                check(sum(b["count"] for b in h["buckets"]) == h["count"], "buckets add up")
                check(h["max"] <= summ["hold_ns"]["max"], "interval max <= run max")
        return "3 intervals (%d locks) + summary (%d)" % (total, summ["locked"])


@test
def slow_events_carry_stacks():
    with Cgroup(MOUNTS["v2"]) as cg:
        cg.spawn(BUSY)
        cg.wait_populated(1)
        tool = Rstatlat("-t", "100ns", "-j").start()
        read_stat(cg.path + "/cpu.stat", 20)
        time.sleep(0.3)
        rc, out, err = tool.stop()
        slow = [r for r in json_lines(out) if r["type"] == "slow" and
                r["cgroup"]["id"] == cg.id]
        check(slow, "no slow events")
        for r in slow:
            check(r["duration_ns"] >= 100, "report under threshold")
            check(r["cgroup"]["path"] == "/" + cg.name, "path %r" % r["cgroup"]["path"])
        stacks = [r["stack"] for r in slow if r["stack"]]
        check(stacks and any("rstat" in f for s in stacks for f in s),
              "no rstat function in the stacks: %s" % stacks[:1])
        dispatch = ("bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_")
        check(not [s for s in stacks if s[0].startswith(dispatch)],
              "stacks start in the tracing dispatch: %s" % stacks[0][:2])

        # a cgroup that exists and that nobody flushes (one that does not exist is refused)
        with Cgroup(os.path.dirname(cg.path), cg.name + "-elsewhere"):
            tool = Rstatlat("-t", "100ns", "-j", "-c", "/" + cg.name + "-elsewhere").start()
            read_stat(cg.path + "/cpu.stat", 20)
            time.sleep(0.3)
            rc, out, err = tool.stop()
        check(not [r for r in json_lines(out) if r["type"] == "slow"], "-t ignored -c")

        tool = Rstatlat("-t", "100ns", "-d", "30").start()
        read_stat(cg.path + "/cpu.stat", 5)
        time.sleep(0.3)
        rc, out, err = tool.stop()
        text = out.decode()
        check("cgroup rstat lock held" in text and "kernel stack at unlock" in text and
              "/" + cg.name in text, "text report missing: %s" % text[:300])
        return "%d slow events; top frame %s" % (len(slow), stacks[0][0])


@test
def slow_event_flood_keeps_reading():
    """Slow events coming faster than they are printed (-t 1ns, two
    threads re-reading cpu.stat) still leave the maps read every second:
    an interval report each second, and the run ends when it should, the
    events still waiting counted in lost.slow_unprinted after a second's
    printing (libbpf's consumer would otherwise print for as long as they
    come)."""
    seconds = 3
    with Cgroup(MOUNTS["v2"]) as cg, tempfile.TemporaryFile() as out:
        load = subprocess.Popen(hammer_cmd(cg.path + "/cpu.stat", 2, seconds=seconds + 6),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            p = subprocess.Popen([BIN, "-t", "1ns", "-j", "-d", str(seconds), "1"],
                                 stdout=out, stderr=subprocess.PIPE)
            err = b""
            while b"tracing" not in err and p.poll() is None:
                err += os.read(p.stderr.fileno(), 4096)
            attached = time.time()
            p.wait(timeout=60)
            took = time.time() - attached
        finally:
            load.kill()
            load.wait()
        check(p.returncode == 0, "rstatlat exited %d: %s" % (p.returncode, err[-300:]))
        out.seek(0)
        kinds = {}
        for line in out:
            if line.startswith(b'{"schema":"rstatlat/1","type":"slow"'):
                kinds["slow"] = kinds.get("slow", 0) + 1
                continue
            r = json.loads(line)
            kinds[r["type"]] = kinds.get(r["type"], 0) + 1
            last = r
        check(last["type"] == "summary", "no summary at the end")
        dropped = last["lost"]["ringbuf_full"]
        check(kinds.get("interval", 0) == seconds - 1, "%d interval reports in %d s, expected %d "
              "(the last is the summary)" % (kinds.get("interval", 0), seconds, seconds - 1))
        check(took < seconds + 2.5, "the run took %.1f s after attaching, -d %d" % (took,
                                                                                   seconds))
        return "%d slow events printed, %d dropped (ring full), %d unprinted at the end; %d " \
               "intervals; ended %.1f s after attaching" % (
                   kinds.get("slow", 0), dropped, last["lost"]["slow_unprinted"],
                   kinds["interval"], took)


@test
def attaching_under_load_loses_nothing():
    """Attaching while a reader hammers the lock: programs only count once
    all are attached, so no hold is left dangling (relocked), and at most
    one hold per CPU began before we looked (unpaired_unlock)."""
    with Cgroup(MOUNTS["v2"]) as cg:
        hammer = subprocess.Popen(hammer_cmd(cg.path + "/cpu.stat", 1, seconds=4),
                                  stdout=subprocess.DEVNULL)
        try:
            time.sleep(0.3)
            worst = {}
            for _ in range(3):
                r = run("-j", "-d", "0.5", "-c", "/" + cg.name)
                check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
                lost = json_lines(r.stdout)[-1]["lost"]
                for k, v in lost.items():
                    worst[k] = max(worst.get(k, 0), v)
                locked = find_cgroup(json_lines(r.stdout)[-1], cg.id)
                check(locked and locked[0]["locked"] > 1000, "hammer not seen")
        finally:
            hammer.wait()
        check(worst["relocked"] == 0, "relocked %d" % worst["relocked"])
        check(worst["unpaired_unlock"] <= os.cpu_count(),
              "unpaired_unlock %d" % worst["unpaired_unlock"])
        # counting begins with the first chunks made: none of its events waits for one
        check(worst["entries_full"] == 0 and worst["ringbuf_full"] == 0 and
              worst.get("entries_growing", 0) == 0, "lost %s" % worst)
        return "3 attaches under load, worst lost %s" % worst


@test
def full_slot_table_is_counted_and_shown():
    cgs = [Cgroup(MOUNTS["v2"]) for _ in range(4)]
    for cg in cgs:
        cg.__enter__()
    try:
        # only this process's flushes take entries: other flushers on the
        # host (the memcg worker, an agent) could take both
        tool = Rstatlat("-j", "--max-entries", "2", "--pid", str(os.getpid())).start()
        for cg in cgs:
            read_stat(cg.path + "/cpu.stat", 20)
        rc, out, err = tool.stop()
        report = json_lines(out)[-1]
        ours = [c for c in report["cgroups"] if c["id"] in {cg.id for cg in cgs}]
        check(len(report["cgroups"]) <= 2, "more rows than entries: %d" % len(report["cgroups"]))
        check(report["lost"]["entries_full"] > 0, "overflow not counted: %s" % report["lost"])
        check(len(ours) >= 1, "none of the test cgroups measured")
        # and said, with what fixes it (rstatlat(8), FINDINGS)
        said = [f for f in report["findings"] if f["id"] == "rstatlat_itself"]
        check(said and said[0]["severity"] == "warning" and
              "entries_full %d (raise --max-entries)" % report["lost"]["entries_full"] in
              said[0]["text"], "findings: %s" % report["findings"])
        table = Rstatlat("--max-entries", "1", "0.2").start()
        for cg in cgs:
            read_stat(cg.path + "/cpu.stat", 5)
        time.sleep(0.3)
        rc, out, err = table.stop()
        check(b"LOST: entries_full=" in out, "no LOST line in the table")
        return "entries_full=%d with 2 entries" % report["lost"]["entries_full"]
    finally:
        for cg in reversed(cgs):
            cg.__exit__()


@test
def removed_cgroups_free_their_slots():
    """Churn: 10 cgroups made, flushed and removed one after another under
    --max-entries 6. Only this process's flushes take entries (--pid):
    cgroups flushed by anything else on the host (the memcg worker, an
    agent, an earlier test's cgroup freed late) kept entries of their own,
    and on a busier machine took enough of the 6 to lose this test's reads
    (entries_full 53-61 in 2 of 9 runs). Each removed cgroup holds its entry
    about 5 s (two idle reads, unhooked, freed 2 s later), so 2 s apart
    about 3 are held at once. Slots of removed cgroups are recycled, nothing
    is lost, the summary still lists every one of them with its own
    counts, and its entries_used is at most the 6."""
    made = []
    tool = Rstatlat("-j", "--max-entries", "6", "--pid", str(os.getpid())).start()
    for i in range(10):
        with Cgroup(MOUNTS["v2"]) as cg:
            read_stat(cg.path + "/cpu.stat", 5 + i)
            made.append((cg.id, "/" + cg.name, 5 + i))
        time.sleep(2.0)  # idle for two reads, then unhooked, then freed
    rc, out, err = tool.stop()
    report = json_lines(out)[-1]
    check(report["lost"]["entries_full"] == 0, "lost %s" % report["lost"])
    # counted as slots come and go: 10 came through 6, so some went
    check(1 <= report["self"]["entries_used"] <= 6, "entries_used %s of 6" %
          report["self"]["entries_used"])
    per_read = None
    for cgid, path, reads in made:
        rows = find_cgroup(report, cgid)
        check(len(rows) == 1 and rows[0]["path"] == path, "%s: %s" % (path, rows))
        # every read takes the lock the same number of times
        per_read = per_read or rows[0]["locked"] // reads
        check(rows[0]["locked"] >= per_read * reads, "%s: %d locks for %d reads" %
              (path, rows[0]["locked"], reads))
    return "10 cgroups through 6 entries, %d locks per read, nothing lost" % per_read


@test
def container_names_stay_whole_after_removal():
    """A Kubernetes pod's container cgroup, four levels of 15-85 bytes
    (kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uuid>.slice/
    cri-containerd-<64 hex>.scope, 191 bytes) and a docker one
    (docker-<64 hex>.scope, 78 bytes) beside it, each read and removed
    within a run of -j of about 2 s, as short-lived pods are: the summary
    names them by their whole paths, which only the kernel's capture still
    knows."""
    top = unique("rsl-kubepods") + ".slice"
    pod = "kubepods-burstable-pod%s.slice" % str(uuid.uuid4()).replace("-", "_")
    rel = [top, "kubepods-burstable.slice", pod,
           "cri-containerd-%s.scope" % os.urandom(32).hex()]
    docker = [top, "docker-%s.scope" % os.urandom(32).hex()]
    made, dirs = [], []
    tool = Rstatlat("-j").start()
    try:
        for path in (rel, docker):
            for i in range(len(path)):
                p = os.path.join(MOUNTS["v2"], *path[:i + 1])
                if not os.path.isdir(p):
                    os.mkdir(p)
                    dirs.append(p)
            leaf = os.path.join(MOUNTS["v2"], *path)
            made.append((os.stat(leaf).st_ino, "/" + "/".join(path)))
            read_stat(leaf + "/cpu.stat", 5)
    finally:
        for p in reversed(dirs):	# children first
            os.rmdir(p)
    time.sleep(1)
    rc, out, err = tool.stop()
    check(rc == 0, "exit %d: %s" % (rc, err))
    summary = json_lines(out)[-1]
    for cgid, want in made:
        rows = find_cgroup(summary, cgid)
        check(len(rows) == 1 and rows[0]["path"] == want, "%d bytes named %s in the summary" % (
            len(want), [r["path"] for r in rows] or "nowhere"))
    return "%s: %d and %d bytes, whole after removal" % (
        " and ".join(w.split("/")[-1][:18] + "..." for _, w in made), len(made[0][1]),
        len(made[1][1]))


def ftrace_locks(recs, cgids=None):
    """ftrace's locked events per cgroup id (only those in cgids, if given),
    and the same counted only before the monotonic time until_ns."""
    counts = {}
    for _, _, ts, ev, cg, _ in recs:
        if ev == "cgroup_rstat_locked" and (cgids is None or cg in cgids):
            counts.setdefault(cg, []).append(ts)
    return counts


def bounded_by_ftrace(got, stamps, until_ns, what):
    """rstatlat counts every event before it was told to stop, and none
    after its last read: ftrace's events before the signal <= ours <= all."""
    before = sum(1 for ts in stamps if ts < until_ns)
    check(before <= got <= len(stamps), "%s: %d locks, ftrace %d before the stop signal, %d in all"
          % (what, got, before, len(stamps)))


def rows_add_up(report):
    """Every cgroup row is the sum of its process rows (-p)."""
    sums = {}
    for p in report["processes"]:
        key = (p["cgroup"]["hierarchy"], p["cgroup"]["id"], p["cgroup"]["path"])
        s = sums.setdefault(key, [0, 0, 0])
        s[0] += p["locked"]
        s[1] += p["hold_ns"]["count"]
        s[2] += p["flush_ns"]["count"]
    for c in report["cgroups"]:
        key = (c["hierarchy"], c["id"], c["path"])
        want = sums.get(key, [0, 0, 0])
        check([c["locked"], c["hold_ns"]["count"], c["flush_ns"]["count"]] == want,
              "cgroup %s: locked/holds/flushes %s, its process rows add up to %s" % (
                  c["path"], [c["locked"], c["hold_ns"]["count"], c["flush_ns"]["count"]], want))
    check(len(sums) == len(report["cgroups"]), "process rows of cgroups without a row")


def stop_at(tool):
    """Stops rstatlat; returns its output and the monotonic ns of the signal."""
    until = time.monotonic_ns()
    rc, out, err = tool.stop()
    check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
    return json_lines(out), until


# What a row of the host's (not the test's) may add to the peak RSS: 1.6
# KiB measured with 3 000 other cgroups read beside a test, doubled.
HOST_ROW_BYTES = 4096
# What a test's rows may add to the peak of an idle run: the churn and the
# short-lived flushers add nothing measurable; the two leaks fixed before
# (docs/limits.md) added 2-6 MiB.
OWN_ROWS_BYTES = 1 << 20


def idle_peak_rss():
    """The peak RSS of an idle rstatlat -j run here and now: libbpf's parse
    of the kernel's BTF at start sets it (about 12 MiB on 6.18), and the
    pages of the shared libraries mapped move it by half a MiB from run to
    run of the tier, so a test's peak is bounded against this one."""
    r = run("-j", "-d", "0.2")
    check(r.returncode == 0, "idle rstatlat exited %d: %s" % (r.returncode, r.stderr))
    return json_lines(r.stdout)[-1]["self"]["rss_max_bytes"]


def check_peak_rss(summary, own):
    """rstatlat's peak RSS within OWN_ROWS_BYTES of an idle run's, and
    HOST_ROW_BYTES more for each row that is not the test's (own: its
    cgroup ids), so that a busy host does not fail it. On
    failure it says what the run held (docs/limits.md: where the peak comes
    from); returns both peaks, for the test's line."""
    rss = summary["self"]["rss_max_bytes"]
    idle = idle_peak_rss()
    rows = summary["cgroups"] + summary.get("processes", [])
    others = sum(1 for r in rows if r.get("id", r.get("cgroup", {}).get("id")) not in own)
    bound = idle + OWN_ROWS_BYTES + others * HOST_ROW_BYTES
    check(rss <= bound, "peak RSS %.1f MiB, bound %.1f MiB (idle %.1f; %d rows, %d the host's, self %s)" % (
        rss / 2**20, bound / 2**20, idle / 2**20, len(rows), others, summary["self"]))
    return "%.1f MiB (idle %.1f)" % (rss / 2**20, idle / 2**20)


@test
def short_lived_flushers_fold_by_comm():
    """-p while a shell loop reads a cgroup's cpu.stat with cat, a new
    process per read: each cat gives its slot back when it exits and folds
    into one row per (cgroup, comm), "cat (exited: N)". Nothing is lost,
    cgroup rows stay the sums of their process rows, the cgroup's locks
    agree with ftrace, a bounded number of process rows, RSS bounded."""
    n = 3000
    loop = 'i=0; while [ $i -lt %d ]; do cat "$1" >/dev/null; i=$((i+1)); done' % n
    with Cgroup(MOUNTS["v2"]) as cg, Ftrace() as ft:
        tool = Rstatlat("-p", "-j", "1").start()
        subprocess.run(["sh", "-c", loop, "sh", cg.path + "/cpu.stat"], check=True)
        time.sleep(2.5)  # the last exits are seen, their slots retired
        reports, until = stop_at(tool)
        recs = ft.stop()
    summary = reports[-1]
    check(not any(summary["lost"].values()), "lost %s" % summary["lost"])
    mine = [p for p in summary["processes"] if p["cgroup"]["id"] == cg.id]
    cats = [p for p in mine if p["comm"] == "cat"]
    check(len(cats) == 1 and cats[0]["pid"] == 0 and cats[0].get("exited") == n,
          "cat rows: %s" % [(p["pid"], p.get("exited"), p["locked"]) for p in cats[:5]])
    row = find_cgroup(summary, cg.id)[0]
    stamps = ftrace_locks(recs, {cg.id}).get(cg.id, [])
    bounded_by_ftrace(row["locked"], stamps, until, "the cgroup")
    check(cats[0]["locked"] == row["locked"], "the cat row holds all the cgroup's locks")
    rows_add_up(summary)
    for r in reports[:-1]:
        rows_add_up(r)
    # its own cgroup's: a busy host's flushers have rows of their own
    check(len(mine) < 100, "%d process rows of the test's cgroup" % len(mine))
    rss = check_peak_rss(summary, {cg.id})
    return "%d cats -> one row (exited: %d), %d locks = ftrace's; %d process rows; RSS %s" % (
        n, cats[0]["exited"], row["locked"], len(mine), rss)


def lost_beyond_the_ends(lost):
    """What a run lost beyond the flushes it saw only part of at its ends:
    one in progress on a CPU when rstatlat attached (its start unseen, and
    then its end unmatched: another agent's, under BusyHost), at most one
    of each a CPU. Anything else lost is."""
    ends = ("flush_start_unseen", "flush_unfinished")
    return {k: v for k, v in lost.items()
            if v and (k not in ends or v > (os.cpu_count() or 1))}


@test
def churn_of_cgroups_loses_nothing():
    """3000 cgroups made, read once and removed one after another, 1000 a
    second (pods starting and stopping far faster than a node's), while
    rstatlat -j runs: no slot is missing, nothing is dropped (the entries'
    chunks are made ahead of them), and every one's locks are in the
    summary, in its own row or in the aggregate row of removed cgroups;
    peak RSS stays within 1 MiB of an idle run's. Faster bursts: burst_of_new_cgroups_is_counted."""
    n = 3000
    parent = os.path.join(MOUNTS["v2"], unique("rsl-churn"))
    elsewhere = os.path.join(MOUNTS["v2"], unique("rsl-churn-elsewhere"))
    os.mkdir(parent)
    os.mkdir(elsewhere)
    made = {}
    try:
        with Ftrace() as ft:
            tool = Rstatlat("-j").start()
            # -c elsewhere: the churn is outside its subtree, and leaves nothing in it
            outside = Rstatlat("-j", "-c", "/" + os.path.basename(elsewhere)).start()
            start = time.monotonic()
            for i in range(n):
                path = os.path.join(parent, "c%d" % i)
                os.mkdir(path)
                made[os.stat(path).st_ino] = "/%s/c%d" % (os.path.basename(parent), i)
                with open(path + "/cpu.stat") as f:
                    f.read()
                os.rmdir(path)
                time.sleep(max(0, start + (i + 1) / 1000 - time.monotonic()))
            time.sleep(8)  # slots are handed back 2 s after they are unhooked, 4 reads on
            reports, until = stop_at(tool)
            filtered, _ = stop_at(outside)
            recs = ft.stop()
            check(ft.overrun == 0, "ftrace overran its buffer")
    finally:
        os.rmdir(parent)
        os.rmdir(elsewhere)
    check(not filtered[-1]["cgroups"], "-c kept rows from outside its subtree: %s" % [
        (c["path"], c.get("removed_cgroups")) for c in filtered[-1]["cgroups"][:3]])
    summary = reports[-1]
    check(not lost_beyond_the_ends(summary["lost"]), "lost %s" % summary["lost"])
    counts = ftrace_locks(recs, set(made))
    own = {c["id"]: c for c in summary["cgroups"] if c["id"] in made}
    for cgid, c in own.items():
        check(c["path"] == made[cgid], "cgroup %d shown as %r" % (cgid, c["path"]))
        bounded_by_ftrace(c["locked"], counts.get(cgid, []), until, made[cgid])
    agg = [c for c in summary["cgroups"] if c.get("removed_cgroups")]
    folded = [cgid for cgid in made if cgid not in own]
    if folded:
        check(len(agg) == 1 and agg[0]["path"] == "(removed cgroups)", "aggregate rows %s" % agg)
        want = sum(1 for cgid in folded for ts in counts.get(cgid, []) if ts < until)
        check(agg[0]["locked"] >= want and agg[0]["removed_cgroups"] >= len(folded),
              "aggregate: %d locks of %d cgroups, the folded ones alone had %d of %d" % (
                  agg[0]["locked"], agg[0]["removed_cgroups"], want, len(folded)))
    rss = check_peak_rss(summary, set(made) | {c["id"] for c in agg})
    return "%d cgroups: %d in rows of their own, %d in the aggregate; nothing lost; RSS %s" % (
        n, len(own), len(folded), rss)


class BusyHost:
    """Another agent on the host: cpu.stat of n cgroups of its own, each
    read once a second (rstatlat load poller --below), while a test runs."""

    def __init__(self, n):
        self.parent = os.path.join(MOUNTS["v2"], unique("rsl-busy"))
        self.n = n

    def __enter__(self):
        os.mkdir(self.parent)
        self.paths = []
        for i in range(self.n):
            self.paths.append(os.path.join(self.parent, "agent%d" % i))
            os.mkdir(self.paths[-1])
        self.p = subprocess.Popen(poller_cmd(self.parent, "1s", "3600"),
                                  stdout=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait()
        for p in self.paths:
            os.rmdir(p)
        os.rmdir(self.parent)


@test
def busy_host_does_not_fail_scoped_tests():
    """Beside another agent reading cpu.stat of 3 000 cgroups of its own
    once a second, the tests that a busy host failed pass: they assert
    only what is theirs (their cgroups' rows, their processes' rows, peak
    RSS above an idle run's by what the host's rows take)."""
    with BusyHost(3000):
        a = short_lived_flushers_fold_by_comm()
        b = churn_of_cgroups_loses_nothing()
    return "beside 3 000 cgroups read once a second: %s; %s" % (a, b)


@test
def memory_follows_tracked_cgroups():
    """rstatlat -j 1 from 1 tracked cgroup to 3000 (made 1000 a second, each
    read as it comes, then all read again): the kernel memory of its maps
    grows with them, within twice what the chunks of the cgroups in use
    take plus 128 entries, and nothing is lost; the summary says the memory
    at the ceiling (--max-entries) too."""
    n = 3000
    parent = os.path.join(MOUNTS["v2"], unique("rsl-grow"))
    os.mkdir(parent)
    paths = []
    try:
        with Cgroup(parent) as first:
            tool = Rstatlat("-j", "1").start()
            read_stat(os.path.join(first.path, "cpu.stat"), 3)
            time.sleep(1.2)
            start = time.monotonic()
            for i in range(n):
                path = os.path.join(parent, "c%d" % i)
                os.mkdir(path)
                paths.append(path)
                read_stat(path + "/cpu.stat", 1)
                time.sleep(max(0, start + (i + 1) / 1000 - time.monotonic()))
            for path in paths:
                read_stat(path + "/cpu.stat", 1)
            time.sleep(1.2)
            rc, out, err = tool.stop()
    finally:
        for path in reversed(paths):
            os.rmdir(path)
        os.rmdir(parent)
    check(rc == 0, "exit %d: %s" % (rc, err))
    reports = json_lines(out)
    early, summary = reports[0]["self"], reports[-1]["self"]
    lost = {k: v for k, v in reports[-1]["lost"].items() if v}
    check(not lost, "lost %s" % lost)
    mine = [c for c in reports[-1]["cgroups"] if c["path"].startswith("/" + os.path.basename(parent))]
    check(len(mine) == n + 1 and all(c["locked"] >= 3 for c in mine),
          "%d rows of %d, fewest locks %s" % (len(mine), n + 1, min(c["locked"] for c in mine)))
    per_entry = 5824 + 320  # a home and a name (rstatlat.h), page-rounded by 32
    grown = summary["map_bytes"] - early["map_bytes"]
    check(summary["entries_used"] >= n, "entries in use %d" % summary["entries_used"])
    check(n * per_entry * 0.9 <= grown <= (2 * summary["entries_used"] + 128) * per_entry * 1.05,
          "maps grew %.1f MiB for %d entries" % (grown / 2**20, summary["entries_used"]))
    check(early["map_bytes"] < 4 << 20, "maps at the start %.1f MiB" % (early["map_bytes"] / 2**20))
    check(summary["map_bytes_ceiling"] > summary["map_bytes"],
          "ceiling %d, in use %d" % (summary["map_bytes_ceiling"], summary["map_bytes"]))
    return "maps %.1f MiB with %d in use -> %.1f MiB with %d (%.1f MiB at %d entries); nothing lost" % (
        early["map_bytes"] / 2**20, early["entries_used"], summary["map_bytes"] / 2**20,
        summary["entries_used"], summary["map_bytes_ceiling"] / 2**20, summary["entries"])


@test
def burst_of_new_cgroups_is_counted():
    """600 cgroups made and read in a tight loop right after the start,
    faster than chunks are put in place (a grace period each time): events
    of cgroups that found no entry are counted in lost.entries_growing, and
    every lock ftrace saw of them is in a row or in that count, which other
    cgroups' locks in the same window may add to (ftrace's count of them
    bounds it)."""
    n = 600
    parent = os.path.join(MOUNTS["v2"], unique("rsl-burst"))
    os.mkdir(parent)
    made = set()
    try:
        with Ftrace() as ft:
            tool = Rstatlat("-j").start()
            for i in range(n):
                path = os.path.join(parent, "c%d" % i)
                os.mkdir(path)
                made.add(os.stat(path).st_ino)
                read_stat(path + "/cpu.stat", 1)
            time.sleep(1.5)
            reports, until = stop_at(tool)
            recs = ft.stop()
            check(ft.overrun == 0, "ftrace overran its buffer")
    finally:
        for i in range(n):
            os.rmdir(os.path.join(parent, "c%d" % i))
        os.rmdir(parent)
    summary = reports[-1]
    counts = ftrace_locks(recs, made)
    traced = sum(len(v) for v in counts.values())
    rows = sum(c["locked"] for c in summary["cgroups"] if c["id"] in made)
    growing = summary["lost"]["entries_growing"]
    others = {k: v for k, v in summary["lost"].items() if v and k != "entries_growing"}
    check(not others, "lost %s" % others)
    # the count is the host's: another cgroup's lock in the window adds to it (e.g. the
    # release flush of a cgroup an earlier test removed, by a kworker)
    host = sum(len(v) for cg, v in ftrace_locks(recs).items() if cg not in made)
    check(traced <= rows + growing <= traced + host, "%d locks in rows + %d counted lost = "
          "%d, ftrace %d of the burst's cgroups and %d of others" % (
              rows, growing, rows + growing, traced, host))
    return "%d locks: %d in rows, %d in lost.entries_growing (%d locks of other cgroups)" % (
        traced, rows, growing, host)


@test
def redraws_only_on_a_terminal():
    # script copies its stdin to the pty: a closed one makes it stop at once
    tty = subprocess.run(["script", "-qfec", "%s 0.2 2" % BIN, "/dev/null"],
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    check(tty.returncode == 0, "under a pty: exit %d" % tty.returncode)
    check(tty.stdout.count(b"\x1b[H\x1b[2J") == 2, "expected one redraw per interval")
    pipe = run("0.2", "2")
    check(pipe.returncode == 0 and b"\x1b" not in pipe.stdout, "escape codes into a pipe")
    # each interval's header says how long it really lasted (0.19s, 0.30s
    # after a stall), not the 0.2 asked for
    intervals = re.findall(rb"^interval \d+\.\d+s$", pipe.stdout, re.M)
    check(len(intervals) == 2 and b"Summary:" in pipe.stdout,
          "two intervals and a summary: %r" % pipe.stdout[-600:])
    return "2 redraws on a pty, none into a pipe"


@test
def sigterm_prints_summary():
    tool = Rstatlat("0.2").start()
    time.sleep(0.5)
    rc, out, err = tool.stop(signal.SIGTERM)
    check(rc == 0, "exit %d" % rc)
    check(b"Summary:" in out and b"interval" in out, "summary missing: %s" % out[:200])
    return "exit 0 with summary"


def fake_btf(src):
    """A BTF blob from a C file: clang's .BTF section, raw."""
    tmp = tempfile.mkdtemp()
    obj, btf = os.path.join(tmp, "x.o"), os.path.join(tmp, "x.btf")
    subprocess.run(["clang", "-g", "-target", "bpf", "-c", src, "-o", obj], check=True)
    objcopy = "llvm-objcopy" if subprocess.run(["which", "llvm-objcopy"],
                                               capture_output=True).returncode == 0 \
        else "llvm-objcopy-14"
    subprocess.run([objcopy, "--dump-section", ".BTF=" + btf, obj], check=True)
    return btf


def one_line(stderr):
    lines = stderr.decode().strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("rstatlat: ")


@test
def exit_codes():
    bad_usage = [["-s", "bogus"], ["0"], ["abc"], ["-n", "x"], ["1", "0"], ["1", "2", "3"],
                 ["-c", "relative"], ["-c", "nosuch:/x"], ["--pid", "0"], ["-t", "abc"],
                 ["--bogus"], ["-d"], ["--max-entries", "0"], ["-d", "-5"],
                 ["--max-entries", "99999999"]]
    for args in bad_usage:
        r = run(*args)
        check(r.returncode == 2, "%s: exit %d" % (args, r.returncode))
        check(one_line(r.stderr), "%s: stderr %r" % (args, r.stderr))
    # make bench's cost attribution: anything but 0-31 (BENCH_CUT_ALL) refused, the cut said
    for cut in ["32", "abc", "1x", "-1"]:
        r = run("-d", "1", env=dict(os.environ, RSTATLAT_BENCH_CUT=cut))
        check(r.returncode == 2 and b"RSTATLAT_BENCH_CUT" in r.stderr and one_line(r.stderr),
              "RSTATLAT_BENCH_CUT=%s: %d %r" % (cut, r.returncode, r.stderr))
    r = run("-j", "-d", "1", env=dict(os.environ, RSTATLAT_BENCH_CUT="1"))
    check(r.returncode == 0 and b"the figures are wrong" in r.stderr,
          "RSTATLAT_BENCH_CUT=1: %d %r" % (r.returncode, r.stderr))
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--inh-caps=-all", BIN, "-d", "1"], capture_output=True, timeout=30)
    check(r.returncode == 3 and b"needs root" in r.stderr and one_line(r.stderr),
          "unprivileged: %d %r" % (r.returncode, r.stderr))
    r = subprocess.run(["unshare", "-m", "sh", "-c",
                        'mount -t tmpfs none /sys/kernel/btf && exec "$0" -d 1', BIN],
                       capture_output=True, timeout=30)
    check(r.returncode == 3 and b"no kernel BTF" in r.stderr and one_line(r.stderr),
          "no BTF: %d %r" % (r.returncode, r.stderr))
    hide = 'mount --bind "$1" /sys/kernel/btf/vmlinux && shift 2 && exec "$0" "$@"'

    def with_btf(name, *args):
        btf = fake_btf(os.path.join(ROOT, "tests", "data", name))
        return subprocess.run(["unshare", "-m", "sh", "-c", hide, BIN, btf, "-"] + list(args),
                              capture_output=True, timeout=30)

    r = with_btf("btf_no_bool_rstat.c", "--probe")
    check(r.returncode == 3 and b"no struct cgroup * or bool argument" in r.stdout and
          b"plan: none" in r.stdout, "probe without a bool: %d %r" % (r.returncode, r.stdout))
    r = with_btf("btf_no_bool_rstat.c", "-d", "1", "-j")
    check(r.returncode == 3 and b"no usable cgroup_rstat tracepoints" in r.stderr and
          one_line(r.stderr) and not r.stdout,
          "no usable tracepoint: %d %r" % (r.returncode, r.stderr))
    # a ceiling past this machine's memory: said first; what the start takes is made
    r = run("-d", "1", "--max-entries", "16000000")
    said = r.stderr.splitlines()
    check(r.returncode == 0 and b"the maps grow with the entries in use" in said[0] and
          b"tracing" in said[1], "--max-entries past the memory: %d %r" % (r.returncode,
                                                                          r.stderr))
    r = run("--help")
    check(r.returncode == 0 and b"Usage: rstatlat" in r.stdout, "--help")
    # --source is --attach's old spelling: parsed as it, not an unknown option
    for spelling in ("--attach", "--source"):
        r = run(spelling, "bogus")
        check(r.returncode == 2 and one_line(r.stderr) and b"invalid --attach" in r.stderr,
              "%s bogus: %r" % (spelling, r.stderr))
    return "%d usage errors and 4 bad RSTATLAT_BENCH_CUT -> 2; unprivileged, no BTF, " \
        "no tracepoint, maps too large -> 3" % len(bad_usage)


@test
def probe_table_reads_prototypes_not_versions():
    """--probe on BTF of kernels that are not this one, bind-mounted over
    /sys/kernel/btf/vmlinux in a private mount namespace; on this one,
    against tracefs and what the kernel says of itself (PREEMPT_RT or not, lib.realtime)."""
    hide = 'mount --bind "$1" /sys/kernel/btf/vmlinux && shift 2 && exec "$0" "$@"'
    seen = []
    cases = [
        ("btf_two_arg_rstat.c", (), 0, [b"(cgrp@0, contended@1), no cpu", b"plan: tracepoint"]),
        ("btf_four_arg_rstat.c", (), 0, [b"(cgrp@1, cpu@2, contended@3)", b"plan: tracepoint"]),
        ("btf_no_bool_rstat.c", (), 3, [b"no struct cgroup * or bool argument", b"plan: none"]),
        # the rwlock RFC's (cgrp, cpu, const char *type, bool contended)
        ("btf_lock_type_rstat.c", (), 0, [b"(cgrp@0, cpu@1, contended@3, lock type@2)",
                                          b"plan: tracepoint", b"\nlock types: yes"]),
        # one lock per subsystem (6.16+): said, with why rows do not tell them apart
        ("btf_subsys_locks.c", (), 0, [b"locks: one per subsystem and one for the base stats",
                                       b"plan: tracepoint"]),
        ("btf_four_arg_rstat.c", (), 0, [b"locks: one global lock (cgroup_rstat_lock)",
                                         b"\nlock types: no: the tracepoints pass none"]),
        # no tracepoints: the functions are found; this host refuses fentry and kprobes
        ("btf_flush_functions.c", (), 3, [b"function cgroup_rstat_flush_locked", b"plan: none",
                                          b"refuses"]),
        # PREEMPT_RT: no irqs-off claim from the holds, and --irqoff lock refused
        ("btf_preempt_rt.c", (), 0, [b"holds are irqs-off: no", b"irqs-off from off"]),
        ("btf_preempt_rt.c", ("--irqoff", "lock"), 3, [b"plan: none: --irqoff lock: this "
                                                       b"kernel is PREEMPT_RT"]),
    ]
    for name, args, rc, wants in cases:
        btf = fake_btf(os.path.join(ROOT, "tests", "data", name))
        r = subprocess.run(["unshare", "-m", "sh", "-c", hide, BIN, btf, "-", "--probe"] +
                           list(args), capture_output=True, timeout=30)
        check(r.returncode == rc, "%s: exit %d: %r" % (name, r.returncode, r.stdout))
        for w in wants:
            check(w in r.stdout, "%s: no %r in\n%s" % (name, w, r.stdout.decode()))
        seen.append("%s%s -> %d" % (name.replace("btf_", "").replace(".c", ""),
                                    " " + " ".join(args) if args else "", rc))
    r = run("--probe")
    real = r.stdout.decode()
    tracefs = os.path.join(TRACEFS, "events", "cgroup")
    for ev in ("cgroup_rstat_locked", "cgroup_rstat_unlock", "cgroup_rstat_cpu_locked"):
        line = [l for l in real.splitlines() if l.startswith(ev + " ")][0]
        present = os.path.isdir(os.path.join(tracefs, ev))
        check(line.split()[1] == ("yes" if present else "no"),
              "%s: --probe says %s, tracefs %s" % (ev, line.split()[1], present))
    rt = realtime()
    holds = [l for l in real.splitlines() if l.startswith("holds are irqs-off: ")][0]
    check(holds.startswith("holds are irqs-off: no" if rt else "holds are irqs-off: yes"),
          "--probe: %r, the kernel says PREEMPT_RT %s" % (holds, rt))
    # 6.18 has task storage and BPF atomics: asked of the kernel, found
    check("\nbpf features: yes (task storage, atomic compare-and-exchange" in real,
          "--probe: no 'bpf features: yes' in\n%s" % real)
    # and one rstat lock per subsystem (6.16+), which this host refuses fentry to tell apart
    release = tuple(int(x) for x in os.uname().release.split(".")[:2])
    want = b"one per subsystem" if release >= (6, 16) else b"one global lock"
    check(("\nlocks: " + want.decode()) in real, "--probe: locks, expected %r in\n%s" % (
        want, real))
    r = run("-d", "1", "-j")
    got = json.loads(r.stdout.decode().splitlines()[-1]).get("locks") if r.returncode == 0 else r
    check(got == ("per-subsystem" if release >= (6, 16) else "global"), "JSON locks %r" % (got,))
    return "; ".join(seen) + "; this kernel agrees with tracefs and is%s PREEMPT_RT" % (
        "" if rt else " not")


@test
def irqoff_lock_equals_hold():
    """--irqoff lock: each hold is an irqs-off interval (spin_lock_irq), so
    every row's irqoff_ns is its hold_ns, bucket for bucket."""
    with Cgroup(MOUNTS["v2"]) as cg:
        tool = Rstatlat("-j", "--irqoff", "lock").start()
        reader(os.path.join(cg.path, "cpu.stat"), 3000)
        rc, out, err = tool.stop()
    check(rc == 0, "exit %d: %s" % (rc, err))
    summary = json_lines(out)[-1]
    check(summary["irqoff"]["source"] == "lock", "source %s" % summary["irqoff"]["source"])
    rows = summary["cgroups"]
    check(rows and all(r.get("irqoff_ns") == r["hold_ns"] for r in rows),
          "irqoff_ns differs from hold_ns")
    mine = find_cgroup(summary, cg.id)[0]
    check(mine["irqoff_ns"]["count"] == 9000, "%d irqs-off intervals for 9000 holds" %
          mine["irqoff_ns"]["count"])
    return "%d rows, irqoff_ns == hold_ns (%d holds here)" % (len(rows),
                                                            mine["irqoff_ns"]["count"])


def bpf_stats(on):
    """Sets kernel.bpf_stats_enabled; returns what it was."""
    with open("/proc/sys/kernel/bpf_stats_enabled", "r+") as f:
        old = f.read().strip()
        f.seek(0)
        f.write("1" if on else "0")
    return old == "1"


def own_time_run(load, stats):
    """rstatlat -j over load() with bpf_stats on or off: its summary's self."""
    old = bpf_stats(stats)
    try:
        tool = Rstatlat("-j").start()
        load()
        rc, out, err = tool.stop()
    finally:
        bpf_stats(old)
    check(rc == 0, "exit %d: %s" % (rc, err))
    return json_lines(out)[-1]["self"]


@test
def own_bpf_time_agrees_with_bpf_stats():
    """rstatlat's own BPF time (self.bpf_sampled_ns, from its sampled clock
    reads) is there with kernel.bpf_stats_enabled off, and with it on, its
    ns per lock event is within 25% of what bpf_stats counts for
    rstatlat's programs in the same run (the median of the runs' ratios),
    under a warm load (two threads re-reading one busy cgroup's cpu.stat)
    and a cold one (load poller --below: 100 cgroups read in turn every
    50 ms, 8 MiB written between rounds). Each run is compared with itself:
    this VM's speed drifts between runs, the cold load's most (bpf_stats
    read 403 and 611 ns in two runs in a row), and a CI run once found the
    median of three off-runs 692 ns beside on-runs of 490-540. The
    sampling does not know whether bpf_stats is on: its programs are the
    same either way."""
    with Cgroup(MOUNTS["v2"]) as busy, Cgroup(MOUNTS["v2"]) as parent:
        busy.spawn(TICKER)
        busy.wait_populated(1)
        cgs = [Cgroup(parent.path, "c%d" % i).__enter__() for i in range(100)]
        try:
            loads = {
                "warm": lambda: reader(os.path.join(busy.path, "cpu.stat"), 200000,
                                       threads=2),
                "cold": lambda: subprocess.run(
                    poller_cmd(parent.path, "50ms", "3", touch="8M"),
                    check=True, capture_output=True, timeout=60),
            }
            said = []
            for name, load in loads.items():
                runs = [own_time_run(load, i % 2 == 0) for i in range(5)]
                offs, ons = runs[1::2], runs[0::2]
                for off in offs:
                    check(off["bpf_ns"] is None, "%s: bpf_ns %s with bpf_stats off" % (
                        name, off["bpf_ns"]))
                    check(off["bpf_sampled_ns"] > 0 and off["lock_events"] > 0,
                          "%s: sampled %d ns over %d lock events" % (
                              name, off["bpf_sampled_ns"], off["lock_events"]))
                pairs = ["%.0f/%.0f" % (r["bpf_sampled_ns"] / r["lock_events"],
                                        r["bpf_ns"] / r["lock_events"]) for r in ons]
                ratio = statistics.median(r["bpf_sampled_ns"] / r["bpf_ns"] for r in ons)
                check(abs(ratio - 1) <= 0.25, "%s: sampled/bpf_stats %.2f in the same "
                      "runs (ns a lock event: %s)" % (name, ratio, ", ".join(pairs)))
                said.append("%s %.2f (sampled/bpf_stats ns a lock event: %s; off: %s)" % (
                    name, ratio, ", ".join(pairs), ", ".join(
                        "%.0f" % (r["bpf_sampled_ns"] / r["lock_events"]) for r in offs)))
        finally:
            for c in reversed(cgs):
                c.__exit__()
    return "; ".join(said)


def bpf_program_names():
    r = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, check=True)
    return [p.get("name", "") for p in json.loads(r.stdout)]


@test
def irqoff_sample_ticks_at_the_rate():
    """--irqoff sample: one cpu-clock event per online CPU, ticks at the
    rate (+-5%) while every CPU is busy (cpu-clock does not tick on an idle
    CPU, where irqs-off matters to nobody), and nothing left behind; the
    default (auto) does not sample."""
    online = os.cpu_count()
    hz, secs = 997, 3
    check("irqoff_tick" not in bpf_program_names(), "an irqoff_tick program already loaded")
    with Cgroup(MOUNTS["v2"]) as cg:
        for cpu in range(online):
            cg.spawn("import os\nos.sched_setaffinity(0, {%d})\n%s" % (cpu, BUSY))
        cg.wait_populated(online)
        time.sleep(0.3)
        r = run("-j", "--irqoff", "sample", "--sample-hz", str(hz), "-d", str(secs),
                timeout=60)
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
    q = json_lines(r.stdout)[-1]["irqoff"]
    check(q["source"] == "sample" and q["sample_hz"] == hz, "irqoff %s" % q)
    check(q["sample_events"] == online, "%d events for %d online CPUs" % (
        q["sample_events"], online))
    want = hz * secs * online
    check(abs(q["ticks"] - want) <= 0.05 * want, "%d ticks, expected %d +-5%%" % (
        q["ticks"], want))
    check(q["late_ns"] is not None and q["virtual_machine"] in (True, False), "late_ns")
    check("irqoff_tick" not in bpf_program_names(), "irqoff_tick still loaded after exit")
    # a timer interrupt per tick on every CPU is not a default: only asked for
    auto = run("--probe")
    plan = [l for l in auto.stdout.decode().splitlines() if l.startswith("plan:")][0]
    check(plan.endswith("irqs-off from lock") or plan.endswith("irqs-off from trace"), plan)
    return "%d ticks of %d expected on %d CPUs; lateness p99 %d ns, max %d ns; %s" % (
        q["ticks"], want, online, q["late_ns"]["p99"], q["late_ns"]["max"], plan)


COMPARE_RUNS = 4
COMPARE_SECONDS = 2


def cpu_stat_run(name, threads, out_path):
    """One run of the compare workload: a ticking process in a cgroup of
    this name (the same name every run, so the rows pair up), threads
    readers of its cpu.stat, and rstatlat -j around it."""
    with Cgroup(MOUNTS["v2"], name) as cg:
        cg.spawn(TICKER)
        cg.wait_populated(1)
        tool = Rstatlat("-j").start()
        subprocess.run(hammer_cmd(cg.path + "/cpu.stat", threads, seconds=COMPARE_SECONDS),
                       check=True, capture_output=True)
        rc, out, err = tool.stop()
        check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
    with open(out_path, "wb") as f:
        f.write(out)
    row = find_cgroup(json_lines(out)[-1], cg.id)
    check(row and row[0]["locked"] > 100000, "the workload's cgroup has too few locks: %s" % row)
    return row[0]


def compare_runs(befores, afters, *args):
    """compare of replicated runs: --before B1 --before B2 ... --after A1 ..."""
    return compare(*[x for f in befores for x in ("--before", f)],
                   *[x for f in afters for x in ("--after", f)], *args)


def few_values(res, cgroup, limit=100):
    """Whether the row of cgroup has fewer than limit holds on a side."""
    row = [c for c in res["cgroups"] if c["cgroup"]["path"] == cgroup]
    m = row[0]["metrics"]["locked"] if row else None
    return m is not None and min(m["before"] or 0, m["after"] or 0) < limit


@test
def compare_same_workload_never_fails():
    """Runs of one workload on this kernel, two against two with the sides'
    runs interleaved (runs 0+2 against 1+3 and 0+3 against 1+2, both ways:
    between-run tests, as the docs tell a CI job to run), fail no gate, and
    pair the workload's rows. A check is inconclusive (exit 4) only where
    its observed value crosses the gate and the runs cannot confirm it, or
    on a row with too few values: fail closed.

    Reported, not asserted: runs 0+1 against 2+3, recorded one side after
    the other. The machine's state drifts: hold p99 was 132 ns for four
    runs in a row, then 212-252 ns for the next eleven, and a CI run of
    this test met that step between runs 1 and 2 (1.61x, confirmed, as it
    should be: the sides differed). One run against one is reported too:
    state that lasts a whole run moved hold p99 by 1.54x between two runs,
    and the +50% default of a single run fails such a pair, as
    docs/compare.md says."""
    name = unique("rsl-cmp")
    inconclusive = 0
    with tempfile.TemporaryDirectory() as tmp:
        files = [os.path.join(tmp, "run%d.json" % i) for i in range(COMPARE_RUNS)]
        for f in files:
            cpu_stat_run(name, 2, f)
        splits = []
        for mate in files[2:]:
            side = [files[0], mate]
            other = [f for f in files if f not in side]
            splits += [(side, other), (other, side)]
        sequential = [(files[:2], files[2:]), (files[2:], files[:2])]
        sequential_failed = sum(compare_runs(b, a)[1]["failed"] > 0 for b, a in sequential)
        for before, after in splits:
            rc, res, err = compare_runs(before, after)
            gates = (res or {}).get("gates", [])
            label = "%s vs %s" % ("+".join(map(os.path.basename, before)),
                                  "+".join(map(os.path.basename, after)))
            check(rc in (0, 4) and res["failed"] == 0, "same workload failed: %s: %s %s" % (
                label, err, [g for g in gates if g["outcome"] == "fail"]))
            rows = [c for c in res["cgroups"] if c["cgroup"]["path"] == "/" + name]
            check(rows and rows[0]["presence"] == "both", "the workload's rows did not pair")
            mine = [g for g in gates if g["cgroup"] in (None, "/" + name)]
            check(len(mine) >= 4, "workload and total: %s" % mine)
            odd = [g for g in gates if g["outcome"] == "inconclusive"]
            check(all(g["cgroup"] in (None, "/" + name) or few_values(res, g["cgroup"])
                      for g in odd), "inconclusive on a background row with many values: %s" % odd)
            check((rc == 4) == bool(odd), "exit %d with %d inconclusive" % (rc, len(odd)))
            inconclusive += len(odd)
        worst, single_fails = {}, 0
        for a in files:
            for b in files:
                if a == b:
                    continue
                rc, res, err = compare(a, b)
                single_fails += rc == 1
                for k, m in res["total"]["metrics"].items():
                    if m["ratio"] is not None:
                        worst[k] = max(worst.get(k, 1), m["ratio"], 1 / max(m["ratio"], 1e-9))
    return ("%d interleaved splits fail nothing (%d checks inconclusive); in sequence, "
            "%d of 2 fail; one against one, %d of 12 pairs fail a default gate; widest "
            "spreads: %s" % (
                len(splits), inconclusive, sequential_failed, single_fails, ", ".join(
                    "%s %.2fx" % (k, worst[k]) for k in ("hold.p99", "wait.p99", "contended.rate",
                                                          "irqoff.max") if k in worst)))


@test
def compare_flags_added_contention():
    """A second reader on the same cgroup makes the lock contended (0% with
    one reader): a contention gate must fire, in this direction only, and
    --cgroup scopes it. Whether the default gates fire too depends on how
    much longer the holds get, which varied with the machine's state
    (p99 1.5-2.4x): reported, not asserted."""
    name = unique("rsl-cmp")
    gate = ["--fail-on", "contended.rate>+100%"]
    with tempfile.TemporaryDirectory() as tmp:
        one, two = os.path.join(tmp, "one.json"), os.path.join(tmp, "two.json")
        r1 = cpu_stat_run(name, 1, one)
        r2 = cpu_stat_run(name, 2, two)
        check(r2["contended"] > 100, "two readers never contended: %s" % r2["contended"])
        rc, res, err = compare(one, two, *gate)
        failed = sorted({g["cgroup"] or "total" for g in res["gates"] if g["outcome"] == "fail"})
        check(rc == 1 and "total" in failed and "/" + name in failed,
              "added contention passed: %s %s" % (err, res["gates"]))
        rc_back, res_back, _ = compare(two, one, *gate)
        back = [g for g in res_back["gates"] if g["cgroup"] in (None, "/" + name)]
        check(rc_back in (0, 4) and res_back["failed"] == 0 and
              all(g["outcome"] == "pass" for g in back),
              "less contention did not pass: %s" % res_back["gates"])
        rc_cg, res_cg, err = compare(one, two, "--cgroup", "/" + name, *gate)
        check(rc_cg == 1 and all(g["cgroup"] == "/" + name for g in res_cg["gates"]),
              "--cgroup gates only that cgroup: %s" % res_cg["gates"])
        rc_def, res_def, _ = compare(one, two)
        defaults = sorted({g["gate"] for g in res_def["gates"] if g["outcome"] == "fail"})
    return "contended %.2f%% -> %.2f%%; hold p99 %dns -> %dns; default gates failed: %s" % (
        100.0 * r1["contended"] / r1["locked"], 100.0 * r2["contended"] / r2["locked"],
        r1["hold_ns"]["p99"], r2["hold_ns"]["p99"], ", ".join(defaults) or "none")

export_tests.register(test)
flush_tests.register(test)
command_tests.register(test)
load_tests.register(test)
hostile_tests.register(test)
findings_tests.register(test)
image_tests.register(test)
def main():
    if os.geteuid() != 0:
        return TIER.skip_all("needs root to load BPF and create cgroups")
    mount_tracefs()
    probe = run("--probe")
    if probe.returncode != 0:
        print(probe.stdout.decode(errors="replace") + probe.stderr.decode(errors="replace"))
        return TIER.skip_all("this kernel offers no usable rstat attach point (above)")
    return TIER.run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
