# SPDX-License-Identifier: GPL-2.0
"""Helpers for live tests: real cgroups, real flushes, ftrace as ground truth.

Every cgroup made here has a unique name and is removed afterwards; nothing
touches cgroups it did not create.
"""
import json
import math
import re
import os
import select
import signal
import subprocess
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from harness import check  # noqa: E402
BIN = os.environ.get("RSTATLAT", os.path.join(ROOT, "rstatlat"))
TRACEFS = "/sys/kernel/tracing"
PY = sys.executable


def mount_tracefs():
    """Mounts tracefs where it is not yet (ftrace's ground truth, and what
    bpftrace resolves tracepoints through)."""
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)


def cgroup_mounts():
    """{'v2': path, 'memory': path, ...} from mountinfo."""
    mounts = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            mnt, fstype, opts = fields[4], rfields[0], rfields[2]
            if fstype == "cgroup2":
                mounts.setdefault("v2", mnt)
            elif fstype == "cgroup":
                for o in opts.split(","):
                    mounts.setdefault(o, mnt)
    return mounts


def realtime():
    """Whether the kernel says it is PREEMPT_RT: /sys/kernel/realtime (the RT
    patches and 6.12-6.x), else its version string, as 7.x has no such
    file ("#1 SMP PREEMPT_RT Debian 7.3.4-1~bpo13+1")."""
    try:
        with open("/sys/kernel/realtime") as f:
            return f.read().strip() == "1"
    except OSError:
        return "PREEMPT_RT" in os.uname().version.split()


def unique(prefix="rsl-test"):
    return "%s-%d-%s" % (prefix, os.getpid(), uuid.uuid4().hex[:8])


class Cgroup:
    """A cgroup this test owns, with the processes it starts inside."""

    def __init__(self, mount, name=None):
        self.name = name or unique()
        self.path = os.path.join(mount, self.name)
        self.procs = []

    def __enter__(self):
        os.mkdir(self.path)
        self.id = os.stat(self.path).st_ino  # kernfs ino == cgroup id on 64-bit
        return self

    def spawn(self, code, *args):
        """Starts a python process that moves itself in here, then runs code
        (with args in sys.argv[1:])."""
        pre = "open(%r,'w').write(str(__import__('os').getpid()))\n" % os.path.join(
            self.path, "cgroup.procs")
        p = subprocess.Popen([PY, "-c", pre + code] + list(args))
        self.procs.append(p)
        return p

    def wait_populated(self, n, timeout=5):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                if len(f.read().split()) >= n:
                    return
            time.sleep(0.02)
        raise RuntimeError("processes did not join %s" % self.path)

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
        for _ in range(100):  # the kernel needs a moment after the last exit
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.05)
        os.rmdir(self.path)


def hammer_cmd(path, threads=1, reads=None, seconds=None, exe=BIN):
    """`rstatlat load hammer` re-reading the stat file at path (its cgroup
    as it is, --in) from threads threads, reads times each or for seconds:
    a tight C loop, as an interpreter between reads leaves the probe paths
    cold and skews the first hold. exe: rstatlat under another name, for
    a comm of its own."""
    return [exe, "load", "hammer", "--in", os.path.dirname(path), "--file",
            os.path.basename(path), "--threads", str(threads)] + \
        (["--reads", str(reads)] if reads else ["-d", str(seconds)])


def reader(path, count, threads=1, timeout=120):
    """Re-reads a stat file count times from each of threads threads (hammer_cmd)."""
    subprocess.run(hammer_cmd(path, threads, reads=count), check=True, capture_output=True,
                   timeout=timeout)


def poller_cmd(parent, interval, seconds, touch="0", file="cpu.stat"):
    """`rstatlat load poller` over the cgroups below parent (--below): file
    of each once every interval, touch written between rounds."""
    return [BIN, "load", "poller", "--below", parent, "--interval", interval, "-d", seconds,
            "--file", file, "--touch", touch]


def read_stat(path, times):
    for _ in range(times):
        with open(path) as f:
            f.read()


BUSY = "while True: pass\n"
# mmap/munmap so every round charges and uncharges fresh pages (glibc would
# otherwise keep reusing the same heap memory and the memcg would go quiet).
MEMHOG = ("import mmap\n"
          "while True:\n"
          "    m = mmap.mmap(-1, 4 << 20)\n"
          "    m[::4096] = b'x' * (1024)\n"
          "    m.close()\n")
# Sleeps and wakes, so each CPU it runs on has fresh stats to flush.
TICKER = ("import time\n"
          "while True:\n"
          "    time.sleep(0.0005)\n")


class Ftrace:
    """A private tracefs instance recording some events (by default every
    rstat lock event), the ground truth of the live and VM tiers.

    No event filter: a filter makes ftrace stage each event and take its
    timestamp late, at commit, which moves its window relative to ours.
    The trace is read twice, in raw mode for ns timestamps (CLOCK_MONOTONIC,
    as bpf_ktime_get_ns) and formatted for the fields, and zipped.
    """
    RSTAT = ("cgroup/cgroup_rstat_lock_contended", "cgroup/cgroup_rstat_locked",
             "cgroup/cgroup_rstat_unlock")
    FIELDS = re.compile(r"(cgroup_rstat_\w+): root=(-?\d+) id=(\d+) level=\d+ cpu=(-?\d+)")

    def __init__(self, events=RSTAT, buffer_kb=16384, later=()):
        """later: those of events not enabled on entry but by enable_later()."""
        self.dir = os.path.join(TRACEFS, "instances", unique("rsl-ftrace"))
        self.events, self.buffer_kb = events, buffer_kb
        self.later = tuple(later)
        self.overrun = 0

    def _w(self, rel, val):
        with open(os.path.join(self.dir, rel), "w") as f:
            f.write(val)

    def _lines(self):
        with open(os.path.join(self.dir, "trace")) as f:
            return [l for l in f if not l.startswith("#")]

    def _enable(self, on, events=None):
        for ev in self.events if events is None else events:
            try:
                self._w("events/%s/enable" % ev, "1" if on else "0")
            except OSError:
                if on:
                    raise

    def __enter__(self):
        os.mkdir(self.dir)
        try:
            self._w("trace_clock", "mono")
            self._w("buffer_size_kb", str(self.buffer_kb))
            self._enable(True, [e for e in self.events if e not in self.later])
        except BaseException:
            self.__exit__()
            raise
        return self

    def enable_later(self):
        self._enable(True, self.later)

    def stop_lines(self):
        """Stops recording; returns [(pid, cpu, ts, formatted line)] and sets
        self.overrun (events lost to a full buffer)."""
        self._enable(False)
        self._w("options/raw", "1")
        raw = self._lines()
        self._w("options/raw", "0")
        text = self._lines()
        if len(raw) != len(text):
            raise RuntimeError("ftrace changed between reads")
        self.overrun = 0
        for cpu_dir in os.listdir(os.path.join(self.dir, "per_cpu")):
            with open(os.path.join(self.dir, "per_cpu", cpu_dir, "stats")) as f:
                self.overrun += int([l for l in f if l.startswith("overrun")][0].split()[1])
        out = []
        for r, t in zip(raw, text):
            pid, cpu, ts = r.split()[:3]
            out.append((int(pid), int(cpu), int(ts), t))
        return out

    def stop(self):
        """Stops recording; returns rstat records (pid, cpu, ts, event, cgid, lock_cpu)."""
        return self.rstat_recs(self.stop_lines())

    @classmethod
    def rstat_recs(cls, lines):
        """The rstat records among stop_lines()'s."""
        recs = []
        for pid, cpu, ts, t in lines:
            m = cls.FIELDS.search(t)
            if m:
                recs.append((pid, cpu, ts, m.group(1), int(m.group(3)), int(m.group(4))))
        return recs

    def __exit__(self, *exc):
        self._enable(False)
        try:
            os.rmdir(self.dir)
        except OSError:
            pass


# A tracepoint runs its probes in the order they were registered. So the
# order in which ftrace's events and rstatlat are enabled decides whose
# window holds whose: INNER_NONE enables ftrace first at both events (each
# window holds the other's probe at one end); INNER_OURS enables ftrace's
# unlock only after rstatlat attached, so rstatlat's window (its locked
# probe after ftrace's, its unlock probe before) lies inside ftrace's;
# INNER_FTRACE enables ftrace's locked (and contended, where a wait and a
# flush may begin) after rstatlat, the other way round.
INNER_NONE, INNER_OURS, INNER_FTRACE = None, "ours", "ftrace"
LATER = {INNER_NONE: (), INNER_OURS: ("cgroup/cgroup_rstat_unlock",),
         INNER_FTRACE: ("cgroup/cgroup_rstat_lock_contended", "cgroup/cgroup_rstat_locked")}


def nest_gap(inner, ours, theirs):
    """The outer window's length minus the inner one's: never negative
    when the probes ran in the order inner asked for."""
    return theirs - ours if inner == INNER_OURS else ours - theirs


def ftrace_run(action, *args, timeout=30, inner=INNER_NONE):
    """Records ftrace and rstatlat -j around action(); returns (reports, recs).
    inner: whose hold windows lie inside the other's (above)."""
    with Ftrace(later=LATER[inner]) as ft:
        tool = Rstatlat("-j", *args).start(timeout=timeout)
        ft.enable_later()
        action()
        time.sleep(0.2)
        rc, out, err = tool.stop(timeout=timeout)
        recs = ft.stop()
        check(ft.overrun == 0, "ftrace overran its buffer")
    check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
    reports = json_lines(out)
    check(reports and reports[-1]["type"] == "summary", "no summary at exit")
    check(all(r["type"] == "slow" for r in reports[:-1]), "only slow events before it")
    return reports, recs


def pair_holds(recs, cgid, walks_only=False):
    """Pairs locked/unlock of one cgroup on each CPU: irqs are off meanwhile.
    walks_only: only the holds taken with a lock cpu >= 0 (a per-CPU walk's)."""
    pending, holds, by_pid = {}, [], {}
    counts = {"locked": 0, "contended": 0, "unlock": 0}
    for pid, cpu, ts, ev, cg, lock_cpu in recs:
        if cg != cgid:
            continue
        if ev == "cgroup_rstat_locked":
            counts["locked"] += 1
            by_pid[pid] = by_pid.get(pid, 0) + 1
            pending[cpu] = (ts, lock_cpu)
        elif ev == "cgroup_rstat_unlock":
            counts["unlock"] += 1
            if cpu in pending:
                start, locked_cpu = pending.pop(cpu)
                if not walks_only or locked_cpu >= 0:
                    holds.append(ts - start)
        elif ev == "cgroup_rstat_lock_contended":
            counts["contended"] += 1
    return holds, counts, by_pid


def ftrace_flushes(recs, cgid, last_cpu):
    """Whole flushes from ftrace's events: [(duration_ns, holds)] (below)."""
    return [(end - start, holds) for _, start, end, holds in ftrace_flush_windows(recs, cgid,
                                                                                    last_cpu)]


def ftrace_flush_windows(recs, cgid, last_cpu):
    """Whole flushes from ftrace's events, by rstatlat's definition (man
    page, FLUSHp99): per task, from the first acquisition (or the contended
    event before it) to the last release. A flush that began with lock cpu
    -1 ends at the release of -1 (one lock, dropped between CPUs only to
    breathe); one that began with a cpu ends at the release of the last
    possible CPU, and lock cpu -1 right after it, on the same cgroup, is
    cpu.stat reading its totals, not a flush. Returns [(pid, start_ns,
    end_ns, holds)]."""
    open_, walked, flushes, waiting = {}, {}, [], {}
    for pid, _, ts, ev, cg, lock_cpu in recs:
        if cg != cgid:
            continue
        if ev == "cgroup_rstat_lock_contended":
            waiting[pid] = ts
        elif ev == "cgroup_rstat_locked":
            f = open_.get(pid)
            if f and lock_cpu <= f["last"]:
                open_.pop(pid)
            if pid not in open_:
                open_[pid] = {"start": waiting.get(pid, ts), "holds": 0, "whole": lock_cpu < 0,
                              "totals": lock_cpu < 0 and walked.get(pid) == cg}
                walked.pop(pid, None)
            open_[pid]["holds"] += 1
            open_[pid]["last"] = lock_cpu
            waiting.pop(pid, None)
        elif ev == "cgroup_rstat_unlock" and pid in open_:
            f = open_[pid]
            if lock_cpu >= 0 and (lock_cpu < last_cpu or f["whole"]):
                continue
            open_.pop(pid)
            if f["totals"]:
                continue
            if lock_cpu >= 0:
                walked[pid] = cg
            flushes.append((pid, f["start"], ts, f["holds"]))
    return flushes


def last_possible_cpu():
    """The highest possible CPU's number: a cpu.stat flush walks to it."""
    with open("/sys/devices/system/cpu/possible") as f:
        return int(f.read().strip().split("-")[-1].split(",")[-1])


def exact_quantile(values, q):
    """Nearest-rank quantile, the definition rstatlat estimates."""
    s = sorted(values)
    rank = max(1, math.ceil(q * len(s)))
    return s[rank - 1]



def compare(*args):
    """rstatlat compare -f json ARGS: (exit status, the result, stderr)."""
    r = subprocess.run([BIN, "compare", "-f", "json"] + list(args),
                       capture_output=True, timeout=30)
    return r.returncode, (json.loads(r.stdout) if r.stdout else None), r.stderr.decode()

_started = []


def reap():
    """Kills every rstatlat a test started and left running (a test that
    failed before stopping it): it would slow every later test and
    benchmark. The live tier calls it after each test."""
    while _started:
        tool = _started.pop()
        if tool.p.poll() is None:
            tool.p.kill()
            tool.p.communicate()


class Rstatlat:
    """rstatlat running in the background; start() returns once attached."""

    def __init__(self, *args):
        self.args = [BIN] + list(args)

    def start(self, timeout=10):
        self.p = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _started.append(self)
        self.err = b""
        deadline = time.time() + timeout
        while b"tracing" not in self.err:
            left = deadline - time.time()
            if left <= 0 or self.p.poll() is not None:
                out, err = self.p.communicate(timeout=5)
                raise RuntimeError("rstatlat did not attach: rc=%s %s" %
                                   (self.p.returncode, (self.err + err).decode(errors="replace")))
            r, _, _ = select.select([self.p.stderr], [], [], left)
            if r:
                self.err += os.read(self.p.stderr.fileno(), 4096)
        return self

    def stop(self, sig=signal.SIGINT, timeout=20):
        self.p.send_signal(sig)
        out, err = self.p.communicate(timeout=timeout)
        self.err += err
        return self.p.returncode, out, self.err.decode(errors="replace")

    # "with Rstatlat(...).start() as tool": a test that fails before stop()
    # leaves no tracer behind to slow every later test and benchmark.
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.p.poll() is None:
            self.p.kill()
            self.p.communicate()


def bpf_attachments(pid):
    """What process pid's BPF links attach to: tracepoint names (tp_btf,
    raw tracepoints), else the link's type (perf_event, ...); from the
    link ids in /proc/PID/fdinfo and bpftool."""
    ids = set()
    fdinfo = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(fdinfo):
        try:
            with open(os.path.join(fdinfo, fd)) as f:
                m = re.search(r"^link_id:\s+(\d+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m.group(1)))
    links = json.loads(subprocess.run(["bpftool", "-j", "link", "show"], capture_output=True,
                                      check=True).stdout)
    return {l.get("tp_name", l.get("type")) for l in links if l["id"] in ids}


def run(*args, timeout=30, **kw):
    return subprocess.run([BIN] + list(args), capture_output=True, timeout=timeout, **kw)


def json_lines(out):
    return [json.loads(l) for l in out.decode().splitlines() if l.strip()]


def find_cgroup(report, cgid):
    return [c for c in report["cgroups"] if c["id"] == cgid]
