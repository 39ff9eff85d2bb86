// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat load WORKLOAD: workloads shaped on the experiments behind the
 * rstat lock's changes (docs/load.md), each with its own figures, as text
 * or one JSON line. This file is the CLI and the views; load_cg.c makes
 * the cgroups and the tasks in them, load_read.c runs the readers.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "command.h"
#include "escape.h"
#include "fmt.h"
#include "load.h"
#include "load_int.h"
#include "view.h"

#define THREADS_MAX	1024
#define CGROUPS_MAX	1000
#define HOGS_MAX	1024
#define READS_MAX	100000000L
#define SECONDS_MAX	86400
#define MEMORY_MIN	(8ULL << 20)
#define MEMORY_MAX	(1ULL << 40)
#define TOUCH_MAX	(1ULL << 30)

enum load_kind { LOAD_STAT_READER, LOAD_POLLER, LOAD_HAMMER };

/* What a workload was asked to do: the options any of them takes. */
struct load_opts {
	const char *workload;
	enum load_kind kind;
	int threads;
	long reads;		/* hammer: per thread; 0: for the duration */
	int cgroups;		/* hammer, poller */
	const char *in;		/* hammer: an existing cgroup read instead of cgroups made */
	const char *below;	/* poller: existing cgroups polled instead of containers made */
	uint64_t duration_ns;	/* stat-reader, poller; hammer with -d */
	int hogs;		/* stat-reader */
	uint64_t memory_max;	/* stat-reader */
	uint64_t interval_ns;	/* poller */
	uint64_t touch;		/* poller: bytes written between rounds */
	const char *files[LOAD_FILES_MAX];
	int nfiles;		/* given; the workload's default when 0 */
	bool json;
};

/* What a workload ran in, for its view. */
struct load_ran {
	const struct load_cgroups *cg;
	int cgroups;		/* read (cg's are gone once removed) */
	uint64_t oom_kills;
};

/* ---- options ---- */

static long parse_count(const char *what, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		load_die(LOAD_EXIT_USAGE, "invalid %s '%s': expected %ld to %ld", what, s, min, max);
	return v;
}

/* "64M", "1G", "100000000": bytes, K/M/G binary, from min to max (range: how --help says it). */
static uint64_t parse_size(const char *what, const char *s, uint64_t min, uint64_t max,
			   const char *range)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'M' || *end == 'G')
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
	if (errno || end == s || *s == '-' || (*end && (!shift || end[1])) ||
	    v > (max >> shift) || (v << shift) < min)
		load_die(LOAD_EXIT_USAGE, "invalid %s '%s': expected %s", what, s, range);
	return (uint64_t)v << shift;
}

/* A --file: the first one given replaces the workload's defaults. */
static void add_file(struct load_opts *o, const char *file, int max)
{
	if (!*file || strpbrk(file, "/,") || !strcmp(file, ".") || !strcmp(file, ".."))
		load_die(LOAD_EXIT_USAGE, "invalid --file '%s': a file name in a cgroup's directory",
			 file);
	if (o->nfiles == max)
		load_die(LOAD_EXIT_USAGE, "%s reads at most %d --file", o->workload, max);
	o->files[o->nfiles++] = file;
}

static uint64_t parse_interval(const char *s)
{
	uint64_t ns;

	if (parse_duration(s, 1000000000ULL, &ns) || ns < 100000 || ns > 10000000000ULL)
		load_die(LOAD_EXIT_USAGE, "invalid --interval '%s': expected 100us to 10s", s);
	return ns;
}

enum { OPT_THREADS = 256, OPT_READS, OPT_CGROUPS, OPT_HOGS, OPT_MEMORY_MAX, OPT_FILE,
       OPT_INTERVAL, OPT_IN, OPT_BELOW, OPT_TOUCH };

static const struct option long_opts[] = {
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "reads", required_argument, NULL, OPT_READS },
	{ "cgroups", required_argument, NULL, OPT_CGROUPS },
	{ "hogs", required_argument, NULL, OPT_HOGS },
	{ "memory-max", required_argument, NULL, OPT_MEMORY_MAX },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "in", required_argument, NULL, OPT_IN },
	{ "below", required_argument, NULL, OPT_BELOW },
	{ "touch", required_argument, NULL, OPT_TOUCH },
	{ "duration", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Whether word is one of the space-separated words of list. */
static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* The options a workload takes (allowed) and parses; any other is refused by name. */
static void parse(int argc, char **argv, struct load_opts *o, const char *allowed,
		  int files_max, void (*usage)(FILE *))
{
	bool reads = false, duration = false, cgroups = false;
	int defaults = 0, c, index = 0;

	while (defaults < LOAD_FILES_MAX && o->files[defaults])
		defaults++;

	optind = 1;
	opterr = 0;	/* one line, ours */
	while ((c = getopt_long(argc, argv, "+d:jh", long_opts, &index)) != -1) {
		const char *name = c == 'd' ? "duration" : c >= OPT_THREADS ? long_opts[index].name : "";

		if (*name && !word_in(allowed, name))
			load_die(LOAD_EXIT_USAGE, "%s takes no --%s", o->workload, name);
		switch (c) {
		case OPT_THREADS: o->threads = (int)parse_count("--threads", optarg, 1, THREADS_MAX); break;
		case OPT_READS:
			o->reads = parse_count("--reads", optarg, 1, READS_MAX);
			reads = true;
			break;
		case OPT_CGROUPS:
			o->cgroups = (int)parse_count("--cgroups", optarg, 1, CGROUPS_MAX);
			cgroups = true;
			break;
		case OPT_HOGS: o->hogs = (int)parse_count("--hogs", optarg, 0, HOGS_MAX); break;
		case OPT_MEMORY_MAX:
			o->memory_max = parse_size("--memory-max", optarg, MEMORY_MIN, MEMORY_MAX,
						   "8M to 1024G");
			break;
		case OPT_FILE: add_file(o, optarg, files_max); break;
		case OPT_INTERVAL: o->interval_ns = parse_interval(optarg); break;
		case OPT_IN:
		case OPT_BELOW:
			if (*optarg != '/')
				load_die(LOAD_EXIT_USAGE, "invalid --%s '%s': a cgroup's directory, "
					 "from /", name, optarg);
			*(c == OPT_IN ? &o->in : &o->below) = optarg;
			break;
		case OPT_TOUCH: o->touch = parse_size("--touch", optarg, 0, TOUCH_MAX, "0 to 1G"); break;
		case 'd':
			duration = true;
			if (parse_duration(optarg, 1000000000ULL, &o->duration_ns) ||
			    !o->duration_ns || o->duration_ns > SECONDS_MAX * 1000000000ULL)
				load_die(LOAD_EXIT_USAGE, "invalid -d '%s': expected a duration up "
					 "to a day (10, 500ms)", optarg);
			break;
		case 'j': o->json = true; break;
		case 'h': usage(stdout); exit(0);
		default: load_die(LOAD_EXIT_USAGE, "%s: unknown option or missing value '%s' (try "
				  "'rstatlat load %s --help')", o->workload, argv[optind - 1],
				  o->workload);
		}
	}
	if (optind < argc)
		load_die(LOAD_EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
	if (reads && duration)
		load_die(LOAD_EXIT_USAGE, "%s: --reads or -d, not both", o->workload);
	if ((o->in || o->below) && cgroups)
		load_die(LOAD_EXIT_USAGE, "%s: --%s or --cgroups, not both", o->workload,
			 o->in ? "in" : "below");
	if (o->kind == LOAD_HAMMER && duration)
		o->reads = 0;	/* each thread reads for the duration */
	if (!o->nfiles)
		o->nfiles = defaults;
}

/* ---- views ---- */

static void option_number(struct workload_info *w, const char *key, uint64_t v)
{
	struct workload_option *opt = &w->options[w->noptions++];

	snprintf(opt->key, sizeof(opt->key), "%s", key);
	opt->number = v;
}

/* An option whose value is text, the option taking it (NULL: out of memory, -1). */
static int option_owned(struct workload_info *w, const char *key, char *text)
{
	struct workload_option *opt = &w->options[w->noptions];

	if (!text)
		return -1;
	opt->text = text;
	snprintf(opt->key, sizeof(opt->key), "%s", key);
	w->noptions++;
	return 0;
}

static int option_text(struct workload_info *w, const char *key, const char *v)
{
	return option_owned(w, key, strdup(v));
}

/* The files read, as one option: "cpu.stat,memory.stat" (a --file has no comma). */
static int option_files(struct workload_info *w, const struct load_opts *o)
{
	size_t len = 1;
	char *text;

	for (int i = 0; i < o->nfiles; i++)
		len += strlen(o->files[i]) + 1;
	text = calloc(1, len);
	for (int i = 0; text && i < o->nfiles; i++) {
		if (i)
			strcat(text, ",");
		strcat(text, o->files[i]);
	}
	return option_owned(w, "files", text);
}

/* The run as the report's model has it: what json.c writes, and rstatlat reads back. */
static int describe(const struct load_opts *o, const struct load_figures *f,
		    const struct load_ran *ran, struct workload_info *w)
{
	memset(w, 0, sizeof(*w));
	w->present = true;
	w->runs = 1;
	snprintf(w->name, sizeof(w->name), "%s", o->workload);
	snprintf(w->hierarchy, sizeof(w->hierarchy), "%s",
		 ran->cg->other_v1 ? "v1" : ran->cg->v2 ? "v2" : "memory");
	if (o->kind == LOAD_HAMMER) {
		option_number(w, "threads", (uint64_t)o->threads);
		option_number(w, o->reads ? "reads" : "duration_ns",
			      o->reads ? (uint64_t)o->reads : o->duration_ns);
		if (o->in && option_text(w, "in", o->in))
			return -1;
		if (!o->in)
			option_number(w, "cgroups", (uint64_t)ran->cgroups);
	} else if (o->kind == LOAD_POLLER) {
		option_number(w, "cgroups", (uint64_t)ran->cgroups);
		if (o->below && option_text(w, "below", o->below))
			return -1;
		option_number(w, "interval_ns", o->interval_ns);
		option_number(w, "duration_ns", o->duration_ns);
		if (o->touch)
			option_number(w, "touch", o->touch);
	} else {
		option_number(w, "threads", (uint64_t)o->threads);
		option_number(w, "duration_ns", o->duration_ns);
		option_number(w, "hogs", (uint64_t)o->hogs);
		option_number(w, "memory_max", o->memory_max);
	}
	w->wall_ns = f->wall_ns;
	w->count[WL_READS] = (uint64_t)f->reads;
	w->measured = 1U << WL_READS;
	if (o->kind == LOAD_POLLER) {
		w->count[WL_ROUNDS] = (uint64_t)f->rounds;
		w->count[WL_ROUNDS_LATE] = (uint64_t)f->rounds_late;
		w->measured |= 1U << WL_ROUNDS | 1U << WL_ROUNDS_LATE;
	}
	if (o->kind == LOAD_STAT_READER) {
		w->count[WL_HOGS_STARTED] = (uint64_t)ran->cg->hogs_started;
		w->count[WL_OOM_KILLS] = ran->oom_kills;
		w->measured |= 1U << WL_HOGS_STARTED | 1U << WL_OOM_KILLS;
	}
	if (f->signal)
		snprintf(w->stopped_by, sizeof(w->stopped_by), "%s", sigabbrev_np(f->signal));
	return option_files(w, o) || dist_copy(&w->read, &f->lat) ||
	       dist_copy(&w->round, &f->round) ? -1 : 0;
}

/*
 * Under rstatlat -- COMMAND: the figures to the descriptor it gave
 * (command.h, WORKLOAD_FD_ENV), one line in one write, for its summary.
 * Only to the memfd it made: a descriptor of that number may be another
 * file in a process the command started.
 */
static void hand_over(const struct workload_info *w)
{
	const char *env = getenv(WORKLOAD_FD_ENV);
	char link[64], target[128], *line = NULL, *end;
	size_t len = 0, off = 0;
	ssize_t n;
	FILE *m;
	long fd;

	if (!env)
		return;
	errno = 0;
	fd = strtol(env, &end, 10);
	snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
	n = errno || end == env || *end || fd < 0 || fd > INT_MAX ? -1 :
	    readlink(link, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	if (n < 0 || strncmp(target, WORKLOAD_MEMFD_LINK, strlen(WORKLOAD_MEMFD_LINK))) {
		load_warn(WORKLOAD_FD_ENV "=%s is not rstatlat's: figures not handed over", env);
		return;
	}
	m = open_memstream(&line, &len);
	if (m) {
		json_print_workload(m, w);
		fclose(m);
	}
	while (line && off < len && (n = write((int)fd, line + off, len - off)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		off += n > 0 ? (size_t)n : 0;
	}
	if (!line || off < len)
		load_warn("cannot hand the figures to rstatlat: %s", line ? strerror(errno) :
			  "out of memory");
	free(line);
}

static void text_files(const struct load_opts *o)
{
	for (int i = 0; i < o->nfiles; i++) {
		printf(i ? ", " : "");
		json_write_string(stdout, o->files[i]);
	}
}

static void text_dist(const char *what, const struct dist *d, bool mode)
{
	uint64_t lo = dist_mode_octave(d);
	char a[32], b[32], c[32], e[32], g[32];

	printf("%s: p50 %s p99 %s max %s", what, fmt_duration(a, sizeof(a), dist_quantile(d, 0.5)),
	       fmt_duration(b, sizeof(b), dist_quantile(d, 0.99)), fmt_duration(c, sizeof(c), d->max));
	if (mode)
		printf(", mode %s-%s", fmt_duration(e, sizeof(e), lo),
		       fmt_duration(g, sizeof(g), mode_octave_end(lo)));
}

static void print_text(const struct load_opts *o, const struct load_figures *f,
		       const struct load_ran *ran)
{
	double secs = (double)f->wall_ns / 1e9;
	char a[32];

	printf("%s: ", o->workload);
	if (o->kind == LOAD_HAMMER && o->reads)
		printf("%d threads x %ld reads of ", o->threads, o->reads);
	else if (o->kind == LOAD_HAMMER)
		printf("%d threads for %s reading ", o->threads,
		       fmt_duration(a, sizeof(a), o->duration_ns));
	else if (o->kind == LOAD_POLLER)
		printf("%d cgroups polled every %s (", ran->cgroups,
		       fmt_duration(a, sizeof(a), o->interval_ns));
	else
		printf("%d threads reading ", o->threads);
	text_files(o);
	if (o->in) {
		printf(" in ");
		json_write_string(stdout, o->in);
	} else if (o->kind == LOAD_HAMMER) {
		printf(" in %d cgroups", o->cgroups);
	} else if (o->kind == LOAD_POLLER) {
		printf(")");
	} else {
		printf(" of a memcg (%s) with %d hogs", ran->cg->v2 ? "v2" : "v1", o->hogs);
	}
	if (o->below) {
		printf(" below ");
		json_write_string(stdout, o->below);
	}
	if (o->touch)
		printf(", %.1f MiB written between rounds", (double)o->touch / (1 << 20));
	printf(": %ld reads in %.2f s (%.0f/s)%s\n", f->reads, secs,
	       secs > 0 ? f->reads / secs : 0.0, f->signal ? ", stopped early" : "");
	text_dist("read latency", &f->lat, true);
	printf("\n");
	if (o->kind == LOAD_POLLER) {
		text_dist("round latency", &f->round, false);
		printf(", %ld rounds, %ld longer than the interval\n", f->rounds, f->rounds_late);
	}
	if (o->kind == LOAD_STAT_READER)
		printf("hogs: %ld started, %llu OOM kills\n", ran->cg->hogs_started,
		       (unsigned long long)ran->oom_kills);
}

/* ---- running one ---- */

typedef int (*make_fn)(struct load_cgroups *c, const struct load_opts *o, char *why, size_t len);

/* Raises the open-file limit to what the readers need (each keeps its own fd a file). */
static int files_needed(const struct load_opts *o, int cgroups, char *why, size_t len)
{
	uint64_t need = (uint64_t)o->threads * (uint64_t)cgroups * (uint64_t)o->nfiles + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < need && rl.rlim_max >= need) {
		rl.rlim_cur = need;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur >= need)
		return 0;
	snprintf(why, len, "needs %llu open files (threads x cgroups x files), the limit is %llu",
		 (unsigned long long)need, (unsigned long long)rl.rlim_cur);
	return -1;
}

/* A signal that came after the reads: the run was complete, and is ended as asked. */
static int late_signal(const sigset_t *signals)
{
	struct timespec none = { 0, 0 };
	int sig = sigtimedwait(signals, NULL, &none);

	return sig > 0 ? sig : 0;
}

/* Makes its cgroups, reads, removes them, prints; returns the exit code. */
static int run(const struct load_opts *o, make_fn make)
{
	struct load_cgroups cg = { 0 };
	struct load_figures f = { 0 };
	struct read_job job = { .nfiles = o->nfiles, .cg = &cg, .reads = o->reads,
				.duration_ns = o->duration_ns, .interval_ns = o->interval_ns,
				.touch = o->touch };
	struct load_ran ran = { .cg = &cg };
	struct workload_info w;
	char why[PATH_MAX + 128];
	bool opening = false, left;
	sigset_t signals;
	int err, code, late;

	if (geteuid() && !o->in && !o->below)
		load_die(LOAD_EXIT_ENV, "needs root: it makes cgroups");
	memcpy(job.files, o->files, sizeof(job.files));
	/* every thread (and each task until it resets it) blocks them: the readers' caller takes them */
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	if (make(&cg, o, why, sizeof(why)) || files_needed(o, cg.n, why, sizeof(why))) {
		load_cgroups_remove(&cg);
		load_die(LOAD_EXIT_ENV, "%s", why);
	}
	ran.cgroups = cg.n;
	err = load_read(&job, o->threads, &signals, &f, &opening);
	/* the hogs killed first: none is taken by the OOM killer after its count is read */
	load_tasks_kill(&cg);
	ran.oom_kills = load_oom_kills(&cg) - cg.oom_kills_before;
	left = load_cgroups_remove(&cg) != 0;
	if (left)
		load_warn("could not remove all of %s", cg.base);
	if (err && opening)
		load_die(LOAD_EXIT_ENV, "cannot open a --file of the cgroups read: %s",
			 strerror(err));
	if (err)
		load_die(LOAD_EXIT_READ, "reading: %s", strerror(err));
	if (describe(o, &f, &ran, &w))
		load_die(LOAD_EXIT_ENV, "out of memory");
	if (o->json)
		json_print_workload(stdout, &w);
	else
		print_text(o, &f, &ran);
	hand_over(&w);
	workload_free(&w);
	late = f.signal ? 0 : late_signal(&signals);
	code = f.signal ? 128 + f.signal : late ? 128 + late : left ? LOAD_EXIT_READ : 0;
	dist_free(&f.lat);
	dist_free(&f.round);
	return code;
}

/* ---- the workloads ---- */

static void hammer_usage(FILE *f)
{
	fprintf(f, "Usage: rstatlat load hammer [--threads N] [--reads K | -d T] "
		"[--cgroups C | --in DIR] [--file NAME] [-j]\n"
		"Threads re-reading a stat file of cgroups with busy tasks in them, as the\n"
		"lock-outside-the-loop patch timed (NUM_THREADS=10 NUM_ITER=10000, cpu.stat).\n"
		"  --threads N       reader threads (1-%d, default 10)\n"
		"  --reads K         reads each thread makes (1-%ld, default 10000)\n"
		"  -d, --duration T  read for T instead (at most a day)\n"
		"  --cgroups C       cgroups made and read in turn (1-%d, default 1)\n"
		"  --in DIR          read the cgroup DIR instead: nothing is made, moved or\n"
		"                    removed, and root is not needed\n"
		"  --file NAME       the stat file read (default cpu.stat, v2's)\n"
		"  -j, --json        the figures as one JSON line\n",
		THREADS_MAX, READS_MAX, CGROUPS_MAX);
}

static bool wants_memory(const struct load_opts *o)
{
	for (int i = 0; i < o->nfiles; i++)
		if (load_memory_file(o->files[i]))
			return true;
	return false;
}

static int hammer_make(struct load_cgroups *c, const struct load_opts *o, char *why, size_t len)
{
	if (o->in)
		return load_given_cgroups(c, o->in, false, wants_memory(o), why, len);
	return load_busy_cgroups(c, o->cgroups, why, len);
}


static void stat_reader_usage(FILE *f)
{
	fprintf(f, "Usage: rstatlat load stat-reader [--threads N] [-d T] [--hogs M] "
		"[--memory-max SIZE] [--file NAME] [-j]\n"
		"Threads re-reading memory.stat of a test memcg while hogs in it charge memory\n"
		"until OOM-killed and are restarted, as the 0efc297a commit measured (400\n"
		"threads for 10 s, 400 hogs).\n"
		"  --threads N       reader threads (1-%d, default 400)\n"
		"  -d, --duration T  how long they read (default 10 s, at most a day)\n"
		"  --hogs M          hog processes in the memcg (0-%d, default 0)\n"
		"  --memory-max SIZE the memcg's limit, set before any hog starts (8M-1024G,\n"
		"                    default 64M: with hogs, OOM kills several times a second)\n"
		"  --file NAME       the stat file read (default memory.stat)\n"
		"  -j, --json        the figures as one JSON line\n",
		THREADS_MAX, HOGS_MAX);
}

static int stat_reader_make(struct load_cgroups *c, const struct load_opts *o, char *why,
			    size_t len)
{
	if (load_memcg(c, o->memory_max, why, len))
		return -1;
	return load_hogs_start(c, o->hogs, why, len);
}


static void poller_usage(FILE *f)
{
	fprintf(f, "Usage: rstatlat load poller [--cgroups K] [--interval T] [-d T] "
		"[--file NAME]... [--touch SIZE] [--below DIR] [-j]\n"
		"An agent of the cadvisor kind: K containers with tasks that run and charge\n"
		"memory, each polled every interval (cpu.stat and memory.stat), as in the\n"
		"thread on 100 containers polled every 1 ms on 128 cores.\n"
		"  --cgroups K       containers made (1-%d, default 100)\n"
		"  --interval T      a round of every container's files each T (100us-10s,\n"
		"                    default 1ms); a round that takes longer is late\n"
		"  -d, --duration T  how long it polls (default 10 s, at most a day)\n"
		"  --file NAME       a file polled, up to %d (default cpu.stat, memory.stat)\n"
		"  --below DIR       poll the cgroups below DIR (each child directory) instead:\n"
		"                    nothing is made, moved or removed, and root is not needed\n"
		"  --touch SIZE      memory written between rounds, as an agent's other work,\n"
		"                    so that each round's flushes run cold (0-1G, default 0)\n"
		"  -j, --json        the figures as one JSON line\n",
		CGROUPS_MAX, LOAD_FILES_MAX);
}

static int poller_make(struct load_cgroups *c, const struct load_opts *o, char *why, size_t len)
{
	if (o->below)
		return load_given_cgroups(c, o->below, true, wants_memory(o), why, len);
	return load_containers(c, o->cgroups, wants_memory(o), why, len);
}


/* A workload: its defaults, the options it takes, its usage and its cgroups. */
static const struct workload {
	const char *name;
	const char *source;
	struct load_opts defaults;
	const char *allowed;	/* the options it takes, by long name */
	int files_max;		/* --file given at most */
	void (*usage)(FILE *f);
	make_fn make;
} workloads[] = {
	{ "stat-reader",
	  "threads reading a memcg's memory.stat while hogs OOM-loop in it: Linux 0efc297a "
	  "(400 threads, 10 s, 400 hogs)",
	  { .kind = LOAD_STAT_READER, .threads = 400, .duration_ns = 10000000000ULL,
	    .memory_max = 64ULL << 20, .files = { "memory.stat" } },
	  "threads duration hogs memory-max file", 1, stat_reader_usage, stat_reader_make },
	{ "poller",
	  "an agent polling containers' cpu.stat and memory.stat: cadvisor, 100 containers "
	  "every 1 ms on 128 cores",
	  { .kind = LOAD_POLLER, .threads = 1, .cgroups = 100, .interval_ns = 1000000,
	    .duration_ns = 10000000000ULL, .files = { "cpu.stat", "memory.stat" } },
	  "cgroups below interval duration file touch", LOAD_FILES_MAX, poller_usage, poller_make },
	{ "hammer",
	  "threads re-reading cpu.stat: the lock-outside-the-loop patch (NUM_THREADS=10 "
	  "NUM_ITER=10000)",
	  { .kind = LOAD_HAMMER, .threads = 10, .reads = 10000, .cgroups = 1,
	    .files = { "cpu.stat" } },
	  "threads reads duration cgroups in file", 1, hammer_usage, hammer_make },
};

static void load_usage(FILE *f)
{
	fprintf(f, "Usage: rstatlat load WORKLOAD [OPTIONS]   (rstatlat load WORKLOAD --help)\n"
		"       rstatlat load --list\n");
}

int load_main(int argc, char **argv)
{
	if (argc < 2)
		load_die(LOAD_EXIT_USAGE, "which workload? (rstatlat load --list)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		load_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
			printf("%-12s %s\n", workloads[i].name, workloads[i].source);
		return 0;
	}
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		const struct workload *w = &workloads[i];
		struct load_opts o = w->defaults;

		if (strcmp(argv[1], w->name))
			continue;
		o.workload = w->name;
		parse(argc - 1, argv + 1, &o, w->allowed, w->files_max, w->usage);
		return run(&o, w->make);
	}
	load_die(LOAD_EXIT_USAGE, "unknown workload '%s' (rstatlat load --list)", argv[1]);
}
