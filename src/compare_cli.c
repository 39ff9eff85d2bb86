// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat compare BEFORE.json AFTER.json: parse both files, build the
 * comparison, print it, and exit by the gates.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compare.h"
#include "compare_cli.h"
#include "escape.h"
#include "fmt.h"
#include "options.h"
#include "outfile.h"
#include "report_read.h"

#define EXIT_PASS	0
#define EXIT_GATE	1
#define EXIT_INPUT	2
#define EXIT_NOMEM	3
#define EXIT_INCONCLUSIVE 4
#define EXIT_ENV	3	/* -o FILE cannot be written (as rstatlat's own 3) */

#define MAX_GATES 64
#define MAX_PAIRS 8		/* file pairs side by side (-f mail) */
#define MAX_SPECS 64		/* --pair, --row, --metric, --note each */

/*
 * Used when no --fail-on is given: loose enough that runs of one workload
 * on one kernel pass on a noisy 2-vCPU VM (the spreads measured there are
 * in rstatlat(8), GATES), tight enough to catch a doubled hold time. No
 * maximum: between two such runs irqoff.max once moved 28x (a vCPU stall
 * inside a hold), so a maximum is gated absolutely (irqoff.max>5ms), by
 * the user. Wait and contention varied by up to 4.6x and 3.7x between
 * those runs: gate them explicitly.
 */
static const char *const default_gates[] = {
	"hold.p99>+50%", "irqoff.p99>+50%",
};

/*
 * With 3 or more runs a side the test is between runs, and run-level state
 * no longer passes for a change: bench/compare_noise.py measured, on 20
 * runs of one workload, 0 of 200 3-vs-3 and 5-vs-5 splits failing these
 * (while one run against one fails hold.p99>+20% in 6% of pairs).
 */
static const char *const replicated_gates[] = {
	"hold.p99>+20%", "irqoff.p99>+20%",
};
#define REPLICATED_MIN_RUNS 3

struct cmp_opts {
	struct gate gates[MAX_GATES];
	size_t ngates;
	bool no_gates;
	const char *cgroup;
	char *cgroup_label;	/* -c named a pair by a side: its label (gated_cgroup) */
	enum cmp_format format;
	size_t rows;
	double alpha;
	double noise;
	bool allow_inconclusive;
	bool histograms;
	const char *output;	/* -o FILE */
	struct pair_spec pairs[MAX_SPECS];	/* --pair */
	size_t npairs;
	const char *rows_shown[MAX_SPECS], *metrics_shown[MAX_SPECS], *notes[MAX_SPECS];
	size_t nrows_shown, nmetrics_shown, nnotes;
	const char *title;
	struct file_list {
		const char *name[MAX_RUNS];
		size_t n;
	} files[MAX_PAIRS][2];	/* per pair of files: [0] before, [1] after */
	size_t nfiles;		/* pairs of files */
};

/* The runs of one side, read, and pooled when there are several. */
struct side_runs {
	struct report runs[MAX_RUNS];
	struct read_info info[MAX_RUNS];
	/* why a run could not be read: said when its pair comes (check_side) */
	struct read_error {
		int status;	/* 0, or the exit status */
		char why[512];
	} error[MAX_RUNS];
	struct report_pool pool;
};

__attribute__((noreturn, format(printf, 2, 3)))
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	/* messages quote file names and file contents: vdie keeps them inert */
	va_start(ap, fmt);
	vdie("rstatlat compare", code, fmt, ap);
	va_end(ap); /* not reached: each va_start has its va_end */
}

static struct outfile outfile;

/* Whatever way compare ends, no temporary file of -o stays behind. */
static void abort_output(void)
{
	outfile_abort(&outfile);
}

/* The comparison's stream: -o FILE's temporary file, else stdout. */
static FILE *open_output(const char *path)
{
	int err;

	if (!path || !strcmp(path, "-"))
		return stdout;
	atexit(abort_output);
	err = outfile_open(&outfile, path, OUTFILE_MODE_LIKE_SHELL);
	if (err)
		die(EXIT_ENV, "cannot write %s: %s", path, outfile_why(err));
	return outfile.f;
}

static void add_gate(struct cmp_opts *o, const char *s)
{
	char err[256];

	if (!strcmp(s, "none")) {
		o->no_gates = true;
		return;
	}
	if (o->ngates == MAX_GATES)
		die(EXIT_INPUT, "more than %d gates", MAX_GATES);
	if (gate_parse(s, &o->gates[o->ngates], err, sizeof(err)))
		die(EXIT_INPUT, "%s", err);
	o->ngates++;
}

static double parse_fraction(const char *s, const char *what, double scale)
{
	double v;

	if (parse_number(s, "", &v) || v < 0 || v / scale >= 1)
		die(EXIT_INPUT, "invalid %s '%s'", what, s);
	return v / scale;
}


static void add_file(struct file_list *l, const char *name, const char *what)
{
	if (l->n == MAX_RUNS)
		die(EXIT_INPUT, "more than %d %s files", MAX_RUNS, what);
	l->name[l->n++] = name;
}

static void add_spec(const char **list, size_t *n, const char *s, const char *what)
{
	if (*n == MAX_SPECS)
		die(EXIT_INPUT, "more than %d %s", MAX_SPECS, what);
	list[(*n)++] = s;
}

static void add_pair(struct cmp_opts *o, const char *s)
{
	char err[256];

	if (o->npairs == MAX_SPECS)
		die(EXIT_INPUT, "more than %d --pair", MAX_SPECS);
	if (pair_parse(s, &o->pairs[o->npairs], err, sizeof(err)))
		die(EXIT_INPUT, "%s", err);
	o->npairs++;
}

/* --metric hold.*,flush.mean: each glob must name a metric, or it is a typo */
static void add_metrics(struct cmp_opts *o, char *list)
{
	for (char *save = NULL, *g = strtok_r(list, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		bool any = false;

		for (int i = 0; i < nmetrics && !any; i++)
			any = !fnmatch(g, metrics[i].name, 0);
		if (!any)
			die(EXIT_INPUT, "--metric '%s' matches no metric (see rstatlat(8), GATES)", g);
		add_spec(o->metrics_shown, &o->nmetrics_shown, g, "--metric globs");
	}
}

/*
 * -c names a pair by its label or by either side (a path its glob of that
 * side matches): once paired, only the label names the pair's rows. A lock
 * after the path ("/a [memory]") stays after the label.
 */
static const char *gated_cgroup(struct cmp_opts *o)
{
	const char *lock = o->cgroup ? strstr(o->cgroup, " [") : NULL;
	char *path, *label;

	if (!o->cgroup || !o->npairs)
		return o->cgroup;
	path = strndup(o->cgroup, lock ? (size_t)(lock - o->cgroup) : strlen(o->cgroup));
	if (!path)
		die(EXIT_NOMEM, "out of memory");
	for (size_t j = 0; j < o->npairs; j++) {
		const struct pair_spec *p = &o->pairs[j];

		if (fnmatch(p->before, path, 0) && fnmatch(p->after, path, 0))
			continue;
		free(path);
		if (asprintf(&label, "%s%s", p->label, lock ? lock : "") < 0)
			die(EXIT_NOMEM, "out of memory");
		return o->cgroup_label = label;
	}
	free(path);
	return o->cgroup;
}

/* BEFORE AFTER [BEFORE AFTER ...]: one run a side, each pair compared on its own */
static void add_positional_pairs(struct cmp_opts *o, int argc, char **argv)
{
	int n = argc - optind;

	if (n < 2 || n % 2)
		die(EXIT_INPUT, "expected files in pairs, BEFORE AFTER [BEFORE AFTER ...] "
		    "(see --help)");
	if (n / 2 > MAX_PAIRS)
		die(EXIT_INPUT, "more than %d pairs of files", MAX_PAIRS);
	for (int i = 0; i < n / 2; i++) {
		add_file(&o->files[i][0], argv[optind + 2 * i], "BEFORE");
		add_file(&o->files[i][1], argv[optind + 2 * i + 1], "AFTER");
	}
	o->nfiles = (size_t)n / 2;
}

static void parse_args(int argc, char **argv, struct cmp_opts *o)
{
	struct option long_opts[CLI_MAX_OPTS + 1];
	char short_opts[2 * CLI_MAX_OPTS + 2];
	uint64_t rows;
	int c;

	cli_getopt_tables(&compare_cli, long_opts, short_opts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_FAIL_ON: add_gate(o, optarg); break;
		case 'c': o->cgroup = optarg; break;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = FMT_TEXT;
			else if (!strcmp(optarg, "md"))
				o->format = FMT_MD;
			else if (!strcmp(optarg, "json"))
				o->format = FMT_JSON;
			else if (!strcmp(optarg, "html"))
				o->format = FMT_HTML;
			else if (!strcmp(optarg, "mail"))
				o->format = FMT_MAIL;
			else
				die(EXIT_INPUT, "unknown format '%s': text, md, json, html or mail",
				    optarg);
			break;
		case 'n':
			if (parse_uint(optarg, 1000000, &rows))
				die(EXIT_INPUT, "invalid row count '%s'", optarg);
			o->rows = rows;
			break;
		case OPT_ALPHA:
			o->alpha = parse_fraction(optarg, "alpha", 1);
			if (o->alpha == 0)
				die(EXIT_INPUT, "alpha must be above 0");
			break;
		case OPT_NOISE: o->noise = parse_fraction(optarg, "noise", 100); break;
		case OPT_ALLOW_INCONCLUSIVE: o->allow_inconclusive = true; break;
		case OPT_BEFORE: add_file(&o->files[0][0], optarg, "--before"); break;
		case OPT_AFTER: add_file(&o->files[0][1], optarg, "--after"); break;
		case OPT_PAIR: add_pair(o, optarg); break;
		case OPT_ROW: add_spec(o->rows_shown, &o->nrows_shown, optarg, "--row"); break;
		case OPT_METRIC: add_metrics(o, optarg); break;
		case OPT_NOTE: add_spec(o->notes, &o->nnotes, optarg, "--note"); break;
		case OPT_TITLE: o->title = optarg; break;
		case 'H': o->histograms = true; break;
		case 'o':
			if (!*optarg)
				die(EXIT_INPUT, "-o needs a file name");
			o->output = optarg;
			break;
		case 'h': cli_print_help(&compare_cli, stdout); exit(EXIT_PASS);
		case ':': die(EXIT_INPUT, "option '%s' needs an argument", argv[optind - 1]);
		default: die(EXIT_INPUT, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (o->files[0][0].n || o->files[0][1].n) {
		if (argc != optind || !o->files[0][0].n || !o->files[0][1].n)
			die(EXIT_INPUT, "with --before and --after, give both and no other files");
		o->nfiles = 1;
	} else {
		add_positional_pairs(o, argc, argv);
	}
	if (o->nfiles > 1 && o->format == FMT_HTML)
		die(EXIT_INPUT, "-f html shows one pair of files; -f mail shows several side by side");
	if (o->no_gates && o->ngates)
		die(EXIT_INPUT, "--fail-on none cannot be combined with other gates");
	o->cgroup = gated_cgroup(o);
	if (!o->no_gates && !o->ngates) {
		bool replicated = o->files[0][0].n >= REPLICATED_MIN_RUNS &&
				  o->files[0][1].n >= REPLICATED_MIN_RUNS;
		const char *const *g = replicated ? replicated_gates : default_gates;
		size_t n = replicated ? sizeof(replicated_gates) / sizeof(*replicated_gates) :
				        sizeof(default_gates) / sizeof(*default_gates);

		for (size_t i = 0; i < n; i++)
			add_gate(o, g[i]);
	}
}

struct compared {
	const struct file_list *files;	/* [0] before, [1] after */
	struct side_runs *sides[2];
	struct comparison c;
};

/* One file to read, and why it could not be. */
struct read_job {
	const char *file;
	struct report *r;
	struct read_info *info;
	struct read_error *error;
};

struct read_queue {
	struct read_job *jobs;
	size_t n;
	atomic_size_t next;
	atomic_size_t first_failed;	/* n while none has: jobs after it are not started */
};

static void read_job(struct read_job *j)
{
	FILE *f = strcmp(j->file, "-") ? fopen(j->file, "r") : stdin;

	if (!f) {
		snprintf(j->error->why, sizeof(j->error->why), "%s", strerror(errno));
		j->error->status = EXIT_INPUT;
		return;
	}
	if (report_read(f, j->r, j->info, j->error->why, sizeof(j->error->why)))
		j->error->status = EXIT_INPUT;
	if (f != stdin)
		fclose(f);
}

static void *read_worker(void *arg)
{
	struct read_queue *q = arg;

	for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->n;) {
		size_t failed = atomic_load(&q->first_failed);

		/* compare ends at the first file that failed: read none after it */
		if (i > failed)
			continue;
		read_job(&q->jobs[i]);
		while (i < failed && q->jobs[i].error->status &&
		       !atomic_compare_exchange_weak(&q->first_failed, &failed, i))
			;
	}
	return NULL;
}

/*
 * Reads every file of every pair, READ_THREADS_MAX at a time (each reader's
 * memory is bounded, report_read.h): two files of 8 000 cgroups take the
 * time of the larger. A file that cannot be read ends compare when its
 * pair comes (check_side), so errors come in the order they did when the
 * files were read one by one; none after it is started.
 */
#define READ_THREADS_MAX 4

static void read_files(struct cmp_opts *o, struct compared *pairs)
{
	struct read_queue q = { .n = 0 };
	pthread_t threads[READ_THREADS_MAX];
	size_t nthreads = 0, stdin_reads = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	/* NOLINTNEXTLINE(clang-analyzer-optin.portability.UnixAPI): nfiles >= 1 (parse) */
	q.jobs = calloc((size_t)o->nfiles * 2 * MAX_RUNS, sizeof(*q.jobs));
	if (!q.jobs)
		die(EXIT_NOMEM, "out of memory");
	for (size_t i = 0; i < o->nfiles; i++)
		for (int k = 0; k < 2; k++) {
			const struct file_list *l = &pairs[i].files[k];
			struct side_runs *sr = calloc(1, sizeof(*sr));

			/* 64 runs a side: too large for the stack */
			if (!sr)
				die(EXIT_NOMEM, "out of memory");
			pairs[i].sides[k] = sr;
			for (size_t r = 0; r < l->n; r++) {
				stdin_reads += !strcmp(l->name[r], "-");
				q.jobs[q.n++] = (struct read_job){
					.file = l->name[r], .r = &sr->runs[r], .info = &sr->info[r],
					.error = &sr->error[r],
				};
			}
		}
	if (stdin_reads > 1)
		die(EXIT_INPUT, "'-' (standard input) named %zu times: it can be read once",
		    stdin_reads);
	atomic_init(&q.next, 0);
	atomic_init(&q.first_failed, q.n);
	while (nthreads + 1 < READ_THREADS_MAX && nthreads + 1 < q.n &&
	       (long)nthreads + 1 < cpus &&
	       !pthread_create(&threads[nthreads], NULL, read_worker, &q))
		nthreads++;
	read_worker(&q);
	for (size_t t = 0; t < nthreads; t++)
		pthread_join(threads[t], NULL);
	free(q.jobs);
}

/* Files without irqoff_ns (sample, off, older files) use the holds. */
static const char *irqoff_source_of(const struct report *r, const struct read_info *info)
{
	return r->irqoff_rows == IRQOFF_ROWS_TRACED && info->irqoff_source[0] ?
	       info->irqoff_source : "lock";
}

/* One side's runs must come from one kernel, machine size, attach plan and irqs-off source. */
static void check_alike(const struct file_list *l, const struct side_runs *sr, size_t i,
			const char *what)
{
	const struct report *a = &sr->runs[0], *b = &sr->runs[i];

	if (strcmp(a->kernel.release, b->kernel.release) ||
	    a->kernel.cpus_possible != b->kernel.cpus_possible ||
	    a->kernel.cpus_online != b->kernel.cpus_online)
		die(EXIT_INPUT, "%s: kernel %s with %d/%d CPUs, but %s is %s with %d/%d: one %s "
		    "side must be one kernel on one machine size", l->name[i], b->kernel.release,
		    b->kernel.cpus_online, b->kernel.cpus_possible, l->name[0], a->kernel.release,
		    a->kernel.cpus_online, a->kernel.cpus_possible, what);
	if (strcmp(a->attach, b->attach) ||
	    strcmp(irqoff_source_of(a, &sr->info[0]), irqoff_source_of(b, &sr->info[i])))
		die(EXIT_INPUT, "%s: attach %s, irqs-off from %s, but %s has %s, %s (one %s side)",
		    l->name[i], b->attach, irqoff_source_of(b, &sr->info[i]), l->name[0], a->attach,
		    irqoff_source_of(a, &sr->info[0]), what);
	/* pooled means per flush would mix flushes with parts and without, or other ones */
	if (a->flush_parts != b->flush_parts)
		die(EXIT_INPUT, "%s: flush parts %s, but %s has them %s (one %s side)", l->name[i],
		    b->flush_parts ? "measured" : "not measured", l->name[0],
		    a->flush_parts ? "measured" : "not measured", what);
	if (a->flush_parts && (a->parts_from != b->parts_from ||
			       a->parts_measured != b->parts_measured))
		die(EXIT_INPUT, "%s: flush parts from %s, but %s has them from %s, or measured "
		    "other parts (one %s side)", l->name[i], parts_from_names[b->parts_from],
		    l->name[0], parts_from_names[a->parts_from], what);
}

/*
 * A side's runs, read (they live as long as the comparison): a run that
 * could not be read ends compare here, in the files' order; the others
 * must be one kernel and machine; and what they held.
 */
static void check_side(const struct file_list *l, struct side_runs *sr, struct side *s,
		       const char *what)
{
	for (size_t i = 0; i < l->n; i++) {
		if (sr->error[i].status)
			die(sr->error[i].status, "%s: %s", l->name[i], sr->error[i].why);
		check_alike(l, sr, i, what);
		s->summaries += sr->info[i].summaries;
		s->intervals += sr->info[i].intervals;
	}
}

static bool side_ran_commands(const struct file_list *l, const struct side_runs *sr)
{
	for (size_t i = 0; i < l->n; i++)
		if (!sr->runs[i].command.present || !sr->runs[i].command.ncgroups)
			return false;
	return true;
}

/* One comparison: a pair of file lists, their runs, and what compare made of them. */
/*
 * When every run of both sides ran a command (-- COMMAND), each run's
 * command cgroups (named after its own pid) pair as "(command)", and the
 * gates check them unless --cgroup says otherwise.
 */
static void pair_commands(struct compared *p)
{
	const struct command_info *cmds[2 * MAX_RUNS];
	size_t n = 0;

	if (!side_ran_commands(&p->files[0], p->sides[0]) ||
	    !side_ran_commands(&p->files[1], p->sides[1]))
		return;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < p->files[k].n; i++) {
			if (compare_relabel_command(&p->sides[k]->runs[i]))
				die(EXIT_NOMEM, "out of memory");
			cmds[n++] = &p->sides[k]->runs[i].command;
		}
	if (compare_command_rows(&p->c, cmds, n))
		die(EXIT_NOMEM, "out of memory");
}

/* --pair: each side's rows a glob matches, relabelled alike; a glob that matches nothing is a typo */
static void pair_cgroups(const struct cmp_opts *o, struct compared *p)
{
	static const char *const what[] = { "BEFORE", "AFTER" };

	for (int k = 0; k < 2 && o->npairs; k++) {
		size_t matched[MAX_SPECS] = { 0 };

		for (size_t i = 0; i < p->files[k].n; i++)
			if (compare_relabel_pairs(&p->sides[k]->runs[i], o->pairs, o->npairs, k,
						  matched))
				die(EXIT_NOMEM, "out of memory");
		for (size_t j = 0; j < o->npairs; j++)
			if (!matched[j])
				die(EXIT_INPUT, "--pair %s: no cgroup of %s (%s) matches %s",
				    o->pairs[j].text, what[k], p->files[k].name[0],
				    k ? o->pairs[j].after : o->pairs[j].before);
	}
}

/*
 * Rows are paired by cgroup and lock where every run tells the locks
 * apart; where one does not (a kernel before 6.16, or no fentry), the
 * others' rows are added up per cgroup to pair with it, and the header
 * says so. Lock types (an rwlock's read and write) likewise.
 */
static void fold_locks(struct compared *p)
{
	bool locks = true, types = true;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < p->files[k].n; i++) {
			locks = locks && p->sides[k]->runs[i].lock_rows;
			types = types && p->sides[k]->runs[i].lock_types;
		}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < p->files[k].n; i++)
			if (report_fold_locks(&p->sides[k]->runs[i], !locks, !types))
				die(EXIT_NOMEM, "out of memory");
}

/* The side's runs as compare sees them: one run, or several pooled. */
static void pool_side(const struct file_list *l, struct side_runs *sr, struct side *s)
{
	s->file = l->name[0];
	s->files = l->name;
	s->runs = sr->runs;
	s->nruns = l->n;
	s->irqoff_source = irqoff_source_of(&sr->runs[0], &sr->info[0]);
	s->r = &sr->runs[0];
	if (l->n == 1)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (report_pool_add(&sr->pool, &sr->runs[i]))
			die(EXIT_NOMEM, "out of memory");
	if (sr->pool.overflow)
		die(EXIT_INPUT, "%s...: %s passes 2^64-1 when the runs are added up", l->name[0],
		    sr->pool.overflow);
	s->r = &sr->pool.r;
}

static void free_side(const struct file_list *l, struct side_runs *sr)
{
	if (!sr)
		return;
	for (size_t i = 0; i < l->n; i++)
		report_free(&sr->runs[i]);
	report_pool_free(&sr->pool);
	free(sr);
}

/* Compares a pair of file lists, read. */
static void compare_pair(const struct cmp_opts *o, struct compared *p)
{
	struct comparison *c = &p->c;
	char err[512];
	int ret;

	check_side(&p->files[0], p->sides[0], &c->before, "BEFORE");
	check_side(&p->files[1], p->sides[1], &c->after, "AFTER");
	pair_commands(p);
	pair_cgroups(o, p);
	fold_locks(p);
	pool_side(&p->files[0], p->sides[0], &c->before);
	pool_side(&p->files[1], p->sides[1], &c->after);
	c->alpha = o->alpha;
	c->noise = o->noise;
	c->shown = (struct selection){
		.rows = o->rows_shown, .nrows = o->nrows_shown,
		.metrics = o->metrics_shown, .nmetrics = o->nmetrics_shown,
	};
	c->title = o->title;
	c->notes = o->notes;
	c->nnotes = o->nnotes;
	ret = compare_build(c, o->gates, o->ngates, o->cgroup, err, sizeof(err));
	if (ret == -1)
		die(EXIT_INPUT, "%s%s%s", o->nfiles > 1 ? p->files[0].name[0] : "",
		    o->nfiles > 1 ? ": " : "", err);
	if (ret)
		die(EXIT_NOMEM, "out of memory");
}

static void print_pairs(FILE *out, const struct cmp_opts *o, struct compared *pairs)
{
	const struct comparison *cs[MAX_PAIRS];

	for (size_t i = 0; i < o->nfiles; i++)
		cs[i] = &pairs[i].c;
	if (o->format == FMT_MAIL) {
		compare_mail_print(out, cs, o->nfiles, o->rows);
		return;
	}
	for (size_t i = 0; i < o->nfiles; i++) {
		if (i && o->format != FMT_JSON)
			fputs("\n", out);
		compare_print(out, cs[i], o->format, o->rows, o->histograms);
	}
}

int compare_main(int argc, char **argv)
{
	struct cmp_opts o = { .rows = 20, .alpha = 0.01, .noise = 0.05 };
	struct compared pairs[MAX_PAIRS] = { 0 };
	size_t failed = 0, inconclusive = 0;
	int ret, err_no;
	FILE *out;

	parse_args(argc, argv, &o);
	out = open_output(o.output);
	for (size_t i = 0; i < o.nfiles; i++)
		pairs[i].files = o.files[i];
	read_files(&o, pairs);
	for (size_t i = 0; i < o.nfiles; i++) {
		compare_pair(&o, &pairs[i]);
		failed += pairs[i].c.failed;
		inconclusive += pairs[i].c.inconclusive;
	}
	print_pairs(out, &o, pairs);
	if (out == outfile.f && (err_no = outfile_commit(&outfile)))
		die(EXIT_ENV, "cannot write %s: %s", o.output, outfile_why(err_no));
	if (out == stdout && (fflush(stdout) || ferror(stdout)))
		die(EXIT_ENV, "cannot write the comparison: %s", strerror(errno));
	ret = failed ? EXIT_GATE :
	      inconclusive && !o.allow_inconclusive ? EXIT_INCONCLUSIVE : EXIT_PASS;
	for (size_t i = 0; i < o.nfiles; i++) {
		compare_free(&pairs[i].c);
		free_side(&pairs[i].files[0], pairs[i].sides[0]);
		free_side(&pairs[i].files[1], pairs[i].sides[1]);
	}
	for (size_t i = 0; i < o.ngates; i++)
		free(o.gates[i].text);
	for (size_t i = 0; i < o.npairs; i++)
		pair_free(&o.pairs[i]);
	free(o.cgroup_label);
	return ret;
}
