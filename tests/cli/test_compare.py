#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""CLI tier: `rstatlat compare` as a user runs it, on recorded JSON from
tests/data and on files derived from it with a known change. Needs no
root: compare only reads files.

Prints one line per test and a tally 'cli: N passed, N failed, N skipped'.
"""
import copy
import difflib
import math
import shutil
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Skip, Tier, check  # noqa: E402
BIN = os.environ.get("RSTATLAT", os.path.join(ROOT, "rstatlat"))
DATA = os.path.join(ROOT, "tests", "data")
RUN_A = os.path.join(DATA, "compare-6.18-cpustat-a.json")
RUN_B = os.path.join(DATA, "compare-6.18-cpustat-b.json")
INTERVALS = os.path.join(DATA, "intervals-6.18.json")
TIER = Tier("cli")
test = TIER.test
TMP = tempfile.mkdtemp(prefix="rsl-cli-")


def compare(*args, stdin=None):
    r = subprocess.run([BIN, "compare"] + list(args), capture_output=True, timeout=60,
                       input=stdin)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def objects(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def write(name, objs=None, text=None):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text if text is not None else "".join(json.dumps(o) + "\n" for o in objs))
    return path


def scaled(dist, factor):
    """The same values times factor (a power of two keeps the bucket layout)."""
    d = copy.deepcopy(dist)
    for k in ("sum", "max", "p50", "p90", "p99"):
        d[k] *= factor
    for b in d["buckets"]:
        b["ge"] *= factor
        b["le"] = (b["le"] + 1) * factor - 1
    return d


@test
def identical_files_are_unchanged():
    rc, out, err = compare("-f", "json", RUN_A, RUN_A)
    check(rc == 0, "exit %d: %s" % (rc, err))
    res = json.loads(out)
    verdicts = {m["verdict"] for row in [res["total"]] + res["cgroups"]
                for m in row["metrics"].values()}
    check(verdicts <= {"same", "n/a", "too_few"}, "verdicts %s" % verdicts)
    check(all(m["ratio"] in (1, None) for m in res["total"]["metrics"].values()), "ratios")
    check(res["result"] == "pass" and res["failed"] == 0, "result")
    return "%d rows, verdicts %s" % (len(res["cgroups"]) + 1, sorted(verdicts))


@test
def two_recorded_runs_fail_no_default_gate():
    """Two runs of one workload: no gate fails. RUN_B also saw the cgroup of
    RUN_A's workload, flushed twice: its p99 "moved" 22x on 2 values, which
    the data cannot confirm. Fail closed: inconclusive, exit 4, that check
    named; --allow-inconclusive exits 0; scoped to the workload, a pass."""
    rc, out, err = compare("-f", "json", RUN_A, RUN_B)
    res = json.loads(out)
    odd = sorted({(g["gate"], g["cgroup"]) for g in res["gates"]
                  if g["outcome"] == "inconclusive"})
    check(rc == 4 and res["failed"] == 0 and res["result"] == "inconclusive",
          "exit %d, %s" % (rc, res["gates"]))
    leftover = [c for c in res["cgroups"] if c["presence"] == "both" and
                c["metrics"]["locked"]["after"] == 2]
    check(leftover and all(cg == leftover[0]["cgroup"]["path"] for _, cg in odd) and odd,
          "inconclusive checks %s, leftover %s" % (odd, leftover[:1]))
    rc, out, err = compare(RUN_A, RUN_B)
    check(rc == 4 and "INCONCLUSIVE hold.p99>+50%" in out and "result: inconclusive" in out,
          "text:\n%s" % out)
    for want in ("6.18.44", "2 online, 2 possible", "summary", "hold.p99"):
        check(want in out, "text lacks %r" % want)
    rc, _, _ = compare("--allow-inconclusive", RUN_A, RUN_B)
    check(rc == 0, "--allow-inconclusive: exit %d" % rc)
    return "no gate failed; %d inconclusive, all on the 2-value leftover row" % len(odd)


GATE_ONE = [os.path.join(DATA, "gate-6.18-one-%s.json" % x) for x in "ab"]
GATE_TWO = os.path.join(DATA, "gate-6.18-two.json")


@test
def recorded_command_runs_gate_the_command():
    """Three real runs of `rstatlat -j -o FILE -- COMMAND` (README's CI
    gate): one reader twice, then two readers. Each names another
    rstatlat-PID cgroup; compare pairs them as (command) and gates only
    them by default, beside background cgroups of the host that only one
    side saw; added contention fails there, in that direction only;
    --cgroup gates another instead."""
    gate = ["--fail-on", "hold.p99>+50%", "--fail-on", "contended.rate>5%"]
    rc, out, err = compare("-f", "json", *GATE_ONE)
    res = json.loads(out)
    check(rc == 0 and res["result"] == "pass", "one vs one: exit %d %s" % (rc, err))
    check(res["gated"] == ["(command)", "memory:(command)"], "gated %r" % res["gated"])
    check(res["gates"] and all(g["cgroup"] == "(command)" for g in res["gates"]),
          "gates %s" % res["gates"])
    paths = {c["cgroup"]["path"] for c in res["cgroups"]}
    check("(command)" in paths and not any("rstatlat-" in p for p in paths), "rows %s" % paths)
    for side in ("before", "after"):
        cmd = res[side]["command"]
        check(cmd["argv"][:2] == ["sh", "-c"] and cmd["status"] == 0, "%s command %r" % (side, cmd))
    rc, out, err = compare("-f", "json", *gate, GATE_ONE[0], GATE_TWO)
    res = json.loads(out)
    failed = sorted({(g["gate"], g["cgroup"]) for g in res["gates"] if g["outcome"] == "fail"})
    check(rc == 1 and ("contended.rate>5%", "(command)") in failed, "one vs two: exit %d %s" % (
        rc, res["gates"]))
    rc, out, err = compare(*gate, GATE_TWO, GATE_ONE[0])
    check(rc == 0, "two vs one: exit %d\n%s" % (rc, out))
    check("gated: (command), memory:(command)" in out and "\ncommand " in out, "text:\n%s" % out)
    rc, out, err = compare("-f", "json", "--cgroup", "memory:/", *GATE_ONE)
    res = json.loads(out)
    check(res["gated"] == ["memory:/"] and res["gates"] and
          all(g["cgroup"] == "memory:/" for g in res["gates"]),
          "--cgroup: gated %r, gates %s" % (res["gated"], res["gates"]))
    return "one vs one passes on (command) only; one vs two fails %s; two vs one passes" % (
        ", ".join("%s on %s" % f for f in failed))


@test
def failed_gate_is_explained_by_its_finding():
    """A gate that fails is followed by one "why:" line, the finding
    behind it in the AFTER run (rstatlat(8), FINDINGS): added contention
    by readers_fight, naming the share that waited and where; a gate with
    no finding behind it (hold.p99) gets none, nor does a passing one."""
    gate = ["--fail-on", "contended.rate>5%", "--fail-on", "hold.p99>+50%"]
    rc, out, err = compare(*gate, GATE_ONE[0], GATE_TWO)
    lines = out.splitlines()
    fail = [i for i, l in enumerate(lines) if l.startswith("FAIL contended.rate>5%")]
    check(rc == 1 and len(fail) == 1, "exit %d:\n%s" % (rc, out))
    why = lines[fail[0] + 1]
    more = lines[fail[0] + 2:]
    why = " ".join([why.strip()] + [l.strip() for l in more[:next(
        (i for i, l in enumerate(more) if not l.startswith("       ")), len(more))]])
    check(why.startswith("why: 26.8% of 4611276 acquisitions waited") and
          "most at (command)" in why, "why %r" % why)
    wide = [l for l in lines[fail[0]:] if l.startswith(" ") and len(l) > 80]
    check(not wide, "why lines over 80 columns: %s" % wide)
    hold = [i for i, l in enumerate(lines) if l.startswith("FAIL hold.p99")]
    check(len(hold) == 1 and not lines[hold[0] + 1].startswith("  why:"),
          "hold.p99 explained:\n%s" % out)
    rc, out, err = compare(*gate, GATE_TWO, GATE_ONE[0])
    check(rc == 0 and "why:" not in out, "a passing pair explained:\n%s" % out)
    rc, out, err = compare("-f", "json", *gate, GATE_ONE[0], GATE_TWO)
    by = {g["gate"]: g.get("finding") for g in json.loads(out)["gates"]}
    check(by["contended.rate>5%"]["id"] == "readers_fight" and
          by["contended.rate>5%"]["text"].startswith("26.8% of 4611276") and
          by["hold.p99>+50%"] is None, "JSON gates' findings: %s" % by)
    for view, want in (("mail", "\n    why: 26.8% of 4611276"),
                       ("html", '<span class="why">why: 26.8% of 4611276')):
        rc, out, err = compare("-f", view, *gate, GATE_ONE[0], GATE_TWO)
        check(rc == 1 and out.count(want) == 1, "-f %s: no why:\n%s" % (view, out[-1500:]))
        if view == "mail":
            check(max(len(l) for l in out.splitlines()) <= 80, "-f mail past 80 columns")
    return why.strip()


@test
def known_shift_fires_exactly_the_gates_it_should():
    before = objects(RUN_A)
    after = copy.deepcopy(before)
    for row in after[-1]["cgroups"]:
        row["hold_ns"] = scaled(row["hold_ns"], 2)  # holds doubled, waits alone
    shifted = write("hold-x2.json", after)
    rc, out, err = compare("-f", "json", "--fail-on", "hold.p99>+50%",
                           "--fail-on", "hold.p99>+150%", "--fail-on", "wait.p99>+10%",
                           RUN_A, shifted)
    check(rc == 1, "exit %d: %s" % (rc, err))
    res = json.loads(out)
    total = {g["gate"]: g["outcome"] for g in res["gates"] if g["cgroup"] is None}
    check(total == {"hold.p99>+50%": "fail", "hold.p99>+150%": "pass",
                    "wait.p99>+10%": "pass"}, "total gates %s" % total)
    m = res["total"]["metrics"]["hold.p99"]
    check(m["verdict"] == "higher" and abs(m["ratio"] - 2) < 0.01, "hold.p99 %s" % m)
    rc, out, _ = compare("--fail-on", "hold.p99>+50%", RUN_A, shifted)
    check(rc == 1 and "FAIL hold.p99>+50% on total" in out, "text names the gate:\n%s" % out)
    rc, out, _ = compare("-f", "md", "--fail-on", "hold.p99>+50%", RUN_A, shifted)
    check(rc == 1 and "| hold.p99 |" in out and "FAIL" in out, "markdown:\n%s" % out)
    rc, _, _ = compare("--fail-on", "hold.p99<-40%", shifted, RUN_A)
    check(rc == 1, "halved holds fire a < gate")
    rc, _, _ = compare("--fail-on", "hold.p99>+50%", shifted, RUN_A)
    check(rc == 0, "an improvement fails no > gate")
    return "x2 holds: >+50% fails, >+150% and wait gates pass"


@test
def absolute_gates_and_cgroup_scope():
    after = objects(RUN_A)
    rows = after[-1]["cgroups"]
    big = max(rows, key=lambda r: r["locked"])
    big["hold_ns"] = scaled(big["hold_ns"], 64)  # its max goes past 5 ms
    path = write("hold-x64.json", after)
    check(big["hold_ns"]["max"] > 5000000, "setup: max %d" % big["hold_ns"]["max"])
    rc, out, err = compare("-f", "json", "--fail-on", "irqoff.max>5ms", RUN_A, path)
    check(rc == 1, "exit %d %s" % (rc, err))
    res = json.loads(out)
    fails = {(g["gate"], g["cgroup"]) for g in res["gates"] if g["outcome"] == "fail"}
    check(("irqoff.max>5ms", None) in fails and ("irqoff.max>5ms", big["path"]) in fails,
          "fails %s" % fails)
    other = [r["path"] for r in rows if r["path"] != big["path"]][0]
    rc, out, err = compare("-f", "json", "--cgroup", other, "--fail-on", "irqoff.max>5ms",
                           RUN_A, path)
    res = json.loads(out)
    check(rc == 0 and {g["cgroup"] for g in res["gates"]} == {other},
          "--cgroup %s: rc %d gates %s" % (other, rc, res["gates"]))
    rc, out, err = compare("--fail-on", "irqoff.max>1s", RUN_A, path)
    check(rc == 0, "1 s limit not reached")
    return "irqoff.max>5ms fires on total and %s only" % big["path"]


@test
def intervals_are_merged():
    objs = [o for o in objects(INTERVALS) if o["type"] == "interval"]
    path = write("intervals-only.json", objs)
    rc, out, err = compare("-f", "json", path, path)
    check(rc == 0, "exit %d %s" % (rc, err))
    res = json.loads(out)
    total = sum(c["locked"] for o in objs for c in o["cgroups"])
    check(res["before"]["intervals"] == len(objs) and res["before"]["summaries"] == 0,
          "counted %s" % res["before"])
    check(res["total"]["metrics"]["locked"]["before"] == total, "locked %s vs %d" % (
        res["total"]["metrics"]["locked"]["before"], total))
    rc, out, _ = compare(INTERVALS, "-", stdin=open(INTERVALS, "rb").read())
    check(rc == 0, "stdin as AFTER")
    return "%d intervals, %d events" % (len(objs), total)


SEED_STOCK = os.path.join(DATA, "seed-6.12-stock-64cpus.json")
SEED_REVERTED = os.path.join(DATA, "seed-6.12-reverted-64cpus.json")


def thinned(dist, n):
    """n values drawn evenly from dist's distribution (its quantiles at
    (i + 0.5) / n): the same shape, as few values as a short run has."""
    d = copy.deepcopy(dist)
    cum, picks, i = 0, {}, 0
    for b in d["buckets"]:
        cum += b["count"]
        while i < n and (i + 0.5) / n * d["count"] <= cum:
            picks[b["ge"]] = picks.get(b["ge"], 0) + 1
            i += 1
    d["buckets"] = [dict(b, count=picks[b["ge"]]) for b in d["buckets"] if b["ge"] in picks]
    top = d["buckets"][-1]
    d["count"], d["max"] = n, min(d["max"], top["le"])
    d["sum"] = sum((b["ge"] + b["le"]) // 2 * b["count"] for b in d["buckets"])
    return d


def seed_with(path, holds):
    """The recording with its /rsl-demo row cut down to `holds` holds."""
    objs = objects(path)
    rows = [r for r in objs[-1]["cgroups"] if r["path"] == "/rsl-demo"]
    objs[-1]["cgroups"] = rows
    for key in ("hold_ns", "irqoff_ns"):
        rows[0][key] = thinned(rows[0][key], holds)
    rows[0]["locked"] = holds
    return write("seed-%d-%s" % (holds, os.path.basename(path)), objs)


@test
def seed_0efc297a_fails_the_gate_one_way():
    """The seed experiment, recorded by tests/vm/seed: 6.12 as released and
    with 0efc297a reverted, 64 and 255 possible CPUs, the same busy tree read for
    10 s. Reverted, a flush is one hold walking every CPU with irqs off:
    holds per flush 65 -> 1, hold p50 tens of times longer. A one-sided
    gate fails stock -> reverted and passes the other way; and so it does
    with the holds cut to the brief's 1820 and 56, where a two-sided
    interval said "too few"."""
    for cpus in (64, 255):
        pair = [os.path.join(DATA, "seed-6.12-%s-%dcpus.json" % (k, cpus))
                for k in ("stock", "reverted")]
        rows = [[c for c in objects(f)[-1]["cgroups"] if c["path"] == "/rsl-demo"][0]
                for f in pair]
        per_flush = [r["flush_holds"] / r["flush_ns"]["count"] for r in rows]
        check(round(per_flush[0]) == cpus + 1 and per_flush[1] < 1.1,
              "%d CPUs: holds per flush %s" % (cpus, per_flush))
        rc_up = compare("--cgroup", "/rsl-demo", "--fail-on", "hold.p99>+100%", *pair)[0]
        rc_down = compare("--cgroup", "/rsl-demo", "--fail-on", "hold.p99>+100%",
                          *pair[::-1])[0]
        check(rc_up == 1 and rc_down == 0, "%d CPUs: exits %d / %d" % (cpus, rc_up, rc_down))
    stock, reverted = objects(SEED_STOCK)[-1], objects(SEED_REVERTED)[-1]
    row = {n: [c for c in d["cgroups"] if c["path"] == "/rsl-demo"][0]
           for n, d in (("stock", stock), ("reverted", reverted))}
    hpf = {n: r["flush_holds"] / r["flush_ns"]["count"] for n, r in row.items()}
    check(stock["kernel"]["cpus_possible"] == 64 and round(hpf["stock"]) == 65 and
          hpf["reverted"] == 1, "holds per flush %s" % hpf)
    p50 = row["reverted"]["hold_ns"]["p50"] / row["stock"]["hold_ns"]["p50"]
    check(p50 >= 10, "hold p50 only %.1fx" % p50)
    gates = ("--fail-on", "hold.p99>+100%", "--fail-on", "irqoff.p90>+100%")
    shown = []
    for before, after, label in ((SEED_STOCK, SEED_REVERTED, "recorded"),
                                 (seed_with(SEED_STOCK, 1820), seed_with(SEED_REVERTED, 56),
                                  "1820 vs 56 holds")):
        rc, out, err = compare("-f", "json", *gates, before, after)
        res = json.loads(out)
        total = {g["gate"]: g["outcome"] for g in res["gates"] if g["cgroup"] is None}
        check(rc == 1 and total == {"hold.p99>+100%": "fail", "irqoff.p90>+100%": "fail"},
              "%s: stock -> reverted: exit %d, %s" % (label, rc, total))
        rc, out, err = compare("-f", "json", *gates, after, before)
        res = json.loads(out)
        check(rc == 0 and res["result"] == "pass", "%s: reverted -> stock: exit %d %s" % (
            label, rc, res["gates"]))
        shown.append(label)
    rc, out, _ = compare(*gates, SEED_STOCK, SEED_REVERTED)
    check("1/44x" in out and "0.00x" not in out, "ratios below 0.1 read as 1/N:\n%s" % out)
    # the per-CPU lock (6.12 has its tracepoints) is a row of its own, gated too
    rc, out, _ = compare("-f", "json", SEED_STOCK, SEED_REVERTED)
    res = json.loads(out)
    lock = res["cpu_lock"]
    check(lock and lock["metrics"]["locked"]["before"] == stock["cpu_lock"]["locked"] and
          lock["metrics"]["locked"]["after"] == reverted["cpu_lock"]["locked"] and
          lock["metrics"]["hold.p99"]["before"] == stock["cpu_lock"]["hold_ns"]["p99"],
          "per-CPU lock row %s vs %s" % (lock, stock["cpu_lock"]))
    check({g["gate"] for g in res["gates"] if g["cgroup"] == "(per-CPU lock)"} ==
          {"hold.p99>+50%", "irqoff.p99>+50%"}, "gates on the per-CPU lock")
    rc, out, _ = compare("-f", "json", RUN_A, RUN_B)
    check(json.loads(out)["cpu_lock"] is None, "6.18 has no per-CPU lock")
    # what 0efc297a added: lock trips, 1 -> 65 holds per flush
    rc, out, _ = compare("-f", "json", "--cgroup", "/rsl-demo", "--fail-on", "flush.holds>+50%",
                         SEED_REVERTED, SEED_STOCK)
    res = json.loads(out)
    check(rc == 1 and res["gates"][0]["outcome"] == "fail", "flush.holds>+50%%: %s" % res["gates"])
    rc, out, _ = compare("-f", "json", "--cgroup", "/rsl-demo", "--fail-on", "flush.holds>10",
                         "--fail-on", "flush.holds<-50%", SEED_STOCK, SEED_REVERTED)
    res = json.loads(out)
    check(rc == 1 and [g["outcome"] for g in res["gates"]] == ["pass", "fail"],
          "absolute and down: %s" % res["gates"])
    return "holds/flush %.0f -> %.0f, hold p50 x%.0f; the gate fails one way only (%s)" % (
        hpf["stock"], hpf["reverted"], p50, ", ".join(shown))


RUNS = [os.path.join(DATA, "runs-6.18-cpustat-%d.json" % i) for i in range(6)]


def sides(before, after):
    return [a for f in before for a in ("--before", f)] + \
        [a for f in after for a in ("--after", f)]


def workload(path):
    return [r["path"] for r in objects(path)[-1]["cgroups"] if r["path"].startswith("/rsl-")][0]


@test
def replicated_runs_tell_state_from_change():
    """Six runs of one workload (bench/compare_noise.py's, 2 s each). One
    run against one, hold.p99>+20% fails some pairs: state that lasts a
    run passes for a change, and the header says one run a side cannot see
    it (text and JSON notes; none with 3 a side). Three against three, tested between runs,
    the tighter default gates (+20%) pass, while holds doubled in the
    AFTER runs fail them; the reverse passes."""
    cg = workload(RUNS[0])
    single = [compare("--cgroup", cg, "--fail-on", "hold.p99>+20%", a, b)[0]
              for a in RUNS for b in RUNS if a != b]
    rc, out, err = compare("-f", "json", "--cgroup", cg, *sides(RUNS[:3], RUNS[3:]))
    res = json.loads(out)
    check(rc == 0 and res["before"]["runs"] == 3 and res["after"]["runs"] == 3,
          "3 v 3 of one workload: exit %d %s" % (rc, err or res["gates"]))
    check({g["gate"] for g in res["gates"]} == {"hold.p99>+20%", "irqoff.p99>+20%"},
          "replicated defaults: %s" % res["gates"])
    check(res["notes"] == [], "notes with 3 runs a side: %s" % res["notes"])
    rc, out, _ = compare("--cgroup", cg, *sides(RUNS[:3], RUNS[3:]))
    check("3 runs" in out and "between runs" in out and "note: one run" not in out,
          "text header:\n%s" % out[:600])
    # one run a side: said, in the text and the JSON
    rc, out, _ = compare("--cgroup", cg, RUNS[0], RUNS[1])
    check("\nnote: one run a side: run-to-run spread unseen" in out, "text header:\n%s" %
          out[:600])
    rc, out, _ = compare("-f", "json", "--cgroup", cg, RUNS[0], RUNS[1])
    check(len(json.loads(out)["notes"]) == 1, "notes: %s" % json.loads(out)["notes"])
    doubled = []
    for i, path in enumerate(RUNS[3:]):
        objs = objects(path)
        for row in objs[-1]["cgroups"]:
            for key in ("hold_ns", "irqoff_ns"):
                if row.get(key):
                    row[key] = scaled(row[key], 2)
        doubled.append(write("doubled-%d.json" % i, objs))
    rc, out, _ = compare("-f", "json", "--cgroup", cg, *sides(RUNS[:3], doubled))
    res = json.loads(out)
    check(rc == 1 and {g["gate"] for g in res["gates"] if g["outcome"] == "fail"} ==
          {"hold.p99>+20%", "irqoff.p99>+20%"}, "doubled: exit %d %s" % (rc, res["gates"]))
    rc, _, _ = compare("--cgroup", cg, *sides(doubled, RUNS[:3]))
    check(rc == 0, "halved: exit %d" % rc)
    return "1 v 1: %d of %d pairs fail hold.p99>+20%%; 3 v 3: pass, doubled holds fail" % (
        single.count(1), len(single))


@test
def histograms_side_by_side():
    """compare -H: per row, hold, flush and irqs-off folded to powers of two,
    BEFORE and AFTER side by side; each side's counts add up to its row's,
    each bar is the octave's share of its side, the largest 16 wide; every
    line within 80 columns."""
    rc, out, err = compare("-H", "--cgroup", "/rsl-demo", SEED_STOCK, SEED_REVERTED)
    check(rc == 1, "exit %d %s" % (rc, err))
    row = {n: [c for c in objects(f)[-1]["cgroups"] if c["path"] == "/rsl-demo"][0]
           for n, f in (("b", SEED_STOCK), ("a", SEED_REVERTED))}
    block = out[out.index("\n/rsl-demo\n"):]
    lines = block.splitlines()
    seen = 0
    check(max(len(l) for l in lines) <= 80, "lines of %d columns" % max(len(l) for l in lines))
    for label, key in (("hold histogram", "hold_ns"), ("flush histogram", "flush_ns"),
                       ("irqs-off histogram", "irqoff_ns")):
        start = [i for i, l in enumerate(lines) if l.strip().startswith(label)][0]
        rows = []
        for l in lines[start + 1:]:
            parts = l.split("|")
            if len(parts) != 5:
                break
            rows.append((int(parts[0].split()[-1]), parts[1], int(parts[2]), parts[3]))
        total_b, total_a = sum(r[0] for r in rows), sum(r[2] for r in rows)
        check(total_b == row["b"][key]["count"] and total_a == row["a"][key]["count"],
              "%s: %d/%d values vs %d/%d" % (label, total_b, total_a, row["b"][key]["count"],
                                            row["a"][key]["count"]))
        shares = [n / total for r in rows for n, total in ((r[0], total_b), (r[2], total_a))]
        bars = [bar.count("*") for r in rows for bar in (r[1], r[3])]
        check(max(bars) == 16 and all(abs(n - 16 * sh / max(shares)) <= 0.51
                                      for n, sh in zip(bars, shares)),
              "%s: bars %s for shares %s" % (label, bars, shares))
        seen += len(rows)
    rc, out, _ = compare("-H", "-f", "md", SEED_STOCK, SEED_REVERTED)
    check("BEFORE" in out and "|****" not in out, "no text histograms in Markdown")
    return "%d octave rows over hold, flush and irqs-off add up on both sides" % seen


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Measures every bar as Chromium laid it out, into the DOM that --dump-dom prints.
MEASURE = """<script>
const out = [];
for (const r of document.querySelectorAll('rect')) {
  const svg = r.closest('svg'), sec = r.closest('section');
  out.push({row: sec.dataset.row, metric: svg.dataset.metric, side: r.dataset.side,
            octave: +r.dataset.octave, count: +r.dataset.count, share: +r.dataset.share,
            height: r.getBoundingClientRect().height});
}
const pre = document.createElement('pre');
pre.id = 'rsl-check';
pre.textContent = JSON.stringify({bars: out, scripts: document.scripts.length,
                                  sections: document.querySelectorAll('section').length});
document.body.appendChild(pre);
</script>"""


def octaves(dist):
    out = {}
    for b in dist["buckets"]:
        o = b["ge"].bit_length() - 1 if b["ge"] else 0
        out[o] = out.get(o, 0) + b["count"]
    return out


def rendered(html):
    page = write("page.html", text=html.replace("</body>", MEASURE + "</body>"))
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--dump-dom", "file://" + page], capture_output=True, timeout=120)
    dom = r.stdout.decode(errors="replace")
    start = dom.find('<pre id="rsl-check">')
    check(r.returncode == 0 and start >= 0, "chromium: exit %d, no measurements: %s" % (
        r.returncode, r.stderr.decode(errors="replace")[-300:]))
    body = dom[start + len('<pre id="rsl-check">'):dom.index("</pre>", start)]
    return json.loads(body.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&amp;", "&")), dom


@test
def html_view_renders_in_chromium():
    """compare -f html, rendered by Debian's Chromium (headless): each bar's
    count is its octave's in the JSON, each bar's laid-out height its share
    of its side (the tallest 60 px), and a hostile cgroup name stays text."""
    if not CHROMIUM:
        raise Skip("chromium is not installed (Debian's chromium; make deps installs it)")
    rc, html, err = compare("-f", "html", SEED_STOCK, SEED_REVERTED)
    check(rc == 1 and html.startswith("<!doctype html>"), "exit %d %s" % (rc, err))
    got, _ = rendered(html)
    rows = {}
    for side, f in (("before", SEED_STOCK), ("after", SEED_REVERTED)):
        summary = objects(f)[-1]
        rows[side] = {c["path"]: c for c in summary["cgroups"]}
        rows[side]["(per-CPU lock)"] = {"hold_ns": summary["cpu_lock"]["hold_ns"],
                                        "flush_ns": {"buckets": []},
                                        "irqoff_ns": {"buckets": []}}
    keys = {"hold": "hold_ns", "flush": "flush_ns", "irqs-off": "irqoff_ns"}
    checked = 0
    for bar in got["bars"]:
        if bar["row"] == "total":
            continue
        want = octaves(rows[bar["side"]][bar["row"]][keys[bar["metric"]]]).get(bar["octave"], 0)
        check(bar["count"] == want, "%s: %d values, the JSON says %d" % (bar, bar["count"], want))
        checked += 1
    for row in {b["row"] for b in got["bars"]}:
        for metric in keys:
            mine = [b for b in got["bars"] if b["row"] == row and b["metric"] == metric]
            peak = max((b["share"] for b in mine), default=0)
            for b in mine:
                check(abs(b["height"] - 60 * b["share"] / peak) < 0.6, "height %s" % b)
            check(not mine or max(b["height"] for b in mine) > 59, "%s %s: no full bar" % (
                row, metric))
    # the total, the per-CPU lock, / and /rsl-demo
    check(got["sections"] == 4 and got["scripts"] == 1, "sections/scripts %s" % got)
    hostile = objects(SEED_REVERTED)
    hostile[-1]["cgroups"][0]["path"] = "/<script>alert(1)</script>&\"'"
    path = write("hostile.json", hostile)
    rc, html, err = compare("-f", "html", SEED_REVERTED, path)
    check("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;" in html, "not escaped")
    got, _ = rendered(html)
    check(got["scripts"] == 1, "the cgroup name became a script: %d" % got["scripts"])
    return "%d bars match their buckets and shares, as laid out by %s" % (
        checked, os.path.basename(CHROMIUM))


@test
def system_wide_irqs_off_compare_on_the_total():
    """Irqs-off outside rstat (trace: the seed's 6.12) and tick lateness
    (sample: the 6.18 runs) are the total's metrics irqoff_outside.* and
    tick_late.*, read from irqoff.other_ns and late_ns, gated there; no
    cgroup row has them."""
    rc, out, err = compare("-f", "json", "--fail-on", "irqoff_outside.max>1ms", SEED_STOCK,
                           SEED_REVERTED)
    res = json.loads(out)
    m = res["total"]["metrics"]
    want = (objects(SEED_STOCK)[-1]["irqoff"]["other_ns"], objects(SEED_REVERTED)[-1]["irqoff"]["other_ns"])
    check(m["irqoff_outside.max"]["before"] == want[0]["max"] and
          m["irqoff_outside.max"]["after"] == want[1]["max"] and
          m["irqoff_outside.p99"]["before"] == want[0]["p99"], "outside: %s vs %s" % (
              m["irqoff_outside.max"], (want[0]["max"], want[1]["max"])))
    check(m["tick_late.p99"]["before"] is None, "the seed did not sample ticks")
    total = [g for g in res["gates"] if g["cgroup"] is None][0]
    check(total["outcome"] == ("fail" if want[1]["max"] > 1000000 else "pass"), "gate %s" % total)
    check(all(c["metrics"]["irqoff_outside.max"]["before"] is None for c in res["cgroups"]),
          "a cgroup row with system-wide figures")
    late = [objects(f)[-1]["irqoff"]["late_ns"] for f in RUNS[:2]]
    rc, out, err = compare("-f", "json", "--fail-on", "tick_late.p99>+1000%", RUNS[0], RUNS[1])
    res = json.loads(out)
    check(res["total"]["metrics"]["tick_late.p99"]["before"] == late[0]["p99"] and
          res["total"]["metrics"]["tick_late.p99"]["after"] == late[1]["p99"], "late %s" %
          res["total"]["metrics"]["tick_late.p99"])
    rc, out, _ = compare(RUNS[0], RUNS[1])
    check("tick_late.p99" in out and "irqoff_outside" not in out, "text shows what was measured")
    # system-wide gates run on the total whatever --cgroup says; unmeasured: inconclusive
    rc, out, _ = compare("-f", "json", "--cgroup", "/rsl-demo", "--fail-on",
                         "irqoff_outside.max>1ms", SEED_STOCK, SEED_REVERTED)
    gates = json.loads(out)["gates"]
    check(rc == 1 and [(g["cgroup"], g["outcome"]) for g in gates] == [(None, "fail")],
          "scoped: %s" % gates)
    rc, out, _ = compare("-f", "json", "--fail-on", "irqoff_outside.max>1ms", RUNS[0], RUNS[1])
    gates = json.loads(out)["gates"]
    check(rc == 4 and [g["outcome"] for g in gates] == ["inconclusive"], "unmeasured: %d %s" % (
        rc, gates))
    return "outside max %d -> %d ns; tick lateness p99 %d -> %d ns" % (
        want[0]["max"], want[1]["max"], late[0]["p99"], late[1]["p99"])


FLUSHERS = [os.path.join(DATA, "flushers-6.18-%s.json" % s) for s in "ab"]


@test
def flushers_pair_by_comm():
    """Two -p runs (tests/data/flushers-6.18-*.json: a reader thread and a
    shell loop of cat on one cgroup): the flushers pair by cgroup and comm,
    whatever their pids; each side's figures are its file's rows of that
    comm summed (exited cats folded in); they are shown, never gated."""
    rc, out, err = compare("-f", "json", *FLUSHERS)
    check(rc in (0, 4) and not err, "exit %d %s" % (rc, err))
    res = json.loads(out)
    procs = res["processes"]
    check(procs and all(p["presence"] == "both" for p in procs if p["comm"] in ("reader", "cat")),
          "flushers %s" % [(p["comm"], p["presence"]) for p in procs])
    for p in procs:
        for side, f in (("before", FLUSHERS[0]), ("after", FLUSHERS[1])):
            mine = [r for r in objects(f)[-1]["processes"] if r["comm"] == p["comm"] and
                    r["cgroup"]["path"] == p["cgroup"]["path"]]
            want = sum(r["locked"] for r in mine) if mine else None
            check(p["metrics"]["locked"][side] == want, "%s %s on %s: %s vs %s" % (
                side, p["comm"], p["cgroup"]["path"], p["metrics"]["locked"][side], want))
    check(not [g for g in res["gates"] if g["cgroup"] and " on " in g["cgroup"]],
          "a flusher was gated")
    rc, out, _ = compare(*FLUSHERS)
    check("flushers (-p), paired by cgroup and comm" in out and "cat on /" in out, "text")
    rc, out, err = compare("-f", "json", *sides(FLUSHERS, FLUSHERS))
    res = json.loads(out)
    check(rc in (0, 4) and res["processes"], "replicated -p: %d %s" % (rc, err))
    return "%d flushers paired: %s" % (len(procs), ", ".join(sorted({p["comm"] for p in procs})))


def with_lock_rows(path):
    """path's summary as a kernel that tells the locks apart would write it:
    each cgroup row twice, under the base lock and under memory's."""
    o = copy.deepcopy(objects(path)[-1])
    o["locks"], o["lock_rows"] = "per-subsystem", True
    rows = []
    for r in o["cgroups"]:
        for lock in ("base", "memory"):
            rows.append(dict(copy.deepcopy(r), lock=lock))
    o["cgroups"] = rows
    return o


@test
def lock_rows_pair_by_cgroup_and_lock():
    """Files whose rows are a cgroup under one lock (6.16+, fentry) pair by
    cgroup and lock, labelled "/path [lock]"; -c refuses a bare path with a
    row per lock (exit 2, one line) and takes the label; against a file that
    does not tell the locks apart, each cgroup's lock rows are added up and
    the locks line says so."""
    split = write("lock-rows.json", [with_lock_rows(RUN_A)])
    plain = objects(RUN_A)[-1]["cgroups"]
    rc, out, err = compare("-f", "json", split, split)
    check(rc == 0, "exit %d: %s" % (rc, err))
    res = json.loads(out)
    rows = [r for r in res["cgroups"] if r["cgroup"]]
    check(len(rows) == 2 * len(plain) and all(r["presence"] == "both" for r in rows),
          "%d rows for %d cgroups" % (len(rows), len(plain)))
    check({r["cgroup"].get("lock") for r in rows} == {"base", "memory"}, "locks %s" %
          {r["cgroup"].get("lock") for r in rows})
    check(res["before"].get("lock_rows") is True, "lock_rows not said: %s" % res["before"])
    busy = max(plain, key=lambda r: r["locked"])["path"]
    rc, out, err = compare("-c", busy, split, split)
    check(rc == 2 and "has a row per lock" in err and len(err.strip().splitlines()) == 1,
          "-c %s: exit %d %r" % (busy, rc, err))
    rc, out, err = compare("-c", busy + " [memory]", split, split)
    check(rc == 0, "-c '%s [memory]': exit %d %s" % (busy, rc, err))
    rc, out, err = compare("-f", "json", RUN_A, split)
    check(rc in (0, 4), "exit %d: %s" % (rc, err))
    res = json.loads(out)
    check(res["after"].get("locks_added_up") is True and "lock_rows" not in res["after"],
          "after side: %s" % res["after"])
    for r in [r for r in res["cgroups"] if r["cgroup"]]:
        check(r["presence"] == "both" and "lock" not in r["cgroup"] and
              r["metrics"]["locked"]["after"] == 2 * r["metrics"]["locked"]["before"],
              "folded row %s: %s" % (r["cgroup"]["path"], r["metrics"]["locked"]))
    rc, out, err = compare(RUN_A, split)
    check("per-subsystem, rows added up" in out, "locks line: %s" % out[:600])
    return "%d rows by lock; against one lock a cgroup: added up, said" % len(rows)


@test
def replicated_sides_must_be_alike():
    bad = [
        sides([RUNS[0], SEED_STOCK], [RUNS[1]]),          # two kernels in BEFORE
        ["--before", RUNS[0]],                           # no AFTER
        ["--before", RUNS[0], "--after", RUNS[1], RUNS[2]],  # and a positional file
        sides(RUNS[:1], RUNS[1:2] + ["/nonexistent.json"]),
    ]
    for args in bad:
        rc, out, err = compare(*args)
        check(rc == 2 and not out and len(err.strip().splitlines()) == 1,
              "%s: exit %d %r" % (args, rc, err))
    rc, out, err = compare(*sides([RUNS[0], SEED_STOCK], [RUNS[1]]))
    check("one BEFORE side must be one kernel" in err, "names the side: %r" % err)
    return "%d refused with one line" % len(bad)


DEMO_61 = os.path.join(DATA, "demo-6.1-64cpus.json")
DEMO_61_2 = os.path.join(DATA, "demo-6.1-2cpus.json")
DEMO_NEW = sorted(f for f in (os.path.join(DATA, n) for n in os.listdir(DATA))
                  if os.path.basename(f).startswith("demo-6.18"))


@test
def before_after_0efc297a_demo():
    """tests/vm/demo's recordings: Linux 6.1 (fallback, one hold walks every
    possible CPU) against this host's kernel (one hold per CPU)."""
    check(DEMO_NEW, "no demo-6.18*.json in tests/data")
    old, old2, new = objects(DEMO_61)[-1], objects(DEMO_61_2)[-1], objects(DEMO_NEW[0])[-1]
    row = {n: [c for c in d["cgroups"] if c["path"] == "/rsl-demo"][0]
           for n, d in (("old", old), ("old2", old2), ("new", new))}
    check(old["attach"] in ("fentry", "kprobe") and new["attach"] == "tracepoint",
          "sources %s / %s" % (old["attach"], new["attach"]))
    check(old["kernel"]["cpus_possible"] == 64 and old2["kernel"]["cpus_possible"] == 2,
          "possible CPUs %d / %d" % (old["kernel"]["cpus_possible"],
                                     old2["kernel"]["cpus_possible"]))
    # one hold per flush on 6.1, one per possible CPU on the new kernel
    check(row["old"]["flush_holds_max"] == 1, "6.1 holds per flush %d" %
          row["old"]["flush_holds_max"])
    check(row["new"]["flush_holds_max"] == new["kernel"]["cpus_possible"],
          "new kernel: %d holds per flush, %d CPUs" % (row["new"]["flush_holds_max"],
                                                        new["kernel"]["cpus_possible"]))
    # on 6.1 the hold grows with the possible CPUs it walks
    grow = row["old"]["hold_ns"]["p50"] / row["old2"]["hold_ns"]["p50"]
    check(grow > 4, "6.1 hold p50 grew only %.1fx from 2 to 64 possible CPUs" % grow)
    rc, out, err = compare("-f", "json", "--fail-on", "irqoff.p99>+100%", DEMO_NEW[0], DEMO_61)
    res = json.loads(out)
    check(rc == 1 and res["total"]["metrics"]["irqoff.p99"]["verdict"] == "higher",
          "compare did not flag 6.1's irqs-off: rc %d %s" % (
              rc, res["total"]["metrics"]["irqoff.p99"]))
    rc, _, _ = compare("--fail-on", "irqoff.p99>+100%", DEMO_61, DEMO_NEW[0])
    check(rc == 0, "the newer kernel is no irqs-off regression")
    return "6.1 hold p50 %d ns (64 CPUs) vs %d ns (2); new kernel %d ns; irqoff p99 %.0fx" % (
        row["old"]["hold_ns"]["p50"], row["old2"]["hold_ns"]["p50"],
        row["new"]["hold_ns"]["p50"], res["total"]["metrics"]["irqoff.p99"]["ratio"])


FLUSHPARTS = {(k, n): os.path.join(DATA, "flushparts-6.12-%s-%dcpus.json" % (k, n))
              for k in ("stock", "reverted") for n in (64, 255)}


def row_of(res, path):
    rows = [r for r in res["cgroups"] if r["cgroup"]["path"] == path]
    check(len(rows) == 1, "%d rows %s in %s" % (
        len(rows), path, [r["cgroup"]["path"] for r in res["cgroups"]]))
    return rows[0]


@test
def pair_across_names():
    """The shipped pair: the workload's cgroup has another name in each run
    and AFTER still has a 2-hold leftover of BEFORE's. By name, A's workload
    pairs with the leftover; the real workload is listed unpaired, and the
    header says how to pair it. --pair pairs it and leaves the leftover
    unpaired; a glob adds up each side's matches; -c takes the label, or
    either side's path."""
    a, b = objects(RUN_A)[-1], objects(RUN_B)[-1]
    held = {(s, c["path"]): c["locked"] for s, d in (("a", a), ("b", b)) for c in d["cgroups"]}
    rc, out, _ = compare(RUN_A, RUN_B)
    check(rc == 4 and "unpaired, only in AFTER (1): /rsl-cmp-26512" in out and
          "--pair BEFORE=AFTER" in out, "by name: exit %d\n%s" % (rc, out[:1500]))
    rc, out, err = compare("-f", "json", "--pair", "/rsl-cmp-26462=/rsl-cmp-26512",
                           RUN_A, RUN_B)
    res = json.loads(out)
    paired = row_of(res, "/rsl-cmp-26462=/rsl-cmp-26512")
    left = row_of(res, "/rsl-cmp-26462")
    check(rc == 0 and res["result"] == "pass", "paired: exit %d %s" % (rc, err))
    check(paired["metrics"]["locked"]["before"] == held["a", "/rsl-cmp-26462"] and
          paired["metrics"]["locked"]["after"] == held["b", "/rsl-cmp-26512"],
          "paired row %s" % paired["metrics"]["locked"])
    check(left["presence"] == "after" and
          left["metrics"]["locked"]["after"] == held["b", "/rsl-cmp-26462"],
          "the leftover stays unpaired: %s %s" % (left["presence"], left["metrics"]["locked"]))
    rc, out, _ = compare("-f", "json", "--pair", "/rsl-cmp-*=/rsl-cmp-*", "-c", "/rsl-cmp-*",
                         RUN_A, RUN_B)
    res = json.loads(out)
    glob = row_of(res, "/rsl-cmp-*")
    check(glob["metrics"]["locked"]["after"] ==
          held["b", "/rsl-cmp-26512"] + held["b", "/rsl-cmp-26462"],
          "a glob adds up AFTER's two: %s" % glob["metrics"]["locked"])
    check(rc == 0 and [g["cgroup"] for g in res["gates"]] == ["/rsl-cmp-*"] * 2 and
          len(res["cgroups"]) == 1, "-c takes the label, shows its row: %d %s" % (
              rc, res["gates"]))
    # -c names the pair by its label or by either side, whose rows it took
    for named in ("/rsl-cmp-26462=/rsl-cmp-26512", "/rsl-cmp-26462", "/rsl-cmp-26512"):
        rc, out, err = compare("-f", "json", "--pair", "/rsl-cmp-26462=/rsl-cmp-26512",
                               "-c", named, RUN_A, RUN_B)
        gated = {g["cgroup"] for g in json.loads(out)["gates"]} if out else set()
        check(rc == 0 and gated == {"/rsl-cmp-26462=/rsl-cmp-26512"},
              "-c %s: exit %d, gated %s %r" % (named, rc, gated, err))
    rc, _, err = compare("--pair", "/rsl-nope-*=/rsl-cmp-*", RUN_A, RUN_B)
    check(rc == 2 and "no cgroup of BEFORE" in err and err.count("\n") == 1,
          "a glob that matches nothing: %d %r" % (rc, err))
    return "by name: unpaired listed, exit 4; paired: %d -> %d holds, exit 0" % (
        held["a", "/rsl-cmp-26462"], held["b", "/rsl-cmp-26512"])


def part_bound(dist, part_sum):
    """part_var_bound, from the file's buckets: the part's sum laid whole on
    the largest flushes (each at its bucket's upper edge, at most the max;
    the highest bucket's at the max)."""
    left, squares = float(part_sum), 0.0
    buckets = sorted(dist["buckets"], key=lambda b: -b["le"])
    for b in buckets:
        w = float(dist["max"] if b is buckets[0] else min(b["le"] + 1, dist["max"]))
        whole = min(b["count"], left // w)
        squares += whole * w * w
        left -= whole * w
        if whole < b["count"] and left > 0:
            squares += left * left
            left = 0
        if left <= 0:
            break
    mean = part_sum / dist["count"]
    return max(squares / dist["count"] - mean * mean, 0)


@test
def flush_split_is_a_tested_result():
    """0efc297a's question on the VM tier's recordings (6.12, 64 possible
    CPUs, reverted against stock): the wall time per flush, each part's
    mean and share, its change and share of the change, tested with one
    run a side. Checked against the files: means from the sums, deltas that
    add up to the wall time's, and each verdict recomputed from the flush
    histogram's bound on the part's spread."""
    before, after = FLUSHPARTS["reverted", 64], FLUSHPARTS["stock", 64]
    rows = {s: [c for c in objects(f)[-1]["cgroups"] if c["path"] == "/rsl-demo"][0]
            for s, f in (("b", before), ("a", after))}
    rc, out, err = compare("-f", "json", "-c", "/rsl-demo", "--fail-on", "flush.irq>+50%",
                           "--fail-on", "flush.mean>+50%", before, after)
    res = json.loads(out)
    m = row_of(res, "/rsl-demo")["metrics"]
    shares = 0
    for part in ("held", "wait", "irq", "offcpu", "other"):
        cell = m["flush." + part]
        want = [rows[s]["flush_parts"][part + "_ns"] / rows[s]["flush_parts"]["flushes"]
                for s in "ba"]
        check(abs(cell["before"] - want[0]) < 1e-6 and abs(cell["after"] - want[1]) < 1e-6,
              "%s means %s against %s" % (part, cell, want))
        check(abs(cell["delta"] - (want[1] - want[0])) < 1e-6, "%s delta" % part)
        shares += cell["delta_share"]
        n = [rows[s]["flush_ns"]["count"] for s in "ba"]
        var = [part_bound(rows[s]["flush_ns"], rows[s]["flush_parts"][part + "_ns"])
               for s in "ba"]
        se = (var[0] / n[0] + var[1] / n[1]) ** 0.5
        z = abs(want[1] - want[0]) / se if se else float("inf")
        p = math.erfc(z / 2 ** 0.5)
        verdict = "same" if p >= 0.01 else "higher" if want[1] > want[0] else "lower"
        if verdict != "same" and abs(want[1] / want[0] - 1 if want[0] else 1) <= 0.05:
            verdict = "noise"
        check(cell["verdict"] == verdict, "%s: %s, recomputed %s (p %.3g)" % (
            part, cell["verdict"], verdict, p))
    wall = m["flush.mean"]
    check(abs(shares - 1) < 0.01 and wall["delta_share"] == 1,
          "parts' shares of the change add up to %.4f" % shares)
    check(m["flush.irq"]["verdict"] == "higher" and rc == 1 and
          [g["outcome"] for g in res["gates"]] == ["fail", "fail"],
          "irq 0 -> %.0f ns a flush, one run a side: confirmed; exit %d %s" % (
              m["flush.irq"]["after"], rc, res["gates"]))
    rc, out, _ = compare("-c", "/rsl-demo", before, after)
    check("flush split" in out and "of delta" in out, "the text's split table:\n" + out)
    # a side without parts: said, no ratio made up
    rc, out, _ = compare("--fail-on", "flush.other>+50%", "-c", "/rsl-demo", SEED_REVERTED,
                         before)
    line = [l for l in out.splitlines() if l.startswith("INCONCLUSIVE flush.other")]
    check(rc == 4 and line and line[0].endswith("no flush parts in BEFORE") and
          "x (" not in line[0] and "crossed" not in line[0], "without parts: %s" % line)
    return "wall %.0f -> %.0f us a flush; irq %.0f us of it (%.0f%% of the change), %s" % (
        wall["before"] / 1e3, wall["after"] / 1e3, m["flush.irq"]["after"] / 1e3,
        m["flush.irq"]["delta_share"] * 100, m["flush.irq"]["verdict"])


def mail_lines(out):
    lines = out.split("\n")
    wide = [l for l in lines if len(l) > 80]
    check(not wide, "%d lines over 80 columns, e.g. %r" % (len(wide), wide[:2]))
    return lines


@test
def mail_fits_80_columns_side_by_side():
    """-f mail: two kernels' pairs side by side in 80 columns, the split
    per pair, every check named; with a long title, long file names and a
    cgroup name that would run past the edge, no line is wider; the exit
    status is the worst pair's."""
    args = ["-f", "mail", "-c", "/rsl-demo", "--fail-on", "irqoff.p99>+100%"]
    files = [FLUSHPARTS["reverted", 64], FLUSHPARTS["stock", 64],
             FLUSHPARTS["reverted", 255], FLUSHPARTS["stock", 255]]
    rc, out, err = compare(*(args + files))
    lines = mail_lines(out)
    check(rc == 0 and "pair 1: pass" in out and "pair 2: pass" in out, "exit %d %s" % (rc, err))
    head = [l for l in lines if l.startswith("metric")]
    check(len(head) == 1 and head[0].count("before") == 2, "pairs side by side: %s" % head)
    for what in ("flush.holds", "irqoff.p99", "flush.mean", "flush split", "flush.irq"):
        check(any(l.startswith(what) for l in lines), "no %s line:\n%s" % (what, out))
    # a pair without parts beside one with them: its flush.mean stays among the metrics
    rc, out, _ = compare("-f", "mail", "-c", "/rsl-demo", files[0], files[1],
                         SEED_REVERTED, SEED_STOCK)
    mail_lines(out)
    mean = [l.split() for l in out.splitlines() if l.startswith("flush.mean")]
    irq = [l.split() for l in out.splitlines() if l.startswith("flush.irq")]
    check(len(mean) == 1 and "-" not in mean[0] and len(irq) == 1 and
          irq[0][-3:] == ["-", "-", "-"], "mixed pairs: %s %s" % (mean, irq))
    # the worst pair's status: one pair the other way round fails its gate
    rc, out, _ = compare(*(args + [files[1], files[0], files[2], files[3]]))
    check(rc == 1 and "pair 1: fail" in out and "pair 2: pass" in out, "worst pair: %d" % rc)
    deep = os.path.join(TMP, "a-directory-with-a-rather-long-name", "and-another-level")
    os.makedirs(deep, exist_ok=True)
    long_file = os.path.join(deep, "flushparts-6.12-stock-64cpus-recorded-on-the-vm.json")
    shutil.copy(files[1], long_file)
    long_cgroup = "/" + "x" * 120
    # a --pair must match on both sides of every pair of files
    renamed = [write("long-cgroup-%d.json" % i, text=open(files[i]).read().replace(
        '"/rsl-demo"', json.dumps(long_cgroup))) for i in (0, 2)]
    rc, out, err = compare("-f", "mail", "--title", "T" * 200, "--note", "n" * 200,
                           "--pair", long_cgroup + "=/rsl-demo", "-c",
                           long_cgroup + "=/rsl-demo", "--fail-on", "hold.p99>+10%",
                           renamed[0], long_file, renamed[1], files[3])
    lines = mail_lines(out)
    check(rc == 0 and any(l.endswith("...") for l in lines) and
          any(l.startswith("/xxxx") for l in lines), "cut lines: %d\n%s" % (rc, out))
    return "%d lines, the widest %d columns" % (len(lines), max(len(l) for l in lines))


@test
def cgroup_selects_rows_and_metrics():
    """-c chooses the rows shown as well as the rows gated; --row and
    --metric choose more or fewer; JSON says what it shows."""
    files = [FLUSHPARTS["reverted", 64], FLUSHPARTS["stock", 64]]
    rc, out, _ = compare("-c", "/rsl-demo", "-n", "1", *files)
    heads = [l for l in out.splitlines() if l and not l[0].isspace() and
             l.split()[0] in ("total", "/", "/rsl-demo")]
    check(heads == ["total", "/rsl-demo"], "-c /rsl-demo -n 1 shows %s" % heads)
    rc, out, _ = compare("-f", "json", "--row", "/rsl-*", "--metric", "hold.*,flush.mean",
                         *files)
    res = json.loads(out)
    paths = [r["cgroup"]["path"] for r in res["cgroups"]]
    keys = set(res["total"]["metrics"])
    check(paths == ["/rsl-demo"] and keys == {"hold.p50", "hold.p90", "hold.p99", "hold.max",
                                              "flush.mean"}, "json: %s %s" % (paths, keys))
    check(res["shown"] == {"rows": ["/rsl-*"], "metrics": ["hold.*", "flush.mean"]},
          "shown %s" % res["shown"])
    check(len(res["gates"]) > 2, "gates still see every row: %d" % len(res["gates"]))
    rc, out, _ = compare("-c", "/rsl-demo", "--metric", "hold.p99", *files)
    check("hold.p99" in out and "flush split" not in out and "flush.mean" not in out,
          "--metric hold.p99: no split table:\n" + out)
    rc, _, err = compare("--metric", "hold.p42", *files)
    check(rc == 2 and "matches no metric" in err, "--metric typo: %d %r" % (rc, err))
    return "%d rows, %d metrics shown" % (len(paths), len(keys))


@test
def gate_lines_name_values_limits_and_files():
    """Passing checks are printed with their values and limits (nearest
    first, -n of them), every replicated file is named in text, JSON and
    HTML, and a title and notes reach every format."""
    rc, out, _ = compare("--fail-on", "hold.p99>+50%", "--fail-on", "irqoff.max>5ms",
                         RUN_A, RUN_A)
    passes = [l for l in out.splitlines() if l.startswith("pass ")]
    check(rc == 0 and "pass hold.p99>+50% on total: 156ns -> 156ns, 1.00x (limit 1.50x)" in
          passes and any(l.startswith("pass irqoff.max>5ms on total: ") and
                         l.endswith("(limit 5.00ms)") for l in passes), "\n".join(passes))
    # what did not pass first, failures before inconclusive checks
    rc, out, _ = compare("-n", "0", "--fail-on", "hold.p99>+50%", "--fail-on",
                         "contended.rate>1%", RUN_A, RUN_B)
    # (a line begun with a space explains the check above it: why:)
    words = [l.split()[0] for l in out[out.index("\ngates: "):].splitlines()[2:-1]
             if not l.startswith(" ")]
    rank = {"FAIL": 0, "INCONCLUSIVE": 1, "n/a": 2, "pass": 3}
    check(rc == 1 and "INCONCLUSIVE" in words and
          [rank[w] for w in words] == sorted(rank[w] for w in words),
          "listed in the order %s" % words)
    rc, out, _ = compare("-n", "1", "--fail-on", "hold.p99>+50%", RUN_A, RUN_A)
    check(len([l for l in out.splitlines() if l.startswith("pass ")]) == 1 and
          "more passed; -n 0 shows all" in out, "-n 1 lists one pass")
    args = ["--title", "6.18 <runs>", "--note", "same kernel & load"]
    for f in RUNS[:3]:
        args += ["--before", f]
    for f in RUNS[3:]:
        args += ["--after", f]
    rc, out, _ = compare(*args)
    check(all(f in out for f in RUNS) and out.startswith("6.18 <runs>\n") and
          "note: same kernel & load" in out, "text names every file:\n" + out[:1200])
    rc, out, _ = compare("-f", "json", *args)
    res = json.loads(out)
    check(res["before"]["files"] == RUNS[:3] and res["after"]["files"] == RUNS[3:] and
          res["title"] == "6.18 <runs>" and res["notes"][-1] == "same kernel & load" and
          all("limit" in g for g in res["gates"]), "json %s %s" % (res["title"], res["notes"]))
    rc, out, _ = compare("-f", "html", *args)
    check(all(f in out for f in RUNS) and "<title>6.18 &lt;runs&gt;</title>" in out and
          "same kernel &amp; load" in out and "(limit 1.20x)" in out,
          "html: title, notes, files, gate values")
    return "%d passes listed; 6 files named" % len(passes)



@test
def readme_mail_block_is_the_output():
    """README's 0efc297a block is what `compare -f mail` prints now (make
    readme writes it): every line of it within 80 columns."""
    import readme
    with open(readme.README) as f:
        _, current, _ = readme.split(f.read())
    want = readme.block(BIN)
    check(current == want, "README's block is stale (make readme):\n%s" % "".join(
        difflib.unified_diff(current.splitlines(True), want.splitlines(True), "README",
                             "compare")))
    # the output, after "```" and the command's three lines
    widest = max(len(l) for l in want.split("\n")[4:])
    check(widest <= 80, "a line of %d columns" % widest)
    return "%d lines, the widest %d columns" % (want.count("\n"), widest)


def run_bounded(argv, stdin=None, timeout=30):
    """(exit status, stderr, seconds, its own max RSS in MiB) of a child fed stdin."""
    t0 = time.time()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=errf)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > t0 + timeout:
                p.kill()
                os.wait4(p.pid, 0)
                raise AssertionError("%s still running after %d s" % (argv[:3], timeout))
            time.sleep(0.01)
        p.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    return p.returncode, err, time.time() - t0, usage.ru_maxrss / 1024


@test
def endless_input_is_refused_with_bounded_memory():
    """/dev/zero, `yes`, a pipe that stalls after bad text, and lines that
    never end: exit 2 with one line, at once where the first bytes cannot
    be JSON (as they come, not after a buffer fills), and at the reader's bounds
    where they could: a string (one token) past 16 MiB, a value whose
    tree passes 256 MiB, memory bounded by them."""
    results = []
    rc, err, secs, _ = run_bounded([BIN, "compare", "/dev/zero", RUN_B])
    check(rc == 2 and "NUL" in err and err.count("\n") == 1 and secs < 1,
          "/dev/zero: exit %d in %.1f s: %r" % (rc, secs, err))
    results.append("/dev/zero %.2f s" % secs)
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    rc, err, secs, _ = run_bounded([BIN, "compare", "-", RUN_B], stdin=yes.stdout)
    yes.kill()
    yes.wait()
    check(rc == 2 and err.count("\n") == 1 and secs < 1, "yes |: exit %d in %.1f s: %r" % (
        rc, secs, err))
    results.append("yes %.2f s" % secs)
    # a pipe that says something wrong, then nothing for a long time: refused as it comes
    slow = subprocess.Popen(["sh", "-c", "echo junk; exec sleep 30"], stdout=subprocess.PIPE)
    rc, err, secs, _ = run_bounded([BIN, "compare", "-", RUN_B], stdin=slow.stdout)
    slow.kill()
    slow.wait()
    check(rc == 2 and "not JSON" in err and secs < 1, "a slow pipe: exit %d in %.1f s: %r" % (
        rc, secs, err))
    results.append("a slow pipe %.2f s" % secs)
    endless = [("a string", "printf '{\"k\": \"'; yes a | tr -d '\\n'",
                "no JSON token ends within 16 MiB", 100),
               ("an array", "printf '['; yes 1, | tr -d '\\n'",
                "a value of more than 256 MiB", 400)]
    for what, script, said, most in endless:
        proc = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE)
        rc, err, secs, rss = run_bounded([BIN, "compare", "-", RUN_B], stdin=proc.stdout,
                                         timeout=60)
        proc.kill()
        proc.wait()
        check(rc == 2 and said in err and err.count("\n") == 1 and rss < most,
              "%s that never ends: exit %d, %.0f MiB, %r" % (what, rc, rss, err))
        results.append("%s that never ends %.1f s, %.0f MiB" % (what, secs, rss))
    return "; ".join(results)


@test
def merged_sums_never_wrap():
    """Counts that would pass 2^64-1 when added up are refused (exit 2,
    naming the key), never wrapped: three summaries of one file, runs
    pooled on a side, and cgroups added up into the total."""
    big = 6148914691236517206  # three of these pass 2^64-1
    first = objects(RUN_A)[-1]
    row = dict(first["cgroups"][0], locked=big)
    one = dict(first, cgroups=[row])
    three = write("three-summaries.json", [one, one, one])
    rc, _, err = compare(three, RUN_B)
    check(rc == 2 and "locked" in err and "2^64-1" in err and err.count("\n") == 1,
          "three summaries: exit %d %r" % (rc, err))
    files = [write("big-%d.json" % i, [one]) for i in range(3)]
    rc, _, err = compare("--before", files[0], "--before", files[1], "--before", files[2],
                         "--after", RUN_B, "--after", RUN_B)
    check(rc == 2 and "locked" in err and "runs are added up" in err,
          "pooled runs: exit %d %r" % (rc, err))
    other = dict(row, path="/other", id=row["id"] + 1)
    third = dict(row, path="/third", id=row["id"] + 2)
    wide = write("three-cgroups.json", [dict(first, cgroups=[row, other, third])])
    rc, _, err = compare(wide, RUN_B)
    check(rc == 2 and "locked" in err and "add up" in err, "the total: exit %d %r" % (rc, err))
    return "three summaries, three runs and three cgroups of %d locks each refused" % big


@test
def integers_to_2_64_minus_1():
    """Counts are unsigned 64-bit in the kernel and in the files: every
    integer up to 2^64-1 reads as itself (jansson refused those past
    2^63-1), and 2^64 is refused naming it. Keys moved behind the rows
    (as jq -S writes them) read the same."""
    top = 2**64 - 1
    first = objects(RUN_A)[-1]
    row = dict(first["cgroups"][0], locked=top, contended=top - 1)
    one = write("u64.json", [dict(first, cgroups=[row])])
    rc, out, err = compare("-f", "json", "--fail-on", "none", RUN_A, one)
    res = json.loads(out) if rc == 0 else {}
    got = [c for c in res.get("cgroups", []) if c["cgroup"]["path"] == row["path"]]
    # compare holds a metric as a double: 2^64-1 rounds to 2^64 in its views
    check(rc == 0 and got and got[0]["metrics"]["locked"]["after"] == float(top),
          "2^64-1: exit %d %r %s" % (rc, err, got and got[0]["metrics"]["locked"]))
    text = open(one).read().replace(str(top), str(top + 1), 1)
    rc, _, err = compare(write("u64-past.json", text=text), RUN_B)
    check(rc == 2 and "past 2^64-1" in err and err.count("\n") == 1,
          "2^64: exit %d %r" % (rc, err))
    # the same object with its keys in sorted order: "cgroups" before "schema" and "type"
    shuffled = write("sorted-keys.json", text="".join(
        json.dumps(o, sort_keys=True) + "\n" for o in objects(RUN_A)))
    rc, out, err = compare("-f", "json", shuffled, RUN_A)
    same = json.loads(out) if out else {}
    check(rc == 0 and same["total"]["metrics"]["locked"]["ratio"] == 1,
          "sorted keys: exit %d %r" % (rc, err))
    return "2^64-1 read as itself, 2^64 refused; keys in any order"


@test
def one_number_syntax():
    """Every option's number is decimal: hex, exponents, inf and nan are
    refused alike (exit 2, one line), where strtod alone took -d 0x10 as
    16 s."""
    cases = [["-d", "0x10"], ["-n", "0x10"], ["-d", "1e1"], ["--textfile-interval", "inf"],
             ["-i", "nan"], ["2e0"]]
    for args in cases:
        r = subprocess.run([BIN] + args, capture_output=True, timeout=10)
        err = r.stderr.decode(errors="replace")
        check(r.returncode == 2 and err.count("\n") == 1, "%s: exit %d %r" % (
            args, r.returncode, err))
    for args in (["--alpha", "1e-2"], ["--noise", "0x5"]):
        rc, _, err = compare(*(args + [RUN_A, RUN_B]))
        check(rc == 2 and err.count("\n") == 1, "compare %s: exit %d %r" % (args, rc, err))
    return "%d refused" % (len(cases) + 2)

@test
def bad_input_exits_2_with_one_line():
    good = open(RUN_A).read()
    first = objects(RUN_A)[-1]
    no_key = dict(first)
    del no_key["cgroups"]
    cases = {
        "missing file": [os.path.join(TMP, "nope.json"), RUN_A],
        "empty": [write("empty.json", text=""), RUN_A],
        "truncated": [write("trunc.json", text=good[:len(good) // 2]), RUN_A],
        "not JSON": [RUN_A, write("text.json", text="hello world\n")],
        "wrong schema": [write("schema.json", [dict(first, schema="rstatlat/9")]), RUN_A],
        "other tool": [write("other.json", [{"schema": "x", "a": 1}]), RUN_A],
        "missing key": [write("nokey.json", [no_key]), RUN_A],
        "compare output": [write("cmp.json", text=compare("-f", "json", RUN_A, RUN_A)[1]),
                           RUN_A],
        "hostile name": [write("\x1b[2J\x07.json", text="\x1b]0;pwned\x07\n"), RUN_A],
        "one file": [RUN_A],
        "three files alike": [RUN_A, RUN_A, RUN_A],
        "bad gate": ["--fail-on", "hold.p99>20", RUN_A, RUN_A],
        "unknown metric": ["--fail-on", "hold.p42>+1%", RUN_A, RUN_A],
        "bad format": ["-f", "xml", RUN_A, RUN_A],
        "bad alpha": ["--alpha", "2", RUN_A, RUN_A],
        "bad noise": ["--noise", "x", RUN_A, RUN_A],
        "none and a gate": ["--fail-on", "none", "--fail-on", "hold.p99>+1%", RUN_A, RUN_A],
        "unknown cgroup": ["--cgroup", "/no/such", RUN_A, RUN_A],
        "unknown option": ["--bogus", RUN_A, RUN_A],
        "processes not a list": [write("procs.json", [dict(first, processes=5)]), RUN_A],
        "a flusher without comm": [write("nocomm.json", [dict(first, processes=[
            {k: v for k, v in objects(FLUSHERS[0])[-1]["processes"][0].items()
             if k != "comm"}])]), RUN_A],
        "cpu_lock not an object": [write("lock.json", [dict(first, cpu_lock=[])]), RUN_A],
        "a pair without '='": ["--pair", "/a", RUN_A, RUN_B],
        "a pair without BEFORE": ["--pair", "=/a", RUN_A, RUN_B],
        "a pair matching nothing": ["--pair", "/nope=/rsl-cmp-26512", RUN_A, RUN_B],
        "a metric glob matching nothing": ["--metric", "hold.p42", RUN_A, RUN_B],
        "three files": [RUN_A, RUN_B, RUN_A],
        "html with two pairs": ["-f", "html", RUN_A, RUN_B, RUN_A, RUN_B],
        "a format": ["-f", "mail\x1b[2J", RUN_A, RUN_B],
        "standard input twice": ["-", "-"],
    }
    for what, args in cases.items():
        rc, out, err = compare(*args)
        check(rc == 2, "%s: exit %d, stderr %r" % (what, rc, err))
        check(err.startswith("rstatlat compare: ") and err.count("\n") == 1,
              "%s: not one line: %r" % (what, err))
        check("\x1b" not in err and "\x07" not in err, "%s: raw escape: %r" % (what, err))
        check(out == "", "%s: printed %r" % (what, out))
    # files are read in parallel, errors said in the order of the files as
    # if read one by one: the first pair's cgroup before the second's file
    nope = os.path.join(TMP, "nope.json")
    rc, _, err = compare("-f", "mail", "--cgroup", "/no/such", RUN_A, RUN_B, nope, RUN_B)
    check(rc == 2 and "/no/such" in err and "nope" not in err, "pair order: %r" % err)
    rc, _, err = compare("-f", "mail", RUN_A, RUN_B, nope, RUN_B)
    check(rc == 2 and "nope.json" in err, "the second pair's file: %r" % err)
    rc, out, _ = compare("--help")
    check(rc == 0 and "--fail-on" in out, "--help")
    return "%d cases, and errors in the files' order" % len(cases)


@test
def text_header_within_80_columns():
    """The text header keeps to 80 columns: a value too long for its column
    goes on a line of its own (BEFORE and AFTER), or once when both sides
    say the same (the irqs-off source), its end kept with "..." before it
    when longer than a line; values that fit stay side by side."""
    deep = os.path.join(TMP, "d" * 60, "e" * 40)
    os.makedirs(deep, exist_ok=True)
    long_file = os.path.join(deep, "before-run-with-a-long-name.json")
    shutil.copy(RUN_A, long_file)
    rc, out, _ = compare(long_file, RUN_B)
    header = out.split("\n\n")[0].splitlines()
    wide = [l for l in header if len(l) > 80]
    check(rc in (0, 4) and not wide, "over 80 columns: %s" % wide)
    at = [i for i, l in enumerate(header) if l.startswith("file ")]
    files = header[at[0]:at[0] + 2] if at else []
    check(len(files) == 2 and files[0].startswith("file        BEFORE ...") and
          files[0].endswith("/before-run-with-a-long-name.json") and
          files[1].split() == ["AFTER", RUN_B], "the files: %s" % files)
    check(any(l.startswith("irqs-off    both   lock (each hold") for l in header),
          "irqs-off said once: %s" % [l for l in header if l.startswith("irqs-off")])
    kernel = [l for l in header if l.startswith("kernel")]
    check(len(kernel) == 1 and len(kernel[0].split()) == 3 and kernel[0][50:].strip(),
          "values that fit stay side by side: %s" % kernel)
    return "%d header lines, the widest %d columns" % (len(header), max(map(len, header)))


def main():
    if not os.path.exists(BIN):
        return TIER.skip_all("%s is not built" % BIN)
    try:
        return TIER.run(sys.argv[1:])
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
