// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat load: workloads shaped on the experiments behind the rstat
 * lock's changes (docs/load.md), each timing its own reads. The cgroups a
 * workload reads are its own: made below the v2 mount (or below the
 * command's cgroup under `rstatlat -- rstatlat load`) with a unique name,
 * each with a task that runs now and then so that every read finds
 * something to flush, and removed at the end, also after SIGINT, SIGTERM
 * or SIGHUP. Signals are taken by the main thread alone (sigtimedwait):
 * the readers only see a flag.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cgroup.h"
#include "command.h"
#include "escape.h"
#include "fmt.h"
#include "load.h"
#include "report.h"

#define EXIT_READ	1
#define EXIT_USAGE	2
#define EXIT_ENV	3

#define THREADS_MAX	1024
#define CGROUPS_MAX	1000
#define READS_MAX	100000000L
#define READ_BUF	(64 << 10)	/* memory.stat of a big memcg is ~6 KiB */
/* The busy task of each cgroup: runs BUSY_RUN_US every BUSY_PERIOD_US (1%). */
#define BUSY_RUN_US	100
#define BUSY_PERIOD_US	10000
#define RMDIR_TRIES	250	/* 5 s at 20 ms: a killed task leaves its cgroup once reaped */

struct hammer_opts {
	int threads;
	long reads;		/* per thread */
	int cgroups;
	const char *file;
	bool json;
};

/* The cgroups a workload made, and their busy tasks. */
struct load_cgroups {
	char base[PATH_MAX];	/* rstatlat-load-PID, below the v2 mount or the command's cgroup */
	char (*dir)[PATH_MAX];
	pid_t *busy;
	int n;
	bool base_made;
};

struct reader {
	pthread_t thread;
	int index;
	const struct hammer_opts *o;
	const struct load_cgroups *cg;
	long done;
	int err;		/* errno of a failed open or read, 0 if none */
	bool open_failed;	/* ... and which */
	uint64_t hist[HIST_BUCKETS];
	uint64_t max_ns;
	uint64_t start_ns, end_ns;	/* its reads began and ended */
};

static atomic_bool stop;
static atomic_int readers_left;
static pthread_barrier_t go;

static void load_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie("rstatlat load", code, fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- the cgroups ---- */

/* Where the workload's cgroups go: the command's cgroup when it is v2's, else v2's root. */
static int cgroups_base(char *dir, size_t len, char *why, size_t wlen)
{
	const char *command_dir = getenv(COMMAND_CGROUP_ENV);
	struct cg_table t = { 0 };
	const struct cg_hier *v2;

	if (cg_table_load(&t, "/proc/cgroups", "/proc/self/mountinfo", "/proc/self/cgroup")) {
		snprintf(why, wlen, "cannot read the cgroup hierarchies (/proc/self/mountinfo)");
		return -1;
	}
	v2 = cg_hier_find(&t, 0);
	if (!v2 || !v2->mounted) {
		cg_table_free(&t);
		snprintf(why, wlen, "cgroup v2 is not mounted here (cpu.stat is v2's)");
		return -1;
	}
	if (command_dir && !strncmp(command_dir, v2->mount, strlen(v2->mount)))
		snprintf(dir, len, "%s", command_dir);
	else
		snprintf(dir, len, "%s", v2->mount);
	cg_table_free(&t);
	return 0;
}

static int write_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 16], text[24];
	int fd, n, err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = snprintf(text, sizeof(text), "%d", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, (size_t)n) != n)
		err = -errno;
	close(fd);
	return err;
}

/* A task that runs a little and sleeps, so that its cgroup has updates to flush. */
static void busy_task(pid_t parent)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;) {
		uint64_t until = now_ns() + BUSY_RUN_US * 1000ULL;

		while (now_ns() < until)
			;
		sleep_us(BUSY_PERIOD_US - BUSY_RUN_US);
	}
}

static int start_busy(struct load_cgroups *c, int i, char *why, size_t len)
{
	pid_t parent = getpid(), pid = fork();
	int err;

	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid)
		busy_task(parent);
	c->busy[i] = pid;
	err = write_pid(c->dir[i], pid);
	if (err) {
		snprintf(why, len, "cannot move a task into %s: %s", c->dir[i], strerror(-err));
		return -1;
	}
	return 0;
}

/* Removes an empty cgroup: a killed task leaves it only once reaped, so EBUSY is retried. */
static bool remove_dir(const char *dir)
{
	for (int tries = 0; tries < RMDIR_TRIES; tries++) {
		if (!rmdir(dir) || errno == ENOENT)
			return true;
		if (errno != EBUSY)
			return false;
		sleep_us(20000);
	}
	return false;
}

/* Kills the busy tasks and removes the cgroups made. Idempotent; returns -1 if one stays. */
static int cgroups_remove(struct load_cgroups *c)
{
	int left = 0;

	for (int i = 0; i < c->n; i++) {
		if (c->busy[i] > 0) {
			kill(c->busy[i], SIGKILL);
			while (waitpid(c->busy[i], NULL, 0) < 0 && errno == EINTR)
				;
			c->busy[i] = 0;
		}
	}
	for (int i = c->n - 1; i >= 0; i--)
		left += !remove_dir(c->dir[i]);
	c->n = 0;
	if (c->base_made)
		left += !remove_dir(c->base);
	c->base_made = false;
	return left ? -1 : 0;
}

static int cgroups_make(struct load_cgroups *c, int n, char *why, size_t len)
{
	char base[PATH_MAX];

	c->dir = calloc((size_t)n, sizeof(*c->dir));
	c->busy = calloc((size_t)n, sizeof(*c->busy));
	if (!c->dir || !c->busy) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	if (cgroups_base(base, sizeof(base), why, len))
		return -1;
	if ((size_t)snprintf(c->base, sizeof(c->base), "%s/rstatlat-load-%d", base,
			     (int)getpid()) >= sizeof(c->base)) {
		snprintf(why, len, "the cgroup directory %s is too long", base);
		return -1;
	}
	if (mkdir(c->base, 0755)) {
		snprintf(why, len, "cannot make a cgroup in %s: %s", base, strerror(errno));
		return -1;
	}
	c->base_made = true;
	for (int i = 0; i < n; i++) {
		if ((size_t)snprintf(c->dir[i], sizeof(c->dir[i]), "%s/c%d", c->base, i) >=
		    sizeof(c->dir[i])) {
			snprintf(why, len, "the cgroup directory %s is too long", c->base);
			return -1;
		}
		if (mkdir(c->dir[i], 0755)) {
			snprintf(why, len, "cannot make %s: %s", c->dir[i], strerror(errno));
			return -1;
		}
		c->n = i + 1;
		if (start_busy(c, i, why, len))
			return -1;
	}
	return 0;
}

/* ---- hammer ---- */

static int open_all(const struct load_cgroups *cg, const char *file, int *fds)
{
	char path[PATH_MAX + NAME_MAX + 2];

	for (int i = 0; i < cg->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", cg->dir[i], file);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			return -errno;
	}
	return 0;
}

/* Reads its share: thread t starts at cgroup t and goes round them. */
static void *hammer_reader(void *arg)
{
	struct reader *r = arg;
	int n = r->cg->n, *fds = malloc((size_t)n * sizeof(int));
	char *buf = malloc(READ_BUF);

	for (int i = 0; fds && i < n; i++)
		fds[i] = -1;
	if (!fds || !buf)
		r->err = ENOMEM;
	else
		r->err = -open_all(r->cg, r->o->file, fds);
	r->open_failed = r->err != 0;
	pthread_barrier_wait(&go);
	r->start_ns = now_ns();
	for (long k = 0; !r->err && k < r->o->reads && !atomic_load_explicit(&stop,
								    memory_order_relaxed); k++) {
		uint64_t t0 = now_ns(), took;

		if (pread(fds[(r->index + k) % n], buf, READ_BUF, 0) < 0) {
			r->err = errno;
			break;
		}
		took = now_ns() - t0;
		r->hist[hist_bucket(took)]++;
		if (took > r->max_ns)
			r->max_ns = took;
		r->done++;
	}
	r->end_ns = now_ns();
	for (int i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(buf);
	atomic_fetch_sub(&readers_left, 1);
	return NULL;
}

static void hammer_usage(FILE *f)
{
	fprintf(f, "Usage: rstatlat load hammer [--threads N] [--reads K] [--cgroups C] "
		"[--file NAME] [-j]\n"
		"Threads re-reading a stat file of cgroups with busy tasks in them, as the\n"
		"lock-outside-the-loop patch timed (NUM_THREADS=10 NUM_ITER=10000, cpu.stat).\n"
		"  --threads N   reader threads (1-%d, default 10)\n"
		"  --reads K     reads each thread makes (1-%ld, default 10000)\n"
		"  --cgroups C   cgroups made and read in turn (1-%d, default 1)\n"
		"  --file NAME   the stat file read (default cpu.stat, v2's)\n"
		"  -j, --json    the figures as one JSON line\n",
		THREADS_MAX, READS_MAX, CGROUPS_MAX);
}

static long parse_count(const char *what, const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max)
		load_die(EXIT_USAGE, "invalid %s '%s': expected 1 to %ld", what, s, max);
	return v;
}

static void hammer_parse(int argc, char **argv, struct hammer_opts *o)
{
	static const struct option longs[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "reads", required_argument, NULL, 'k' },
		{ "cgroups", required_argument, NULL, 'c' },
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*o = (struct hammer_opts){ .threads = 10, .reads = 10000, .cgroups = 1,
				   .file = "cpu.stat" };
	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh", longs, NULL)) != -1) {
		switch (c) {
		case 't': o->threads = (int)parse_count("--threads", optarg, THREADS_MAX); break;
		case 'k': o->reads = parse_count("--reads", optarg, READS_MAX); break;
		case 'c': o->cgroups = (int)parse_count("--cgroups", optarg, CGROUPS_MAX); break;
		case 'f': o->file = optarg; break;
		case 'j': o->json = true; break;
		case 'h': hammer_usage(stdout); exit(0);
		default: load_die(EXIT_USAGE, "try 'rstatlat load hammer --help'");
		}
	}
	if (optind < argc)
		load_die(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
	if (!*o->file || strchr(o->file, '/') || !strcmp(o->file, ".") || !strcmp(o->file, ".."))
		load_die(EXIT_USAGE, "invalid --file '%s': a file name in a cgroup's directory",
			 o->file);
}

/* The figures of a run. */
struct hammer_figures {
	long reads;
	uint64_t wall_ns, max_ns;
	struct dist lat;
	int signal;		/* the one that stopped it early, else 0 */
};

static void hammer_print(const struct hammer_opts *o, const struct hammer_figures *f)
{
	double secs = (double)f->wall_ns / 1e9;
	uint64_t p50 = dist_quantile(&f->lat, 0.5), p99 = dist_quantile(&f->lat, 0.99);
	uint64_t mode = dist_mode_octave(&f->lat);
	char a[32], b[32], c[32], d[32], e[32];

	if (o->json) {
		printf("{\"type\":\"workload\",\"workload\":\"hammer\",\"options\":{\"threads\":%d,"
		       "\"reads\":%ld,\"cgroups\":%d,\"file\":", o->threads, o->reads, o->cgroups);
		json_write_string(stdout, o->file);
		printf("},\"reads\":%ld,\"wall_ns\":%llu,\"reads_per_s\":%.1f,\"read_ns\":{\"p50\":%llu,"
		       "\"p99\":%llu,\"max\":%llu,\"mode_ge\":%llu,\"mode_lt\":%llu},\"stopped_by\":",
		       f->reads, (unsigned long long)f->wall_ns, secs > 0 ? f->reads / secs : 0.0,
		       (unsigned long long)p50, (unsigned long long)p99,
		       (unsigned long long)f->max_ns, (unsigned long long)mode,
		       (unsigned long long)(mode ? 2 * mode : 1ULL << HIST_LOW_SHIFT));
		if (f->signal)
			printf("\"%s\"}\n", sigabbrev_np(f->signal));
		else
			printf("null}\n");
		return;
	}
	printf("hammer: %d threads x %ld reads of ", o->threads, o->reads);
	json_write_string(stdout, o->file);
	printf(" in %d cgroups: %ld reads in %.2f s (%.0f/s)%s\n", o->cgroups, f->reads, secs,
	       secs > 0 ? f->reads / secs : 0.0, f->signal ? ", stopped early" : "");
	printf("read latency: p50 %s p99 %s max %s, mode %s-%s\n",
	       fmt_duration(a, sizeof(a), p50), fmt_duration(b, sizeof(b), p99),
	       fmt_duration(c, sizeof(c), f->max_ns), fmt_duration(d, sizeof(d), mode),
	       fmt_duration(e, sizeof(e), mode ? 2 * mode : 1ULL << HIST_LOW_SHIFT));
}

/* Waits for the readers, taking signals meanwhile; returns the one that stopped them, or 0. */
static int wait_readers(const sigset_t *signals)
{
	struct timespec tick = { 0, 50 * 1000000L };
	int sig = 0, got;

	while (atomic_load(&readers_left) > 0) {
		got = sigtimedwait(signals, NULL, &tick);
		if (got > 0 && !sig) {
			sig = got;
			atomic_store(&stop, true);
		}
	}
	return sig;
}

/* Folds the readers' figures; returns the first failure's errno (*opening: at open), or 0. */
static int hammer_fold(struct reader *r, int n, struct hammer_figures *f, bool *opening)
{
	uint64_t start = UINT64_MAX, end = 0;
	int err = 0;

	for (int i = 0; i < n; i++) {
		f->reads += r[i].done;
		start = r[i].start_ns < start ? r[i].start_ns : start;
		end = r[i].end_ns > end ? r[i].end_ns : end;
		if (r[i].max_ns > f->max_ns)
			f->max_ns = r[i].max_ns;
		for (unsigned int b = 0; b < HIST_BUCKETS; b++)
			if (r[i].hist[b] && dist_add(&f->lat, b, r[i].hist[b]))
				load_die(EXIT_ENV, "out of memory");
		if (r[i].err && !err) {
			err = r[i].err;
			*opening = r[i].open_failed;
		}
	}
	f->wall_ns = end > start ? end - start : 0;
	f->lat.max = f->max_ns;	/* a quantile is its bucket's midpoint, never above it */
	return err;
}

static int hammer_main(int argc, char **argv)
{
	struct load_cgroups cg = { 0 };
	struct hammer_figures f = { 0 };
	struct hammer_opts o;
	struct reader *r;
	sigset_t signals;
	char why[PATH_MAX + 128];
	bool opening = false;
	int err, code;

	hammer_parse(argc, argv, &o);
	if (geteuid())
		load_die(EXIT_ENV, "needs root: it makes cgroups");
	/* every thread (and the busy tasks, until they reset it) blocks them: main takes them */
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	r = calloc((size_t)o.threads, sizeof(*r));
	if (!r)
		load_die(EXIT_ENV, "out of memory");
	if (cgroups_make(&cg, o.cgroups, why, sizeof(why))) {
		cgroups_remove(&cg);
		load_die(EXIT_ENV, "%s", why);
	}
	pthread_barrier_init(&go, NULL, (unsigned int)o.threads + 1);
	atomic_store(&readers_left, o.threads);
	for (int i = 0; i < o.threads; i++) {
		r[i] = (struct reader){ .index = i, .o = &o, .cg = &cg };
		err = pthread_create(&r[i].thread, NULL, hammer_reader, &r[i]);
		if (err) {
			/* the barrier would wait for it forever: stop here */
			cgroups_remove(&cg);
			load_die(EXIT_ENV, "cannot start thread %d: %s", i, strerror(err));
		}
	}
	pthread_barrier_wait(&go);
	f.signal = wait_readers(&signals);
	for (int i = 0; i < o.threads; i++)
		pthread_join(r[i].thread, NULL);
	err = hammer_fold(r, o.threads, &f, &opening);
	if (cgroups_remove(&cg))
		fprintf(stderr, "rstatlat load: could not remove all of %s\n", cg.base);
	if (err && opening)
		load_die(EXIT_ENV, "cannot open %s of the cgroups made: %s", o.file, strerror(err));
	if (err)
		load_die(EXIT_READ, "reading %s: %s", o.file, strerror(err));
	hammer_print(&o, &f);
	code = f.signal ? 128 + f.signal : 0;
	dist_free(&f.lat);
	free(r);
	return code;
}

/* ---- the workloads ---- */

static const struct workload {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *source;
} workloads[] = {
	{ "hammer", hammer_main,
	  "threads re-reading cpu.stat: the lock-outside-the-loop patch (NUM_THREADS=10 "
	  "NUM_ITER=10000)" },
};

static void load_usage(FILE *f)
{
	fprintf(f, "Usage: rstatlat load WORKLOAD [OPTIONS]   (rstatlat load WORKLOAD --help)\n"
		"       rstatlat load --list\n");
}

int load_main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		load_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
			printf("%-12s %s\n", workloads[i].name, workloads[i].source);
		return 0;
	}
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(argv[1], workloads[i].name))
			return workloads[i].run(argc - 1, argv + 1);
	load_die(EXIT_USAGE, "unknown workload '%s' (rstatlat load --list)", argv[1]);
	return EXIT_USAGE;
}
