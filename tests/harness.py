# SPDX-License-Identifier: GPL-2.0
"""The tiny harness the Python tiers share (cli, live, the VM guest): a
test registry, check(), Skip, and a runner that prints one line per test
and the tier's tally 'TIER: N passed, N failed, N skipped'; env() and
tail() for the tiers that run make and other tools (install, fresh)."""
import os
import sys
import time
import traceback


class Skip(Exception):
    pass


class Tier:
    def __init__(self, name, after=None):
        """after(): called after every test, passed or not (cleanup)."""
        self.name = name
        self.tests = []
        self.after = after

    def test(self, fn):
        self.tests.append(fn)
        return fn

    def skip_all(self, why):
        print("%s: skipped: %s" % (self.name, why))
        print("%s: 0 passed, 0 failed, %d skipped" % (self.name, len(self.tests)))
        return 0

    def run(self, only=()):
        """Runs the tests, or those named in only, in its order (a name given
        n times runs n times: the 20 runs alone of a new test, one boot for
        a VM's); returns the exit status."""
        passed = failed = skipped = 0
        by_name = {t.__name__: t for t in self.tests}
        unknown = [n for n in only if n not in by_name]
        if unknown:
            print("%s: no test named %s" % (self.name, ", ".join(unknown)))
            return 2
        for t in [by_name[n] for n in only] if only else self.tests:
            start = time.time()
            try:
                detail = t()
                passed += 1
                print("PASS %-40s %5.1fs  %s" % (t.__name__, time.time() - start, detail or ""))
            except Skip as e:
                skipped += 1
                print("SKIP %-40s %s" % (t.__name__, e))
            except Exception as e:  # noqa: BLE001 - report and go on
                failed += 1
                print("FAIL %-40s %s" % (t.__name__, e))
                if not isinstance(e, AssertionError):
                    traceback.print_exc(file=sys.stdout)
            finally:
                if self.after:
                    self.after()
            sys.stdout.flush()
        print("%s: %d passed, %d failed, %d skipped" % (self.name, passed, failed, skipped))
        return 1 if failed else 0


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def env():
    """The caller's environment without what a parent make passes down
    (`make check PREFIX=...` would reach our sub-makes through MAKEFLAGS)."""
    e = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    e["LC_ALL"] = "C"
    return e


def tail(text, n=25):
    """The last n lines of a tool's output, for a failure message."""
    return "\n".join(text.rstrip().splitlines()[-n:])
