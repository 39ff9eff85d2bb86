# SPDX-License-Identifier: GPL-2.0
"""Live tests of careless and hostile input to the tracer itself: -c
spelled every way a user may spell a cgroup, a --textfile PATH that is
not a regular file or stops being writable, SIGHUP, and a --max-entries
that asks for more kernel memory than the defaults. (The endpoint's are
in export_tests, compare's in the CLI tier.) test_live.py registers
these with its tier:

    import hostile_tests
    hostile_tests.register(test)
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time

from harness import check
from lib import Cgroup, hammer_cmd, Rstatlat, cgroup_mounts, json_lines, run

MOUNTS = cgroup_mounts()


def summary_of(out):
    return [o for o in json_lines(out) if o.get("type") == "summary"][-1]


def register(test):
    @test
    def cgroup_spelled_any_way_is_the_cgroup():
        """-c resolves what it is given to the cgroup: /X/.., /X/./, //X, the
        mount's path with '//', and a symbolic link all trace X's subtree
        (its row, nothing else); one that does not exist is refused (exit 2,
        one line), not traced as nothing."""
        v2 = MOUNTS["v2"]
        with Cgroup(v2) as top, tempfile.TemporaryDirectory() as tmp:
            child = os.path.join(top.path, "c")
            os.mkdir(child)
            link = os.path.join(tmp, "link")
            os.symlink(top.path, link)
            name = "/" + top.name
            spellings = [name, name + "/c/..", name + "/./", "/" + name,
                         v2 + "//" + top.name, link]
            seen = {}
            try:
                for spelling in spellings:
                    with Rstatlat("-j", "-c", spelling).start() as tool:
                        subprocess.run(hammer_cmd(os.path.join(top.path, "cpu.stat"), reads=200),
                                       check=True, capture_output=True, timeout=60)
                        rc, out, err = tool.stop()
                    check(rc == 0, "-c %s: exit %d %s" % (spelling, rc, err))
                    paths = {c["path"] for c in summary_of(out)["cgroups"]}
                    check(name in paths and all(p == name or p.startswith(name + "/")
                                                for p in paths),
                          "-c %s traced %s" % (spelling, sorted(paths)))
                    seen[spelling] = len(paths)
            finally:
                os.rmdir(child)
            for bad in ("/rsl-no-such-%d" % os.getpid(), name + "/cpu.stat",
                        name + "/no/such"):
                r = run("-c", bad, "-d", "1", timeout=20)
                err = r.stderr.decode(errors="replace")
                check(r.returncode == 2 and err.count("\n") == 1 and "bad cgroup" in err,
                      "-c %s: exit %d %r" % (bad, r.returncode, err))
        return "%d spellings traced %s; 3 refused" % (len(seen), name)

    @test
    def textfile_replaces_only_a_regular_file():
        """--textfile over a directory, a FIFO or a device exits 3 with one
        line and leaves it as it was; a textfile that stops being writable
        (its tmpfs full) is said once, and the run that ends with it stale
        exits 1 saying so."""
        with tempfile.TemporaryDirectory() as tmp:
            fifo = os.path.join(tmp, "fifo")
            os.mkfifo(fifo)
            for path, kind in ((tmp, "directory"), (fifo, "FIFO"), ("/dev/null", "device")):
                before = os.stat(path)
                r = run("--textfile", path, "-d", "1", timeout=30)
                err = r.stderr.decode(errors="replace").strip().splitlines()
                after = os.stat(path)
                check(r.returncode == 3 and any("not a regular file" in l for l in err) and
                      (before.st_mode, before.st_ino, before.st_rdev) ==
                      (after.st_mode, after.st_ino, after.st_rdev),
                      "%s: exit %d %s" % (kind, r.returncode, err))
            small = os.path.join(tmp, "small")
            os.mkdir(small)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "rsl-test", small],
                           check=True)
            try:
                prom = os.path.join(small, "rstatlat.prom")
                tool = Rstatlat("--textfile", prom, "--textfile-interval", "0.5", "-d", "4")
                tool.start()
                deadline = time.time() + 10
                while not os.path.exists(prom) and time.time() < deadline:
                    time.sleep(0.1)
                check(os.path.exists(prom), "no textfile written")
                # fill what is left: the next rewrite finds no room
                fd = os.open(os.path.join(small, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
                try:
                    while os.write(fd, b"\0" * 4096):
                        pass
                except OSError:
                    pass
                finally:
                    os.close(fd)
                out, err = tool.p.communicate(timeout=30)
                err = (tool.err + err).decode(errors="replace")
                said = [l for l in err.splitlines() if "cannot rewrite" in l]
                check(tool.p.returncode == 1 and len(said) == 1 and
                      "holds older figures" in err,
                      "a full disk: exit %d, said %d times: %s" % (
                          tool.p.returncode, len(said), err))
            finally:
                subprocess.run(["umount", small], check=True)
        return "directory, FIFO and /dev/null refused untouched; a full tmpfs said once, exit 1"

    @test
    def sighup_ends_the_run_with_its_summary():
        """SIGHUP (a closed terminal) ends a run as SIGTERM does: exit 0
        with the summary written."""
        with Rstatlat("-j").start() as tool:
            time.sleep(0.5)
            rc, out, err = tool.stop(signal.SIGHUP)
        report = summary_of(out)
        check(rc == 0 and report["duration_ns"] > 0, "SIGHUP: exit %d %s" % (rc, err))
        return "exit 0, summary of %.1f s" % (report["duration_ns"] / 1e9)

    @test
    def sighup_reloads_an_exporter():
        """An exporter's SIGHUP (systemctl reload) is a reload, not an end:
        it says so in one line each time and goes on; SIGTERM then ends it
        with its summary and its textfile written."""
        tmp = tempfile.mkdtemp()
        path = os.path.join(tmp, "rstatlat.prom")
        try:
            with Rstatlat("-j", "--textfile", path).start() as tool:
                time.sleep(0.5)
                for _ in range(2):
                    tool.p.send_signal(signal.SIGHUP)
                    time.sleep(0.6)
                alive = tool.p.poll() is None
                rc, out, err = tool.stop(signal.SIGTERM)
            report = summary_of(out)
            said = [l for l in err.splitlines() if "SIGHUP" in l]
            check(alive and rc == 0, "SIGHUP ended the exporter: exit %s %s" % (rc, err))
            check(len(said) == 2 and all(l.startswith("rstatlat: SIGHUP: ") and
                                         "restart to change them" in l for l in said),
                  "SIGHUP lines: %r" % said)
            check(report["duration_ns"] > 1.2e9 and os.path.getsize(path) > 0,
                  "after the reloads: summary of %.1f s, textfile %s" % (
                      report["duration_ns"] / 1e9, os.path.exists(path)))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return "2 reloads said, still serving; SIGTERM: exit 0, summary of %.1f s" % (
            report["duration_ns"] / 1e9)

    @test
    def large_max_entries_says_its_cost_first():
        """--max-entries past the 64 MiB the defaults stay under says, before
        the maps are made, how much kernel memory they grow to with that many
        entries in use: what the summary says of the ceiling, within 20%."""
        r = run("--max-entries", "20000", "-d", "0.5", "-j", timeout=60)
        err = r.stderr.decode(errors="replace")
        said = [l for l in err.splitlines() if "the maps grow with the entries in use" in l]
        report = summary_of(r.stdout)
        mib = report["self"]["map_bytes_ceiling"] / (1 << 20)
        check(r.returncode == 0 and len(said) == 1, "exit %d: %s" % (r.returncode, err))
        stated = float(said[0].split("to about ")[1].split(" MiB")[0])
        check(abs(stated - mib) < 0.2 * mib, "said %.0f MiB, the ceiling is %.0f" % (stated, mib))
        r = run("-d", "0.5", "-j", timeout=60)
        check(r.returncode == 0 and "the maps grow" not in r.stderr.decode(errors="replace"),
              "the defaults said a cost")
        return "said %.0f MiB before making maps of %.0f MiB at the ceiling (%.1f MiB now)" % (
            stated, mib, report["self"]["map_bytes"] / (1 << 20))
