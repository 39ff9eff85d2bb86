// SPDX-License-Identifier: GPL-2.0
/* The collector's lifetime and public API: new, free, one read, the reports. */
/*
 * Every read folds what changed into the open interval and the run's
 * totals, per slot. Reports are built here from those; collect_int.h says
 * which file holds what.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "collect_int.h"
#include "fmt.h"
#include "ksym.h"
#include "rstatlat.skel.h"

/* ---- slots ---- */

const char *collector_slot_path(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return NULL;
	slot_refresh(c, slot);
	return c->slots[slot].cg ? c->slots[slot].cg->path : NULL;
}

const char *collector_slot_lock(struct collector *c, unsigned int slot, const char **type)
{
	struct ident who = { 0 };

	*type = "";
	if (slot >= c->max_slots)
		return "";
	slot_refresh(c, slot);
	if (c->slots[slot].cg)
		ident_of_slot(c, &c->slots[slot], &who);
	*type = who.lock_type ? who.lock_type : "";
	return who.lock ? who.lock : "";
}

bool collector_slot_wanted(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return true;
	slot_refresh(c, slot);
	return !c->slots[slot].cg || !c->slots[slot].cg->excluded;
}

void collector_set_waiter(struct collector *c, void (*fn)(void *arg), void *arg)
{
	c->waiter = fn;
	c->waiter_arg = arg;
}

void collector_set_slow_unprinted(struct collector *c, uint64_t n)
{
	c->slow_unprinted = n;
}

unsigned int collector_entries_used(const struct collector *c)
{
	return c->slots_ready;
}

/*
 * Slot numbers handed out (recycled ones first, so the most held at once):
 * what a read walks and what the maps' chunks are made ahead of.
 */
unsigned int collector_entries_peak(const struct collector *c)
{
	unsigned int n = c->skel->bss->next_slot;

	return n < c->max_slots ? n : c->max_slots;
}

void collector_own_time(struct collector *c, bool whole_run, uint64_t *ns, uint64_t *locked)
{
	uint64_t all = c->locked;

	*ns = c->own_ns - (whole_run ? 0 : c->own_ns_at_interval);
	*locked = all - (whole_run ? 0 : c->locked_at_interval);
	if (!whole_run) {
		c->own_ns_at_interval = c->own_ns;
		c->locked_at_interval = all;
	}
}

/* ---- new collector ---- */

static void *map_mmap(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct collector *collector_new(struct rstatlat_bpf *skel, struct cg_table *cg,
				const struct cg_filter *filter, bool per_process,
				int ncpus, unsigned int max_slots,
				const struct collect_sources *sources)
{
	struct collector *c = calloc(1, sizeof(*c));
	size_t sys_value = 0;

	if (!c)
		return NULL;
	c->skel = skel;
	c->cg = cg;
	c->filter = filter;
	c->src = *sources;
	c->per_process = per_process;
	c->walk_slots = per_process;
	c->ncpus = ncpus;
	c->max_slots = max_slots;
	c->clk_tck = sysconf(_SC_CLK_TCK);
	c->cg_hash_cap = 1024;
	c->cg_hash = calloc(c->cg_hash_cap, sizeof(*c->cg_hash));
	c->slots = calloc(max_slots, sizeof(*c->slots));
	c->retired = calloc(RETIRED_CGROUPS_MAX, sizeof(*c->retired));
	c->lock_percpu = calloc((size_t)ncpus, sizeof(*c->lock_percpu));
	c->irq_percpu = calloc((size_t)ncpus, sizeof(*c->irq_percpu));
	c->lost_percpu = calloc((size_t)ncpus, sizeof(*c->lost_percpu));
	c->dirty = calloc(max_slots, sizeof(*c->dirty));
	c->changed = calloc(max_slots, sizeof(*c->changed));
	c->rows_gen = 1;	/* shared_gen 0: never made */
	c->refs = calloc(3 * (size_t)ncpus, sizeof(*c->refs));
	c->scratch = calloc(1, sizeof(*c->scratch));
	c->rec = calloc(1, sizeof(*c->rec));
	c->batch = calloc(1, sizeof(*c->batch));
	c->batch_rec = calloc(READ_BATCH, sizeof(*c->batch_rec));
	c->batch_irq = calloc(READ_BATCH, sizeof(*c->batch_irq));
	if (sources->irqoff_sample)
		sys_value = sizeof(struct tick_state);
	if (sources->cpu_lock && sizeof(struct cpu_lock_state) > sys_value)
		sys_value = sizeof(struct cpu_lock_state);
	c->sys_percpu = calloc((size_t)ncpus, sys_value ? sys_value : 1);
	c->seen_len = (size_t)max_slots * sizeof(__u64);
	c->seen = map_mmap(bpf_map__fd(skel->maps.slot_seen), c->seen_len);
	if (sources->flushers && flushers_init(c)) {
		collector_free(c);
		return NULL;
	}
	c->removed.path = strdup("(removed cgroups)");
	c->removed.rel_path = strdup("");
	if (!c->cg_hash || !c->slots || !c->retired || !c->lock_percpu || !c->irq_percpu ||
	    !c->lost_percpu || !c->dirty || !c->changed || !c->refs || !c->scratch || !c->rec ||
	    !c->batch || !c->batch_rec || !c->batch_irq || !c->sys_percpu || !c->seen ||
	    !c->removed.path || !c->removed.rel_path || chunks_init(c)) {
		collector_free(c);
		return NULL;
	}
	c->sys_total.irq.source = c->sys_open.irq.source = sources->irqoff_source;
	c->sys_total.irq.trace = c->sys_open.irq.trace = sources->irqoff_trace;
	c->sys_total.irq.sample = c->sys_open.irq.sample = sources->irqoff_sample;
	c->sys_total.lock.present = c->sys_open.lock.present = sources->cpu_lock;
	c->ksyms = sources->ksyms;
	c->open.flush_parts = sources->flush_parts;
	c->open.parts_from = sources->parts_from;
	c->open.parts_measured = sources->parts_measured;
	c->open.counts_unmeasured = counts_unmeasured_without(sources->parts_measured);
	c->open.cause_sample = sources->cause_sample;
	c->open.cause_budgeted = sources->cause_budgeted;
	c->open.memcg_decisions = sources->memcg_decisions;
	builder_start(&c->open_bd, &c->open, REPORT_INTERVAL, per_process);
	return c;
}

static void sys_fig_free(struct sys_fig *f)
{
	dist_free(&f->irq.outside);
	dist_free(&f->irq.late);
	dist_free(&f->lock.hold);
	dist_free(&f->lock.wait);
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	ksyms_free(c->own_ksyms);
	flushers_free(c);
	for (size_t i = 0; i < c->ncause_ids; i++)
		free(c->cause_ids[i]);
	free(c->cause_ids);
	for (unsigned int i = 0; c->slots && i < c->slots_end; i++)
		slot_free(&c->slots[i]);
	for (size_t i = 0; c->cg_hash && i < c->cg_hash_cap; i++) {
		struct cgrec *g = c->cg_hash[i], *next;

		for (; g; g = next) {
			next = g->next;
			cgrec_free(g);
		}
	}
	free_graveyard(c);
	cgrec_rows_free(&c->removed);
	row_free(&c->all);
	free(c->shared);
	free(c->changed);
	free(c->removed.path);
	free(c->removed.rel_path);
	if (c->seen)
		munmap((void *)c->seen, c->seen_len);
	chunks_free(c);
	free(c->rec);
	sys_fig_free(&c->sys_total);
	sys_fig_free(&c->sys_open);
	report_free(&c->open);
	builder_end(&c->open_bd);
	free(c->cg_hash);
	free(c->slots);
	free(c->retired);
	free(c->lock_percpu);
	free(c->irq_percpu);
	free(c->lost_percpu);
	free(c->sys_percpu);
	free(c->dirty);
	free(c->refs);
	free(c->scratch);
	free(c->batch);
	free(c->batch_rec);
	free(c->batch_irq);
	free(c);
}

/* ---- one read ---- */

/*
 * Every read closes an epoch (rstatlat.h: stages and homes) and folds
 * what changed into two places, the open interval and the run's totals:
 * down its phases (collect_int.h), a batch of slots at a time; then the
 * system-wide figures, the flushers, the losses and the housekeeping.
 */
int collector_read(struct collector *c)
{
	struct read_batch *b = c->batch;
	int err = read_open(c, b);

	while (!err && (err = read_batch(c, b)) > 0) {
		err = fold_batch(c, b);
		if (!err)
			err = name_batch(c, b);
		if (!err)
			err = build_batch(c, b);
	}
	if (!err)
		err = read_system(c, b->epoch);
	if (!err && c->src.flushers)
		err = read_flushers(c, b->epoch);
	if (!err)
		err = read_lost_map(c);
	if (!err)
		err = housekeeping(c, b->nslots);
	drop_idle_ksyms(c);
	return err;
}

/* ---- reports ---- */

static int copy_sys(struct report *r, const struct sys_fig *f)
{
	r->irqoff = f->irq;
	r->cpu_lock = f->lock;
	memset(&r->irqoff.outside, 0, sizeof(r->irqoff.outside));
	memset(&r->irqoff.late, 0, sizeof(r->irqoff.late));
	memset(&r->cpu_lock.hold, 0, sizeof(r->cpu_lock.hold));
	memset(&r->cpu_lock.wait, 0, sizeof(r->cpu_lock.wait));
	if (dist_copy(&r->irqoff.outside, &f->irq.outside) || dist_copy(&r->irqoff.late, &f->irq.late) ||
	    dist_copy(&r->cpu_lock.hold, &f->lock.hold) || dist_copy(&r->cpu_lock.wait, &f->lock.wait))
		return -ENOMEM;
	return 0;
}

static void report_sources(const struct collector *c, struct report *r)
{
	r->flush_parts = c->src.flush_parts;
	r->parts_from = c->src.parts_from;
	r->parts_measured = c->src.parts_measured;
	r->counts_unmeasured = counts_unmeasured_without(c->src.parts_measured);
	r->cause_sample = c->src.cause_sample;
	r->cause_budgeted = c->src.cause_budgeted;
	r->memcg_decisions = c->src.memcg_decisions;
	r->irqoff_rows = c->src.irqoff_trace ? IRQOFF_ROWS_TRACED :
			 c->src.irqoff_lock ? IRQOFF_ROWS_LOCK : IRQOFF_ROWS_NONE;
}

int collector_interval(struct collector *c, struct report *out)
{
	int err;

	*out = c->open;
	builder_end(&c->open_bd);
	builder_start(&c->open_bd, &c->open, REPORT_INTERVAL, c->per_process);
	report_sources(c, out);
	err = copy_sys(out, &c->sys_open);
	sys_fig_free(&c->sys_open);
	c->sys_open.irq.ticks = 0;
	c->sys_open.lock.locked = c->sys_open.lock.contended = 0;
	for (int k = 0; k < LOST_MAX; k++) {
		out->lost[k] = c->lost[k] - c->lost_at_interval[k];
		c->lost_at_interval[k] = c->lost[k];
	}
	return err;
}

/*
 * Where a summary's rows go: figures fig under who (builder_add's shape),
 * the totals of slot s, or a cgroup's kept row (s NULL).
 */
typedef int (*row_sink)(void *arg, const struct ident *who, const struct row *fig,
			uint32_t newly_exited, struct slot *s);

static int builder_sink(void *bd, const struct ident *who, const struct row *fig,
			uint32_t newly_exited, struct slot *s)
{
	(void)s;
	return builder_add(bd, who, fig, newly_exited);
}

static int add_kept_rows(const struct cgrec *g, row_sink add, void *arg)
{
	for (size_t i = 0; i < g->nrows; i++) {
		const struct row *r = &g->rows[i];
		struct ident who = { .cg = g, .tgid = r->tgid, .exited = !r->tgid,
				     .comm = r->comm, .own_cgroup = r->own_cgroup, .lock = r->lock,
				     .lock_type = r->lock_type };

		if (add(arg, &who, r, 0, NULL))	/* r->exited comes with r */
			return -ENOMEM;
	}
	return 0;
}

/* Every row of the run: the slots', then the removed cgroups' kept ones. */
static int each_summary_row(struct collector *c, row_sink add, void *arg)
{
	int err = 0;

	for (unsigned int i = 0; i < c->slots_end && !err; i++) {
		struct slot *s = &c->slots[i];
		struct ident who;

		if (s->state != SLOT_READY || !s->cg || s->cg->excluded || delta_empty(&s->total))
			continue;
		ident_of_slot(c, s, &who);
		s->total.top_locked = s->top_votes;
		err = add(arg, &who, &s->total, s->exited, s);
	}
	for (size_t b = 0; b < c->cg_hash_cap && !err; b++)
		for (const struct cgrec *g = c->cg_hash[b]; g && !err; g = g->next)
			if (!g->excluded)
				err = add_kept_rows(g, add, arg);
	return err ? err : add_kept_rows(&c->removed, add, arg);
}

/* What a summary has beyond its rows. */
static int summary_rest(struct collector *c, struct report *out)
{
	int err;

	report_sources(c, out);
	err = copy_sys(out, &c->sys_total);
	if (!err && c->src.flushers)
		err = collect_flushers(c, out);
	memcpy(out->lost, c->lost, sizeof(out->lost));
	return err;
}

int collector_summary(struct collector *c, struct report *out)
{
	struct builder bd;
	int err;

	builder_start(&bd, out, REPORT_SUMMARY, c->per_process);
	/* a row a slot, about: 10 000 at once */
	err = builder_reserve(&bd, c->slots_end + 1);
	if (!err)
		err = each_summary_row(c, builder_sink, &bd);
	builder_end(&bd);
	return summary_rest(c, out) ? -ENOMEM : err;
}

/* fig as a shared row (report.shared): its figures, its cgroup's path and identity. */
static void shared_fill(struct row *row, const struct ident *who, const struct row *fig)
{
	*row = *fig;
	row->cgid = who->cg->cgid;
	row->hierarchy = who->cg->hierarchy;
	row->tgid = 0;
	fmt_copy(row->lock, sizeof(row->lock), who->lock);
	fmt_copy(row->lock_type, sizeof(row->lock_type), who->lock_type);
	row->path = who->cg->path;
	row->own_cgroup = NULL;
	row->removed_cgroups += who->cg->removed_cgroups;
}

static int shared_sink(void *arg, const struct ident *who, const struct row *fig,
		       uint32_t newly_exited, struct slot *s)
{
	struct collector *c = arg;
	struct row *row;

	(void)newly_exited;	/* process rows only */
	/* every field written: no memset first (10 000 rows a second) */
	row = report_append_row(&c->shared, &c->nshared, &c->shared_cap);
	if (!row)
		return -ENOMEM;
	shared_fill(row, who, fig);
	if (s)
		s->shared_row = (uint32_t)c->nshared;
	return 0;
}

/* Every row made again: rows came, went or moved since the last. */
static int shared_rebuild(struct collector *c)
{
	int err;

	for (unsigned int i = 0; i < c->slots_end; i++)
		c->slots[i].shared_row = 0;
	c->nshared = 0;
	err = each_summary_row(c, shared_sink, c);
	c->shared_gen = err ? 0 : c->rows_gen;
	return err;
}

/* Only the rows of the slots that changed since the last summary, copied again. */
static void shared_update(struct collector *c)
{
	for (size_t k = 0; k < c->nchanged; k++) {
		struct slot *s = &c->slots[c->changed[k]];
		struct ident who;

		ident_of_slot(c, s, &who);
		s->total.top_locked = s->top_votes;
		shared_fill(&c->shared[s->shared_row - 1], &who, &s->total);
	}
}

int collector_summary_shared(struct collector *c, struct report *out)
{
	int err = 0;

	if (c->per_process)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->type = REPORT_SUMMARY;
	out->shared = true;
	if (c->shared_gen == c->rows_gen)
		shared_update(c);
	else
		err = shared_rebuild(c);
	for (size_t k = 0; k < c->nchanged; k++)
		c->slots[c->changed[k]].shared_stale = false;
	c->nchanged = 0;
	out->cgroups = c->shared;
	out->ncgroups = c->nshared;
	out->all = &c->all;
	return summary_rest(c, out) ? -ENOMEM : err;
}
