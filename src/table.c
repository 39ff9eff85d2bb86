// SPDX-License-Identifier: GPL-2.0
/* The terminal view: a table per interval and a summary at exit. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "escape.h"
#include "findings.h"
#include "fmt.h"
#include "view.h"

const char *const sort_names[SORT_MAX_KEY] = {
	[SORT_HOLD_P99] = "hold-p99",
	[SORT_HOLD_P50] = "hold-p50",
	[SORT_HOLD_MAX] = "hold-max",
	[SORT_WAIT_P99] = "wait-p99",
	[SORT_WAIT_MAX] = "wait-max",
	[SORT_LOCKED] = "locked",
	[SORT_FLUSH_P99] = "flush-p99",
	[SORT_CONTENDED] = "contended",
	[SORT_PATH] = "path",
};

int sort_key_parse(const char *s, enum sort_key *key)
{
	/* the old spelling, from before "locked" was the one word for it */
	if (!strcmp(s, "flushes")) {
		*key = SORT_LOCKED;
		return 0;
	}
	for (int k = 0; k < SORT_MAX_KEY; k++) {
		if (!strcmp(s, sort_names[k])) {
			*key = k;
			return 0;
		}
	}
	return -1;
}

/* Quantiles and the sort key are computed once per row, not per comparison. */
struct sorted_row {
	const struct row *row;
	const char *path;	/* the tie-break, without a trip to the row */
	uint64_t key;		/* descending */
	uint64_t hold_p50, hold_p99, wait_p99, flush_p99, irq_p99;
};

static uint64_t sort_value(const struct sorted_row *s, enum sort_key key)
{
	switch (key) {
	case SORT_HOLD_P99: return s->hold_p99;
	case SORT_HOLD_P50: return s->hold_p50;
	case SORT_HOLD_MAX: return s->row->dist[DIST_HOLD].max;
	case SORT_WAIT_P99: return s->wait_p99;
	case SORT_WAIT_MAX: return s->row->dist[DIST_WAIT].max;
	case SORT_LOCKED: return s->row->count[COUNT_LOCKED];
	case SORT_FLUSH_P99: return s->flush_p99;
	case SORT_CONTENDED: return s->row->count[COUNT_CONTENDED];
	case SORT_PATH:
	case SORT_MAX_KEY: break;
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct sorted_row *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	return strcmp(a->path, b->path);
}

/* The irqs-off columns only when measured: with the holds they repeat them. */
static bool irq_columns(const struct report *r)
{
	return r->irqoff_rows == IRQOFF_ROWS_TRACED;
}

static struct sorted_row *sort_rows(const struct report *r, const struct row *rows, size_t n,
				    enum sort_key key)
{
	struct sorted_row *s = calloc(n ? n : 1, sizeof(*s));

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		static const double qs[] = { 0.50, 0.99 };
		uint64_t hold[2];

		s[i].row = &rows[i];
		dist_quantiles(&rows[i].dist[DIST_HOLD], qs, 2, hold);
		s[i].hold_p50 = hold[0];
		s[i].hold_p99 = hold[1];
		s[i].wait_p99 = dist_quantile(&rows[i].dist[DIST_WAIT], 0.99);
		s[i].flush_p99 = dist_quantile(&rows[i].dist[DIST_FLUSH], 0.99);
		if (irq_columns(r))
			s[i].irq_p99 = dist_quantile(row_irqoff(r, &rows[i]), 0.99);
		s[i].path = rows[i].path ? rows[i].path : "";
		s[i].key = sort_value(&s[i], key);
	}
	qsort(s, n, sizeof(*s), cmp_rows);
	return s;
}

static void print_header(FILE *f, const struct report *r, const struct view_opts *o)
{
	char when[32] = "";
	double secs = (double)r->duration_ns / 1e9;

	if (o->timestamp || r->type == REPORT_SUMMARY) {
		time_t t = (time_t)((r->start_ns + r->duration_ns) / 1000000000ULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%H:%M:%S ", &tm);
	}
	if (r->type == REPORT_SUMMARY)
		fprintf(f, "%sSummary: %.2fs, kernel %s, %d possible / %d online CPUs, attach %s, "
			"irqs-off from %s%s\n", when, secs, r->kernel.release, r->kernel.cpus_possible,
			r->kernel.cpus_online, r->attach ? r->attach : "?",
			r->irqoff.source ? r->irqoff.source : "off",
			/* a row adds up its holds under every lock: said where there are several */
			r->lock_rows ? ", locks per-subsystem (a row per lock)" :
			r->locks == LOCKS_PER_SUBSYSTEM ? ", locks per-subsystem (rows add them up)" :
			r->locks == LOCKS_GLOBAL ? ", one global lock" : "");
	else
		fprintf(f, "%sinterval %.2fs\n", when, secs);
}

/* The command's argv, escaped and joined, cut to fit one line. */
static void command_text(char *buf, size_t len, const struct command_info *c)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->argc && at + 1 < len; i++) {
		if (i)
			buf[at++] = ' ';
		at += term_escape(buf + at, len - at, c->argv[i]);
	}
	if (at + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/* -- COMMAND: "command: make test (pid 42) in /rstatlat-41: exit 0". */
static void print_command(FILE *f, const struct report *r)
{
	const struct command_info *c = &r->command;
	char text[160], where[PATH_MAX];

	if (!c->present)
		return;
	command_text(text, sizeof(text), c);
	fprintf(f, "command: %s (pid %u)", text, c->pid);
	for (int i = 0; i < c->ncgroups; i++) {
		term_escape(where, sizeof(where), c->cgroups[i].path);
		fprintf(f, "%s%s", i ? ", " : " in ", where);
	}
	if (!c->ended)
		fputs(": running\n", f);
	else if (c->signal)
		fprintf(f, ": killed by signal %d\n", c->signal);
	else
		fprintf(f, ": exit %d\n", c->status);
}

/*
 * rstatlat load's figures under -- COMMAND: "workload: hammer 100000 reads in
 * 0.12 s (854920/s), read p50 1.95us p99 3.65us mode 1.02us-2.05us".
 */
static void print_workload(FILE *f, const struct report *r)
{
	const struct workload_info *w = &r->workload;
	double secs = (double)w->wall_ns / 1e9;
	uint64_t mode = dist_mode_octave(&w->read);
	char name[64], a[32], b[32], c[32], d[32];

	if (!w->present)
		return;
	term_escape(name, sizeof(name), w->name);
	fprintf(f, "workload: %s%s %llu reads in %.2f s (%.0f/s), read p50 %s p99 %s mode %s-%s",
		name, w->mixed ? " (and others)" : "", (unsigned long long)w->count[WL_READS], secs,
		secs > 0 ? (double)w->count[WL_READS] / secs : 0.0,
		fmt_duration(a, sizeof(a), dist_quantile(&w->read, 0.5)),
		fmt_duration(b, sizeof(b), dist_quantile(&w->read, 0.99)),
		fmt_duration(c, sizeof(c), mode),
		fmt_duration(d, sizeof(d), mode_octave_end(mode)));
	if (w->measured & (1U << WL_ROUNDS))
		fprintf(f, ", %llu rounds (%llu late)", (unsigned long long)w->count[WL_ROUNDS],
			(unsigned long long)w->count[WL_ROUNDS_LATE]);
	if (w->measured & (1U << WL_OOM_KILLS))
		fprintf(f, ", %llu OOM kills", (unsigned long long)w->count[WL_OOM_KILLS]);
	if (w->stopped_by[0])
		fprintf(f, ", stopped by SIG%s", w->stopped_by);
	fputc('\n', f);
}

static void print_lost(FILE *f, const struct report *r)
{
	bool any = false;

	for (int i = 0; i < LOST_MAX; i++) {
		if (!r->lost[i])
			continue;
		fprintf(f, "%s %s=%llu", any ? "" : "LOST:", lost_names[i],
			(unsigned long long)r->lost[i]);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

/* v as a decimal with one digit after the point, without printf's floats. */
static char *put_tenths(char *p, uint64_t tenths)
{
	p = fmt_put_uint(p, tenths / 10);
	*p++ = '.';
	*p++ = (char)('0' + tenths % 10);
	return p;
}

static const char *fmt_tenths(char *buf, uint64_t tenths)
{
	*put_tenths(buf, tenths) = '\0';
	return buf;
}

/* Acquisitions per second, in tenths; a double: n * 1e10 overflows past 1.8e9. */
static uint64_t rate_tenths(uint64_t n, uint64_t duration_ns)
{
	return duration_ns ? (uint64_t)((double)n * 1e10 / (double)duration_ns + 0.5) : 0;
}

/* part / whole in tenths of a percent, or of one unit with scale 10. */
static uint64_t ratio_tenths(uint64_t part, uint64_t whole, uint64_t scale)
{
	return whole ? (part * scale + whole / 2) / whole : 0;
}

/* Appends the n bytes at s right-aligned in width columns, then a space. */
static char *put_col(char *p, const char *s, size_t n, size_t width)
{
	for (; n < width; width--)
		*p++ = ' ';
	memcpy(p, s, n);
	p[n] = ' ';
	return p + n + 1;
}

static char *put_tenths_col(char *p, uint64_t tenths, size_t width)
{
	char num[24];

	return put_col(p, num, (size_t)(put_tenths(num, tenths) - num), width);
}

static char *put_duration_col(char *p, uint64_t ns)
{
	char num[24];

	return put_col(p, num, (size_t)(fmt_put_duration(num, ns) - num), 8);
}

/* Appends n bytes at s left-aligned in width columns (never cut), then a space. */
static char *put_left(char *p, const char *s, size_t n, size_t width)
{
	memcpy(p, s, n);
	for (p += n; n < width; n++)
		*p++ = ' ';
	*p = ' ';
	return p + 1;
}

/* H/FL: lock holds per whole flush, or "-" without flushes. */
static char *put_holds_per_flush_col(char *p, const struct row *row)
{
	if (!row->dist[DIST_FLUSH].count)
		return put_col(p, "-", 1, 5);
	return put_tenths_col(p, ratio_tenths(row->count[COUNT_FLUSH_HOLDS], row->dist[DIST_FLUSH].count, 10), 5);
}

/* The figures of a row, each followed by a space. */
static char *put_stat_cols(char *p, const struct report *r, const struct sorted_row *s)
{
	const struct row *row = s->row;
	const uint64_t durations[] = { s->hold_p50, s->hold_p99, row->dist[DIST_HOLD].max, s->wait_p99,
				       row->dist[DIST_WAIT].max, s->flush_p99 };

	p = put_tenths_col(p, rate_tenths(row->count[COUNT_LOCKED], r->duration_ns), 10);
	p = put_tenths_col(p, ratio_tenths(row->count[COUNT_CONTENDED], row->count[COUNT_LOCKED], 1000), 6);
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
		p = put_duration_col(p, durations[i]);
	p = put_holds_per_flush_col(p, row);
	if (irq_columns(r)) {
		p = put_duration_col(p, s->irq_p99);
		p = put_duration_col(p, row_irqoff(r, row)->max);
	}
	return p;
}

#define LABEL_LEN 96	/* an escaped comm and its [pid] fit with room to spare */

/* A share of the flush time in tenths of a percent, or "-" without flushes. */
static char *put_share_col(char *p, uint64_t part, uint64_t wall)
{
	return wall ? put_tenths_col(p, ratio_tenths(part, wall, 1000), 7) : put_col(p, "-", 1, 7);
}

/*
 * --flush: flushes per second, p50 and p99, holds per flush, where the
 * time went as shares of the wall time, memcg decisions when measured.
 */
static char *put_flush_cols(char *p, const struct report *r, const struct sorted_row *s)
{
	const struct row *row = s->row;

	p = put_tenths_col(p, rate_tenths(row->dist[DIST_FLUSH].count, r->duration_ns), 9);
	p = put_duration_col(p, dist_quantile(&row->dist[DIST_FLUSH], 0.50));
	p = put_duration_col(p, s->flush_p99);
	p = put_holds_per_flush_col(p, row);
	/* a part this run did not measure is in %OTHER: "-" says so */
	for (int k = 0; r->flush_parts && k < PART_MAX; k++)
		p = report_part_measured(r, k) ? put_share_col(p, row->part[k], row->dist[DIST_FLUSH].sum) :
		    put_col(p, "-", 1, 7);
	for (int k = 0; r->memcg_decisions && k < DECISION_MAX; k++) {
		char num[24];

		p = put_col(p, num, (size_t)(fmt_put_uint(num, row->decisions[k]) - num), 8);
	}
	return p;
}

/* "cpu.stat 97%": the row's top cause and its share of the flushes. */
static size_t cause_label(char *buf, const struct row *row)
{
	const struct cause *top = row_top_cause(row);
	char *p = buf;

	if (!top || !row->dist[DIST_FLUSH].count) {
		strcpy(buf, "-");
		return 1;
	}
	p += term_escape(p, LABEL_LEN - 8, top->name);
	*p++ = ' ';
	p = fmt_put_uint(p, ratio_tenths(cause_flushes(row, top), row->dist[DIST_FLUSH].count, 100));
	*p++ = '%';
	*p = '\0';
	return (size_t)(p - buf);
}
/*
 * The figures at their widest (uint64_t at every column, from a hostile
 * file: the default view's 3 x 22 + 8 x 13 bytes, --flush's 3 x 22 + 3 x 13
 * + 6 x 8 + 3 x 21), four labels (a flusher, a cause, an own or top
 * flusher, a lock), an escaped path of up to 4095 bytes and the newline.
 */
#define STATS_LEN 256
#define PATH_LEN 4096
#define LINE_LEN (4 * (LABEL_LEN + 1) + STATS_LEN + PATH_LEN + 1)

/*
 * comm[pid]; "comm (exited: N)" for N exited processes folded into one
 * row; "-" when none is known. Returns its length.
 */
static size_t flusher_label(char *buf, const char *comm, uint32_t tgid, uint32_t exited)
{
	char *p = buf;

	if (!tgid && !comm[0] && !exited) {
		strcpy(buf, "-");
		return 1;
	}
	p += term_escape(p, 4 * RSL_COMM_LEN + 1, comm);
	if (exited) {
		memcpy(p, " (exited: ", 10);
		p = fmt_put_uint(p + 10, exited);
		*p++ = ')';
	} else if (!tgid) {
		/* a cgroup's top flusher that is a row of exited processes */
		memcpy(p, " (exited)", 9);
		p += 9;
	} else {
		*p++ = '[';
		p = fmt_put_uint(p, tgid);
		*p++ = ']';
	}
	*p = '\0';
	return (size_t)(p - buf);
}

/*
 * The LOCK column (report.lock_rows, lock_types): "memory", "(unknown)",
 * with the lock type after a slash where there is one: "memory/read".
 */
#define LOCK_COL 9

static size_t lock_label(char *buf, size_t len, const struct row *row)
{
	char lock[4 * LOCK_NAME_LEN], type[4 * RSL_LOCK_TYPE_LEN];

	term_escape(lock, sizeof(lock), row->lock);
	term_escape(type, sizeof(type), row->lock_type);
	return (size_t)snprintf(buf, len, "%s%s%s", lock, lock[0] && type[0] ? "/" : "", type);
}

/* The CGROUP column: the path, or how many removed cgroups the row holds. */
static char *put_path(char *p, const struct row *row)
{
	if (row->removed_cgroups) {
		/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): the line goes on */
		memcpy(p, "(removed cgroups: ", 18);
		p = fmt_put_uint(p + 18, row->removed_cgroups);
		*p++ = ')';
		return p;
	}
	return p + term_escape(p, PATH_LEN, row->path ? row->path : "?");
}

/* One row, built by hand into one line: printf per row missed the budget. */
static void print_row(FILE *f, const struct report *r, const struct sorted_row *s,
		      bool process_rows, bool flush_view)
{
	const struct row *row = s->row;
	char line[LINE_LEN], who[LABEL_LEN], *p = line;
	size_t n;

	if (process_rows) {
		n = flusher_label(who, row->comm, row->tgid, row->exited);
		p = put_left(p, who, n, 24);
	}
	if (flush_view) {
		p = put_flush_cols(p, r, s);
		if (r->cause_sample)
			p = put_left(p, who, cause_label(who, row), 20);
	} else {
		p = put_stat_cols(p, r, s);
	}
	if (process_rows)
		n = term_escape(who, sizeof(who), row->own_cgroup ? row->own_cgroup : "?");
	else
		n = flusher_label(who, row->top_comm, row->top_tgid, 0);
	p = put_left(p, who, n, 24);
	if (r->lock_rows || r->lock_types)
		p = put_left(p, who, lock_label(who, sizeof(who), row), LOCK_COL);
	p = put_path(p, row);
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), f);
}

/* Collapses the log-linear buckets into powers of two, libbpf-tools style. */
static void print_dist_hist(FILE *f, const char *label, const struct dist *d)
{
	uint64_t octave[64], peak = 0;
	int lo, hi;

	if (!dist_octaves(d, octave, &lo, &hi))
		return;
	for (int o = lo; o <= hi; o = octave_next(o))
		peak = octave[o] > peak ? octave[o] : peak;
	fprintf(f, "    %-22s : %-10s distribution\n", label, "count");
	for (int o = lo; o <= hi; o = octave_next(o)) {
		int stars = peak ? (int)(octave[o] * 40 / peak) : 0;
		uint64_t from, to;
		char bar[41];

		octave_bounds(o, &from, &to);
		memset(bar, '*', (size_t)stars);
		bar[stars] = '\0';
		fprintf(f, "    %10llu -> %-10llu : %-10llu |%-40s|\n",
			(unsigned long long)from, (unsigned long long)to,
			(unsigned long long)octave[o], bar);
	}
}

static void print_flush_header(FILE *f, const struct report *r)
{
	static const char *const part_heads[PART_MAX] = {
		[PART_HELD] = "%HELD", [PART_WAIT] = "%WAIT", [PART_IRQ] = "%IRQ",
		[PART_OFFCPU] = "%OFFCPU", [PART_SELF] = "%SELF", [PART_OTHER] = "%OTHER",
	};

	fprintf(f, "%9s %8s %8s %5s ", "FLUSH/s", "FLUSHp50", "FLUSHp99", "H/FL");
	for (int k = 0; r->flush_parts && k < PART_MAX; k++)
		fprintf(f, "%7s ", part_heads[k]);
	if (r->memcg_decisions)
		fprintf(f, "%8s %8s %8s ", "ASKED", "FORCED", "SKIPPED");
	if (r->cause_sample)
		fprintf(f, "%-20s ", "CAUSE");
}

static void print_rows(FILE *f, const struct report *r, const struct row *rows,
		       size_t n, bool process_rows, const struct view_opts *o)
{
	struct sorted_row *s = sort_rows(r, rows, n, o->sort);
	size_t shown = o->rows && o->rows < n ? o->rows : n;

	if (!s)
		return;
	if (process_rows)
		fprintf(f, "%-24s ", "FLUSHER");
	if (o->flush)
		print_flush_header(f, r);
	else
		fprintf(f, "%10s %6s %8s %8s %8s %8s %8s %8s %5s ", "LOCKED/s", "%CONT", "HOLDp50",
			"HOLDp99", "HOLDmax", "WAITp99", "WAITmax", "FLUSHp99", "H/FL");
	if (irq_columns(r) && !o->flush)
		fprintf(f, "%8s %8s ", "IRQp99", "IRQmax");
	fprintf(f, "%-24s ", process_rows ? "OWN-CGROUP" : "TOP-FLUSHER");
	if (r->lock_rows || r->lock_types)
		fprintf(f, "%-*s ", LOCK_COL, "LOCK");
	fprintf(f, "%s\n", "CGROUP");
	for (size_t i = 0; i < shown; i++) {
		const struct row *row = s[i].row;

		print_row(f, r, &s[i], process_rows, o->flush);
		if (o->histograms) {
			print_dist_hist(f, "hold (ns)", &row->dist[DIST_HOLD]);
			print_dist_hist(f, "wait (ns)", &row->dist[DIST_WAIT]);
			print_dist_hist(f, "flush (ns)", &row->dist[DIST_FLUSH]);
			if (irq_columns(r))
				print_dist_hist(f, "irqs-off (ns)", row_irqoff(r, row));
		}
	}
	if (shown < n)
		fprintf(f, "(%zu more rows; -n 0 shows all)\n", n - shown);
	free(s);
}

/* The per-CPU rstat lock, when its tracepoints were attached. */
static void print_cpu_lock(FILE *f, const struct report *r)
{
	const struct lock_summary *l = &r->cpu_lock;
	char rate[24], pct[24], a[16], b[16], c[16];

	if (!l->present)
		return;
	fprintf(f, "per-CPU lock: %s locked/s, %s%% contended, hold p99 %s max %s, wait p99 %s\n",
		fmt_tenths(rate, rate_tenths(l->locked, r->duration_ns)),
		fmt_tenths(pct, ratio_tenths(l->contended, l->locked, 1000)),
		fmt_duration(a, sizeof(a), dist_quantile(&l->hold, 0.99)),
		fmt_duration(b, sizeof(b), l->hold.max),
		fmt_duration(c, sizeof(c), dist_quantile(&l->wait, 0.99)));
}

/* Irqs-off that no row holds: outside rstat (trace), late ticks (sample). */
static void print_irqoff(FILE *f, const struct report *r)
{
	const struct irqoff_summary *q = &r->irqoff;
	char a[16], b[16];

	if (q->trace)
		fprintf(f, "irqs-off outside rstat: %llu intervals, p99 %s, max %s\n",
			(unsigned long long)q->outside.count,
			fmt_duration(a, sizeof(a), dist_quantile(&q->outside, 0.99)),
			fmt_duration(b, sizeof(b), q->outside.max));
	if (q->sample)
		fprintf(f, "tick lateness: %llu ticks at %u Hz, p99 %s, max %s%s\n",
			(unsigned long long)q->ticks, q->sample_hz,
			fmt_duration(a, sizeof(a), dist_quantile(&q->late, 0.99)),
			fmt_duration(b, sizeof(b), q->late.max), q->virtual_machine ?
			" (a virtual machine: vCPU stalls look the same as irqs-off)" : "");
}

/* 12345678 as "12.3M": three significant digits, k, M or G. */
static const char *fmt_count(char *buf, size_t len, uint64_t n)
{
	static const char units[] = "kMG";
	double v = (double)n;
	int u = -1;

	while (u < 2 && (u < 0 ? v >= 1000 : v >= 999.5)) {
		v /= 1000;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		snprintf(buf, len, v < 9.995 ? "%.2f%c" : v < 99.95 ? "%.1f%c" : "%.0f%c", v,
			 units[u]);
	return buf;
}

/*
 * rstatlat's BPF time on the rstat path from its own sampled clock reads
 * (known without kernel.bpf_stats_enabled): a line of its own, as the
 * self line is full.
 */
static void print_own_bpf(FILE *f, const struct report *r)
{
	const struct self_costs *c = &r->self;

	if (!c->own_known)
		return;
	fprintf(f, "self: BPF %.3f ms sampled (%.4f%% of one CPU)", (double)c->bpf_sampled_ns / 1e6,
		r->duration_ns ? (double)c->bpf_sampled_ns * 100 / (double)r->duration_ns : 0.0);
	if (c->lock_events)
		fprintf(f, ", %.0f ns a lock event", (double)c->bpf_sampled_ns /
			(double)c->lock_events);
	fputc('\n', f);
}

/* rstatlat's own costs: the summary's last lines. */
static void print_self(FILE *f, const struct report *r)
{
	const struct self_costs *c = &r->self;
	double cpu = (double)(c->cpu_user_ns + c->cpu_system_ns);
	char runs[24];

	if (!c->present)
		return;
	/* the maps grow with the entries in use: now, and at --max-entries */
	fprintf(f, "self: kernel maps %.1f MiB (", (double)c->map_bytes / (1 << 20));
	if (c->map_bytes_ceiling)
		fprintf(f, "%.1f MiB at ", (double)c->map_bytes_ceiling / (1 << 20));
	fprintf(f, "%u entries, %u in use), CPU %.2f s user + %.2f s system (%.2f%% of one CPU)",
		c->entries, c->entries_used, (double)c->cpu_user_ns / 1e9,
		(double)c->cpu_system_ns / 1e9,
		r->duration_ns ? cpu * 100 / (double)r->duration_ns : 0.0);
	if (c->bpf_stats)
		fprintf(f, ", BPF %.2f s in %s runs", (double)c->bpf_ns / 1e9,
			fmt_count(runs, sizeof(runs), c->bpf_runs));
	fputc('\n', f);
	print_own_bpf(f, r);
}

/* The summary's findings (findings.h): what stands out, one sentence each. */
static void print_findings(FILE *f, const struct report *r)
{
	struct findings fs;
	char lead[64];

	findings_of(r, &fs);
	if (!fs.n)
		return;
	fputs("findings:\n", f);
	for (int i = 0; i < fs.n; i++) {
		snprintf(lead, sizeof(lead), "  %s %s: ", severity_names[fs.f[i].severity],
			 finding_names[fs.f[i].id]);
		term_wrap(f, lead, "      ", fs.f[i].text, 80);
	}
}

void table_print(FILE *f, const struct report *r, const struct view_opts *o)
{
	if (o->clear && r->type == REPORT_INTERVAL)
		fputs("\033[H\033[2J", f);
	print_header(f, r, o);
	print_command(f, r);
	print_workload(f, r);
	print_rows(f, r, r->cgroups, r->ncgroups, false, o);
	if (r->per_process) {
		fputc('\n', f);
		print_rows(f, r, r->processes, r->nprocesses, true, o);
	}
	print_cpu_lock(f, r);
	print_irqoff(f, r);
	print_lost(f, r);
	if (r->type == REPORT_SUMMARY) {
		print_self(f, r);
		print_findings(f, r);
	}
	if (r->type == REPORT_SUMMARY || !o->clear)
		fputc('\n', f);
	fflush(f);
}
