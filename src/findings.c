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

/* ppm as a percentage with a tenth, rounded down: 99.96% is not "100.0%". */
static double pct(uint64_t ppm_value)
{
	return (double)(ppm_value / 100) / 100; /* NOLINT(bugprone-integer-division): down */
}

/* A row's path as the views print it ("?" when unknown). */
static const char *path_of(const struct row *row)
{
	return row->path ? row->path : "?";
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
	size_t used = strlen(f->text), end;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(f->text + used, sizeof(f->text) - used, fmt, ap);
	va_end(ap);
	if (n < 0 || used + (size_t)n < sizeof(f->text))
		return;
	/* cut: not in the middle of a character, and said to be cut */
	end = sizeof(f->text) - 4;
	while (end > used && ((unsigned char)f->text[end] & 0xc0) == 0x80)
		end--;
	memcpy(f->text + end, "...", 4);
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

#define CAUSES_ADDED	16	/* distinct causes added up for one flusher; more are rare */

/*
 * The cause with the most flushes among the rows of comm (all with NULL),
 * added up by name (a stat file, a kernel path; not "unknown" or not
 * sampled), and whether it had more than half of the named ones.
 */
static const char *top_cause(const struct row *rows, size_t n, const char *comm, bool *most)
{
	struct { const char *name; uint64_t flushes; } seen[CAUSES_ADDED];
	uint64_t all = 0;
	int nseen = 0, best = -1;

	for (size_t i = 0; i < n; i++) {
		if (comm && strcmp(rows[i].comm, comm))
			continue;
		for (size_t c = 0; c < rows[i].ncauses; c++) {
			const char *name = rows[i].causes[c].name;
			uint64_t k = cause_flushes(&rows[i], &rows[i].causes[c]);
			int j = 0;

			if (!strcmp(name, NOT_SAMPLED) || !strcmp(name, "unknown"))
				continue;
			all += k;
			while (j < nseen && strcmp(seen[j].name, name))
				j++;
			if (j == nseen && nseen == CAUSES_ADDED)
				continue;
			if (j == nseen)
				seen[nseen++] = (typeof(seen[0])){ name, 0 };
			seen[j].flushes += k;
			if (best < 0 || seen[j].flushes > seen[best].flushes)
				best = j;
		}
	}
	*most = best >= 0 && seen[best].flushes * 2 > all;
	return best >= 0 && seen[best].flushes ? seen[best].name : NULL;
}

/* -p: one comm's processes cause most of the held time; their rate a cgroup, and the interval. */
static void who_flushes_exact(const struct report *r, const struct totals *t,
			      struct findings *out)
{
	struct vote_rows v = { r->processes, r->nprocesses, held_of, process_comm };
	uint64_t held, flushes = 0, rows = 0, share, every_ns;
	const char *comm = majority(&v, &held), *cause;
	uint32_t tgid = 0;
	bool one_process = true, most;
	struct finding *f;
	char every[32];

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
	cause = top_cause(r->processes, r->nprocesses, comm, &most);
	/* over the run: a flusher busy for part of it polls faster than this says */
	every_ns = flushes ? (uint64_t)((unsigned __int128)r->duration_ns * rows / flushes) : 0;
	f = begin(out, FIND_WHO_FLUSHES, SEV_INFO);
	say(f, "%s", comm);
	if (one_process && tgid)
		say(f, " (pid %u)", tgid);
	say(f, " caused %.1f%% of the lock's held time: %llu flushes of %llu %s", pct(share),
	    (unsigned long long)flushes, (unsigned long long)rows,
	    !one_process ? "rows of its processes" : r->lock_rows ? "cgroup-lock rows" :
	    rows == 1 ? "cgroup" : "cgroups");
	if (cause)
		say(f, ", %s %s", most ? "mostly" : "most often", cause);
	if (every_ns)
		say(f, "; over the run one a %s every %s", one_process && !r->lock_rows ?
		    "cgroup" : "row", fmt_duration(every, sizeof(every), every_ns));
	figure_text(f, "comm", comm);
	if (one_process && tgid)
		figure(f, "pid", tgid);
	figure(f, "held_share_ppm", share);
	figure(f, "flushes", flushes);
	figure(f, "rows", rows);
	figure_text(f, "cause", cause);
	figure(f, "flush_interval_ns", every_ns);
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
	say(f, "%s is the top flusher of the cgroups with %.1f%% of the lock's held time "
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

/*
 * The cgroup with the most of what get() reads; not the aggregate of
 * removed cgroups, which is many of them.
 */
static const struct row *most(const struct row *rows, size_t n, uint64_t (*get)(const struct row *))
{
	const struct row *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (!rows[i].removed_cgroups && get(&rows[i]) && (!best || get(&rows[i]) > get(best)))
			best = &rows[i];
	return best;
}

static bool same_process(const struct row *a, const struct row *b)
{
	return a && b && a->tgid == b->tgid && !strcmp(a->comm, b->comm);
}

static uint64_t contended_of(const struct row *row)
{
	return row->count[COUNT_CONTENDED];
}

/*
 * -p: the process rows that waited on the lock flushing path, and the two
 * processes that waited most (a process has a row a lock where locks are
 * told apart: its rows are one process here).
 */
static void who_waited(const struct report *r, const char *path, struct finding *f)
{
	const struct row *first = NULL, *second = NULL;
	uint64_t n = 0;

	for (size_t i = 0; i < r->nprocesses; i++) {
		const struct row *p = &r->processes[i];

		if (!p->count[COUNT_CONTENDED] || !p->path || strcmp(p->path, path))
			continue;
		n += !same_process(p, first) && !same_process(p, second);
		if (same_process(p, first) || same_process(p, second))
			continue;
		if (!first || p->count[COUNT_CONTENDED] > first->count[COUNT_CONTENDED]) {
			second = first;
			first = p;
		} else if (!second || p->count[COUNT_CONTENDED] > second->count[COUNT_CONTENDED]) {
			second = p;
		}
	}
	if (!second)
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

	if (t->locked < FIND_MIN_LOCKS || t->contended < FIND_FIGHT_MIN || share < FIND_FIGHT_PPM)
		return;
	f = begin(out, FIND_READERS_FIGHT, share >= FIND_FIGHT_WARN_PPM ? SEV_WARNING : SEV_INFO);
	say(f, "%.1f%% of %llu acquisitions waited, %s in all (%.1f%% of the time held)",
	    pct(share), (unsigned long long)t->locked, fmt_duration(a, sizeof(a), t->wait_ns),
	    pct(ppm(t->wait_ns, t->hold_ns)));
	figure(f, "contended_ppm", share);
	figure(f, "contended", t->contended);
	figure(f, "wait_ns", t->wait_ns);
	if (!top)
		return;
	say(f, "; most at %s, wait p99 %s", path_of(top),
	    fmt_duration(b, sizeof(b), dist_quantile(&top->dist[DIST_WAIT], 0.99)));
	figure_text(f, "cgroup", path_of(top));
	figure(f, "cgroup_contended", top->count[COUNT_CONTENDED]);
	if (r->per_process && top->path)
		who_waited(r, top->path, f);
	else if (!r->per_process)
		say(f, " (-p names who)");
}

/* ---- long irqs-off ---- */

/*
 * What the holds a flush say of the kernel: one hold for all possible CPUs
 * (the lock held across the walk, before 0efc297a), or about one a CPU
 * (dropped between CPUs): told apart halfway between the two.
 */
static void say_kernel(const struct report *r, const struct row *top, struct finding *f)
{
	uint64_t flushes = top->dist[DIST_FLUSH].count, holds = top->count[COUNT_FLUSH_HOLDS];
	uint64_t cpus = (uint64_t)r->kernel.cpus_possible;
	const char *vm = r->irqoff.virtual_machine ?
			 "; on this virtual machine a stalled vCPU reads the same" : "";

	if (!flushes || cpus < 2)
		return;	/* one CPU: the two kinds of kernel look alike */
	figure(f, "holds_per_flush_milli", holds * 1000 / flushes);
	if (holds * 2 < flushes * (1 + cpus))
		say(f, "; its flushes take the lock once for all %llu possible CPUs, so the "
		    "interval grows with them (0efc297a drops it per CPU)%s",
		    (unsigned long long)cpus, vm);
	else
		say(f, "; this kernel drops the lock between CPUs (%.1f holds a flush), so one "
		    "CPU's part took that long%s", (double)holds / (double)flushes,
		    r->irqoff.virtual_machine ? ", or a vCPU of this virtual machine stalled" : "");
}

static void long_irqoff(const struct report *r, struct findings *out)
{
	const struct row *top = NULL;
	const struct dist *d;
	uint64_t max = 0;
	struct finding *f;
	const char *cause;
	char a[32], b[32];
	bool most;

	for (size_t i = 0; i < r->ncgroups; i++) {
		d = row_irqoff(r, &r->cgroups[i]);
		if (d && d->max > max) {
			max = d->max;
			top = &r->cgroups[i];
		}
	}
	if (!top || max < FIND_IRQOFF_NS)
		return;
	f = begin(out, FIND_LONG_IRQOFF, max >= FIND_IRQOFF_CRIT_NS ? SEV_CRITICAL : SEV_WARNING);
	say(f, "interrupts were off for %s in one hold of %s (p99 %s",
	    fmt_duration(a, sizeof(a), max), path_of(top),
	    fmt_duration(b, sizeof(b), dist_quantile(row_irqoff(r, top), 0.99)));
	cause = top_cause(top, 1, NULL, &most);
	if (cause)
		say(f, "; flushes %s for %s", most ? "mostly" : "most often", cause);
	say(f, ")");
	figure(f, "irqoff_max_ns", max);
	figure_text(f, "cgroup", path_of(top));
	figure_text(f, "cause", cause);
	figure(f, "cpus_possible", (uint64_t)r->kernel.cpus_possible);
	say_kernel(r, top, f);
}

/* ---- flushes the kernel skips ---- */

static uint64_t skipped_of(const struct row *row)
{
	return row->decisions[DECISION_SKIPPED];
}

/*
 * The skipped requests of cgroups rstatlat keeps no entry for (they never
 * took the lock while traced) are counted apart (lost.memcg_skips_untracked,
 * not per cgroup, so as not to take entries): asked and skipped both.
 */
static void flushes_skipped(const struct report *r, const struct totals *t,
			    struct findings *out)
{
	uint64_t untracked = r->lost[LOST_SKIP_UNTRACKED];
	uint64_t asked = t->asked + untracked, skipped = t->skipped + untracked;
	uint64_t share = ppm(skipped, asked);
	const struct row *top = most(r->cgroups, r->ncgroups, skipped_of);
	struct finding *f;

	if (!r->memcg_decisions || asked < FIND_SKIP_MIN || share < FIND_SKIP_PPM)
		return;
	f = begin(out, FIND_FLUSHES_SKIPPED, SEV_INFO);
	say(f, "the kernel skipped %.1f%% of %llu memcg flush requests (too little had changed "
	    "to flush): readers ask far more often than the stats change", pct(share),
	    (unsigned long long)asked);
	if (top && skipped_of(top) >= untracked)
		say(f, "; most at %s", path_of(top));
	else
		say(f, "; %llu of them of cgroups whose flushes never took the lock",
		    (unsigned long long)untracked);
	figure(f, "skipped_ppm", share);
	figure(f, "asked", asked);
	figure(f, "untracked", untracked);
	if (top)
		figure_text(f, "cgroup", path_of(top));
}

/* ---- where a flush's time goes ---- */

static const char *const part_meaning[PART_MAX] = {
	[PART_WAIT] = "readers queue for the lock",
	[PART_IRQ] = "interrupts run inside the flush, let in where the lock is dropped "
		     "between CPUs",
	[PART_OFFCPU] = "the flusher is switched out in the middle of its flush",
	[PART_SELF] = "rstatlat's own programs between the holds (see self)",
	[PART_OTHER] = "the kernel's work between the holds, outside the lock (where it is "
		       "dropped per CPU, its trips), and any part not measured",
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
	say(f, "%s is %.1f%% of %llu flushes' wall time (held %.1f%%): %s", part_names[best],
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

/*
 * What counts as lost here: not the skips of untracked cgroups (a count,
 * flushes_skipped's), nor a flush in progress on each CPU as the run began
 * or ended, which every run can have.
 */
static uint64_t lost_of(const struct report *r, int k)
{
	uint64_t edge = r->kernel.cpus_possible > 0 ? (uint64_t)r->kernel.cpus_possible : 0;

	if (k == LOST_SKIP_UNTRACKED)
		return 0;
	if (k == LOST_FLUSH_UNSEEN || k == LOST_FLUSH_OPEN)
		return r->lost[k] > edge ? r->lost[k] - edge : 0;
	return r->lost[k];
}

/* The loss reasons, the most first, three at most (then "..."). */
static void say_losses(const struct report *r, struct finding *f)
{
	bool shown[LOST_MAX] = { 0 };
	int n = 0, left = 0;

	for (int k = 0; k < LOST_MAX; k++)
		left += lost_of(r, k) > 0;
	for (; n < 3 && n < left; n++) {
		int best = -1;

		for (int k = 0; k < LOST_MAX; k++)
			if (!shown[k] && lost_of(r, k) && (best < 0 || lost_of(r, k) > lost_of(r, best)))
				best = k;
		shown[best] = true;
		say(f, "%s %s %llu%s", n ? "," : "", lost_names[best],
		    (unsigned long long)lost_of(r, best), loss_fix(best));
	}
	if (left > n)
		say(f, ", ...");
}

static void itself(const struct report *r, struct findings *out)
{
	const struct self_costs *c = &r->self;
	uint64_t lost = 0, own = 0;
	bool full = c->entries && ppm(c->entries_used, c->entries) >= FIND_ENTRIES_PPM;
	struct finding *f;

	for (int k = 0; k < LOST_MAX; k++)
		lost += lost_of(r, k);
	if (c->own_known && r->duration_ns)
		own = ppm(c->bpf_sampled_ns, r->duration_ns);
	if (!lost && !full && own < FIND_SELF_PPM)
		return;
	f = begin(out, FIND_SELF, lost || full ? SEV_WARNING : SEV_INFO);
	say(f, "rstatlat");
	if (lost) {
		say(f, " lost %llu events:", (unsigned long long)lost);
		say_losses(r, f);
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
