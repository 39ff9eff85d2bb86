// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "collect.h"
#include "rstatlat.skel.h"

struct slot {
	enum slot_state state;
	bool excluded;		/* outside the -c subtree */
	bool retiring;		/* unhooked from BPF, freed at the next read */
	unsigned int idle_reads;	/* reads in a row without events */
	struct slot_key key;
	char *path;		/* as displayed */
	char *rel_path;		/* inside its hierarchy, to check it still exists */
	char *own_cgroup;
	char comm[RSL_COMM_LEN];
	struct row prev;	/* cumulative totals at the previous read; owned */
	struct dist *irq_prev;	/* --irqoff trace: the same for irqs-off */
};

/* A slot is handed back once its cgroup is gone and it was this long idle. */
#define RETIRE_IDLE_READS 2
/* Removed cgroups kept for the summary, beyond which they are counted lost. */
#define MIN_RETIRED_KEPT 1024

struct collector {
	struct rstatlat_bpf *skel;
	struct cg_table *cg;
	const struct cg_filter *filter;
	bool per_process;
	int ncpus;
	unsigned int max_slots;
	struct slot *slots;
	struct slot_stats *percpu;	/* one slot, every CPU */
	__u64 *lost_percpu;		/* one lost counter, every CPU */
	uint64_t prev_lost[LOST_MAX];
	bool cpu_lock;			/* per-CPU lock programs attached */
	bool irq_trace, irq_lock;	/* where per-cgroup irqs-off comes from */
	struct irq_stats *irq_percpu;	/* system-wide irqs-off figures, every CPU */
	struct irqoff_summary prev_irq;	/* their totals at the previous read */
	struct lock_stats *lock_percpu;	/* the per-CPU lock's stats, every CPU */
	struct lock_summary prev_lock;	/* its totals at the previous read */
	struct row *retired;		/* final totals of recycled slots; owned */
	size_t nretired, cap_retired;
	uint64_t retired_dropped;
};

struct collector *collector_new(struct rstatlat_bpf *skel, struct cg_table *cg,
				const struct cg_filter *filter, bool per_process,
				int ncpus, unsigned int max_slots)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->skel = skel;
	c->cg = cg;
	c->filter = filter;
	c->per_process = per_process;
	c->ncpus = ncpus;
	c->max_slots = max_slots;
	c->slots = calloc(max_slots, sizeof(*c->slots));
	c->percpu = calloc(ncpus, sizeof(*c->percpu));
	c->lost_percpu = calloc(ncpus, sizeof(*c->lost_percpu));
	c->lock_percpu = calloc(ncpus, sizeof(*c->lock_percpu));
	c->irq_percpu = calloc(ncpus, sizeof(*c->irq_percpu));
	if (!c->slots || !c->percpu || !c->lost_percpu || !c->lock_percpu || !c->irq_percpu) {
		collector_free(c);
		return NULL;
	}
	return c;
}

/* Frees what a slot owns and empties it. */
static void slot_clear(struct slot *s)
{
	free(s->path);
	free(s->rel_path);
	free(s->own_cgroup);
	row_free(&s->prev);
	if (s->irq_prev)
		dist_free(s->irq_prev);
	free(s->irq_prev);
	memset(s, 0, sizeof(*s));
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; c->slots && i < c->max_slots; i++)
		slot_clear(&c->slots[i]);
	for (size_t i = 0; i < c->nretired; i++)
		row_free(&c->retired[i]);
	free(c->retired);
	dist_free(&c->prev_irq.other);
	dist_free(&c->prev_irq.late);
	dist_free(&c->prev_lock.hold);
	dist_free(&c->prev_lock.wait);
	free(c->slots);
	free(c->percpu);
	free(c->lost_percpu);
	free(c->lock_percpu);
	free(c->irq_percpu);
	free(c);
}

/* "/a/b" from the leaf-first names BPF captured. */
static void captured_path(const struct slot_meta *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (m->truncated && m->depth == RSL_MAX_DEPTH)
		used = (size_t)snprintf(buf, len, "/...");
	for (int i = (int)m->depth - 1; i >= 0 && used < len; i--) {
		char name[RSL_NAME_LEN + 1];

		memcpy(name, m->names[i], RSL_NAME_LEN);
		name[RSL_NAME_LEN] = '\0';
		used += (size_t)snprintf(buf + used, len - used, "/%s", name);
	}
	if (!buf[0])
		snprintf(buf, len, "/");
}

static void slot_describe(struct collector *c, struct slot *s, const struct slot_meta *m)
{
	char path[RSL_MAX_DEPTH * (RSL_NAME_LEN + 1) + 8];
	const char *live = NULL;

	s->key = m->key;
	memcpy(s->comm, m->comm, sizeof(s->comm));
	s->comm[RSL_COMM_LEN - 1] = '\0';
	captured_path(m, path, sizeof(path));
	/* a name or the depth did not fit: prefer the live path if it exists */
	if (m->truncated)
		live = cg_path_of_id(c->cg, m->key.hierarchy, m->key.cgid);
	s->excluded = c->filter && !cg_filter_match(c->filter, m->key.hierarchy,
						    live ? live : path);
	s->path = cg_display_path(c->cg, m->key.hierarchy, live ? live : path);
	s->rel_path = strdup(live ? live : path);
	if (c->per_process) {
		const char *own = cg_path_of_id(c->cg, 0, m->flusher_cgid);

		if (own)
			s->own_cgroup = strdup(own);
		else if (asprintf(&s->own_cgroup, "id:%llu",
				  (unsigned long long)m->flusher_cgid) < 0)
			s->own_cgroup = NULL;
	}
}

/* Reads a slot's metadata once it is complete. */
static void slot_refresh(struct collector *c, unsigned int i)
{
	struct slot_meta m;
	struct slot *s = &c->slots[i];

	if (s->state != SLOT_EMPTY)
		return;
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.slot_meta), &i, &m))
		return;
	if (m.state == SLOT_READY)
		slot_describe(c, s, &m);
	s->state = m.state;
}

const char *collector_slot_path(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return NULL;
	slot_refresh(c, slot);
	return c->slots[slot].path;
}

bool collector_slot_wanted(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return true;
	slot_refresh(c, slot);
	return !c->slots[slot].excluded;
}

static uint64_t imax_of(const struct epoch_max imax[2], uint64_t epoch)
{
	const struct epoch_max *m = &imax[epoch & 1];

	return m->epoch == epoch ? m->value : 0;
}

/* BPF keeps no counts: a distribution's count is the sum of its buckets. */
static int sum_dist(struct dist *d, uint64_t sum, uint64_t max, const __u64 *hist)
{
	d->sum += sum;
	if (max > d->max)
		d->max = max;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++)
		if (dist_add(d, b, hist[b]))
			return -ENOMEM;
	return 0;
}

/* This epoch's maxima, over CPUs. */
struct imaxes {
	uint64_t hold, wait, flush, irqoff;
};

static void take_max(uint64_t *into, uint64_t v)
{
	if (v > *into)
		*into = v;
}

/*
 * Adds one CPU's record of a distribution, kept in BPF as NAME_sum,
 * NAME_max, NAME_hist and the epoch-tagged NAME_imax, to d, and its maximum
 * in this epoch to *imax. 0, or -ENOMEM.
 */
#define ADD_CPU_DIST(d, imax, rec, name, epoch)					\
	(take_max(imax, imax_of((rec)->name##_imax, epoch)),			\
	 sum_dist(d, (rec)->name##_sum, (rec)->name##_max, (rec)->name##_hist))

/*
 * Sums one slot over CPUs into cumulative totals and this epoch's maxima.
 * cur and irq must be empty; they own what they get even on error.
 */
static int read_slot(struct collector *c, unsigned int i, uint64_t epoch,
		     struct row *cur, struct dist *irq, struct imaxes *im)
{
	uint32_t best_votes = 0;

	memset(im, 0, sizeof(*im));
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.slot_stats), &i, c->percpu))
		return -errno;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct slot_stats *s = &c->percpu[cpu];

		cur->locked += s->locked;
		cur->contended += s->contended;
		if (ADD_CPU_DIST(&cur->hold, &im->hold, s, hold, epoch) ||
		    ADD_CPU_DIST(&cur->wait, &im->wait, s, wait, epoch) ||
		    ADD_CPU_DIST(&cur->flush, &im->flush, s, flush, epoch))
			return -ENOMEM;
		cur->flush_holds += s->flush_holds;
		take_max(&cur->flush_holds_max, s->flush_holds_max);
		if (c->irq_trace && ADD_CPU_DIST(irq, &im->irqoff, s, irqoff, epoch))
			return -ENOMEM;
		if (s->top_votes > best_votes) {
			best_votes = s->top_votes;
			cur->top_tgid = s->top_tgid;
			memcpy(cur->top_comm, s->top_comm, RSL_COMM_LEN);
			cur->top_comm[RSL_COMM_LEN - 1] = '\0';
		}
	}
	return 0;
}

/*
 * Interval = cumulative now - cumulative before. The interval maximum comes
 * from the epoch-tagged record; a hold that raced the epoch switch can
 * leave it below the highest bucket touched, and then the bucket's upper
 * bound (capped by the run's max) is the honest bound.
 */
static int delta_dist(struct dist *out, const struct dist *now, const struct dist *before,
		      uint64_t imax)
{
	uint32_t j = 0;
	int top = -1;

	out->sum = now->sum - before->sum;
	/* before's buckets are a subset of now's: walk both upward */
	for (uint32_t i = 0; i < now->n; i++) {
		unsigned int b = now->b[i].index;
		uint64_t was = 0;

		while (j < before->n && before->b[j].index < b)
			j++;
		if (j < before->n && before->b[j].index == b)
			was = before->b[j].count;
		if (now->b[i].count <= was)
			continue;
		if (dist_add(out, b, now->b[i].count - was))
			return -ENOMEM;
		top = (int)b;
	}
	out->max = imax;
	if (top >= 0 && imax < hist_bucket_lower(top)) {
		out->max = hist_bucket_upper(top) - 1;
		if (out->max > now->max)
			out->max = now->max;
	}
	return 0;
}

/* A slot's interval figures: cumulative now less cumulative before. */
static int delta_row(struct row *out, const struct row *now, const struct row *before,
		     const struct imaxes *im)
{
	*out = *now;
	out->hold = out->wait = out->flush = (struct dist){ 0 };
	out->irqoff = NULL;
	out->locked = now->locked - before->locked;
	out->contended = now->contended - before->contended;
	out->flush_holds = now->flush_holds - before->flush_holds;
	if (delta_dist(&out->hold, &now->hold, &before->hold, im->hold) ||
	    delta_dist(&out->wait, &now->wait, &before->wait, im->wait) ||
	    delta_dist(&out->flush, &now->flush, &before->flush, im->flush))
		return -ENOMEM;
	return 0;
}

/* A report row from a slot's figures (src, irq: not kept), all copied. */
static int fill_row(struct row *dst, const struct slot *s, const struct row *src,
		    const struct dist *irq)
{
	if (row_copy(dst, src))
		return -ENOMEM;
	dst->cgid = s->key.cgid;
	dst->hierarchy = s->key.hierarchy;
	dst->tgid = s->key.tgid;
	memcpy(dst->comm, s->comm, sizeof(dst->comm));
	free(dst->path);	/* the slot's strings, not src's */
	free(dst->own_cgroup);
	dst->path = s->path ? strdup(s->path) : NULL;
	dst->own_cgroup = s->own_cgroup ? strdup(s->own_cgroup) : NULL;
	if (irq) {
		dst->irqoff = calloc(1, sizeof(*dst->irqoff));
		if (dst->irqoff && dist_copy(dst->irqoff, irq)) {
			free(dst->irqoff);
			dst->irqoff = NULL;
		}
	}
	if (s->key.tgid) {	/* a process row is its own top flusher */
		dst->top_tgid = s->key.tgid;
		memcpy(dst->top_comm, s->comm, sizeof(dst->top_comm));
	}
	if ((s->path && !dst->path) || (s->own_cgroup && !dst->own_cgroup) ||
	    (irq && !dst->irqoff)) {
		row_free(dst);
		return -ENOMEM;
	}
	return 0;
}

struct builder {
	struct report *r;
	size_t cap_cg, cap_proc;
};

static struct row *find_row(struct row *rows, size_t n, const struct row *key, bool with_tgid)
{
	for (size_t i = n; i-- > 0;)
		if (rows[i].cgid == key->cgid && rows[i].hierarchy == key->hierarchy &&
		    (!with_tgid || rows[i].tgid == key->tgid))
			return &rows[i];
	return NULL;
}

/* A copy of src's identity and strings, with no figures yet. */
static struct row *append_empty(struct row **rows, size_t *n, size_t *cap,
				const struct row *src)
{
	struct row *row = report_add_row(rows, n, cap);

	if (!row)
		return NULL;
	row->cgid = src->cgid;
	row->hierarchy = src->hierarchy;
	row->tgid = src->tgid;
	memcpy(row->comm, src->comm, sizeof(row->comm));
	row->path = src->path ? strdup(src->path) : NULL;
	row->own_cgroup = src->own_cgroup ? strdup(src->own_cgroup) : NULL;
	return row;
}

static void keep_top(struct row *into, const struct row *from)
{
	uint64_t votes = from->tgid ? from->locked : from->top_locked;

	if (!into->top_tgid || (from->top_tgid && votes > into->top_locked)) {
		into->top_locked = votes;
		into->top_tgid = from->top_tgid;
		memcpy(into->top_comm, from->top_comm, sizeof(into->top_comm));
	}
}

/*
 * Adds one slot's figures (src is a complete row). Rows with the same key
 * merge: with -p, process rows merge into their cgroup's row; and a cgroup
 * recycled and seen again (its final flush after removal) merges with its
 * retired self.
 */
static int add_row(struct builder *bd, const struct row *src)
{
	struct report *r = bd->r;
	struct row *row, *cg;

	if (src->tgid) {
		row = find_row(r->processes, r->nprocesses, src, true);
		if (!row)
			row = append_empty(&r->processes, &r->nprocesses, &bd->cap_proc, src);
		if (!row || row_merge(row, src))
			return -ENOMEM;
		row->top_tgid = src->tgid;
		memcpy(row->top_comm, src->comm, sizeof(row->top_comm));
	}
	cg = find_row(r->cgroups, r->ncgroups, src, false);
	if (!cg) {
		cg = append_empty(&r->cgroups, &r->ncgroups, &bd->cap_cg, src);
		if (!cg)
			return -ENOMEM;
		cg->tgid = 0;
		cg->comm[0] = '\0';
		free(cg->own_cgroup);
		cg->own_cgroup = NULL;
	}
	if (row_merge(cg, src))
		return -ENOMEM;
	keep_top(cg, src);
	return 0;
}

static int add_slot_row(struct builder *bd, const struct slot *s, const struct row *data,
			const struct dist *irq)
{
	struct row row;
	int err = fill_row(&row, s, data, irq);

	if (!err)
		err = add_row(bd, &row);
	row_free(&row);	/* zeroed when fill_row failed */
	return err;
}

static void report_begin(const struct collector *c, struct report *r, enum report_type type)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->per_process = c->per_process;
	if (c->irq_lock)
		r->irqoff_rows = IRQOFF_ROWS_HOLDS;
	else if (c->irq_trace)
		r->irqoff_rows = IRQOFF_ROWS_TRACED;
}

/* Step 1: unhook the slot so no new event can reach it. */
static void retire_begin(struct collector *c, unsigned int i)
{
	struct slot *s = &c->slots[i];

	bpf_map_delete_elem(bpf_map__fd(c->skel->maps.slot_ids), &s->key);
	s->retiring = true;
}

/*
 * Step 2, a read later: events that raced step 1 have finished. Keep the
 * final totals for the summary, clear the slot and hand it back to BPF.
 */
static void retire_end(struct collector *c, unsigned int i, const struct row *final,
		       const struct dist *irq)
{
	struct slot *s = &c->slots[i];
	struct slot_meta empty_meta = { 0 };
	struct row *kept;

	if (final && (final->locked || final->hold.count)) {
		kept = c->nretired < c->max_slots || c->nretired < MIN_RETIRED_KEPT ?
		       report_add_row(&c->retired, &c->nretired, &c->cap_retired) : NULL;
		if (kept && fill_row(kept, s, final, irq)) {
			c->nretired--;
			kept = NULL;
		}
		if (!kept)
			c->retired_dropped++;
	}
	memset(c->percpu, 0, (size_t)c->ncpus * sizeof(*c->percpu));
	bpf_map_update_elem(bpf_map__fd(c->skel->maps.slot_stats), &i, c->percpu, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(c->skel->maps.slot_meta), &i, &empty_meta, BPF_ANY);
	slot_clear(s);
	bpf_map_update_elem(bpf_map__fd(c->skel->maps.free_slots), NULL, &i, BPF_ANY);
}

void collector_set_cpu_lock(struct collector *c, bool attached)
{
	c->cpu_lock = attached;
}

void collector_set_irqoff(struct collector *c, bool trace, bool lock, bool sample,
			  const char *source)
{
	c->irq_trace = trace;
	c->irq_lock = lock;
	c->prev_irq.source = source;
	c->prev_irq.trace = trace;
	c->prev_irq.sample = sample;
}

/* System-wide irqs-off: intervals outside rstat (trace), late ticks (sample). */
static int read_irq(struct collector *c, uint64_t epoch, struct report *interval,
		    struct report *total)
{
	struct irqoff_summary cur = c->prev_irq;
	uint64_t other_imax = 0, late_imax = 0;
	__u32 zero = 0;
	int err = 0;

	/* cur gets its own distributions; the previous read's stay in c */
	cur.other = cur.late = (struct dist){ 0 };
	cur.ticks = 0;
	if (cur.trace || cur.sample) {
		if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.irq_stats), &zero,
					c->irq_percpu))
			return -errno;
		for (int cpu = 0; cpu < c->ncpus && !err; cpu++) {
			const struct irq_stats *s = &c->irq_percpu[cpu];

			err = ADD_CPU_DIST(&cur.other, &other_imax, s, other, epoch) ||
			      ADD_CPU_DIST(&cur.late, &late_imax, s, late, epoch) ? -ENOMEM : 0;
			cur.ticks += s->ticks;
		}
	}
	if (!err && interval) {
		struct irqoff_summary *q = &interval->irqoff;

		*q = cur;
		q->other = q->late = (struct dist){ 0 };
		q->ticks -= c->prev_irq.ticks;
		if (delta_dist(&q->other, &cur.other, &c->prev_irq.other, other_imax) ||
		    delta_dist(&q->late, &cur.late, &c->prev_irq.late, late_imax))
			err = -ENOMEM;
	}
	if (!err && total) {
		total->irqoff = cur;
		total->irqoff.other = total->irqoff.late = (struct dist){ 0 };
		if (dist_copy(&total->irqoff.other, &cur.other) ||
		    dist_copy(&total->irqoff.late, &cur.late))
			err = -ENOMEM;
	}
	if (err) {
		dist_free(&cur.other);
		dist_free(&cur.late);
		return err;
	}
	dist_free(&c->prev_irq.other);
	dist_free(&c->prev_irq.late);
	c->prev_irq = cur;
	return 0;
}

/* A slot's measured irqs-off figures (with lock, row_irqoff() gives the holds). */
static const struct dist *slot_irqoff(const struct collector *c, const struct dist *traced)
{
	return c->irq_trace && !c->irq_lock ? traced : NULL;
}

/* The per-CPU lock's figures: whole run into total, the change into interval. */
static int read_cpu_lock(struct collector *c, uint64_t epoch, struct report *interval,
			 struct report *total)
{
	struct lock_summary cur = { .present = true };
	uint64_t hold_imax = 0, wait_imax = 0;
	__u32 zero = 0;
	int err = 0;

	if (!c->cpu_lock)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.cpulock_stats), &zero, c->lock_percpu))
		return -errno;
	for (int cpu = 0; cpu < c->ncpus && !err; cpu++) {
		const struct lock_stats *s = &c->lock_percpu[cpu];

		cur.locked += s->locked;
		cur.contended += s->contended;
		err = ADD_CPU_DIST(&cur.hold, &hold_imax, s, hold, epoch) ||
		      ADD_CPU_DIST(&cur.wait, &wait_imax, s, wait, epoch) ? -ENOMEM : 0;
	}
	if (!err && interval) {
		struct lock_summary *l = &interval->cpu_lock;

		*l = cur;
		l->hold = l->wait = (struct dist){ 0 };
		l->locked -= c->prev_lock.locked;
		l->contended -= c->prev_lock.contended;
		if (delta_dist(&l->hold, &cur.hold, &c->prev_lock.hold, hold_imax) ||
		    delta_dist(&l->wait, &cur.wait, &c->prev_lock.wait, wait_imax))
			err = -ENOMEM;
	}
	if (!err && total) {
		total->cpu_lock = cur;
		total->cpu_lock.hold = total->cpu_lock.wait = (struct dist){ 0 };
		if (dist_copy(&total->cpu_lock.hold, &cur.hold) ||
		    dist_copy(&total->cpu_lock.wait, &cur.wait))
			err = -ENOMEM;
	}
	if (err) {
		dist_free(&cur.hold);
		dist_free(&cur.wait);
		return err;
	}
	dist_free(&c->prev_lock.hold);
	dist_free(&c->prev_lock.wait);
	c->prev_lock = cur;
	return 0;
}

/*
 * One slot: its row of the interval, its row of the total, and its
 * cumulative figures kept for the next read. Everything read here is
 * either moved into the slot or freed.
 */
static int collect_slot(struct collector *c, unsigned int i, uint64_t epoch,
			struct builder *bi, struct builder *bt, bool *unhooked)
{
	static const struct dist none;
	struct slot *s = &c->slots[i];
	struct row cur = { 0 }, delta = { 0 };
	struct dist irq_cur = { 0 }, irq_delta = { 0 };
	struct imaxes im;
	bool active;
	int err;

	err = read_slot(c, i, epoch, &cur, &irq_cur, &im);
	if (err)
		goto out;
	active = cur.locked + cur.hold.count > s->prev.locked + s->prev.hold.count;
	if (!s->excluded && bi->r && active) {
		err = delta_row(&delta, &cur, &s->prev, &im);
		if (!err && c->irq_trace &&
		    delta_dist(&irq_delta, &irq_cur, s->irq_prev ? s->irq_prev : &none, im.irqoff))
			err = -ENOMEM;
		if (!err)
			err = add_slot_row(bi, s, &delta, slot_irqoff(c, &irq_delta));
		if (err)
			goto out;
	}
	if (s->retiring) {
		retire_end(c, i, s->excluded ? NULL : &cur, slot_irqoff(c, &irq_cur));
		goto out;
	}
	if (!s->excluded && bt->r && (cur.locked || cur.hold.count)) {
		err = add_slot_row(bt, s, &cur, slot_irqoff(c, &irq_cur));
		if (err)
			goto out;
	}
	if (c->irq_trace) {
		if (!s->irq_prev)
			s->irq_prev = calloc(1, sizeof(*s->irq_prev));
		if (s->irq_prev) {
			dist_free(s->irq_prev);
			*s->irq_prev = irq_cur;
			irq_cur = (struct dist){ 0 };
		}
	}
	row_free(&s->prev);
	s->prev = cur;
	cur = (struct row){ 0 };
	s->idle_reads = active ? 0 : s->idle_reads + 1;
	if (s->idle_reads >= RETIRE_IDLE_READS &&
	    !cg_path_exists(c->cg, s->key.hierarchy, s->rel_path, s->key.cgid)) {
		retire_begin(c, i);
		*unhooked = true;
	}
out:
	row_free(&cur);
	row_free(&delta);
	dist_free(&irq_cur);
	dist_free(&irq_delta);
	return err;
}

int collector_read(struct collector *c, struct report *interval, struct report *total)
{
	struct builder bi = { .r = interval }, bt = { .r = total };
	uint64_t epoch = c->skel->bss->epoch, lost[LOST_MAX] = { 0 };
	unsigned int n = c->skel->bss->next_slot;
	bool unhooked = false;
	int err = 0;

	/* From here on BPF records maxima for the next interval. */
	c->skel->bss->epoch = epoch + 1;
	if (n > c->max_slots)
		n = c->max_slots;
	if (interval)
		report_begin(c, interval, REPORT_INTERVAL);
	if (total)
		report_begin(c, total, REPORT_SUMMARY);
	for (unsigned int i = 0; i < n && !err; i++) {
		struct slot *s = &c->slots[i];

		slot_refresh(c, i);
		if (s->state == SLOT_DISCARDED) {
			retire_end(c, i, NULL, NULL);	/* lost an insert race: reuse it */
			continue;
		}
		if (s->state == SLOT_READY)
			err = collect_slot(c, i, epoch, &bi, &bt, &unhooked);
	}
	/* per-CPU caches filled before now may name an unhooked slot */
	if (unhooked)
		c->skel->bss->cache_gen++;
	if (!err)
		err = read_cpu_lock(c, epoch, interval, total);
	if (!err)
		err = read_irq(c, epoch, interval, total);
	for (size_t i = 0; total && !err && i < c->nretired; i++)
		err = add_row(&bt, &c->retired[i]);
	for (uint32_t k = 0; k < LOST_MAX && !err; k++) {
		if (k == LOST_RETIRED) {
			lost[k] = c->retired_dropped;
		} else {
			if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.lost), &k,
						c->lost_percpu))
				return -errno;
			for (int cpu = 0; cpu < c->ncpus; cpu++)
				lost[k] += c->lost_percpu[cpu];
		}
		if (interval)
			interval->lost[k] = lost[k] - c->prev_lost[k];
		if (total)
			total->lost[k] = lost[k];
		c->prev_lost[k] = lost[k];
	}
	return err;
}
