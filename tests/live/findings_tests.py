# SPDX-License-Identifier: GPL-2.0
"""Live tests of findings (rstatlat(8), FINDINGS): real readers make two
rules fire, with the names they should say, and one reader alone keeps one
silent. test_live.py registers these with its tier:

    import findings_tests
    findings_tests.register(test)
"""
import os
import shutil
import subprocess
import tempfile

from harness import Skip, check
from lib import BIN, Cgroup, Rstatlat, cgroup_mounts, hammer_cmd, json_lines

MOUNTS = cgroup_mounts()
SECONDS = 3


def summary(out):
    reports = json_lines(out)
    check(reports and reports[-1]["type"] == "summary", "no summary: %r" % out[-200:])
    return reports[-1]


def finding(s, fid):
    found = [f for f in s.get("findings", []) if f["id"] == fid]
    check(len(found) <= 1, "%s twice: %s" % (fid, found))
    return found[0] if found else None


def readers(stat, bins, threads):
    """Each of bins (rstatlat under another name) re-reads stat from threads threads."""
    procs = [subprocess.Popen(hammer_cmd(stat, threads, seconds=SECONDS, exe=b),
                              stdout=subprocess.DEVNULL) for b in bins]
    for p in procs:
        check(p.wait(timeout=60) == 0, "a reader failed")


def memcg_reads_skipped():
    """2000 reads of an idle memcg's memory.stat under rstatlat -j: the
    kernel skips nearly every flush they ask for (nothing changed), and
    flushes_skipped says so; where the kernel has no memcg decisions
    (before 6.13) it stays silent."""
    mount = MOUNTS.get("memory") or MOUNTS.get("v2")
    with Cgroup(mount) as mem:
        stat = os.path.join(mem.path, "memory.stat")
        if not os.path.exists(stat):
            return "no memory.stat to read"
        with Rstatlat("-j").start() as tool:
            subprocess.run(hammer_cmd(stat, 1, reads=2000), check=True, capture_output=True,
                           timeout=60)
            rc, out, err = tool.stop()
    check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
    s = summary(out)
    f = finding(s, "flushes_skipped")
    if not s.get("memcg_decisions"):
        check(f is None, "flushes_skipped without memcg decisions: %s" % f)
        return "no memcg decisions on this kernel: silent"
    check(f and f["figures"]["asked"] >= 2000 and f["figures"]["skipped_ppm"] >= 900000,
          "2000 reads of an idle memcg: %s" % f)
    return f["text"]


def register(test):
    @test
    def findings_name_who_fights_and_who_flushes():
        """Under rstatlat -p -j, two readers of one cgroup (copies of
        rstatlat named rslfighta and rslfightb, two threads each) make
        readers_fight fire on that cgroup, naming both; one reader with
        one thread does not. A shell loop of cat reading another cgroup's
        cpu.stat makes who_flushes name cat and cpu.stat in the table of
        the same kind of run, whose findings block keeps within 80
        columns. 2000 reads of an idle memcg's memory.stat make
        flushes_skipped fire (6.13+: memcg decisions)."""
        if "v2" not in MOUNTS:
            raise Skip("cgroup v2 is not mounted")
        with Cgroup(MOUNTS["v2"]) as cg, tempfile.TemporaryDirectory() as d:
            stat = os.path.join(cg.path, "cpu.stat")
            path = "/" + os.path.relpath(cg.path, MOUNTS["v2"])
            bins = [os.path.join(d, n) for n in ("rslfighta", "rslfightb")]
            for b in bins:
                shutil.copy(BIN, b)
            with Rstatlat("-p", "-j").start() as tool:
                readers(stat, bins, 2)
                rc, out, err = tool.stop()
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            fight = finding(summary(out), "readers_fight")
            check(fight and fight["figures"]["cgroup"] == path and
                  fight["figures"].get("processes_waiting", 0) >= 2 and
                  "rslfighta" in fight["text"] and "rslfightb" in fight["text"],
                  "two readers: %s" % fight)
            with Rstatlat("-p", "-j").start() as tool:
                readers(stat, bins[:1], 1)
                rc, out, err = tool.stop()
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            alone = finding(summary(out), "readers_fight")
            check(alone is None, "one reader: %s" % alone)
            loop = 'end=$(($(date +%%s) + %d)); while [ "$(date +%%s)" -lt $end ]; do ' \
                   'cat "$0" > /dev/null; done' % SECONDS
            with Rstatlat("-p").start() as tool:
                subprocess.run(["sh", "-c", loop, stat], check=True, timeout=60)
                rc, out, err = tool.stop()
            check(rc == 0, "rstatlat exited %d: %s" % (rc, err))
            text = out.decode()
            block = text[text.find("findings:"):] if "findings:" in text else ""
            who = [l for l in block.splitlines() if "who_flushes: cat " in l]
            check(who and "cpu.stat" in block, "cat loop: findings block %r" % block)
            wide = [l for l in block.splitlines() if len(l) > 80]  # ASCII names here
            check(not wide, "wider than 80 columns: %s" % wide)
        skipped = memcg_reads_skipped()
        return "%s | %s | %s" % (fight["text"], who[0].strip(), skipped)
