// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat load's readers: threads that re-read a stat file of the
 * workload's cgroups, each read timed with the monotonic clock into
 * hist.h's buckets. They begin together (a barrier) and stop at their
 * count, their deadline or a signal; signals are taken by the calling
 * thread alone (sigtimedwait, the readers only see a flag), which also
 * restarts the hogs the OOM killer took.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "load_int.h"

#define READ_BUF	(64 << 10)	/* memory.stat of a big memcg is ~6 KiB */
#define TEND_MS		10		/* how often hogs are reaped and signals looked at */
#define STOP_SLICE_NS	(50 * 1000000ULL)	/* a poller asleep sees a stop within it */

/* Latencies as a reader keeps them: nothing allocated between its reads. */
struct timings {
	uint64_t hist[HIST_BUCKETS];
	uint64_t sum, max;
};

struct reader {
	pthread_t thread;
	int index;
	const struct read_job *job;
	long done;
	int err;		/* errno of a failed open or read, 0 if none */
	bool open_failed;	/* ... and which */
	struct timings read;
	struct timings round;	/* poller */
	long rounds, rounds_late;
	uint64_t start_ns, end_ns;	/* its reads began and ended */
	uint64_t until_ns;		/* duration: when they end */
};

static atomic_bool stop;
static atomic_int readers_left;
static pthread_barrier_t go;

static int open_all(const struct read_job *job, int *fds)
{
	char path[PATH_MAX + NAME_MAX + 2];

	for (int i = 0; i < job->cg->n; i++) {
		for (int f = 0; f < job->nfiles; f++) {
			snprintf(path, sizeof(path), "%s/%s", load_dir_of(job->cg, i, job->files[f]),
				 job->files[f]);
			fds[i * job->nfiles + f] = open(path, O_RDONLY | O_CLOEXEC);
			if (fds[i * job->nfiles + f] < 0)
				return -errno;
		}
	}
	return 0;
}

static bool more(const struct reader *r, long k)
{
	if (r->err || atomic_load_explicit(&stop, memory_order_relaxed))
		return false;
	return r->job->reads ? k < r->job->reads : clock_ns(CLOCK_MONOTONIC) < r->until_ns;
}

static void timed(struct timings *t, uint64_t took)
{
	t->hist[hist_bucket(took)]++;
	t->sum += took;
	if (took > t->max)
		t->max = took;
}

/* One timed read; false when it failed (r->err). */
static bool read_one(struct reader *r, int fd, char *buf)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	if (pread(fd, buf, READ_BUF, 0) < 0) {
		r->err = errno;
		return false;
	}
	timed(&r->read, clock_ns(CLOCK_MONOTONIC) - t0);
	r->done++;
	return true;
}

/* Reads its share: thread t starts at file t and goes round them. */
static void read_loop(struct reader *r, const int *fds, int nfds, char *buf)
{
	for (long k = 0; more(r, k) && read_one(r, fds[(r->index + k) % nfds], buf); k++)
		;
}

/* Sleeps until at (or its end, or a stop), in slices a stop is seen within. */
static void sleep_until(const struct reader *r, uint64_t at)
{
	uint64_t end = r->job->reads || at < r->until_ns ? at : r->until_ns, now;

	while ((now = clock_ns(CLOCK_MONOTONIC)) < end && !atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct timespec ts = ns_timespec(end - now > STOP_SLICE_NS ? now + STOP_SLICE_NS : end);

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/*
 * An agent's other work between its rounds: touch bytes written, so that
 * the next round's flushes find the kernel's data (and a tracer's) out of
 * the cache. The barrier keeps the compiler from dropping the stores.
 */
static void other_work(char *mem, size_t touch, long round)
{
	if (!mem)
		return;
	memset(mem, (int)(round & 0x7f) + 1, touch);
	__asm__ volatile("" : : "r"(mem) : "memory");
}

/* A round every interval, from the start: a late one is not caught up on in a burst. */
static void round_loop(struct reader *r, const int *fds, int nfds, char *buf, char *mem)
{
	uint64_t interval = r->job->interval_ns, next = clock_ns(CLOCK_MONOTONIC);

	for (long k = 0; more(r, k); k++) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC), took;

		for (int i = 0; i < nfds; i++)
			if (!read_one(r, fds[i], buf))
				return;
		took = clock_ns(CLOCK_MONOTONIC) - t0;
		timed(&r->round, took);
		r->rounds++;
		r->rounds_late += took > interval;
		other_work(mem, r->job->touch, k);
		next = next + interval > t0 + took ? next + interval : t0 + took;
		sleep_until(r, next);
	}
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	int n = r->job->cg->n * r->job->nfiles, *fds = malloc((size_t)n * sizeof(int));
	char *buf = malloc(READ_BUF), *mem = r->job->touch ? malloc(r->job->touch) : NULL;

	for (int i = 0; fds && i < n; i++)
		fds[i] = -1;
	r->err = !fds || !buf || (r->job->touch && !mem) ? ENOMEM : -open_all(r->job, fds);
	r->open_failed = r->err != 0;
	pthread_barrier_wait(&go);
	r->start_ns = clock_ns(CLOCK_MONOTONIC);
	r->until_ns = r->start_ns + r->job->duration_ns;
	if (!r->err && r->job->interval_ns)
		round_loop(r, fds, n, buf, mem);
	else if (!r->err)
		read_loop(r, fds, n, buf);
	r->end_ns = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(buf);
	free(mem);
	atomic_fetch_sub(&readers_left, 1);
	return NULL;
}

/* Waits for the readers, taking signals meanwhile; returns the one that stopped them, or 0. */
static int wait_readers(const sigset_t *signals, struct load_cgroups *tend)
{
	struct timespec tick = { 0, TEND_MS * 1000000L };
	int sig = 0, got;

	while (atomic_load(&readers_left) > 0) {
		got = sigtimedwait(signals, NULL, &tick);
		if (got > 0 && !sig) {
			sig = got;
			atomic_store(&stop, true);
		}
		if (tend->nhogs)
			load_hogs_tend(tend, sig != 0);
	}
	return sig;
}

/* t added to d, in hist.h's buckets; -1 out of memory. */
static int timings_fold(struct dist *d, const struct timings *t)
{
	for (unsigned int b = 0; b < HIST_BUCKETS; b++)
		if (dist_add(d, b, t->hist[b]))
			return -1;
	d->sum += t->sum;
	/* a quantile is its bucket's midpoint, never above it */
	d->max = t->max > d->max ? t->max : d->max;
	return 0;
}

/* Folds the readers' figures; returns the first failure's errno (*opening: at open), or 0. */
static int fold_readers(struct reader *r, int n, struct load_figures *f, bool *opening)
{
	uint64_t start = UINT64_MAX, end = 0;
	int err = 0;

	for (int i = 0; i < n; i++) {
		f->reads += r[i].done;
		start = r[i].start_ns < start ? r[i].start_ns : start;
		end = r[i].end_ns > end ? r[i].end_ns : end;
		f->rounds += r[i].rounds;
		f->rounds_late += r[i].rounds_late;
		if ((timings_fold(&f->lat, &r[i].read) || timings_fold(&f->round, &r[i].round)) &&
		    !err)
			err = ENOMEM;	/* the caller removes the cgroups first */
		if (r[i].err && !err) {
			err = r[i].err;
			*opening = r[i].open_failed;
		}
	}
	f->wall_ns = end > start ? end - start : 0;
	return err;
}

int load_read(const struct read_job *job, int threads, const sigset_t *signals,
	      struct load_figures *f, bool *opening)
{
	struct reader *r = calloc((size_t)threads, sizeof(*r));
	int err;

	*opening = false;
	if (!r)
		return ENOMEM;
	pthread_barrier_init(&go, NULL, (unsigned int)threads + 1);
	atomic_store(&readers_left, threads);
	for (int i = 0; i < threads; i++) {
		r[i] = (struct reader){ .index = i, .job = job };
		err = pthread_create(&r[i].thread, NULL, reader_main, &r[i]);
		if (err) {
			/* the barrier would wait for it forever */
			load_cgroups_remove(job->cg);
			load_die(LOAD_EXIT_ENV, "cannot start thread %d: %s", i, strerror(err));
		}
	}
	pthread_barrier_wait(&go);
	f->signal = wait_readers(signals, job->cg);
	for (int i = 0; i < threads; i++)
		pthread_join(r[i].thread, NULL);
	err = fold_readers(r, threads, f, opening);
	pthread_barrier_destroy(&go);
	free(r);
	return err;
}
