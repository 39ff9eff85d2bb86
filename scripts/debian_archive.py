# SPDX-License-Identifier: GPL-2.0
"""The machine's own Debian archive, as its apt sources name it, and apt
options for a sources list of one's own: what fetches packages, sources
and roots (make static, the VM and fresh tiers) without naming a mirror
in code, so that a host behind a local mirror (most CI) can run them."""
import glob
import os

SOURCES = ["/etc/apt/sources.list"]
SOURCES_DIR = "/etc/apt/sources.list.d"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def _source_lines():
    paths = SOURCES + sorted(glob.glob(os.path.join(SOURCES_DIR, "*.list")) +
                             glob.glob(os.path.join(SOURCES_DIR, "*.sources")))
    for path in paths:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split()
            if words and not words[0].startswith("#"):
                yield words


def archive_url(tail="/debian"):
    """The URL of the machine's Debian archive whose path ends with tail
    (/debian, or /debian-security), from a one-line "deb URL suite" or a
    deb822 "URIs: URL"; comments skipped. None when there is none."""
    for words in _source_lines():
        urls = [w for w in words[1:] if w.startswith("http")]
        if words[0] in ("deb", "deb-src", "URIs:") and urls and \
                urls[0].rstrip("/").endswith(tail):
            return urls[0].rstrip("/")
    return None


def host_suite():
    """The host's Debian suite (bookworm on Debian 12), from os-release."""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("VERSION_CODENAME="):
                    return line.split("=", 1)[1].strip().strip('"') or None
    except OSError:
        pass
    return None


def apt_private(directory, lines):
    """apt options for a sources list of its own in directory (its lists
    and cache there too): the machine's apt state is left as it is. lines:
    the sources.list lines, e.g. "deb-src URL bookworm main"; each is
    signed by Debian's archive keyring."""
    os.makedirs(os.path.join(directory, "lists", "partial"), exist_ok=True)
    with open(os.path.join(directory, "sources.list"), "w") as f:
        for line in lines:
            kind, rest = line.split(None, 1)
            f.write("%s [signed-by=%s] %s\n" % (kind, KEYRING, rest))
    return ["-o", "Dir::Etc::SourceList=" + os.path.join(directory, "sources.list"),
            "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", "Dir::State::Lists=" + os.path.join(directory, "lists"),
            "-o", "Dir::Cache=" + os.path.join(directory, "cache")]
