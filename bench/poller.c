// SPDX-License-Identifier: GPL-2.0
/*
 * A monitoring agent's cold reads: each FILE (cpu.stat of one cgroup, say)
 * is read once every INTERVAL ms, one after the other, and EVICT MiB of
 * memory are written between two rounds, as an agent's other work would,
 * so that each round's flushes find the kernel's and the tracer's data
 * out of the cache, and each cgroup's its own. Prints the reads and the
 * median and 90th percentile of read(2)'s latency.
 *
 *   poller -i INTERVAL_MS -s SECONDS -e EVICT_MIB FILE...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static __u_long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u_long)ts.tv_sec * 1000000000UL + (__u_long)ts.tv_nsec;
}

static void sleep_until(__u_long t)
{
	struct timespec ts = { (time_t)(t / 1000000000UL), (long)(t % 1000000000UL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmp_ulong(const void *a, const void *b)
{
	__u_long x = *(const __u_long *)a, y = *(const __u_long *)b;

	return x < y ? -1 : x > y;
}

/* Writes a line of every page and cache line of buf: the caches hold the agent's work. */
static void evict(volatile char *buf, size_t len, unsigned round)
{
	for (size_t i = 0; i < len; i += 64)
		buf[i] = (char)(i + round);
}

static void usage(void)
{
	fprintf(stderr, "usage: poller -i INTERVAL_MS -s SECONDS -e EVICT_MIB FILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double interval_ms = 0, seconds = 0, evict_mib = -1;
	__u_long *lat, start, step, next;
	size_t n, max, len;
	char data[8192], *buf;
	int opt, *fds;

	while ((opt = getopt(argc, argv, "i:s:e:")) != -1) {
		if (opt == 'i')
			interval_ms = atof(optarg);
		else if (opt == 's')
			seconds = atof(optarg);
		else if (opt == 'e')
			evict_mib = atof(optarg);
		else
			usage();
	}
	if (optind >= argc || interval_ms <= 0 || seconds <= 0 || evict_mib < 0)
		usage();
	n = (size_t)(argc - optind);
	fds = calloc(n, sizeof(*fds));
	for (size_t i = 0; i < n; i++) {
		fds[i] = open(argv[optind + i], O_RDONLY);
		if (fds[i] < 0) {
			fprintf(stderr, "poller: %s: %s\n", argv[optind + i], strerror(errno));
			return 2;
		}
	}
	len = (size_t)(evict_mib * 1048576);
	buf = len ? malloc(len) : NULL;
	if (len && !buf) {
		fprintf(stderr, "poller: out of memory\n");
		return 2;
	}
	max = (size_t)(seconds * 1000 / interval_ms + 1) * n;
	lat = calloc(max, sizeof(*lat));
	step = (__u_long)(interval_ms * 1e6);
	start = now_ns();
	next = start;
	size_t reads = 0;

	for (unsigned round = 0; reads + n <= max && now_ns() - start < seconds * 1e9; round++) {
		if (buf)
			evict(buf, len, round);
		next += step;
		sleep_until(next);
		for (size_t i = 0; i < n; i++) {
			__u_long t0 = now_ns();

			if (pread(fds[i], data, sizeof(data), 0) < 0) {
				fprintf(stderr, "poller: %s: %s\n", argv[optind + i], strerror(errno));
				return 2;
			}
			lat[reads++] = now_ns() - t0;
		}
	}
	if (!reads) {
		fprintf(stderr, "poller: no read in %.1f s\n", seconds);
		return 1;
	}
	qsort(lat, reads, sizeof(*lat), cmp_ulong);
	printf("%zu reads median %lu ns p90 %lu ns\n", reads, lat[reads / 2], lat[reads * 9 / 10]);
	return 0;
}
