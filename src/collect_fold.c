// SPDX-License-Identifier: GPL-2.0
/* One read: the maps read, each slot handed to the fold (fold.c), and system-wide figures. */
/*
 * Every read closes an epoch (rstatlat.h: stages and homes) and folds
 * what changed into two places: the open interval and the run's totals,
 * per slot. Reports are built from those (collect.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "collect_int.h"
#include "rstatlat.skel.h"
#include "self.h"

/* ---- one read ---- */

/*
 * Waits until no BPF program can still be writing the epoch just closed.
 * Programs run inside RCU read-side sections (tracepoints, trampolines) or
 * with irqs off, so one RCU grace period is enough: membarrier's global
 * command waits for one. Kernels with nohz_full refuse it; programs take
 * microseconds, so a pause long past that serves there.
 */
static void *membarrier_global(void *done)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(10000);
	__atomic_store_n((int *)done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A grace period can take a while on a loaded machine: meanwhile the
 * waiter (the -t ring buffer) is served, so slow events are not dropped.
 */
static void grace_period(struct collector *c)
{
	pthread_t t;
	int done = 0;

	if (!c->waiter || pthread_create(&t, NULL, membarrier_global, &done)) {
		membarrier_global(&done);
		return;
	}
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		c->waiter(c->waiter_arg);
	pthread_join(t, NULL);
}

/* The sampled flushes of each cause way since the snapshot. */
static int fold_causes(struct collector *c, struct slot *s, const struct slot_home *h)
{
	for (int i = 0; i <= CAUSE_WAYS; i++) {
		const struct cause_way *w = &h->cause[i];
		struct cause_way *sn = &s->snap.cause[i];

		if (!w->key || w->samples == sn->samples)
			continue;
		if (row_add_cause(&s->delta, cause_name(c, w->key),
				  (uint32_t)(w->samples - sn->samples),
				  (uint32_t)(w->weight - sn->weight), w->weight_ns - sn->weight_ns))
			return -ENOMEM;
		*sn = *w;
	}
	return 0;
}

/* What the fold reads and writes of slot s (fold.h). */
static struct fold_slot fold_slot_of(struct slot *s)
{
	return (struct fold_slot){ .delta = &s->delta, .total = &s->total,
				   .top_votes = &s->top_votes, .snap = &s->snap };
}

/* A slot's change of this read goes to the open interval and its totals. */
static int slot_changed(struct collector *c, struct slot *s, const struct fold *f)
{
	struct fold_slot fs = fold_slot_of(s);
	uint32_t newly_exited = 0;
	struct ident who;
	int err = fold_finish(c->scratch, f, &fs, c->src.irqoff_trace);

	if (err || delta_empty(&s->delta))
		goto out;
	s->touched_read = c->reads;
	s->cg->last_active = c->reads;
	c->locked += s->delta.count[COUNT_LOCKED];	/* every row's: own time served them all */
	if (c->per_process && s->tgid && !s->exited && !process_alive(c, s, false)) {
		s->exited = true;
		newly_exited = 1;
	}
	ident_of_slot(c, s, &who);
	if (!s->cg->excluded && c->src.intervals)
		err = builder_add(&c->open_bd, &who, &s->delta, newly_exited);
	if (!err)
		err = row_merge(&s->total, &s->delta) ? -ENOMEM : 0;
	shared_slot_changed(c, s);
	/* rows move (slot, kept rows, removed), never leave: their sum grows only here */
	if (!err && !s->cg->excluded && !c->per_process)
		err = row_merge(&c->all, &s->delta) ? -ENOMEM : 0;
out:
	delta_clear(&s->delta);
	return err;
}

static int stage_ref_cmp(const void *a, const void *b)
{
	const struct stage_ref *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Every CPU's stage of the closed epoch that holds a slot: sorted by slot. */
static int read_stages(struct collector *c, uint64_t epoch, size_t *nrefs)
{
	__u32 zero = 0;
	size_t n = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.lock_state), &zero, c->lock_percpu))
		return -errno;
	c->own_ns = 0;	/* the programs only add: a sum over the CPUs never goes back */
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		c->own_ns += c->lock_percpu[cpu].own_ns + c->lock_percpu[cpu].memcg.own_ns;
	if (c->src.irqoff_trace &&
	    bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.irq_state), &zero, c->irq_percpu))
		return -errno;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct slot_stage *st = &c->lock_percpu[cpu].stage[epoch & 1];
		const struct slot_dist_stage *irq = &c->irq_percpu[cpu].slot[epoch & 1];
		const struct decision_stage *ds = &c->lock_percpu[cpu].memcg.stage[epoch & 1];
		long slot = stage_slot(st->epoch, st->slot, epoch, c->max_slots);

		if (slot >= 0)
			c->refs[n++] = (struct stage_ref){ .slot = (uint32_t)slot, .st = st };
		slot = c->src.irqoff_trace ? stage_slot(irq->epoch, irq->slot, epoch, c->max_slots) : -1;
		if (slot >= 0)
			c->refs[n++] = (struct stage_ref){ .slot = (uint32_t)slot, .irqoff = &irq->d };
		slot = c->src.memcg_decisions ? stage_slot(ds->epoch, ds->slot, epoch, c->max_slots) :
		       -1;
		if (slot >= 0)
			c->refs[n++] = (struct stage_ref){ .slot = (uint32_t)slot, .decisions = ds };
	}
	qsort(c->refs, n, sizeof(c->refs[0]), stage_ref_cmp);
	*nrefs = n;
	return 0;
}

/* Slots whose home changed since the previous read (one epoch of slack). */
static size_t dirty_homes(struct collector *c, uint64_t epoch, unsigned int nslots)
{
	uint64_t since = epoch ? epoch - 1 : 0;
	size_t n = 0;

	for (unsigned int i = 0; i < nslots; i++)
		if (c->seen[i] >= since)
			c->dirty[n++] = i;
	return n;
}

static int fold_slots(struct collector *c, uint64_t epoch, size_t nrefs, size_t ndirty)
{
	size_t r = 0, d = 0;
	int err = 0;

	while (!err && (r < nrefs || d < ndirty)) {
		uint32_t slot = r < nrefs && (d >= ndirty || c->refs[r].slot <= c->dirty[d]) ?
				c->refs[r].slot : c->dirty[d];
		struct slot *s = &c->slots[slot];
		struct fold_slot fs = fold_slot_of(s);
		struct fold f;
		bool have_home = d < ndirty && c->dirty[d] == slot;

		slot_refresh(c, slot);
		fold_start(c->scratch, &f);
		for (; r < nrefs && c->refs[r].slot == slot; r++) {
			/* no cgroup record (out of memory), or metadata not whole: counted */
			if (s->state != SLOT_READY || !s->cg) {
				c->stages_unnamed++;
				continue;
			}
			if (c->refs[r].st)
				fold_stage(c->scratch, &f, &fs, c->refs[r].st);
			else if (c->refs[r].irqoff)
				fold_stage_dist(c->scratch, &f, DIST_IRQOFF, c->refs[r].irqoff);
			else
				fold_decisions(&fs, c->refs[r].decisions->n);
		}
		/* a dirty slot has its chunks: BPF wrote there */
		if (have_home && s->state == SLOT_READY && s->cg) {
			err = chunk_rec_read(c, slot, c->rec);
			if (!err && c->src.irqoff_trace)
				err = chunk_irqoff_read(c, slot, c->irq_home);
			if (!err)
				err = fold_home(c->scratch, &f, &fs, &c->rec->home,
						c->src.irqoff_trace ? c->irq_home : NULL, epoch);
			if (!err)
				err = fold_causes(c, s, &c->rec->home);
		}
		d += have_home;
		if (!err && s->state == SLOT_READY && s->cg)
			err = slot_changed(c, s, &f);
	}
	return err;
}

/* ---- system-wide figures ---- */

static int read_percpu(struct collector *c, struct bpf_map *map)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(bpf_map__fd(map), &zero, c->sys_percpu) ? -errno : 0;
}

/* The change of the system-wide figures in this read, before the homes. */
struct sys_change {
	uint64_t ticks, locked, contended;
	struct fold f;
};

static void fold_sys_stage(struct collector *c, const struct sys_stage *st, int k, uint64_t epoch,
			   uint64_t *events, struct fold *f)
{
	if (st->epoch != (__u32)epoch)
		return;
	*events += st->events;
	fold_stage_dist(c->scratch, f, k, &st->d);
}

/* Every CPU's stages of the closed epoch, for each source that is on. */
static int fold_sys_stages(struct collector *c, uint64_t epoch, struct sys_change *ch)
{
	uint64_t unused = 0;
	int err;

	for (int cpu = 0; c->src.irqoff_trace && cpu < c->ncpus; cpu++)
		fold_sys_stage(c, &c->irq_percpu[cpu].outside[epoch & 1], SYS_IRQ_OUTSIDE, epoch,
			       &unused, &ch->f);
	if (c->src.irqoff_sample) {
		const struct tick_state *tc = c->sys_percpu;

		if ((err = read_percpu(c, c->skel->maps.tick_state)))
			return err;
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			fold_sys_stage(c, &tc[cpu].stage[epoch & 1], SYS_TICK_LATE, epoch, &ch->ticks,
				       &ch->f);
	}
	if (c->src.cpu_lock) {
		const struct cpu_lock_state *cc = c->sys_percpu;

		if ((err = read_percpu(c, c->skel->maps.cpu_lock_state)))
			return err;
		for (int cpu = 0; cpu < c->ncpus; cpu++) {
			const struct cpu_lock_stage *st = &cc[cpu].stage[epoch & 1];

			if (st->epoch != (__u32)epoch)
				continue;
			ch->locked += st->locked;
			ch->contended += st->contended;
			fold_stage_dist(c->scratch, &ch->f, SYS_CPU_LOCK_HOLD, &st->hold);
			fold_stage_dist(c->scratch, &ch->f, SYS_CPU_LOCK_WAIT, &st->wait);
		}
	}
	return 0;
}

static void fold_sys_home(struct collector *c, const struct sys_home *h, int k, struct fold *f,
			  uint64_t epoch)
{
	const struct dist_rec *r = &h->d[k];

	/* one record each: a dense snapshot is cheaper than fold_hist's sparse one */
	for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
		scratch_add(c->scratch, k, b, (uint32_t)(r->hist[b] - c->sys_snap[k][b]));
		c->sys_snap[k][b] = r->hist[b];
	}
	fold_rec_figures(f, k, r, &c->sys_sum[k], epoch);
}

/* Adds distribution k of this read's system-wide change to two figures. */
static int sys_add(struct collector *c, int k, const struct fold *f, struct dist *total,
		   struct dist *open)
{
	struct dist d = { 0 };
	int err = scratch_to_dist(c->scratch, k, &d);

	d.sum = f->sum[k];
	d.max = f->max[k];
	bound_max(&d, f->run_max[k]);
	if (!err && (dist_merge(total, &d) || dist_merge(open, &d)))
		err = -ENOMEM;
	dist_free(&d);
	return err;
}

/* System-wide figures: the stages (irq_state was read with the slots' stages), then the homes. */
static int read_system(struct collector *c, uint64_t epoch)
{
	struct sys_change ch = { 0 };
	struct sys_home home;
	__u32 zero = 0;
	int err;

	scratch_clear(c->scratch);
	err = fold_sys_stages(c, epoch, &ch);
	if (err)
		return err;
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.sys_home), &zero, &home))
		return -errno;
	for (int k = 0; k < SYS_MAX; k++)
		fold_sys_home(c, &home, k, &ch.f, epoch);
	c->sys_total.irq.ticks += ch.ticks;
	c->sys_open.irq.ticks += ch.ticks;
	c->sys_total.lock.locked += ch.locked;
	c->sys_open.lock.locked += ch.locked;
	c->sys_total.lock.contended += ch.contended;
	c->sys_open.lock.contended += ch.contended;
	err = sys_add(c, SYS_IRQ_OUTSIDE, &ch.f, &c->sys_total.irq.outside, &c->sys_open.irq.outside);
	if (!err)
		err = sys_add(c, SYS_TICK_LATE, &ch.f, &c->sys_total.irq.late, &c->sys_open.irq.late);
	if (!err)
		err = sys_add(c, SYS_CPU_LOCK_HOLD, &ch.f, &c->sys_total.lock.hold,
			      &c->sys_open.lock.hold);
	if (!err)
		err = sys_add(c, SYS_CPU_LOCK_WAIT, &ch.f, &c->sys_total.lock.wait,
			      &c->sys_open.lock.wait);
	return err;
}

/*
 * The BPF side's losses, and userspace's: recycled slots it could not keep,
 * and runs of rstatlat's programs the kernel skipped (a program still
 * running on a CPU, preempted, is not entered again there: a hold not
 * counted, or a lock scope not kept, "(unknown)").
 */
static int read_lost_map(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.lost);
	__u64 *percpu = c->lost_percpu;
	struct prog_totals progs;

	for (__u32 k = 0; k < LOST_MAX; k++) {
		uint64_t sum = 0;

		if (k == LOST_RETIRED || k == LOST_PROG_SKIPPED || k == LOST_SLOW_UNPRINTED ||
		    k == LOST_STAGE_UNNAMED)
			continue;	/* userspace's, below */
		if (bpf_map_lookup_elem(fd, &k, percpu))
			return -errno;
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			sum += percpu[cpu];
		c->lost[k] = sum;
	}
	self_prog_totals(c->skel->obj, &progs);
	c->lost[LOST_RETIRED] = c->retired_dropped;
	c->lost[LOST_PROG_SKIPPED] = progs.skipped;
	c->lost[LOST_FLUSHERS_FULL] += c->flushers_full;
	c->lost[LOST_SLOW_UNPRINTED] = c->slow_unprinted;
	c->lost[LOST_STAGE_UNNAMED] = c->stages_unnamed;
	return 0;
}

/* ---- the read: the epoch closed, folded, then housekeeping ---- */

int collector_read(struct collector *c)
{
	uint64_t epoch = c->skel->bss->epoch;
	unsigned int nslots = c->skel->bss->next_slot;
	size_t nrefs = 0, ndirty;
	int err;

	if (nslots > c->max_slots)
		nslots = c->max_slots;
	/* From here on BPF records into the other parity. */
	c->skel->bss->epoch = epoch + 1;
	grace_period(c);
	c->reads++;
	err = read_stages(c, epoch, &nrefs);
	if (err)
		return err;
	ndirty = dirty_homes(c, epoch, nslots);
	err = fold_slots(c, epoch, nrefs, ndirty);
	if (!err)
		err = read_system(c, epoch);
	if (!err && c->src.flushers)
		err = read_flushers(c, epoch);
	if (!err)
		err = read_lost_map(c);
	if (!err)
		err = housekeeping(c, nslots);
	drop_idle_ksyms(c);
	return err;
}
