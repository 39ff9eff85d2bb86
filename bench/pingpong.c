// SPDX-License-Identifier: GPL-2.0
/*
 * A context-switch-heavy load for the benchmark: PAIRS pairs of processes,
 * each pair bouncing one byte over two pipes as fast as it can for SECONDS,
 * both processes of pair i pinned to CPU i (mod the CPUs it may run on), so
 * that every round trip is two context switches and nothing else (no
 * wake-up IPI, no idle). -x puts the two of a pair on different CPUs
 * instead: every wake-up is then a cross-CPU one (IPIs, idle entry/exit).
 * Prints round trips per second (all pairs) and the voluntary plus
 * involuntary context switches per round trip, from getrusage.
 *
 *   pingpong [-p PAIRS] [-x] -s SECONDS
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static long switches(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * The echoing side: reads a byte, writes it back, until EOF; leaves its
 * switches from the start of timing on in *res.
 */
static void echo(int in, int out, int cpu, const volatile double *start,
		 volatile double *res)
{
	long sw0 = 0;
	int timing = 0;
	ssize_t n;
	char c;

	pin(cpu);
	while ((n = read(in, &c, 1)) == 1) {
		if (!timing && *start) {
			timing = 1;
			sw0 = switches(RUSAGE_SELF);
		}
		if (write(out, &c, 1) != 1)
			die("write");
	}
	if (n < 0)
		die("read");
	*res = (double)(switches(RUSAGE_SELF) - sw0);
	_exit(0);
}

/*
 * The timing side: warms up, then bounces until the shared deadline, and
 * leaves its round trips, switches and seconds in res[0..2].
 */
static void bounce(int out, int in, int cpu, const volatile double *start,
		   double seconds, volatile double *res)
{
	char c = 'x';
	long trips = 0, sw0;
	double t, end;

	pin(cpu);
	for (int i = 0; i < 1000; i++)
		if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
			die("warm-up");
	while (!*start)
		usleep(100);
	end = *start + seconds;
	sw0 = switches(RUSAGE_SELF);
	for (;;) {
		for (int i = 0; i < 256; i++) {
			if (write(out, &c, 1) != 1)
				die("write");
			if (read(in, &c, 1) != 1)
				die("read");
		}
		trips += 256;
		if ((t = now()) >= end)
			break;
	}
	res[0] = (double)trips;
	res[1] = (double)(switches(RUSAGE_SELF) - sw0);
	res[2] = t - *start;
}

int main(int argc, char **argv)
{
	long pairs = 1, ncpu = 0, cpus[1024];
	double seconds = 0, trips = 0, rate = 0, sw = 0, elapsed = 0;
	volatile double *shm;
	int cross = 0, opt;
	cpu_set_t allowed;
	pid_t *kids;

	while ((opt = getopt(argc, argv, "p:s:x")) != -1) {
		switch (opt) {
		case 'p':
			pairs = atol(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'x':
			cross = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || seconds <= 0 || pairs < 1 || pairs > 512)
		goto usage;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die("sched_getaffinity");
	for (int i = 0; i < CPU_SETSIZE && ncpu < 1024; i++)
		if (CPU_ISSET(i, &allowed))
			cpus[ncpu++] = i;
	if (cross && ncpu < 2) {
		fprintf(stderr, "pingpong: -x needs two CPUs\n");
		return 2;
	}
	/* shm[0]: start time; then four results per pair (see bounce, echo) */
	shm = mmap(NULL, (size_t)(1 + 4 * pairs) * sizeof(double), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap");
	kids = calloc(2 * pairs, sizeof(*kids));
	for (long i = 0; i < pairs; i++) {
		int ping[2], pong[2];
		long a = cpus[(cross ? 2 * i : i) % ncpu];
		long b = cross ? cpus[(2 * i + 1) % ncpu] : a;

		if (pipe(ping) || pipe(pong))
			die("pipe");
		if ((kids[2 * i] = fork()) < 0)
			die("fork");
		if (!kids[2 * i]) {
			close(ping[1]);
			close(pong[0]);
			echo(ping[0], pong[1], (int)b, shm, shm + 4 + 4 * i);
		}
		if ((kids[2 * i + 1] = fork()) < 0)
			die("fork");
		if (!kids[2 * i + 1]) {
			close(ping[0]);
			close(pong[1]);
			bounce(ping[1], pong[0], (int)a, shm, seconds, shm + 1 + 4 * i);
			_exit(0);
		}
		close(ping[0]);
		close(ping[1]);
		close(pong[0]);
		close(pong[1]);
	}
	usleep(100000);		/* all pairs warmed up and waiting */
	shm[0] = now();
	for (long i = 0; i < 2 * pairs; i++) {
		int status;

		if (waitpid(kids[i], &status, 0) < 0)
			die("waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "pingpong: a child failed\n");
			return 2;
		}
	}
	/* each pair's rate over its own time, so exits are not counted */
	for (long i = 0; i < pairs; i++) {
		volatile double *r = shm + 1 + 4 * i;

		trips += r[0];
		sw += r[1] + r[3];
		rate += r[2] > 0 ? r[0] / r[2] : 0;
		elapsed = r[2] > elapsed ? r[2] : elapsed;
	}
	printf("%.0f round trips %.3f s %.0f round trips/s %.2f switches/round trip "
	       "%ld pairs%s\n", trips, elapsed, rate, trips ? sw / trips : 0.0, pairs,
	       cross ? " cross-CPU" : "");
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [-p PAIRS] [-x] -s SECONDS\n");
	return 2;
}
