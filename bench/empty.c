// SPDX-License-Identifier: GPL-2.0
/* Loads and attaches the empty programs until SIGINT or SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "empty.skel.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

int main(void)
{
	struct empty_bpf *skel = empty_bpf__open();

	/* memcg:memcg_flush_stats is 6.13+: without it, its twin stays out */
	if (skel && libbpf_find_vmlinux_btf_id("memcg_flush_stats", BPF_TRACE_RAW_TP) < 0)
		bpf_program__set_autoload(skel->progs.empty_memcg_flush_stats, false);
	if (!skel || empty_bpf__load(skel) || empty_bpf__attach(skel)) {
		fprintf(stderr, "empty: cannot load or attach\n");
		empty_bpf__destroy(skel);
		return 3;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "empty: tracing\n");
	while (!exiting)
		pause();
	empty_bpf__destroy(skel);
	return 0;
}
