// SPDX-License-Identifier: GPL-2.0
/*
 * A read's fold phase (collect_int.h, one read): each slot's stages and
 * home, as the read phase read them, handed to the fold (fold.c, the
 * epoch protocol's userspace half) into the slot's delta; and the
 * system-wide figures, read and folded, and the losses.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include "collect_int.h"
#include "rstatlat.skel.h"
#include "self.h"

/* ---- one read's slots ---- */

/* What the fold reads and writes of slot s (fold.h). */
static struct fold_slot fold_slot_of(struct slot *s)
{
	return (struct fold_slot){ .delta = &s->delta, .total = &s->total,
				   .top_votes = &s->top_votes, .snap = &s->snap };
}

/* The sampled flushes of each cause way since the snapshot, by key: named next (name_batch). */
static void fold_causes(struct read_slot *rs, struct slot *s, const struct slot_home *h)
{
	for (int i = 0; i <= CAUSE_WAYS; i++) {
		const struct cause_way *w = &h->cause[i];
		struct cause_way *sn = &s->snap.cause[i];

		if (!w->key || w->samples == sn->samples)
			continue;
		rs->cause[rs->ncauses++] = (struct cause_change){
			.key = w->key,
			.samples = (uint32_t)(w->samples - sn->samples),
			.weight = (uint32_t)(w->weight - sn->weight),
			.weight_ns = w->weight_ns - sn->weight_ns,
		};
		*sn = *w;
	}
}

/* One slot's change of this read, into its delta: its CPUs' stages, then its home. */
static int fold_one(struct collector *c, struct read_slot *rs, size_t i, uint64_t epoch)
{
	struct slot *s = &c->slots[rs->slot];
	struct fold_slot fs = fold_slot_of(s);
	struct fold f;
	int err = 0;

	fold_start(c->scratch, &f);
	for (uint32_t k = rs->ref; k < rs->ref + rs->nrefs; k++) {
		const struct stage_ref *ref = &c->refs[k];

		if (ref->st)
			fold_stage(c->scratch, &f, &fs, ref->st);
		else if (ref->irqoff)
			fold_stage_dist(c->scratch, &f, DIST_IRQOFF, ref->irqoff);
		else
			fold_decisions(&fs, ref->decisions->n);
	}
	if (rs->home) {
		const struct slot_home *h = &c->batch_rec[i].home;

		err = fold_home(c->scratch, &f, &fs, h,
				c->src.irqoff_trace ? &c->batch_irq[i] : NULL, epoch);
		fold_causes(rs, s, h);
	}
	return err ? err : fold_finish(c->scratch, &f, &fs, c->src.irqoff_trace);
}

/*
 * The fold phase (collect_int.h, one read): each slot of the batch whose
 * metadata is whole, and that is named or about to be, folded into its
 * delta; the others' stages are counted by the name phase.
 */
int fold_batch(struct collector *c, struct read_batch *b)
{
	int err = 0;

	for (size_t i = 0; i < b->n && !err; i++) {
		struct read_slot *rs = &b->s[i];
		const struct slot *s = &c->slots[rs->slot];

		if (rs->ready && (s->state == SLOT_EMPTY || s->cg))
			err = fold_one(c, rs, i, b->epoch);
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
int read_system(struct collector *c, uint64_t epoch)
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
int read_lost_map(struct collector *c)
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
