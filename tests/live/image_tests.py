# SPDX-License-Identifier: GPL-2.0
"""Live test of make image (scripts/image): the OCI image made from
nothing, run by Debian's podman with only the capabilities and mounts it
needs, attaches, drops to nobody, serves /metrics, and Debian's Prometheus
scrapes it. test_live.py registers it with its tier:

    import image_tests
    image_tests.register(test)
"""
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time

from harness import Skip, check
from lib import ROOT, Cgroup, cgroup_mounts, read_stat, unique
from export_tests import PROMETHEUS, Prometheus, free_port, need

PODMAN, BUILDAH, RUNC = "/usr/bin/podman", "/usr/bin/buildah", "/usr/sbin/runc"
ARCHIVE = os.path.join(ROOT, "build", "image", "rstatlat-oci.tar")
# What the exporter needs, and why (dist/kubernetes has the same list):
# BPF and PERFMON load and attach its programs, SYS_RESOURCE raises
# RLIMIT_MEMLOCK where a kernel still charges maps to it, SETUID and SETGID
# switch to nobody, SETPCAP drops its bounding set after the switch, and
# DAC_READ_SEARCH and DAC_OVERRIDE read tracefs and /proc/kallsyms.
CAPS = "bpf,perfmon,sys_resource,setuid,setgid,setpcap,dac_read_search,dac_override"
CAP_BPF = 39
RUN_FLAGS = [
    # crun, podman's default runtime, refuses a hybrid cgroup hierarchy
    # ("cgroups in hybrid mode not supported"), which this machine has
    "--runtime", RUNC,
    # podman asks for its own open-files limit (1048576), above this
    # host's hard limit: runc fails ("error setting rlimit type 7:
    # operation not permitted"); both limits are said, as a unit's are
    "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
    # podman's default seccomp profile allows bpf(2) and perf_event_open(2)
    # only with CAP_SYS_ADMIN, which the exporter does without
    "--security-opt", "seccomp=unconfined",
    "--cap-drop", "all", "--cap-add", CAPS,
    # the node's address (a DaemonSet's hostNetwork), its processes (-p,
    # the flushers' names) and its cgroups' paths as the host names them
    "--network", "host", "--pid", "host", "--cgroupns", "host",
    "--read-only",
    # the kernel's BTF, tracefs (not mounted in a container's /sys) and
    # the whole cgroup tree, read-only
    "-v", "/sys/kernel/btf:/sys/kernel/btf:ro",
    "-v", "/sys/kernel/tracing:/sys/kernel/tracing:ro",
    "-v", "/sys/fs/cgroup:/sys/fs/cgroup:ro",
]


def register(test):
    test(image_serves_metrics_to_prometheus)
    test(image_names_host_paths_in_a_private_cgroupns)


def podman(store, *args, timeout=120):
    # a store of the test's own: the host's images and containers are not
    # touched; vfs makes no mount and works on any filesystem
    return subprocess.run(podman_argv(store) + list(args), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=timeout)


def podman_argv(store):
    return [PODMAN, "--root", os.path.join(store, "storage"), "--runroot",
            os.path.join(store, "run"), "--tmpdir", os.path.join(store, "tmp"),
            "--storage-driver", "vfs"]


def seccomp_refusal(store, image):
    """Under podman's default seccomp profile, bpf(2) fails with EPERM:
    rstatlat says so in one line and exits 3, rather than blaming the
    kernel. Returns what it said."""
    flags = [f for f in RUN_FLAGS if f not in ("--security-opt", "seccomp=unconfined")]
    r = podman(store, "run", "--rm", *flags, image, "-d", "1", timeout=60)
    err = r.stderr.decode(errors="replace").strip()
    check(r.returncode == 3 and "bpf(2) is refused here" in err and len(err.splitlines()) == 1,
          "under the default seccomp profile: exit %d, %r" % (r.returncode, err))
    return "exit 3, %r" % err[:60]


def process_serving(port):
    """The pid of the rstatlat that serves port (the host's pid namespace)."""
    want = ("127.0.0.1:%d" % port).encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[0] == b"/rstatlat" and want in argv:
            return int(pid)
    return None


def status_fields(pid):
    with open("/proc/%d/status" % pid) as f:
        return {l.split(":")[0]: l.split(":", 1)[1].split() for l in f}


@contextlib.contextmanager
def loaded_image():
    """make image, loaded into a podman store of the test's own: yields
    (store, image); the store is removed after, with all it holds."""
    r = subprocess.run(["make", "-C", ROOT, "-s", "image"], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=900)
    check(r.returncode == 0, "make image: exit %d %s" % (r.returncode, r.stderr[-600:]))
    store = tempfile.mkdtemp(prefix="rsl-podman-", dir="/var/tmp")
    try:
        r = podman(store, "load", "-q", "-i", ARCHIVE)
        check(r.returncode == 0, "podman load: %s" % r.stderr.decode(errors="replace")[-400:])
        yield store, r.stdout.decode().split()[-1]
    finally:
        podman(store, "rm", "-f", "--all")
        podman(store, "rmi", "-f", "--all")
        shutil.rmtree(store, ignore_errors=True)
        if os.path.exists(store):
            raise Skip("could not remove %s" % store)


def image_serves_metrics_to_prometheus():
    """make image, then the image under podman (runc, nothing but the
    capabilities, mounts and namespaces RUN_FLAGS lists): it attaches, runs
    as nobody with no capability left but CAP_BPF (its maps may grow),
    serves a test cgroup's locks to Prometheus, and stops on SIGTERM with
    exit 0."""
    need(PODMAN, BUILDAH, RUNC, PROMETHEUS)
    name = unique("rsl-image")
    with loaded_image() as (store, image):
        refused = seccomp_refusal(store, image)
        port = free_port()
        with Cgroup(cgroup_mounts()["v2"]) as cg:
            tool = subprocess.Popen(
                podman_argv(store) + ["run", "--rm", "--name", name] + RUN_FLAGS +
                [image, "--prometheus", "127.0.0.1:%d" % port],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                with Prometheus(["127.0.0.1:%d" % port]) as prom:
                    prom.wait_value('up{job="rstatlat"}', lambda v: v == 1, timeout=60,
                                    what="the container serving")
                    read_stat(cg.path + "/cpu.stat", 5)
                    label = '{hierarchy="v2",cgroup="/%s"}' % os.path.basename(cg.path)
                    locks = prom.wait_value("rstatlat_locks_total" + label, lambda v: v >= 5,
                                            timeout=30, what="the test cgroup's locks")
                pid = process_serving(port)
                check(pid, "no /rstatlat serving port %d in the host's processes" % port)
                st = status_fields(pid)
                caps = int(st["CapEff"][0], 16)
                check(st["Uid"] == ["65534"] * 4 and st["Gid"] == ["65534"] * 4,
                      "runs as uid %s gid %s" % (st["Uid"], st["Gid"]))
                check(caps & ~(1 << CAP_BPF) == 0, "capabilities left: %#x" % caps)
            finally:
                stop = podman(store, "stop", "-t", "10", name, timeout=60)
                try:
                    out, err = tool.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    tool.kill()
                    out, err = tool.communicate()
            check(stop.returncode == 0, "podman stop: %s" % stop.stderr.decode(errors="replace"))
            check(tool.returncode == 0, "the container exited %d: %s" % (
                tool.returncode, err.decode(errors="replace")[-600:]))
        return "%.1f MB archive; %d locks of the test cgroup scraped; uid 65534, CapEff %#x; " \
               "SIGTERM: exit 0; under podman's seccomp profile: %s" % (
                   os.path.getsize(ARCHIVE) / 1e6, locks, caps, refused)


def image_names_host_paths_in_a_private_cgroupns():
    """Kubernetes gives a pod a cgroup namespace of its own (cgroup v2), and
    a DaemonSet cannot ask for the host's: run so, the image still names a
    container-like cgroup (a pod slice and a 64-hex scope) by the host's
    whole path, as it does with the host's namespace."""
    need(PODMAN, BUILDAH, RUNC)
    flags = list(RUN_FLAGS)
    flags[flags.index("--cgroupns") + 1] = "private"
    with loaded_image() as (store, image):
        with Cgroup(cgroup_mounts()["v2"], unique("rsl-pod")) as pod, \
                Cgroup(pod.path, "cri-containerd-%s.scope" % ("5e" * 32)) as ctr:
            tool = subprocess.Popen(podman_argv(store) + ["run", "--rm"] + flags +
                                    [image, "-j", "-d", "4"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                # reads until the run ends: whenever it attached, some come after
                while tool.poll() is None:
                    read_stat(ctr.path + "/cpu.stat", 5)
                    time.sleep(0.2)
                out, err = tool.communicate(timeout=30)
            finally:
                if tool.poll() is None:
                    tool.kill()
                    tool.communicate()
            want = "/%s/%s" % (os.path.basename(pod.path), os.path.basename(ctr.path))
            check(tool.returncode == 0, "the container exited %d: %s" % (
                tool.returncode, err.decode(errors="replace")[-600:]))
            summary = [json.loads(l) for l in out.decode().splitlines() if l.strip()][-1]
            paths = [c["path"] for c in summary["cgroups"]]
            check(want in paths, "want %s among %s" % (want, [p for p in paths if "rsl-pod" in p]))
    return "%s named whole (%d bytes) from a private cgroup namespace" % (want[:24] + "...",
                                                                         len(want))
