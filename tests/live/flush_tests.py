# SPDX-License-Identifier: GPL-2.0
"""Live tests of what a flush is made of and who asked for it: flush parts,
flush causes, memcg flush decisions (docs/flushes.md).

Real cgroups (unique names, removed afterwards), real stat reads, ftrace's
own events as the ground truth. test_live.py registers these with its tier:

    import flush_tests
    flush_tests.register(test)
"""
import os
import re
import subprocess
import time

from harness import Skip, check
from lib import (BIN, BUSY, INNER_FTRACE, INNER_OURS, MEMHOG, TICKER, TRACEFS, Cgroup,
                 bpf_attachments,
                 Ftrace, Rstatlat, cgroup_mounts, find_cgroup, ftrace_flushes,
                 ftrace_flush_windows, ftrace_run,
                 hammer_cmd, json_lines, last_possible_cpu, nest_gap, pair_holds, reader, run)

MOUNTS = cgroup_mounts()
PARTS = ("held_ns", "wait_ns", "irq_ns", "offcpu_ns", "self_ns", "other_ns")
# rstatlat.h CAUSE_ALWAYS_NS: a flush this long takes a stack
LONG_FLUSH_NS = 1000000


def summary_of(out):
    reports = json_lines(out)
    check(reports and reports[-1]["type"] == "summary", "no summary at exit")
    return reports[-1]


def causes_of(row):
    return {c["cause"]: c for c in row["flush_causes"]}


def flush_parts_add_up(row, what):
    """The checks every row's parts must pass; returns the parts."""
    # (flushes and wall_ns are flush_ns's count and sum by construction, and
    # the reader refuses a file where they are not: compared with ftrace below)
    p = row["flush_parts"]
    total = sum(p[k] for k in PARTS)
    check(abs(total - p["wall_ns"]) <= 0.01 * p["wall_ns"],
          "%s: parts add up to %d ns, wall %d ns" % (what, total, p["wall_ns"]))
    check(p["held_ns"] <= row["hold_ns"]["sum"], "%s: held %d ns above the holds' %d ns" % (
        what, p["held_ns"], row["hold_ns"]["sum"]))
    return p


def register(test):
    @test
    def flush_parts_match_ftrace():
        """Parts add up to the wall time, which is flush_ns.sum; the flushes
        are ftrace's own (same count), and their wall and held sums nest in
        ftrace's exactly, run once each way (lib.ftrace_run, inner): no
        longer with rstatlat's windows inside ftrace's, no shorter with
        ftrace's inside rstatlat's. A vCPU stall between the two probes
        lengthens the outer tool's interval only, so no allowance is due."""
        out = []
        for inner in (INNER_OURS, INNER_FTRACE):
            out.append(flush_parts_nest(inner))
        return "; ".join(out)

    def flush_parts_nest(inner, reads=3000):
        with Cgroup(MOUNTS["v2"]) as cg:
            cg.spawn(TICKER)
            cg.wait_populated(1)
            reports, recs = ftrace_run(lambda: reader(os.path.join(cg.path, "cpu.stat"), reads),
                                       inner=inner)
            row = find_cgroup(reports[-1], cg.id)[0]
        check(reports[-1]["flush_parts"] is True, "flush parts off on this kernel")
        p = flush_parts_add_up(row, cg.name)
        flushes = ftrace_flushes(recs, cg.id, last_possible_cpu())
        check(len(flushes) == p["flushes"] == reads, "flushes: rstatlat %d, ftrace %d, reads %d" %
              (p["flushes"], len(flushes), reads))
        # the holds inside flushes: all but the totals read (lock cpu -1)
        # after each walk
        wall = sum(d for d, _ in flushes)
        held = sum(pair_holds(recs, cg.id, walks_only=True)[0])
        for what, ours, theirs in (("wall", p["wall_ns"], wall), ("held", p["held_ns"], held)):
            check(nest_gap(inner, ours, theirs) >= 0, "%s inside: %s %d ns, ftrace's %d ns: "
                  "does not nest" % (inner, what, ours, theirs))
        return "%s inside: %d flushes, wall %.2f us/flush (ftrace %.2f), held %.2f (ftrace " \
               "%.2f), irq %.2f, offcpu %.2f, other %.2f" % (
                   inner, p["flushes"], p["wall_ns"] / reads / 1e3, wall / reads / 1e3,
                   p["held_ns"] / reads / 1e3, held / reads / 1e3,
                   p["irq_ns"] / reads / 1e3, p["offcpu_ns"] / reads / 1e3,
                   p["other_ns"] / reads / 1e3)

    @test
    def flusher_switched_out_shows_offcpu():
        """A reader sharing its CPU with a busy process is switched out now
        and then between the holds of a flush: offcpu_ns > 0, and the parts
        still add up (offcpu is not also counted as irq or other)."""
        with Cgroup(MOUNTS["v2"]) as cg, Cgroup(MOUNTS["v2"]) as hog:
            cg.spawn(TICKER)
            hog.spawn(BUSY)
            hog.spawn(BUSY)
            cg.wait_populated(1)
            hog.wait_populated(2)
            for p in hog.procs:
                os.sched_setaffinity(p.pid, {0})
            with Rstatlat("-j").start() as tool:
                subprocess.run(["taskset", "-c", "0"] + hammer_cmd(os.path.join(cg.path, "cpu.stat"),
                                                                   seconds=4),
                               check=True, capture_output=True, timeout=60)
                rc, out, err = tool.stop()
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            row = find_cgroup(summary_of(out), cg.id)[0]
        p = flush_parts_add_up(row, cg.name)
        check(p["offcpu_ns"] > 0, "no off-CPU time in %d flushes beside two busy processes" %
              p["flushes"])
        return "%d flushes, offcpu %.2f ms in all (%.2f%% of wall), irq %.2f%%" % (
            p["flushes"], p["offcpu_ns"] / 1e6, 100.0 * p["offcpu_ns"] / p["wall_ns"],
            100.0 * p["irq_ns"] / p["wall_ns"])

    SWITCH = re.compile(r"prev_pid=(\d+) .*prev_state=(\S+)")

    def switched_out(lines):
        """{pid: [ts of each sched_switch away from it]}."""
        out = {}
        for _, _, ts, t in lines:
            m = SWITCH.search(t)
            if m:
                out.setdefault(int(m.group(1)), []).append(ts)
        return out

    @test
    def flushes_offcpu_match_ftrace():
        """flushes_offcpu counts the flushes switched out between their
        holds: beside two busy processes on its CPU, as many as ftrace's
        flushes with a sched_switch away from the flusher inside them
        (cpu.stat's flush does not sleep, so every such switch leaves it
        runnable, waiting), with the kernel's accounting and with timed
        parts. A switch cannot fall between a hold's two probes (irqs are
        off), so the windows need no allowance."""
        out = []
        for parts in ("kernel", "timed"):
            out.append(offcpu_flushes_of(parts))
        return "; ".join(out)

    def offcpu_flushes_of(parts):
        with Cgroup(MOUNTS["v2"]) as cg, Cgroup(MOUNTS["v2"]) as hog:
            cg.spawn(TICKER)
            hog.spawn(BUSY)
            hog.spawn(BUSY)
            cg.wait_populated(1)
            hog.wait_populated(2)
            for p in hog.procs:
                os.sched_setaffinity(p.pid, {0})
            with Ftrace(events=Ftrace.RSTAT + ("sched/sched_switch",), buffer_kb=65536) as ft:
                with Rstatlat("-j", "--flush-parts", parts).start() as tool:
                    subprocess.run(["taskset", "-c", "0"] +
                                   hammer_cmd(os.path.join(cg.path, "cpu.stat"), reads=40000),
                                   check=True, capture_output=True, timeout=60)
                    time.sleep(0.2)
                    rc, out, err = tool.stop()
                lines = ft.stop_lines()
                check(ft.overrun == 0, "ftrace overran its buffer")
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            report = summary_of(out)
            row = find_cgroup(report, cg.id)[0]
        check(report["flush_parts_from"] == parts, "parts from %s" % report["flush_parts_from"])
        switches = switched_out(lines)
        windows = ftrace_flush_windows(Ftrace.rstat_recs(lines), cg.id, last_possible_cpu())
        theirs = sum(1 for pid, start, end, _ in windows
                     if any(start < ts < end for ts in switches.get(pid, ())))
        ours = row.get("flushes_offcpu")
        check(ours is not None, "no flushes_offcpu with %s parts" % parts)
        check(row["flush_ns"]["count"] == len(windows), "flushes: rstatlat %d, ftrace %d" % (
            row["flush_ns"]["count"], len(windows)))
        check(theirs > 0, "%s: no flush of %d was switched out beside two busy processes" % (
            parts, len(windows)))
        check(ours == theirs, "%s: flushes_offcpu %d, ftrace's switched-out flushes %d (of %d)" %
              (parts, ours, theirs, len(windows)))
        return "%s: %d of %d flushes switched out, as ftrace (offcpu %.1f%% of wall)" % (
            parts, ours, len(windows),
            100.0 * row["flush_parts"]["offcpu_ns"] / max(1, row["flush_parts"]["wall_ns"]))

    @test
    def defaults_attach_nothing_outside_the_lock():
        """At the defaults nothing runs on a context switch or an interrupt:
        flush parts come from the kernel (--probe says so, and that irq is
        not measured); --flush-parts timed and --flush attach sched_switch
        and the irq points, and --flush-parts kernel with --flush does not."""
        def attached(*args):
            with Rstatlat("-j", *args).start() as tool:
                got = bpf_attachments(tool.p.pid)
                rc, out, err = tool.stop()
            check(rc == 0, "rstatlat %s exited %d: %s" % (" ".join(args), rc, err))
            return got, summary_of(out)
        outside = {"sched_switch", "irq_handler_entry", "softirq_entry", "local_timer_entry"}
        got, s = attached()
        check(not got & outside, "defaults attach %s" % sorted(got & outside))
        check({"cgroup_rstat_locked", "cgroup_rstat_unlock"} <= got, "lock points: %s" %
              sorted(got))
        check(s["flush_parts"] is True and s["flush_parts_from"] == "kernel" and
              s["flush_parts_unmeasured"] == ["irq"], "summary: %s %s %s" % (
                  s["flush_parts"], s.get("flush_parts_from"), s.get("flush_parts_unmeasured")))
        probe = run("--probe").stdout.decode()
        check(re.search(r"^flush parts: yes, kernel: irq stays in other", probe, re.M) and
              re.search(r"^sched_switch +yes +no +present; not chosen", probe, re.M),
              "--probe: %s" % probe[-600:])
        for args in (("--flush-parts", "timed"), ("--flush", "-d", "0.5")):
            got, s = attached(*args)
            check(outside <= got and s["flush_parts_from"] == "timed" and
                  s["flush_parts_unmeasured"] == [], "%s attach %s, parts from %s" % (
                      " ".join(args), sorted(got & outside), s["flush_parts_from"]))
        got, s = attached("--flush", "--flush-parts", "kernel", "-d", "0.5")
        check(not got & outside, "--flush --flush-parts kernel attach %s" % sorted(got & outside))
        return "defaults: %d programs, none outside the lock; timed: %s" % (
            len(got), ", ".join(sorted(outside)))

    @test
    def self_is_rstatlat_own_time():
        """self is rstatlat's own programs between a flush's holds, so that
        other is the kernel's: with -t 1ns every hold's unlock sends a slow
        event with its kernel stack, microseconds between the holds of each
        flush, and self grows by them while other grows by at most a
        quarter of that. Without self, other would grow by all of it. The
        stacks' unwinding leaves the kernel's own code between the holds
        colder, which is the kernel's time, of rstatlat's making: other grew
        by 5.5-13.5% of self's growth in 20 runs alone here and 15% once
        in a run of the whole tier (the issue asked for 10%: docs/limits.md).
        Timed parts, so that an interrupt is irq, not other; 5 pairs of
        runs back to back, the median of their differences."""
        reads, n = 3000, 5
        with Cgroup(MOUNTS["v2"]) as cg:
            cg.spawn(TICKER)
            cg.wait_populated(1)
            pairs = [(parts_per_flush(cg, reads, ()), parts_per_flush(cg, reads, ("-t", "1ns")))
                     for _ in range(n)]
        # each pair ran back to back: its difference is what -t changed
        d = {k: sorted(b[k] - a[k] for a, b in pairs)[n // 2] for k in pairs[0][0]}
        other = sorted(a["other"] for a, _ in pairs)[n // 2]
        check(d["self"] >= 1000, "self moved %+.0f ns a flush with -t: its stacks not in it" %
              d["self"])
        check(d["other"] <= 0.25 * d["self"] + 20, "other moved %+.0f ns a flush (of %.0f) with "
              "rstatlat's own work (%+.0f ns)" % (d["other"], other, d["self"]))
        return "a flush, medians of %d pairs: self %+.0f ns, other %+.0f ns (of %.0f), wall " \
               "%+.0f ns" % (n, d["self"], d["other"], other, d["wall"])

    def parts_per_flush(cg, reads, extra):
        """One run of `reads` cpu.stat reads of cg, pinned to CPU 0: ns a
        flush of each part (and the wall time)."""
        with open("/tmp/rsl-self-%d.json" % os.getpid(), "w+b") as out:
            p = subprocess.Popen([BIN, "-j", "--flush-parts", "timed", "-c", cg.path] +
                                 list(extra), stdout=out, stderr=subprocess.PIPE)
            try:
                while b"tracing" not in p.stderr.readline():
                    check(p.poll() is None, "rstatlat exited %s" % p.returncode)
                subprocess.run(["taskset", "-c", "0"] +
                               hammer_cmd(os.path.join(cg.path, "cpu.stat"), reads=reads),
                               check=True, capture_output=True, timeout=120)
                time.sleep(0.3)
                p.send_signal(2)
                p.wait(timeout=30)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            out.seek(0)
            lines = [l for l in out.read().decode().splitlines() if '"type":"summary"' in l]
            os.unlink(out.name)
        row = find_cgroup(json_lines(lines[-1].encode())[-1], cg.id)[0]
        p = flush_parts_add_up(row, cg.name)
        n = p["flushes"]
        check(n == reads, "%d flushes for %d reads" % (n, reads))
        return dict({k[:-3]: p[k] / n for k in PARTS}, wall=p["wall_ns"] / n)

    @test
    def causes_name_the_stat_file():
        """Every flush sampled (--cause-sample 1): N cpu.stat reads of a v2
        cgroup are N flushes of cause cpu.stat; the flushes memory.stat reads
        of a v1 memory cgroup make (most find too few updates and make none)
        are of cause memory.stat. The --flush table shows the top cause."""
        if "memory" not in MOUNTS:
            raise Skip("no v1 memory hierarchy here")
        reads = 1000
        with Cgroup(MOUNTS["v2"]) as cg, Cgroup(MOUNTS["memory"]) as mem:
            cg.spawn(TICKER)
            mem.spawn(MEMHOG)
            cg.wait_populated(1)
            mem.wait_populated(1)
            with Rstatlat("-j", "--cause-sample", "1").start() as tool:
                reader(os.path.join(cg.path, "cpu.stat"), reads)
                reader(os.path.join(mem.path, "memory.stat"), 200)
                time.sleep(0.2)
                rc, out, err = tool.stop()
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            s = summary_of(out)
            with Rstatlat("--flush", "--cause-sample", "1", "-c", cg.path, "-n", "0").start() \
                    as table:
                reader(os.path.join(cg.path, "cpu.stat"), 300)
                rc, text, err = table.stop()
            check(rc == 0, "rstatlat --flush exited %d: %s" % (rc, err))
        lines = text.decode(errors="replace").splitlines()
        heads = [l for l in lines if "FLUSH/s" in l]
        check(heads and all(h in heads[-1] for h in ("%HELD", "%OFFCPU", "%OTHER", "CAUSE")),
              "--flush header: %s" % heads[-1:])
        mine = [l for l in lines if l.endswith(cg.path.split("/unified", 1)[-1]) or
                l.endswith("/" + cg.name)]
        check(mine and "cpu.stat 100%" in mine[-1], "--flush row: %s" % mine[-1:])
        check(s["cause_sample"] == 1, "cause_sample %s" % s["cause_sample"])
        row = find_cgroup(s, cg.id)[0]
        causes = causes_of(row)
        check(set(causes) == {"cpu.stat"}, "%s: causes %s" % (cg.name, sorted(causes)))
        c = causes["cpu.stat"]
        check(c["flushes"] == c["samples"] == row["flush_ns"]["count"] == reads,
              "cpu.stat: %d flushes, %d samples, row %d, reads %d" % (
                  c["flushes"], c["samples"], row["flush_ns"]["count"], reads))
        check(c["flush_ns"] == row["flush_ns"]["sum"], "cpu.stat flush_ns %d, row %d" % (
            c["flush_ns"], row["flush_ns"]["sum"]))
        mrow = find_cgroup(s, mem.id)[0]
        mc = causes_of(mrow)
        # most memory.stat reads find too few updates and do not flush at all
        check(set(mc) == {"memory.stat"} and mc["memory.stat"]["samples"] >= 1,
              "%s: causes %s" % (mem.name, {k: v["samples"] for k, v in mc.items()}))
        check(sum(v["flushes"] for v in mc.values()) == mrow["flush_ns"]["count"],
              "memory cgroup: causes add up to %d of %d flushes" % (
                  sum(v["flushes"] for v in mc.values()), mrow["flush_ns"]["count"]))
        check("unknown" not in causes and "unknown" not in mc, "a stack of ours was lost")
        return "cpu.stat %d of %d; memory cgroup %s; --flush shows the cause" % (
            c["samples"], reads, {k: v["samples"] for k, v in mc.items()})

    @test
    def sampled_causes_scale_to_the_flushes():
        """--cause-sample 64, and 48: a flush names its cause with
        probability 1/k exactly (and always when it takes 1 ms or more);
        a power of two is drawn by a mask, any other k by a division. One
        thread reads two cgroups' cpu.stat in turn (every k-th flush of a
        CPU would always be the same cgroup's): each row has about n/k
        samples (within 4 standard deviations, plus the long flushes) and
        its cpu.stat cause is shared out to exactly its n flushes."""
        return "; ".join(causes_sampled_one_in(k) for k in (64, 48))

    def causes_sampled_one_in(k, n=6000):
        rows, s = two_cgroups_read_in_turn(n, "--cause-sample", str(k))
        check(s["cause_sample"] == k and s["cause_budget"] is False, "cause_sample %s, budget %s" %
              (s["cause_sample"], s["cause_budget"]))
        sd = (n / k * (1 - 1 / k)) ** 0.5
        got = []
        for name, row in rows:
            causes = causes_of(row)
            check(set(causes) == {"cpu.stat"}, "%s: causes %s" % (name, sorted(causes)))
            c = causes["cpu.stat"]
            # flushes of 1 ms or more (a stalled vCPU) are always sampled
            buckets = row["flush_ns"]["buckets"]
            long_lo = sum(x["count"] for x in buckets if x["ge"] >= LONG_FLUSH_NS)
            long_hi = sum(x["count"] for x in buckets if x["le"] >= LONG_FLUSH_NS)
            lo = (n - long_hi) / k + long_lo - 4 * sd
            hi = (n - long_lo) / k + long_hi + 4 * sd
            check(lo <= c["samples"] <= hi, "1 in %d, %s: %d samples for %d flushes (%d-%d long), "
                  "expected %.0f to %.0f" % (k, name, c["samples"], n, long_lo, long_hi, lo, hi))
            check(c["flushes"] == row["flush_ns"]["count"] == n, "shared out: %d of %d" % (
                c["flushes"], row["flush_ns"]["count"]))
            got.append(c["samples"])
        return "1 in %d: %d and %d samples of %d flushes each (expected %.0f +- %.0f)" % (
            k, got[0], got[1], n, n / k, 4 * sd)

    @test
    def default_causes_keep_to_their_budget():
        """By default stacks are budgeted (rstatlat.h): each CPU takes about
        one per 16384 holds, at least one and at most 32 a second, so a
        fast reader pays a few ns a hold for causes, whatever its flush
        rate. The same two cgroups read in turn 20 000 times each: the
        samples stay within the budget of the run's seconds and holds (x2
        for a window cut short and the long flushes), and whatever was
        sampled still shares out every flush."""
        n = 20000
        rows, s = two_cgroups_read_in_turn(n)
        check(s["cause_sample"] == 64 and s["cause_budget"] is True, "cause_sample %s, budget %s"
              % (s["cause_sample"], s["cause_budget"]))
        seconds, cpus = s["duration_ns"] / 1e9, s["kernel"]["cpus_online"]
        holds = sum(row["flush_holds"] for _, row in rows)
        per_s = min(max(holds / seconds / cpus / 16384, 1), 32)
        bound = 2 * (seconds + 1) * cpus * per_s
        samples = 0
        for name, row in rows:
            causes = causes_of(row)
            check(set(causes) <= {"cpu.stat", "(not sampled)"}, "%s: causes %s" % (
                name, sorted(causes)))
            check(sum(c["flushes"] for c in causes.values()) == row["flush_ns"]["count"] == n,
                  "%s: causes share out %d flushes of %d" % (
                      name, sum(c["flushes"] for c in causes.values()), n))
            samples += sum(c["samples"] for c in causes.values())
        check(0 < samples <= bound, "%d stacks for %d holds in %.1f s on %d CPUs: budget %.0f" % (
            samples, holds, seconds, cpus, bound))
        return "%d stacks for %d flushes (%d holds) in %.1f s; budget %.0f; 1 in 64 would " \
               "take %.0f" % (samples, 2 * n, holds, seconds, bound, 2 * n / 64)

    def two_cgroups_read_in_turn(n, *args):
        """One thread reads two ticking cgroups' cpu.stat in turn, n times
        each, under rstatlat -j ARGS: [(name, row)] and the summary."""
        with Cgroup(MOUNTS["v2"]) as a, Cgroup(MOUNTS["v2"]) as b:
            a.spawn(TICKER)
            b.spawn(TICKER)
            a.wait_populated(1)
            b.wait_populated(1)
            fa = os.open(os.path.join(a.path, "cpu.stat"), os.O_RDONLY)
            fb = os.open(os.path.join(b.path, "cpu.stat"), os.O_RDONLY)
            with Rstatlat("-j", *args).start() as tool:
                for _ in range(n):
                    os.pread(fa, 4096, 0)
                    os.pread(fb, 4096, 0)
                time.sleep(0.2)
                rc, out, err = tool.stop()
            os.close(fa)
            os.close(fb)
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            s = summary_of(out)
            return [(cg.name, find_cgroup(s, cg.id)[0]) for cg in (a, b)], s

    @test
    def memcg_decisions_match_ftrace():
        """memcg:memcg_flush_stats, event by event: for a test memcg, the
        requests, forced ones and skipped ones rstatlat counts equal ftrace's
        events of that memcg in the same window."""
        if not os.path.isdir(os.path.join(TRACEFS, "events/memcg/memcg_flush_stats")):
            raise Skip("no memcg:memcg_flush_stats tracepoint (Linux 6.13+)")
        mount = MOUNTS.get("memory")
        if not mount:
            with open(os.path.join(MOUNTS["v2"], "cgroup.subtree_control")) as f:
                if "memory" not in f.read().split():
                    raise Skip("no memory controller, v1 or v2")
            mount = MOUNTS["v2"]
        with Cgroup(mount) as mem:
            mem.spawn(MEMHOG)
            mem.wait_populated(1)
            ft = Ftrace(events=("memcg/memcg_flush_stats",))
            with ft:
                with Rstatlat("-j").start() as tool:
                    for _ in range(300):
                        with open(os.path.join(mem.path, "memory.stat")) as f:
                            f.read()
                    rc, out, err = tool.stop()
                lines = ft.stop_lines()
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            summary = summary_of(out)
            row = find_cgroup(summary, mem.id)
        pat = re.compile(r"memcg_id=(\d+) stats_updates=-?\d+ force=(\d) needs_flush=(\d)")
        # skips before the memcg's first flush find no entry: not counted per cgroup
        want = {"asked": 0, "forced": 0, "skipped": 0}
        seen = untracked = 0
        for _, _, _, t in lines:
            m = pat.search(t)
            if not m or int(m.group(1)) != mem.id:
                continue
            seen += 1
            skip = m.group(2) == "0" and m.group(3) == "0"
            if skip and not want["asked"]:
                untracked += 1
                continue
            want["asked"] += 1
            want["forced"] += m.group(2) == "1"
            want["skipped"] += skip
        check(seen >= 300, "ftrace saw %d requests for 300 reads" % seen)
        check(row, "no row for the test memcg")
        got = row[0]["memcg_decisions"]
        check(got == want, "rstatlat %s, ftrace %s (after %d untracked skips)" % (
            got, want, untracked))
        check(summary["lost"]["memcg_skips_untracked"] >= untracked,
              "untracked skips: %d counted, ftrace %d of the test memcg alone" % (
                  summary["lost"]["memcg_skips_untracked"], untracked))
        return "%s, %d skips before its first flush" % (got, untracked)
