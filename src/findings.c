// SPDX-License-Identifier: GPL-2.0
/*
 * Findings: one rule a finding, each over figures the summary already has
 * (findings.h says the thresholds; docs/findings.md why each is where it
 * is). A rule that does not fire writes nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "findings.h"
#include "fmt.h"

const char *const finding_names[FIND_MAX] = {
	[FIND_WHO_FLUSHES] = "who_flushes",
	[FIND_READERS_FIGHT] = "readers_fight",
	[FIND_LONG_IRQOFF] = "long_irqoff",
	[FIND_FLUSHES_SKIPPED] = "flushes_skipped",
	[FIND_FLUSH_TIME] = "flush_time",
	[FIND_SELF] = "rstatlat_itself",
};

const char *const severity_names[SEV_MAX] = { "info", "warning", "critical" };

/* The figures of every cgroup row added up: what the rules weigh shares against. */
struct totals {
	uint64_t locked, contended, hold_ns, wait_ns, flushes;
	uint64_t part[PART_MAX];
	uint64_t asked, skipped;
};

static void add_up(const struct report *r, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < r->ncgroups; i++) {
		const struct row *row = &r->cgroups[i];

		t->locked += row->count[COUNT_LOCKED];
		t->contended += row->count[COUNT_CONTENDED];
		t->hold_ns += row->dist[DIST_HOLD].sum;
		t->wait_ns += row->dist[DIST_WAIT].sum;
		t->flushes += row->dist[DIST_FLUSH].count;
		for (int k = 0; k < PART_MAX; k++)
			t->part[k] += row->part[k];
		t->asked += row->decisions[DECISION_ASKED];
		t->skipped += row->decisions[DECISION_SKIPPED];
	}
}

/* part of whole in millionths, rounded down (0 when whole is 0): thresholds are exact. */
static uint64_t ppm(uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((unsigned __int128)part * 1000000 / whole) : 0;
}

static double pct(uint64_t ppm_value)
{
	return (double)ppm_value / 1e4;
}

static struct finding *begin(struct findings *out, enum finding_id id, enum finding_severity sev)
{
	struct finding *f = &out->f[out->n++];

	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = sev;
	return f;
}

static void say(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct finding *f, const char *fmt, ...)
{
	size_t used = strlen(f->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text + used, sizeof(f->text) - used, fmt, ap);
	va_end(ap);
}

static void figure(struct finding *f, const char *key, uint64_t number)
{
	if (f->nfigures < FINDING_FIGURES_MAX)
		f->figures[f->nfigures++] = (struct finding_figure){ .key = key, .number = number };
}

static void figure_text(struct finding *f, const char *key, const char *text)
{
	if (f->nfigures < FINDING_FIGURES_MAX && text)
		f->figures[f->nfigures++] = (struct finding_figure){ .key = key, .text = text };
}

/* A process row as "comm (pid N)"; exited processes folded into it have no pid. */
static void say_process(struct finding *f, const struct row *p)
{
	say(f, "%s", p->comm);
	if (p->tgid)
		say(f, " (pid %u)", p->tgid);
}

/* ---- who flushes ---- */

/*
 * The flusher (a comm) holding more than half of the weight, if one does:
 * a weighted majority vote (Boyer-Moore), then its weight counted exactly.
 * weight_of and comm_of read row i; no allocation, one pass each.
 */
struct vote_rows {
	const struct row *rows;
	size_t n;
	uint64_t (*weight_of)(const struct row *row);
	const char *(*comm_of)(const struct row *row);
};

static const char *majority(const struct vote_rows *v, uint64_t *weight)
{
	const char *cand = NULL;
	uint64_t votes = 0;

	for (size_t i = 0; i < v->n; i++) {
		const char *c = v->comm_of(&v->rows[i]);
		uint64_t w = v->weight_of(&v->rows[i]);

		if (!c || !*c || !w)
			continue;
		if (cand && !strcmp(c, cand)) {
			votes += w;
		} else if (w > votes) {
			cand = c;
			votes = w - votes;
		} else {
			votes -= w;
		}
	}
	*weight = 0;
	for (size_t i = 0; cand && i < v->n; i++) {
		const char *c = v->comm_of(&v->rows[i]);

		if (c && !strcmp(c, cand))
			*weight += v->weight_of(&v->rows[i]);
	}
	return cand;
}

static uint64_t held_of(const struct row *row)
{
	return row->dist[DIST_HOLD].sum;
}

static const char *process_comm(const struct row *row)
{
	return row->comm;
}

static const char *top_comm(const struct row *row)
{
	return row->top_comm;
}

/* The cause with the most flushes among the rows of comm (a stat file, a kernel path). */
static const char *top_cause(const struct row *rows, size_t n, const char *comm,
			     uint64_t *flushes)
{
	const char *best = NULL;

	*flushes = 0;
	for (size_t i = 0; i < n; i++) {
		if (comm && strcmp(rows[i].comm, comm))
			continue;
		for (size_t c = 0; c < rows[i].ncauses; c++) {
			uint64_t k = cause_flushes(&rows[i], &rows[i].causes[c]);

			if (k > *flushes && strcmp(rows[i].causes[c].name, NOT_SAMPLED)) {
				*flushes = k;
				best = rows[i].causes[c].name;
			}
		}
	}
	return best;
}

/* -p: one comm's processes cause most of the held time; their rate a cgroup, and the interval. */
static void who_flushes_exact(const struct report *r, const struct totals *t,
			      struct findings *out)
{
	struct vote_rows v = { r->processes, r->nprocesses, held_of, process_comm };
	uint64_t held, flushes = 0, rows = 0, cause_flushes_n, share;
	const char *comm = majority(&v, &held), *cause;
	uint32_t tgid = 0;
	bool one_process = true;
	struct finding *f;
	char every[32];
	double secs = (double)r->duration_ns / 1e9, per_cgroup;

	share = ppm(held, t->hold_ns);
	if (!comm || share <= FIND_WHO_SHARE_PPM)
		return;
	for (size_t i = 0; i < r->nprocesses; i++) {
		const struct row *row = &r->processes[i];

		if (strcmp(row->comm, comm))
			continue;
		one_process &= !rows || row->tgid == tgid;
		tgid = row->tgid;
		flushes += row->dist[DIST_FLUSH].count;
		rows++;
	}
	cause = top_cause(r->processes, r->nprocesses, comm, &cause_flushes_n);
	per_cgroup = rows && secs > 0 ? (double)flushes / (double)rows / secs : 0;
	f = begin(out, FIND_WHO_FLUSHES, SEV_INFO);
	say(f, "%s", comm);
	if (one_process && tgid)
		say(f, " (pid %u)", tgid);
	say(f, " caused %.0f%% of the lock's held time: %llu flushes of %llu %s", pct(share),
	    (unsigned long long)flushes, (unsigned long long)rows,
	    !one_process ? "cgroup rows of its processes" : rows == 1 ? "cgroup" : "cgroups");
	if (cause)
		say(f, ", mostly %s", cause);
	if (per_cgroup > 0)
		say(f, "; %.1f a cgroup a second over the run, one every %s", per_cgroup,
		    fmt_duration(every, sizeof(every), (uint64_t)(1e9 / per_cgroup)));
	figure_text(f, "comm", comm);
	if (one_process && tgid)
		figure(f, "pid", tgid);
	figure(f, "held_share_ppm", share);
	figure(f, "flushes", flushes);
	figure(f, "cgroups", rows);
	figure_text(f, "cause", cause);
	figure(f, "flush_interval_ns", per_cgroup > 0 ? (uint64_t)(1e9 / per_cgroup) : 0);
}

/* Without -p: each cgroup's top flusher is a vote (rstatlat.h, VOTE_MERGE), weighed by its held time. */
static void who_flushes_voted(const struct report *r, const struct totals *t,
			      struct findings *out)
{
	struct vote_rows v = { r->cgroups, r->ncgroups, held_of, top_comm };
	uint64_t held, share;
	const char *comm = majority(&v, &held);
	struct finding *f;

	share = ppm(held, t->hold_ns);
	if (!comm || share <= FIND_WHO_SHARE_PPM)
		return;
	f = begin(out, FIND_WHO_FLUSHES, SEV_INFO);
	say(f, "%s is the top flusher of the cgroups with %.0f%% of the lock's held time "
	    "(a vote per cgroup; -p counts each process)", comm, pct(share));
	figure_text(f, "comm", comm);
	figure(f, "held_share_ppm", share);
}

static void who_flushes(const struct report *r, const struct totals *t, struct findings *out)
{
	if (t->locked < FIND_MIN_LOCKS || !t->hold_ns)
		return;
	if (r->per_process)
		who_flushes_exact(r, t, out);
	else
		who_flushes_voted(r, t, out);
}

/* ---- readers fight ---- */

/* The row with the most of what get() reads. */
static const struct row *most(const struct row *rows, size_t n, uint64_t (*get)(const struct row *))
{
	const struct row *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (get(&rows[i]) && (!best || get(&rows[i]) > get(best)))
			best = &rows[i];
	return best;
}

static uint64_t contended_of(const struct row *row)
{
	return row->count[COUNT_CONTENDED];
}

/* -p: the processes that waited on the lock flushing path, and the two that waited most. */
static void who_waited(const struct report *r, const char *path, struct finding *f)
{
	const struct row *first = NULL, *second = NULL;
	uint64_t n = 0;

	for (size_t i = 0; i < r->nprocesses; i++) {
		const struct row *p = &r->processes[i];

		if (!p->count[COUNT_CONTENDED] || strcmp(p->path, path))
			continue;
		n++;
		if (!first || p->count[COUNT_CONTENDED] > first->count[COUNT_CONTENDED]) {
			second = first;
			first = p;
		} else if (!second || p->count[COUNT_CONTENDED] > second->count[COUNT_CONTENDED]) {
			second = p;
		}
	}
	if (n < 2)
		return;
	say(f, "; %llu processes flushing it waited, most ", (unsigned long long)n);
	say_process(f, first);
	say(f, " and ");
	say_process(f, second);
	figure(f, "processes_waiting", n);
}

static void readers_fight(const struct report *r, const struct totals *t, struct findings *out)
{
	uint64_t share = ppm(t->contended, t->locked);
	const struct row *top = most(r->cgroups, r->ncgroups, contended_of);
	struct finding *f;
	char a[32], b[32];

	if (t->locked < FIND_MIN_LOCKS || t->contended < FIND_FIGHT_MIN ||
	    share < FIND_FIGHT_PPM || !top)
		return;
	f = begin(out, FIND_READERS_FIGHT, share >= FIND_FIGHT_WARN_PPM ? SEV_WARNING : SEV_INFO);
	say(f, "%.1f%% of %llu acquisitions waited, %s in all (%.0f%% of the "
	    "time held); most at %s, wait p99 %s", pct(share), (unsigned long long)t->locked,
	    fmt_duration(a, sizeof(a), t->wait_ns), pct(ppm(t->wait_ns, t->hold_ns)), top->path,
	    fmt_duration(b, sizeof(b), dist_quantile(&top->dist[DIST_WAIT], 0.99)));
	figure(f, "contended_ppm", share);
	figure(f, "contended", t->contended);
	figure(f, "wait_ns", t->wait_ns);
	figure_text(f, "cgroup", top->path);
	figure(f, "cgroup_contended", top->count[COUNT_CONTENDED]);
	if (r->per_process)
		who_waited(r, top->path, f);
	else
		say(f, " (-p names who)");
}

/* ---- long irqs-off ---- */

static void long_irqoff(const struct report *r, struct findings *out)
{
	const struct row *top = NULL;
	const struct dist *d;
	uint64_t max = 0, flushes, holds;
	struct finding *f;
	const char *cause;
	uint64_t cause_n;
	char a[32], b[32];

	for (size_t i = 0; i < r->ncgroups; i++) {
		d = row_irqoff(r, &r->cgroups[i]);
		if (d && d->max > max) {
			max = d->max;
			top = &r->cgroups[i];
		}
	}
	if (!top || max < FIND_IRQOFF_NS)
		return;
	flushes = top->dist[DIST_FLUSH].count;
	holds = top->count[COUNT_FLUSH_HOLDS];
	f = begin(out, FIND_LONG_IRQOFF, max >= FIND_IRQOFF_CRIT_NS ? SEV_CRITICAL : SEV_WARNING);
	say(f, "interrupts were off for %s in one hold of %s (p99 %s",
	    fmt_duration(a, sizeof(a), max), top->path,
	    fmt_duration(b, sizeof(b), dist_quantile(row_irqoff(r, top), 0.99)));
	cause = top_cause(top, 1, NULL, &cause_n);
	if (cause)
		say(f, "; flushes mostly for %s", cause);
	say(f, ")");
	figure(f, "irqoff_max_ns", max);
	figure_text(f, "cgroup", top->path);
	figure_text(f, "cause", cause);
	figure(f, "cpus_possible", (uint64_t)r->kernel.cpus_possible);
	if (flushes) {
		/* one hold a flush over many CPUs: the lock held across the walk (before 0efc297a) */
		bool across = holds < 2 * flushes && r->kernel.cpus_possible > 1;

		figure(f, "holds_per_flush_milli", holds * 1000 / flushes);
		if (across)
			say(f, "; its flushes take the lock once for all %d possible CPUs, so the "
			    "interval grows with them (0efc297a drops it per CPU)",
			    r->kernel.cpus_possible);
		else
			say(f, "; this kernel drops the lock between CPUs (%.1f holds a flush), so "
			    "one CPU's part took that long%s", (double)holds / (double)flushes,
			    r->irqoff.virtual_machine ? ", or a vCPU of this virtual machine stalled"
						      : "");
	}
}

/* ---- flushes the kernel skips ---- */

static uint64_t skipped_of(const struct row *row)
{
	return row->decisions[DECISION_SKIPPED];
}

static void flushes_skipped(const struct report *r, const struct totals *t,
			    struct findings *out)
{
	uint64_t share = ppm(t->skipped, t->asked);
	const struct row *top = most(r->cgroups, r->ncgroups, skipped_of);
	struct finding *f;

	if (!r->memcg_decisions || t->asked < FIND_SKIP_MIN || share < FIND_SKIP_PPM || !top)
		return;
	f = begin(out, FIND_FLUSHES_SKIPPED, SEV_INFO);
	say(f, "the kernel skipped %.0f%% of %llu memcg flush requests (too little had changed "
	    "to flush): readers ask far more often than the stats change; most at %s",
	    pct(share), (unsigned long long)t->asked, top->path);
	figure(f, "skipped_ppm", share);
	figure(f, "asked", t->asked);
	figure_text(f, "cgroup", top->path);
}

/* ---- where a flush's time goes ---- */

static const char *const part_meaning[PART_MAX] = {
	[PART_WAIT] = "readers queue for the lock",
	[PART_IRQ] = "interrupts run inside the flush, let in where the lock is dropped "
		     "between CPUs",
	[PART_OFFCPU] = "the flusher is switched out in the middle of its flush",
	[PART_SELF] = "rstatlat's own programs between the holds (see self)",
	[PART_OTHER] = "the kernel's work between the holds, outside the lock (where it is "
		       "dropped per CPU, its trips)",
};

static void flush_time(const struct report *r, const struct totals *t, struct findings *out)
{
	uint64_t wall = 0, best_ns = 0, share;
	int best = -1;
	struct finding *f;

	if (!r->flush_parts || t->flushes < FIND_PART_MIN_FLUSHES)
		return;
	for (int k = 0; k < PART_MAX; k++)
		wall += t->part[k];
	for (int k = 0; k < PART_MAX; k++)
		if (k != PART_HELD && report_part_measured(r, k) && t->part[k] > best_ns) {
			best_ns = t->part[k];
			best = k;
		}
	share = ppm(best_ns, wall);
	if (best < 0 || share <= FIND_PART_PPM)
		return;
	f = begin(out, FIND_FLUSH_TIME, SEV_INFO);
	say(f, "%s is %.0f%% of %llu flushes' wall time (held %.0f%%): %s", part_names[best],
	    pct(share), (unsigned long long)t->flushes, pct(ppm(t->part[PART_HELD], wall)),
	    part_meaning[best]);
	figure_text(f, "part", part_names[best]);
	figure(f, "share_ppm", share);
	figure(f, "flushes", t->flushes);
}

/* ---- rstatlat itself ---- */

/* What fixes a loss, where an option does. */
static const char *loss_fix(int k)
{
	switch (k) {
	case LOST_ENTRIES_FULL: return " (raise --max-entries)";
	case LOST_RINGBUF_FULL:
	case LOST_SLOW_UNPRINTED: return " (raise -t)";
	default: return "";
	}
}

static void itself(const struct report *r, struct findings *out)
{
	const struct self_costs *c = &r->self;
	uint64_t lost = 0, own = 0;
	bool full = c->entries && ppm(c->entries_used, c->entries) >= FIND_ENTRIES_PPM;
	struct finding *f;
	int shown = 0;

	for (int k = 0; k < LOST_MAX; k++)
		lost += r->lost[k];
	if (c->own_known && r->duration_ns)
		own = ppm(c->bpf_sampled_ns, r->duration_ns);
	if (!lost && !full && own < FIND_SELF_PPM)
		return;
	f = begin(out, FIND_SELF, lost || full ? SEV_WARNING : SEV_INFO);
	say(f, "rstatlat");
	if (lost) {
		say(f, " lost %llu events:", (unsigned long long)lost);
		for (int k = 0; k < LOST_MAX && shown < 3; k++)
			if (r->lost[k])
				say(f, "%s %s %llu%s", shown++ ? "," : "", lost_names[k],
				    (unsigned long long)r->lost[k], loss_fix(k));
		figure(f, "lost", lost);
	}
	if (full) {
		say(f, "%s %u of its %u entries are in use (raise --max-entries)", lost ? ";" : "",
		    c->entries_used, c->entries);
		figure(f, "entries_used", c->entries_used);
	}
	if (own >= FIND_SELF_PPM) {
		say(f, "%s its own BPF time is %.1f%% of one CPU", lost || full ? ";" : "", pct(own));
		figure(f, "bpf_cpu_ppm", own);
	}
}

void findings_of(const struct report *r, struct findings *out)
{
	struct totals t;

	out->n = 0;
	if (r->type != REPORT_SUMMARY)
		return;
	add_up(r, &t);
	who_flushes(r, &t, out);
	readers_fight(r, &t, out);
	long_irqoff(r, out);
	flushes_skipped(r, &t, out);
	flush_time(r, &t, out);
	itself(r, out);
}
