// SPDX-License-Identifier: GPL-2.0
/*
 * Re-reads a cgroup stat file from N threads, each read a real flush, and
 * prints reads per second. Used by the benchmark and the live tests (a
 * tight loop keeps the probe paths warm, unlike an interpreter).
 *
 *   reader FILE THREADS (-n COUNT | -s SECONDS)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *file;
static long count_per_thread;
static double seconds;
static volatile int stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	long *reads = arg;
	char buf[8192];
	int fd = open(file, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "reader: %s: %s\n", file, strerror(errno));
		exit(2);
	}
	while (!stop && (!count_per_thread || *reads < count_per_thread)) {
		if (lseek(fd, 0, SEEK_SET) < 0 || read(fd, buf, sizeof(buf)) < 0) {
			fprintf(stderr, "reader: %s: %s\n", file, strerror(errno));
			exit(2);
		}
		(*reads)++;
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads, total = 0, *reads;
	pthread_t *tids;
	double start, elapsed;

	if (argc != 5 || (strcmp(argv[3], "-n") && strcmp(argv[3], "-s"))) {
		fprintf(stderr, "usage: reader FILE THREADS (-n COUNT | -s SECONDS)\n");
		return 2;
	}
	file = argv[1];
	threads = atol(argv[2]);
	if (threads < 1 || threads > 1024) {
		fprintf(stderr, "reader: THREADS must be 1..1024\n");
		return 2;
	}
	if (argv[3][1] == 'n')
		count_per_thread = atol(argv[4]);
	else
		seconds = atof(argv[4]);
	if (count_per_thread <= 0 && seconds <= 0) {
		fprintf(stderr, "reader: COUNT or SECONDS must be positive\n");
		return 2;
	}
	tids = calloc(threads, sizeof(*tids));
	reads = calloc(threads, sizeof(*reads));
	start = now();
	for (long i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, worker, &reads[i]);
	if (seconds > 0) {
		struct timespec ts = { (time_t)seconds, (long)((seconds - (long)seconds) * 1e9) };

		nanosleep(&ts, NULL);
		stop = 1;
	}
	for (long i = 0; i < threads; i++) {
		pthread_join(tids[i], NULL);
		total += reads[i];
	}
	elapsed = now() - start;
	printf("%ld reads %.3f s %.0f reads/s\n", total, elapsed, (double)total / elapsed);
	free(tids);
	free(reads);
	return 0;
}
