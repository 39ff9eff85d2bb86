// SPDX-License-Identifier: GPL-2.0
/* Loads and attaches the floor program until SIGINT or SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "floor.skel.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

int main(void)
{
	struct floor_bpf *skel = floor_bpf__open_and_load();

	if (!skel || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load or attach\n");
		floor_bpf__destroy(skel);
		return 3;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "floor: tracing\n");
	while (!exiting)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
