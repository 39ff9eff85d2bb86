# SPDX-License-Identifier: GPL-2.0
"""Live tests of `rstatlat load`: the workload's own figures add up to the
flushes rstatlat sees of the cgroups it made, and it leaves nothing behind,
also when a signal stops it. test_live.py registers these with its tier:

    import load_tests
    load_tests.register(test)
"""
import glob
import json
import os
import signal
import subprocess
import tempfile
import time

from harness import Skip, check
from lib import BIN, Cgroup, cgroup_mounts, json_lines

MOUNTS = cgroup_mounts()


def load_cgroups():
    """The cgroups runs of rstatlat load made and did not remove, in v2 and v1 memory."""
    found = []
    for key in ("v2", "memory"):
        for top, dirs, _ in os.walk(MOUNTS.get(key, "/nonexistent")):
            found += [os.path.join(top, d) for d in dirs
                      if d == "rstatlat-load" or d.startswith("rstatlat-load-")]
    return found


def workload_line(stdout):
    lines = [json.loads(l) for l in stdout.decode().splitlines() if l.startswith("{")]
    check(len(lines) == 1 and lines[0].get("type") == "workload",
          "not one workload line: %r" % stdout[-400:])
    return lines[0]


def traced_load(*args):
    """`rstatlat -p -j -o F -- rstatlat load ARGS -j`: the load's workload
    line and rstatlat's summary, whose "workload" is that line's figures."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "run.json")
        r = subprocess.run([BIN, "-p", "-j", "-o", out, "--", BIN, "load"] + list(args) + ["-j"],
                           capture_output=True, timeout=120)
        check(r.returncode == 0, "rc %d: %s" % (r.returncode, r.stderr.decode()[-300:]))
        w = workload_line(r.stdout)
        with open(out, "rb") as f:
            summary = json_lines(f.read())[-1]
        figures = {k: v for k, v in w.items() if k not in ("schema", "type")}
        check(summary.get("workload") == figures,
              "the summary's workload %s, the load printed %s" % (summary.get("workload"), figures))
        return w, summary


def own_rows(summary):
    """(cgroup path, row) of the load's own process (-p) for the cgroups it
    made: comm rstatlat in the command's cgroup (its tasks are named
    rstatlat-busy, -box and -hog)."""
    own = summary["command"]["cgroups"][0]["path"]
    return [(row["cgroup"]["path"], row) for row in summary["processes"]
            if row["own_cgroup"] == own and row["comm"] == "rstatlat" and
            "/rstatlat-load" in row["cgroup"]["path"]]


def check_latency(w):
    lat, mode = w["read_ns"], w["read_mode_ns"]
    check(0 < lat["p50"] <= lat["p99"] <= lat["max"] and lat["count"] == w["reads"] and
          sum(b["count"] for b in lat["buckets"]) == w["reads"] and
          mode["ge"] < mode["lt"] == max(2 * mode["ge"], 16),
          "read latency figures out of order: %s %s" % (
              {k: v for k, v in lat.items() if k != "buckets"}, mode))


def made_by(pid, n):
    """The n cgroups the load pid made, once all have their busy task, and those tasks."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        made = glob.glob(os.path.join(MOUNTS["v2"], "rstatlat-load-%d" % pid, "c[0-9]*"))
        busy = []
        for m in made:
            with open(os.path.join(m, "cgroup.procs")) as f:
                busy += [int(x) for x in f.read().split()]
        if len(made) == n and len(busy) == n:
            return made, busy
        time.sleep(0.05)
    check(False, "the load made %s" % made)


def vmstat_oom_kills():
    with open("/proc/vmstat") as f:
        for line in f:
            key, value = line.split()
            if key == "oom_kill":
                return int(value)
    raise Skip("no oom_kill in /proc/vmstat")


def register(test):
    @test
    def load_hammer_reads_are_flushes():
        """`rstatlat -j -o F -- rstatlat load hammer`: the load reads each of
        its cgroups' cpu.stat threads x reads / cgroups times (thread t
        begins at cgroup t and goes round), and each read is one flush of
        that cgroup in rstatlat's rows of the load's process (-p); its
        figures say as many reads, in order; its cgroups are gone after."""
        if "v2" not in MOUNTS:
            raise Skip("cgroup v2 is not mounted")
        threads, reads, cgroups = 3, 2000, 4
        before = set(load_cgroups())
        w, summary = traced_load("hammer", "--threads", str(threads), "--reads", str(reads),
                                 "--cgroups", str(cgroups))
        check(w["name"] == "hammer" and w["reads"] == threads * reads and
              w["stopped_by"] is None and w["options"] == {
                  "threads": threads, "reads": reads, "cgroups": cgroups,
                  "files": "cpu.stat"},
              "figures: %s" % w)
        check_latency(w)
        # the load's own flushes (-p): a cgroup's release may add one, by a kworker
        flushes = {}
        for path, row in own_rows(summary):
            name = path.rpartition("/")[2]
            check(name not in flushes, "two rows of the load's process for %s" % name)
            flushes[name] = row["flush_ns"]["count"]
        want = {"c%d" % i: threads * reads // cgroups for i in range(cgroups)}
        check(flushes == want, "flushes by cgroup %s, the load read %s" % (flushes, want))
        left = set(load_cgroups()) - before
        check(not left, "left behind: %s" % left)
        return "%d reads in %.3f s, p50 %d ns; flushes %s" % (
            w["reads"], w["wall_ns"] / 1e9, w["read_ns"]["p50"], sorted(flushes.values()))

    @test
    def load_figures_are_compared_and_gated():
        """Two runs of `rstatlat -j -o F -- rstatlat load hammer`: compare
        has the workload's figures on the total beside the lock's
        (workload.reads, workload.reads.rate, workload.read.*), pairs the
        load's cgroup across runs ((command)/rstatlat-load/c0), and gates
        them by their values (workload.read.p50>1ns fails, exit 1; a 99%
        drop in reads/s passes); a file without a workload still compares,
        with a warning, and a workload gate on it is inconclusive (exit 4);
        outside rstatlat, RSTATLAT_WORKLOAD_FD naming another file gets one
        warning and nothing written to it."""
        if "v2" not in MOUNTS:
            raise Skip("cgroup v2 is not mounted")
        threads, reads = 2, 2000
        with tempfile.TemporaryDirectory() as d:
            files = []
            for i in range(2):
                _, summary = traced_load("hammer", "--threads", str(threads), "--reads",
                                         str(reads))
                files.append(os.path.join(d, "run%d.json" % i))
                with open(files[-1], "w") as f:
                    f.write(json.dumps(summary) + "\n")

            def compare(*args):
                return subprocess.run([BIN, "compare", "-f", "json"] + list(args),
                                      capture_output=True, timeout=60)
            r = compare(files[0], files[1], "--fail-on", "workload.reads.rate<-99%",
                        "--fail-on", "workload.read.p99>+10000%")
            check(r.returncode == 0, "rc %d: %s" % (r.returncode, r.stderr.decode()[-300:]))
            c = json.loads(r.stdout)
            m = c["total"]["metrics"]
            check(m["workload.reads"]["before"] == m["workload.reads"]["after"] ==
                  threads * reads and m["workload.reads.rate"]["after"] > 0 and
                  m["workload.read.p99"]["before"] > 0 and m["hold.p99"]["before"] > 0,
                  "total's workload figures: %s" % {k: v for k, v in m.items()
                                                     if k.startswith("workload.")})
            check(c["before"]["workload"]["name"] == "hammer" and
                  c["after"]["workload"]["options"]["reads"] == reads,
                  "sides' workloads: %s %s" % (c["before"]["workload"], c["after"]["workload"]))
            paired = [row["presence"] for row in c["cgroups"]
                      if row["cgroup"]["path"] == "(command)/rstatlat-load/c0"]
            check(paired == ["both"], "the load's cgroup across runs: %s" % [
                (row["cgroup"]["path"], row["presence"]) for row in c["cgroups"]])
            r = compare(files[0], files[1], "--fail-on", "workload.read.p50>1ns")
            gates = json.loads(r.stdout)["gates"] if r.stdout else []
            check(r.returncode == 1 and [g["outcome"] for g in gates] == ["fail"],
                  "an absolute gate below every read: rc %d, %s" % (r.returncode, gates))
            old = os.path.join(os.path.dirname(__file__), "..", "data",
                               "compare-6.18-cpustat-a.json")
            r = compare(old, files[1], "--fail-on", "workload.reads.rate<-10%")
            gates = json.loads(r.stdout)["gates"] if r.stdout else []
            check(r.returncode == 4 and [g["outcome"] for g in gates] == ["inconclusive"],
                  "a file without a workload: rc %d, %s" % (r.returncode, gates))
            # the default gates on a recording of another machine's state: any verdict
            r = subprocess.run([BIN, "compare", old, files[1]], capture_output=True, timeout=60)
            check(r.returncode in (0, 1, 4) and
                  b"warning: the sides' workloads are unlike" in r.stdout,
                  "no warning of unlike workloads: rc %d" % r.returncode)
        env = dict(os.environ, RSTATLAT_WORKLOAD_FD="1")
        r = subprocess.run([BIN, "load", "hammer", "--threads", "1", "--reads", "10", "-j"],
                           capture_output=True, timeout=60, env=env)
        err = r.stderr.decode()
        check(r.returncode == 0 and err.count("\n") == 1 and
              "RSTATLAT_WORKLOAD_FD=1 is not rstatlat's" in err,
              "a descriptor not rstatlat's: rc %d, %r" % (r.returncode, err))
        workload_line(r.stdout)
        return "reads %d a run, paired %s, p99 %d -> %d ns" % (
            threads * reads, paired, m["workload.read.p99"]["before"],
            m["workload.read.p99"]["after"])

    @test
    def load_under_a_signalled_rstatlat_leaves_nothing():
        """SIGTERM to `rstatlat -j -o F -- rstatlat load hammer`: rstatlat
        passes it on, the load stops and says so, the summary keeps its
        figures (stopped_by "TERM"), rstatlat exits 143; and a load killed
        before it could clean up (`sh -c 'rstatlat load ... & sleep 1'`:
        the shell's exit leaves it, rstatlat kills what is left) has its
        cgroups, made below the command's, removed by rstatlat with the
        command's own. Nothing of either run is left in v2 or v1 memory."""
        if "v2" not in MOUNTS:
            raise Skip("cgroup v2 is not mounted")

        def ours(pid):
            """The cgroups rstatlat pid made for its command, and what the load made anywhere."""
            return [d for key in ("v2", "memory") if key in MOUNTS
                    for d in glob.glob(os.path.join(MOUNTS[key], "rstatlat-%d*" % pid))] + \
                load_cgroups()
        before = set(load_cgroups())
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "run.json")
            p = subprocess.Popen([BIN, "-j", "-o", out, "--", BIN, "load", "hammer", "--threads",
                                  "2", "--reads", "100000000", "--cgroups", "3"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and not glob.glob(os.path.join(
                        MOUNTS["v2"], "rstatlat-%d" % p.pid, "rstatlat-load", "c2")):
                    time.sleep(0.05)
                time.sleep(0.5)
                p.send_signal(signal.SIGTERM)
                _, stderr = p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            check(p.returncode == 128 + signal.SIGTERM, "rc %d: %s" % (
                p.returncode, stderr.decode()[-300:]))
            with open(out, "rb") as f:
                w = json_lines(f.read())[-1].get("workload") or {}
            check(w.get("stopped_by") == "TERM" and w.get("reads", 0) > 0,
                  "the summary's workload: %s" % {k: v for k, v in w.items() if k != "read_ns"})
            left = set(ours(p.pid)) - before
            check(not left, "left behind after SIGTERM: %s" % left)
            p = subprocess.Popen([BIN, "-j", "-o", out, "--", "sh", "-c",
                                  "%s load hammer --threads 1 --reads 100000000 --cgroups 2 & "
                                  "sleep 1" % BIN], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            _, stderr = p.communicate(timeout=60)
            err = stderr.decode()
            check(p.returncode == 0 and "killed" in err and "cannot remove" not in err,
                  "rc %d: %s" % (p.returncode, err[-300:]))
            left = set(ours(p.pid)) - before
            check(not left, "left behind by a killed load: %s" % left)
        return "stopped by TERM after %d reads; a killed load's cgroups removed" % w["reads"]

    @test
    def load_stopped_by_signal_leaves_nothing():
        """SIGTERM mid-run: the load prints what it did, says so, exits 143,
        and its cgroups and busy tasks are gone; bad input is one line on
        stderr and exit 2 (usage) or 3 (cannot run here)."""
        if "v2" not in MOUNTS:
            raise Skip("cgroup v2 is not mounted")
        before = set(load_cgroups())
        p = subprocess.Popen([BIN, "load", "hammer", "--threads", "2", "--reads", "100000000",
                              "--cgroups", "5", "-j"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            made, busy = made_by(p.pid, 5)
            time.sleep(0.5)
            p.send_signal(signal.SIGTERM)
            stdout, stderr = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        check(p.returncode == 128 + signal.SIGTERM, "rc %d: %s" % (p.returncode, stderr[-300:]))
        w = workload_line(stdout)
        check(w["stopped_by"] == "TERM" and 0 < w["reads"] < 2 * 100000000, "figures: %s" % w)
        check_latency(w)
        left = set(load_cgroups()) - before
        check(not left, "left behind: %s" % left)
        alive = [pid for pid in busy if os.path.exists("/proc/%d" % pid)]
        check(len(busy) == 5 and not alive, "busy tasks %s, alive after: %s" % (busy, alive))
        bad = [(["hammer", "--threads", "0"], 2), (["nope"], 2), (["hammer", "--file", "../x"], 2),
               (["hammer", "--reads", "1", "x"], 2), (["hammer", "--file", "nope.stat"], 3),
               (["hammer", "--hogs", "1"], 2), (["stat-reader", "--reads", "1"], 2),
               (["stat-reader", "--memory-max", "1M"], 2),
               (["stat-reader", "--memory-max", "64X"], 2), (["stat-reader", "-d", "0"], 2),
               (["hammer", "--bogus"], 2), (["poller", "--interval", "10us"], 2),
               (["poller", "--threads", "2"], 2), ([], 2)]
        for args, code in bad:
            r = subprocess.run([BIN, "load"] + args, capture_output=True, timeout=30)
            err = r.stderr.decode()
            check(r.returncode == code and err.count("\n") == 1 and
                  err.startswith("rstatlat load: ") and not r.stdout,
                  "load %s: rc %d, stderr %r, stdout %r" % (args, r.returncode, err, r.stdout))
        left = set(load_cgroups()) - before
        check(not left, "left behind by bad input: %s" % left)
        return "%d reads before SIGTERM, 5 cgroups and %d busy tasks gone; %d bad inputs" % (
            w["reads"], len(busy), len(bad))

    @test
    def load_stat_reader_hogs_oom_in_their_memcg():
        """`rstatlat -p -j -o F -- rstatlat load stat-reader --hogs 2`: the
        hogs OOM-loop in the load's memcg and nowhere else (the host's
        oom_kill count in /proc/vmstat moves by the memcg's own), each kill
        is a hog started again, but for those at the end (kills <= hogs started
        <= 2 + kills),
        and each memory.stat read is one memcg flush request (asked) in the
        rows of the load's own process (comm rstatlat; the hogs are
        rstatlat-hog); the memcg is gone after."""
        threads, seconds, hogs = 2, 2, 2
        before = vmstat_oom_kills()
        w, summary = traced_load("stat-reader", "--threads", str(threads), "-d", str(seconds),
                                 "--hogs", str(hogs))
        host = vmstat_oom_kills() - before
        check(w["name"] == "stat-reader" and w["reads"] > 0 and w["stopped_by"] is None and
              w["options"]["hogs"] == hogs and w["options"]["files"] == "memory.stat",
              "figures: %s" % w)
        check_latency(w)
        kills, started = w["oom_kills"], w["hogs_started"]
        check(0 < kills <= started <= hogs + kills and host == kills,
              "%d OOM kills in the memcg, %d on the host, %d hogs started" % (
                  kills, host, started))
        left = load_cgroups()
        check(not left, "left behind: %s" % left)
        if not summary.get("memcg_decisions"):
            raise Skip("no memcg:memcg_flush_stats here: %d reads, %d OOM kills" % (
                w["reads"], kills))
        # the hogs (rstatlat-hog) ask too, in reclaim and OOM kills
        asked = [row["memcg_decisions"]["asked"] for _, row in own_rows(summary)]
        check(asked == [w["reads"]], "asked by the load's process %s, it read %d times" % (
            asked, w["reads"]))
        return "%d reads of %s's memory.stat, p50 %d ns; %d OOM kills (host %d), %d hogs " \
            "started" % (w["reads"], w["hierarchy"], w["read_ns"]["p50"], kills, host, started)

    @test
    def load_reads_cgroups_that_are_there():
        """hammer --in DIR and poller --below DIR read existing cgroups as
        they are: under rstatlat -p, the load's process flushes DIR exactly
        threads x reads times (hammer), and each cgroup below DIR exactly
        once a round (poller, 1 MiB written between rounds); both run as
        nobody (no root needed); nothing is made in, moved into or removed
        from the tree; a DIR that is not a cgroup's, or has no cgroup below
        it, is one line and exit 3, and --in with --cgroups exit 2."""
        if "v2" not in MOUNTS:
            raise Skip("cgroup v2 is not mounted")

        def tree(top):
            return sorted((d, sorted(open(os.path.join(d, "cgroup.procs")).read().split()))
                          for d, _, _ in os.walk(top))

        def flushes_of(summary, cg):
            path = "/" + os.path.relpath(cg.path, MOUNTS["v2"])
            return sum(r["flush_ns"]["count"] for r in summary["processes"]
                       if r["comm"] == "rstatlat" and r["cgroup"]["path"] == path)

        with Cgroup(MOUNTS["v2"]) as top:
            kids = [Cgroup(top.path, "k%d" % i).__enter__() for i in range(3)]
            try:
                before = tree(top.path)
                w, summary = traced_load("hammer", "--in", kids[0].path, "--threads", "2",
                                         "--reads", "1500")
                check(w["reads"] == 3000 and w["hierarchy"] == "v2" and w["options"] == {
                    "threads": 2, "reads": 1500, "in": kids[0].path, "files": "cpu.stat"},
                      "hammer --in: %s" % w)
                check_latency(w)
                got = flushes_of(summary, kids[0])
                check(got == 3000, "hammer --in: %d flushes of %s by the load, 3000 reads" % (
                    got, kids[0].name))
                w, summary = traced_load("poller", "--below", top.path, "--interval", "20ms",
                                         "-d", "1", "--file", "cpu.stat", "--touch", "1M")
                rounds = w["rounds"]
                check(rounds > 0 and w["reads"] == rounds * 3 and w["options"]["cgroups"] == 3 and
                      w["options"]["below"] == top.path and w["options"]["touch"] == 1 << 20,
                      "poller --below: %s" % w)
                got = [flushes_of(summary, k) for k in kids]
                check(got == [rounds] * 3, "poller --below: flushes %s, %d rounds" % (got, rounds))
                nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
                for args in (["hammer", "--in", kids[1].path, "--threads", "1", "--reads", "100"],
                             ["poller", "--below", top.path, "--file", "cpu.stat", "-d", "100ms"]):
                    r = subprocess.run(nobody + [BIN, "load"] + args + ["-j"],
                                       capture_output=True, timeout=60)
                    check(r.returncode == 0 and workload_line(r.stdout)["reads"] > 0,
                          "as nobody, %s: rc %d %r" % (args[0], r.returncode, r.stderr[-200:]))
                check(tree(top.path) == before, "the tree changed: %s -> %s" % (
                    before, tree(top.path)))
                for args, code in ((["hammer", "--in", "/tmp"], 3),
                                   (["poller", "--below", kids[2].path], 3),
                                   (["hammer", "--in", kids[0].path, "--cgroups", "2"], 2),
                                   (["hammer", "--in", "k0"], 2)):
                    r = subprocess.run([BIN, "load"] + args, capture_output=True, timeout=30)
                    err = r.stderr.decode()
                    check(r.returncode == code and err.count("\n") == 1 and not r.stdout,
                          "load %s: rc %d, stderr %r" % (args, r.returncode, err))
            finally:
                for k in reversed(kids):
                    k.__exit__(None, None, None)
        return "hammer --in: 3000 reads = flushes; poller --below: %d rounds x 3 = flushes; " \
            "as nobody; tree unchanged" % rounds

    @test
    def load_poller_rounds_are_flushes():
        """`rstatlat -p -j -o F -- rstatlat load poller --cgroups 5`: each
        round reads every container's cpu.stat and memory.stat once, so
        the load's process (comm rstatlat; the containers' tasks are
        rstatlat-box) flushes each container's cpu.stat exactly once a round
        and asks for each memcg's flush exactly once a round (memory.stat:
        v1 twins on a hybrid host); reads = rounds x 5 x 2; all gone after."""
        cgroups = 5
        w, summary = traced_load("poller", "--cgroups", str(cgroups), "--interval", "10ms",
                                 "-d", "2")
        rounds = w["rounds"]
        check(w["name"] == "poller" and rounds > 0 and w["reads"] == rounds * cgroups * 2 and
              0 <= w["rounds_late"] <= rounds and w["stopped_by"] is None and
              w["options"]["files"] == "cpu.stat,memory.stat", "figures: %s" % w)
        check_latency(w)
        check(0 < w["round_ns"]["p50"] <= w["round_ns"]["p99"] <= w["round_ns"]["max"],
              "round latency out of order: %s" % w["round_ns"])
        flushes, asked = {}, {}
        for path, row in own_rows(summary):
            name = path.rpartition("/")[2]
            if row.get("memcg_decisions", {}).get("asked"):
                asked[name] = row["memcg_decisions"]["asked"]
            if not path.startswith("memory:"):
                flushes[name] = row["flush_ns"]["count"]
        want = {"c%d" % i: rounds for i in range(cgroups)}
        twins = any(r["cgroup"]["path"].startswith("memory:") and
                    "/rstatlat-load/" in r["cgroup"]["path"] for r in summary["processes"])
        # with v2's own memcgs one row adds up both files' flushes
        check(flushes == want if twins else
              all(flushes.get(c, 0) >= rounds for c in want),
              "cpu.stat flushes by container %s, %d rounds" % (flushes, rounds))
        if summary.get("memcg_decisions"):
            check(asked == want, "memcg flush requests by container %s, %d rounds" % (
                asked, rounds))
        left = load_cgroups()
        check(not left, "left behind: %s" % left)
        # the deadline ends the sleep between rounds: one round, not a 5 s wait
        r = subprocess.run([BIN, "load", "poller", "--cgroups", "1", "--interval", "5s",
                            "-d", "200ms", "-j"], capture_output=True, timeout=60)
        one = workload_line(r.stdout)
        check(r.returncode == 0 and one["rounds"] == 1 and one["wall_ns"] < 5e9,
              "5 s interval, 200 ms: rc %d, %s" % (r.returncode, one))
        return "%d rounds of %d containers, %d late, round p50 %d ns; flushes and asks %d each" \
            % (rounds, cgroups, w["rounds_late"], w["round_ns"]["p50"], rounds)
