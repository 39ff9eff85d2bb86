# SPDX-License-Identifier: GPL-2.0
# rstatlat: build with Debian's clang, bpftool and libbpf.

CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
CC ?= cc
ARCH ?= x86
PKG_CONFIG ?= pkg-config

OUT := build
WARN := -Wall -Wextra -Werror
# The user's flags (packagers pass CFLAGS, CPPFLAGS, LDFLAGS on the command
# line) are kept apart from the ones the build needs, so they add, never
# replace (libbpf-tools style).
CFLAGS ?= -O2 -g
# The libraries' flags are asked of pkg-config when a recipe first needs
# them, not when this file is read: `make deps all` installs the packages
# before it compiles (deps runs first, below). Asked once, then kept.
PKGS := libbpf yajl libcap libmicrohttpd libprotobuf-c
# libmicrohttpd is not linked: serve.c opens it only for --prometheus.
LINK_PKGS := libbpf libelf zlib yajl libcap libprotobuf-c
pkg_missing = $(shell for p in $(1); do $(PKG_CONFIG) --exists $$p 2>/dev/null || echo $$p; done)
pkg_flags = $(if $(call pkg_missing,$(1)),$(error missing the development files of: \
	$(call pkg_missing,$(1)); as root, make deps installs them),$(shell $(PKG_CONFIG) $(2) $(1)))
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(call pkg_flags,$(PKGS),--cflags))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $$(call pkg_flags,$(LINK_PKGS),--libs))$(PKG_LIBS)
BUILD_CFLAGS = $(WARN) -D_GNU_SOURCE -Isrc -I$(OUT) -I$(PB_OUT) $(PKG_CFLAGS)
ALL_CFLAGS = $(BUILD_CFLAGS) $(CPPFLAGS) $(CFLAGS)
BUILD_LDLIBS = $(PKG_LIBS) -lm -lpthread
ALL_LDFLAGS = $(LDFLAGS)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) \
	-Ivmlinux/$(ARCH) -Isrc

# -mcpu=v3: atomic fetch-and-add hands out slot numbers (Linux 5.12+).
# Userspace, split by role; main.c is the CLI and lifecycle.
LIB_SRCS := src/report.c src/escape.c src/cgroup.c src/ksym.c src/table.c \
	src/json.c src/fmt.c src/jtree.c src/report_read.c src/report_read_get.c \
	src/report_read_row.c src/report_read_run.c src/stats.c src/compare_build.c \
	src/compare_metric.c src/compare_stats.c src/compare_pair.c src/compare_gate.c \
	src/compare_view.c src/compare_fmt.c src/compare_json.c src/compare_html.c src/compare_mail.c src/probe.c src/prom.c src/prom_track.c src/prom_text.c src/prom_pb.c src/serve.c \
	src/cause.c src/outfile.c src/options.c src/metrics.c src/fold.c src/findings.c
# Only these include the skeleton.
SKEL_SRCS := src/main.c src/attach.c src/emit.c src/collect.c src/collect_ident.c src/collect_read.c src/collect_fold.c src/collect_build.c src/collect_cgroup.c \
	src/collect_cause.c src/collect_flusher.c src/collect_chunks.c
TOOL_SRCS := $(SKEL_SRCS) src/slow.c src/self.c src/compare_cli.c src/privilege.c \
	src/command.c src/load.c src/load_cg.c src/load_read.c src/load_msg.c
# The Prometheus protobuf format (native histograms, prom_pb.c): its schema
# is the one Debian ships with client_model, compiled by protoc-c with the
# well-known Timestamp it imports (libprotobuf-dev).
PROM_PROTO_DIR ?= /usr/share/gocode/src/github.com/prometheus/client_model
PROTO_INCLUDE ?= /usr/include
PROTOC_C ?= protoc-c
PB_OUT := $(OUT)/pb
PB_PROTOS := io/prometheus/client/metrics.proto google/protobuf/timestamp.proto
PB_SRCS := $(PB_PROTOS:%.proto=$(PB_OUT)/%.pb-c.c)
PB_HEADERS := $(PB_SRCS:.c=.h)
LIB_OBJS := $(LIB_SRCS:src/%.c=$(OUT)/%.o) $(PB_SRCS:.c=.o)
TOOL_OBJS := $(TOOL_SRCS:src/%.c=$(OUT)/%.o)
HEADERS := $(wildcard src/*.h)

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(wildcard tests/unit/test_*.c))

.PHONY: all clean vmlinux deps check check-unit check-live check-fuzz check-vm check-lint lint bench install readme static image dist
all: rstatlat

# Every build step needs build/ first, and build/ waits for `deps` when
# it is asked for on the same command line, also under -j.
$(OUT): | $(filter deps,$(MAKECMDGOALS))
	mkdir -p $(OUT) $(OUT)/tests $(OUT)/bench

# The BPF side, one file a concern (src/bpf/rstatlat.bpf.h lists them),
# linked into the one object the skeleton is made from.
# rstatlat.bpf.c, which defines the maps, comes first: Debian's bpftool
# (libbpf 1.1) places maps declared before their definition at offset 0.
BPF_SRCS := src/bpf/rstatlat.bpf.c $(filter-out src/bpf/rstatlat.bpf.c,$(wildcard src/bpf/*.bpf.c))
BPF_PARTS := $(patsubst src/bpf/%.bpf.c,$(OUT)/bpf/%.bpf.o,$(BPF_SRCS))

$(OUT)/bpf/%.bpf.o: src/bpf/%.bpf.c $(wildcard src/bpf/*.h) $(HEADERS) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/rstatlat.bpf.o: $(BPF_PARTS)
	$(BPFTOOL) gen object $@ $^

$(OUT)/rstatlat.skel.h: $(OUT)/rstatlat.bpf.o
	$(BPFTOOL) gen skeleton $< name rstatlat_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/%.o: src/%.c $(HEADERS) | $(OUT)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# One run makes both: metrics.pb-c.h includes timestamp's.
$(PB_SRCS) $(PB_HEADERS) &: | $(OUT)
	@test -f $(PROM_PROTO_DIR)/io/prometheus/client/metrics.proto || { echo "missing \
	$(PROM_PROTO_DIR)/io/prometheus/client/metrics.proto; as root, make deps installs it"; exit 1; }
	mkdir -p $(PB_OUT)
	$(PROTOC_C) --c_out=$(PB_OUT) -I$(PROM_PROTO_DIR) -I$(PROTO_INCLUDE) $(PB_PROTOS)

$(PB_OUT)/%.pb-c.o: $(PB_OUT)/%.pb-c.c $(PB_HEADERS)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/prom_pb.o: $(PB_HEADERS)

$(SKEL_SRCS:src/%.c=$(OUT)/%.o): $(OUT)/rstatlat.skel.h

rstatlat: $(TOOL_OBJS) $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $^ $(BUILD_LDLIBS) $(LDLIBS) -o $@

# One binary for any host (docs/install.md): every library linked in from
# Debian's static archives, and libmicrohttpd built from Debian's source
# without HTTPS (scripts/static-microhttpd says why). Only serve.c (no
# dlopen) and privilege.c (no NSS) are compiled apart; -DRSTATLAT_STATIC.
STATIC_OUT := $(OUT)/static
MHD_STATIC := $(STATIC_OUT)/microhttpd
STATIC_OWN := $(STATIC_OUT)/serve.o $(STATIC_OUT)/privilege.o
STATIC_OBJS := $(filter-out $(OUT)/serve.o $(OUT)/privilege.o,$(TOOL_OBJS) $(LIB_OBJS)) $(STATIC_OWN)
STATIC_LDLIBS := -L$(MHD_STATIC)/lib -lmicrohttpd -l:libbpf.a -l:libelf.a -l:libz.a \
	-l:libyajl_s.a -l:libcap.a -l:libprotobuf-c.a -lm -lpthread

$(MHD_STATIC)/lib/libmicrohttpd.a: scripts/static-microhttpd | $(OUT)
	scripts/static-microhttpd $(MHD_STATIC)

$(STATIC_OWN): $(STATIC_OUT)/%.o: src/%.c $(HEADERS) $(MHD_STATIC)/lib/libmicrohttpd.a
	$(CC) -I$(MHD_STATIC)/include -DRSTATLAT_STATIC $(ALL_CFLAGS) -c $< -o $@

$(STATIC_OUT)/rstatlat: $(STATIC_OBJS)
	$(CC) $(ALL_CFLAGS) -static $(ALL_LDFLAGS) $^ $(STATIC_LDLIBS) $(LDLIBS) -o $@

static: $(STATIC_OUT)/rstatlat
	@ls -l $< | awk '{print "static: " $$NF ", " $$5 " bytes"}'

# A tarball for any x86-64 Linux host (scripts/dist): the static binary,
# stripped, as make install lays it out under /usr/local with the unit,
# the environment file, the man page, the rules, the dashboard and
# dist/kubernetes, with the SHA-256 of each file inside and of the
# tarball beside it. Reproducible: sorted, owned by root, dated by the
# last commit.
DIST_NAME = rstatlat-$(VERSION)-linux-x86_64
dist: $(STATIC_OUT)/rstatlat scripts/dist
	scripts/dist $(DIST_NAME) $(OUT)/dist

# The static binary in an OCI image made from nothing (scripts/image; root).
VERSION = $(shell sed -n 's/^\#define VERSION "\(.*\)"/\1/p' src/main.c)
image: $(STATIC_OUT)/rstatlat scripts/image dist/image/passwd dist/image/group
	mkdir -p $(OUT)/image
	scripts/image $< $(VERSION) $(OUT)/image/rstatlat-oci.tar

# vmlinux.h is generated from the running kernel's BTF and committed, so
# builds do not depend on the build host's kernel.
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h.tmp
	mv vmlinux/$(ARCH)/vmlinux.h.tmp vmlinux/$(ARCH)/vmlinux.h

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS) $(HEADERS) $(wildcard tests/unit/*.h) | $(OUT)
	$(CC) $(ALL_CFLAGS) -DTEST_OUT='"$(OUT)"' $(ALL_LDFLAGS) $< $(LIB_OBJS) \
		$(BUILD_LDLIBS) $(LDLIBS) -o $@

# test_probe reads the BTF samples of tests/data, compiled by clang as the
# kernel's would be, and the BPF object, whose sections the table must name.
BTF_SAMPLES := $(patsubst tests/data/%.c,$(OUT)/tests/data/%.o,$(wildcard tests/data/btf_*.c))

$(OUT)/tests/data/%.o: tests/data/%.c | $(OUT)
	mkdir -p $(OUT)/tests/data
	$(CLANG) -g -target bpf -c $< -o $@

$(OUT)/tests/test_probe: $(BTF_SAMPLES) $(OUT)/rstatlat.bpf.o

# Style and static checks (scripts/lint/run; docs/hacking.md): clang-format
# on the lines changed since LINT_BASE (default HEAD~1), clang-tidy and
# cppcheck on the userspace sources. The lint tier runs it in CI.
lint: $(OUT)/rstatlat.skel.h
	scripts/lint/run

check-lint: $(OUT)/rstatlat.skel.h
	tests/lint/run

check-unit: $(UNIT_TESTS)
	tests/run-unit $(UNIT_TESTS)

check-live: rstatlat
	tests/live/run

# Every tier, closing with one tally (README's test command runs this).
check: rstatlat $(UNIT_TESTS)
	tests/run-all $(UNIT_TESTS)

# libFuzzer over the JSON reader and compare, with ASan and UBSan. Built
# with clang from the sources, not from the gcc objects.
FUZZ_SRCS := src/report.c src/escape.c src/fmt.c src/report_read.c src/report_read_get.c \
	src/report_read_row.c src/report_read_run.c src/stats.c \
	src/compare_build.c src/compare_metric.c src/compare_stats.c src/compare_pair.c src/compare_gate.c \
	src/compare_view.c src/compare_fmt.c src/compare_json.c src/compare_html.c src/compare_mail.c src/json.c src/table.c src/metrics.c \
	src/jtree.c src/findings.c
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

$(OUT)/fuzz/fuzz_report_read: tests/fuzz/fuzz_report_read.c $(FUZZ_SRCS) $(HEADERS)
	mkdir -p $(OUT)/fuzz
	$(CLANG) $(FUZZ_FLAGS) $(WARN) -D_GNU_SOURCE -Isrc $< $(FUZZ_SRCS) \
		$(shell $(PKG_CONFIG) --libs yajl) -lm -o $@

check-fuzz:
	tests/run-fuzz

# Other kernels under QEMU (tests/vm/run says which and why any is skipped).
check-vm: rstatlat
	tests/vm/run

# Installs from Debian's archive what the other goals on the command line
# need and is missing: `make deps all` what building and running need,
# `make deps check` (or `make deps` alone) what the tests need too.
DEPS_SET := $(if $(filter-out deps all rstatlat install clean vmlinux static image,$(MAKECMDGOALS)),test,\
	$(if $(filter image,$(MAKECMDGOALS)),image,$(if $(filter static,$(MAKECMDGOALS)),static,\
	$(if $(filter-out deps,$(MAKECMDGOALS)),build,test))))
deps:
	scripts/install-deps $(DEPS_SET)

clean:
	rm -rf $(OUT) rstatlat

$(OUT)/bench/floor.bpf.o: bench/floor.bpf.c vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/bench/floor.skel.h: $(OUT)/bench/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/bench/floor: bench/floor.c $(OUT)/bench/floor.skel.h
	$(CC) $(ALL_CFLAGS) -I$(OUT)/bench $(ALL_LDFLAGS) $< $(BUILD_LDLIBS) $(LDLIBS) -o $@

$(OUT)/bench/empty.bpf.o: bench/empty.bpf.c vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/bench/empty.skel.h: $(OUT)/bench/empty.bpf.o
	$(BPFTOOL) gen skeleton $< name empty_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/bench/empty: bench/empty.c $(OUT)/bench/empty.skel.h
	$(CC) $(ALL_CFLAGS) -I$(OUT)/bench $(ALL_LDFLAGS) $< $(BUILD_LDLIBS) $(LDLIBS) -o $@

$(OUT)/bench/render: bench/render.c $(LIB_OBJS) $(HEADERS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< $(LIB_OBJS) $(BUILD_LDLIBS) $(LDLIBS) -o $@

$(OUT)/bench/pingpong: bench/pingpong.c | $(OUT)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< -o $@

BENCH_BINS := rstatlat $(OUT)/bench/floor $(OUT)/bench/render $(OUT)/bench/pingpong \
	$(OUT)/bench/empty

# Overhead benchmark (root): numbers for docs/performance.md, not a test.
# BENCH_ARGS go to bench/run, e.g. BENCH_ARGS="--against 45bcce6".
BENCH_ARGS ?=
# README's generated block (compare -f mail on tests/data); tests/cli checks it is current
readme: $(BIN)
	python3 tests/cli/readme.py

bench: $(BENCH_BINS)
	scripts/install-deps bench
	python3 bench/run $(BENCH_ARGS)

# The exporter for SOAK_SECONDS under churn, scrapes and an OOM loop
# (root): exits 0 only when nothing grows, goes back or is lost (bench/soak --help).
SOAK_SECONDS ?= 600
soak: rstatlat
	python3 bench/soak $(SOAK_SECONDS)

# Installation: `make install`, as root, or with DESTDIR for a package.
# PREFIX, and each directory on its own, can be set on the command line.
# The environment file the unit reads goes to $(SYSCONFDIR)/default, and
# SYSCONFDIR is /etc even under PREFIX=/usr/local (Debian's convention;
# configuration is not kept under a prefix). The unit is generated from
# dist/rstatlat.service.in with the installed paths in it. Debian's
# debhelper (bookworm) finds units only in /lib/systemd/system: debian/rules
# passes SYSTEMDUNITDIR=/lib/systemd/system.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
# the Prometheus alerting rules and the Grafana dashboard, for the fleet's servers
DATADIR ?= $(PREFIX)/share/rstatlat
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
ENVFILE = $(SYSCONFDIR)/default/rstatlat
INSTALL ?= install
# the binary installed: make dist installs the static one
INSTALL_BIN ?= rstatlat

install: $(INSTALL_BIN) dist/rstatlat.service.in dist/rstatlat.default dist/rstatlat.rules.yml \
		dist/rstatlat.dashboard.json | $(OUT)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@ENVFILE@|$(ENVFILE)|g' \
		dist/rstatlat.service.in > $(OUT)/rstatlat.service
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(dir $(ENVFILE)) $(DESTDIR)$(DATADIR)
	$(INSTALL) -m 0755 $(INSTALL_BIN) $(DESTDIR)$(SBINDIR)/rstatlat
	$(INSTALL) -m 0644 man/rstatlat.8 $(DESTDIR)$(MANDIR)/man8/rstatlat.8
	$(INSTALL) -m 0644 $(OUT)/rstatlat.service $(DESTDIR)$(SYSTEMDUNITDIR)/rstatlat.service
	$(INSTALL) -m 0644 dist/rstatlat.default $(DESTDIR)$(ENVFILE)
	$(INSTALL) -m 0644 dist/rstatlat.rules.yml dist/rstatlat.dashboard.json $(DESTDIR)$(DATADIR)
