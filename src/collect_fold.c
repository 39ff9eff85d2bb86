// SPDX-License-Identifier: GPL-2.0
/* One read: the epoch fold of stages and homes (rstatlat.h), and system-wide figures. */
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

static void scratch_clear(struct scratch *s)
{
	for (int k = 0; k < NDIST; k++) {
		if (s->lo[k] <= s->hi[k])
			memset(&s->acc[k][s->lo[k]], 0,
			       (size_t)(s->hi[k] - s->lo[k] + 1) * sizeof(s->acc[k][0]));
		s->lo[k] = HIST_BUCKETS;
		s->hi[k] = -1;
	}
}

static void scratch_add(struct scratch *s, int k, uint32_t b, uint64_t n)
{
	if (b >= HIST_BUCKETS || !n)
		return;
	s->acc[k][b] += n;
	if ((int)b < s->lo[k])
		s->lo[k] = (int)b;
	if ((int)b > s->hi[k])
		s->hi[k] = (int)b;
}

static struct dist *row_dist(struct row *r, int k)
{
	switch (k) {
	case SD_HOLD: return &r->hold;
	case SD_WAIT: return &r->wait;
	case SD_FLUSH: return &r->flush;
	default:
		if (!r->irqoff)
			r->irqoff = calloc(1, sizeof(*r->irqoff));
		return r->irqoff;
	}
}

/* A distribution's change as sparse buckets, appended in ascending order. */
static int scratch_to_dist(struct scratch *s, int k, struct dist *d)
{
	for (int b = s->lo[k]; b <= s->hi[k]; b++)
		if (s->acc[k][b] && dist_add(d, (unsigned int)b, s->acc[k][b]))
			return -ENOMEM;
	return 0;
}

/*
 * A change's maximum comes from the stages (exact for the epoch) and the
 * home's epoch-tagged maximum. A value evicted to the home after the
 * epoch closed can put a bucket above it; then that bucket's upper bound
 * (capped by the run's maximum) is the honest bound.
 */
static void bound_max(struct dist *d, uint64_t run_max)
{
	uint32_t top;

	if (!d->n)
		return;
	top = d->b[d->n - 1].index;
	if (d->max >= hist_bucket_lower(top))
		return;
	d->max = hist_bucket_upper(top) - 1;
	if (run_max >= hist_bucket_lower(top) && run_max < d->max)
		d->max = run_max;
}

static void empty_dist(struct dist *d)
{
	if (d) {
		d->n = 0;
		d->count = d->sum = d->max = 0;
	}
}

static void empty_delta(struct row *r)
{
	r->locked = r->contended = r->flush_holds = r->flush_holds_max = 0;
	memset(r->part, 0, sizeof(r->part));
	memset(r->decisions, 0, sizeof(r->decisions));
	row_clear_causes(r);
	r->top_tgid = 0;
	r->top_comm[0] = '\0';
	r->top_locked = 0;
	empty_dist(&r->hold);
	empty_dist(&r->wait);
	empty_dist(&r->flush);
	empty_dist(r->irqoff);
}

/* This read's sums and maxima per distribution, besides the buckets. */
struct fold {
	uint64_t sum[NDIST], max[NDIST], run_max[NDIST];
	uint32_t top_tgid;
	uint64_t top_votes;
	char top_comm[RSL_COMM_LEN];
};

static void fold_vote(struct slot *s, struct fold *f, uint32_t tgid, const char *comm,
		      uint64_t votes)
{
	if (!votes)
		return;
	if (votes > f->top_votes) {
		f->top_votes = votes;
		f->top_tgid = tgid;
		memcpy(f->top_comm, comm, RSL_COMM_LEN);
		f->top_comm[RSL_COMM_LEN - 1] = '\0';
	}
	/* the run's vote: Boyer-Moore over what each read saw */
	if (s->total.top_tgid == tgid && s->top_votes) {
		s->top_votes += votes;
	} else if (votes > s->top_votes) {
		s->top_votes = votes - s->top_votes;
		s->total.top_tgid = tgid;
		memcpy(s->total.top_comm, comm, RSL_COMM_LEN);
		s->total.top_comm[RSL_COMM_LEN - 1] = '\0';
	} else {
		s->top_votes -= votes;
	}
}

static void fold_stage_dist(struct scratch *sc, struct fold *f, int k, const struct stage_dist *sd)
{
	for (int i = 0; i < STAGE_CELLS; i++)
		if (sd->cell[i].count)
			scratch_add(sc, k, sd->cell[i].bucket, sd->cell[i].count);
	f->sum[k] += sd->sum;
	if (sd->max > f->max[k])
		f->max[k] = sd->max;
	if (sd->max > f->run_max[k])
		f->run_max[k] = sd->max;
}

static void fold_stage(struct collector *c, struct slot *s, struct fold *f,
		       const struct slot_stage *st)
{
	struct row *d = &s->delta;

	d->locked += st->n.locked;
	d->contended += st->n.contended;
	d->flush_holds += st->n.flush_holds;
	if (st->n.flush_holds_max > d->flush_holds_max)
		d->flush_holds_max = st->n.flush_holds_max;
	for (int k = 0; k < PART_MAX; k++)
		d->part[k] += st->n.part[k];
	for (int k = 0; k < DECISION_MAX; k++)
		d->decisions[k] += st->n.decisions[k];
	fold_vote(s, f, st->n.top_tgid, st->n.top_comm, st->n.top_votes);
	for (int k = 0; k < SLOT_HOME_DISTS; k++)
		fold_stage_dist(c->scratch, f, k, &st->d[k]);
}

/* The buckets that changed in a home's histogram since the snapshot. */
static int fold_hist(struct snap_hist *sn, const uint32_t *hist, struct scratch *sc, int k)
{
	uint32_t j = 0;

	for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
		bool have = j < sn->n && sn->c[j].bucket == b;
		uint32_t last = have ? sn->c[j].value : 0;

		if (hist[b] != last) {
			scratch_add(sc, k, b, (uint32_t)(hist[b] - last));	/* wraps */
			if (!have) {
				if (sn->n == sn->cap) {
					uint32_t ncap = sn->cap ? sn->cap * 2 : 8;
					struct snap_cell *nc = realloc(sn->c, ncap * sizeof(*nc));

					if (!nc)
						return -ENOMEM;
					sn->c = nc;
					sn->cap = ncap;
				}
				memmove(&sn->c[j + 1], &sn->c[j], (sn->n - j) * sizeof(sn->c[0]));
				sn->c[j].bucket = b;
				sn->n++;
				have = true;
			}
			sn->c[j].value = hist[b];
		}
		j += have;
	}
	return 0;
}

static uint64_t imax_of(const __u64 imax[2], uint64_t epoch)
{
	__u64 m = imax[epoch & 1];

	return (m & ~IMAX_VALUE_MASK) == IMAX_TAG(epoch) ? (m & IMAX_VALUE_MASK) : 0;
}

/* A home's sum, epoch maximum and run maximum into distribution k of the fold. */
static void fold_rec_figures(struct fold *f, int k, const struct dist_rec *h, uint64_t *last_sum,
			     uint64_t epoch)
{
	uint64_t m = imax_of(h->imax, epoch);

	f->sum[k] += h->sum - *last_sum;
	*last_sum = h->sum;
	if (m > f->max[k])
		f->max[k] = m;
	if (h->max > f->run_max[k])
		f->run_max[k] = h->max;
}

static int fold_dist_rec(struct slot *s, struct fold *f, struct scratch *sc, int k,
			 const struct dist_rec *h, uint64_t epoch)
{
	fold_rec_figures(f, k, h, &s->snap.sum[k], epoch);
	return fold_hist(&s->snap.hist[k], h->hist, sc, k);
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

static int fold_home(struct collector *c, struct slot *s, struct fold *f,
		     const struct slot_home *h, const struct dist_rec *irq, uint64_t epoch)
{
	struct row *d = &s->delta;
	int err = 0;

	d->locked += h->n.locked - s->snap.locked;
	d->contended += h->n.contended - s->snap.contended;
	d->flush_holds += h->n.flush_holds - s->snap.flush_holds;
	if (h->n.flush_holds_max > d->flush_holds_max)
		d->flush_holds_max = h->n.flush_holds_max;
	if (h->n.locked != s->snap.locked)
		fold_vote(s, f, h->n.top_tgid, h->n.top_comm, h->n.locked - s->snap.locked);
	s->snap.locked = h->n.locked;
	s->snap.contended = h->n.contended;
	s->snap.flush_holds = h->n.flush_holds;
	for (int k = 0; k < PART_MAX; k++) {
		d->part[k] += h->n.part[k] - s->snap.part[k];
		s->snap.part[k] = h->n.part[k];
	}
	for (int k = 0; k < DECISION_MAX; k++) {
		d->decisions[k] += (uint32_t)(h->n.decisions[k] - s->snap.decisions[k]);
		s->snap.decisions[k] = h->n.decisions[k];
	}
	err = fold_causes(c, s, h);
	for (int k = 0; k < SLOT_HOME_DISTS && !err; k++)
		err = fold_dist_rec(s, f, c->scratch, k, &h->d[k], epoch);
	if (!err && irq)
		err = fold_dist_rec(s, f, c->scratch, SD_IRQOFF, irq, epoch);
	return err;
}

/*
 * What no part covers of the wall time this read's flushes took: BPF keeps
 * the rest, each flush's at its end. self is an estimate (rstatlat.h,
 * SELF_SAMPLE): when the parts come to more than the wall time, self gives
 * way, so that they add up.
 */
static void flush_other(struct row *d)
{
	uint64_t known = 0, over;

	for (int k = 0; k < PART_MAX; k++)
		if (k != PART_OTHER)
			known += d->part[k];
	d->part[PART_OTHER] = known < d->flush.sum ? d->flush.sum - known : 0;
	over = known > d->flush.sum ? known - d->flush.sum : 0;
	d->part[PART_SELF] -= over < d->part[PART_SELF] ? over : d->part[PART_SELF];
}

/* The scratch and the fold into this read's change of s. */
static int finish_delta(struct collector *c, struct slot *s, struct fold *f)
{
	struct row *d = &s->delta;

	for (int k = 0; k < NDIST; k++) {
		struct dist *dd;

		if (k == SD_IRQOFF && !c->src.irqoff_trace)
			continue;
		dd = row_dist(d, k);
		if (!dd || scratch_to_dist(c->scratch, k, dd))
			return -ENOMEM;
		dd->sum += f->sum[k];
		if (f->max[k] > dd->max)
			dd->max = f->max[k];
		bound_max(dd, f->run_max[k]);
	}
	flush_other(d);
	d->top_tgid = f->top_tgid;
	d->top_locked = f->top_votes;
	memcpy(d->top_comm, f->top_comm, sizeof(d->top_comm));
	return 0;
}

bool delta_empty(const struct row *d)
{
	return !d->locked && !d->hold.count && !d->wait.count && !d->flush.count &&
	       !(d->irqoff && d->irqoff->count) && !d->decisions[DECISION_ASKED] && !d->ncauses;
}

/* A slot's change of this read goes to the open interval and its totals. */
static int slot_changed(struct collector *c, struct slot *s, struct fold *f)
{
	uint32_t newly_exited = 0;
	struct ident who;
	int err = finish_delta(c, s, f);

	if (err || delta_empty(&s->delta))
		goto out;
	s->touched = true;
	s->cg->last_active = c->reads;
	if (c->per_process && s->tgid && !s->exited && !process_alive(c, s, false)) {
		s->exited = true;
		newly_exited = 1;
	}
	ident_of_slot(s, &who);
	if (!s->cg->excluded && c->src.intervals)
		err = builder_add(&c->open_bd, &who, &s->delta, newly_exited);
	if (!err)
		err = row_merge(&s->total, &s->delta) ? -ENOMEM : 0;
out:
	empty_delta(&s->delta);
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
	if (c->src.irqoff_trace &&
	    bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.irq_state), &zero, c->irq_percpu))
		return -errno;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct slot_stage *st = &c->lock_percpu[cpu].stage[epoch & 1];
		const struct slot_dist_stage *irq = &c->irq_percpu[cpu].slot[epoch & 1];

		if (st->epoch == (__u32)epoch && st->slot && st->slot <= c->max_slots)
			c->refs[n++] = (struct stage_ref){ .slot = st->slot - 1, .st = st };
		if (c->src.irqoff_trace && irq->epoch == (__u32)epoch && irq->slot &&
		    irq->slot <= c->max_slots)
			c->refs[n++] = (struct stage_ref){ .slot = irq->slot - 1, .irqoff = &irq->d };
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

/*
 * Reads homes[first..first+n) of the dirty list into c->homes. The batch
 * lookup takes a run of consecutive slots in one call (Linux 5.6+); else
 * one lookup each.
 */
static int read_homes(struct collector *c, size_t first, size_t n)
{
	int fd = bpf_map__fd(c->skel->maps.slot_home);
	__u32 start = c->dirty[first], keys[HOME_BATCH];
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	if (!c->batch_unsupported && n > 1) {
		__u32 count = (__u32)n, prev = start - 1, out;

		if (!bpf_map_lookup_batch(fd, start ? &prev : NULL, &out, keys, c->homes, &count,
					  &opts) || (errno == ENOENT && count == n)) {
			if (count == n)
				return 0;
		} else if (errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP) {
			c->batch_unsupported = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		__u32 k = c->dirty[first + i];

		if (bpf_map_lookup_elem(fd, &k, &c->homes[i]))
			return -errno;
	}
	return 0;
}

static int read_irq_home(struct collector *c, __u32 slot, struct dist_rec *out)
{
	return bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.slot_irqoff), &slot, out) ? -errno : 0;
}

/* Length of the run of consecutive slots in the dirty list from first. */
static size_t run_length(const struct collector *c, size_t first, size_t ndirty)
{
	size_t n = 1;

	while (first + n < ndirty && n < HOME_BATCH &&
	       c->dirty[first + n] == c->dirty[first] + n)
		n++;
	return n;
}

static int fold_slots(struct collector *c, uint64_t epoch, size_t nrefs, size_t ndirty)
{
	size_t r = 0, d = 0, win_first = 0, win_n = 0;
	int err = 0;

	while (!err && (r < nrefs || d < ndirty)) {
		uint32_t slot = r < nrefs && (d >= ndirty || c->refs[r].slot <= c->dirty[d]) ?
				c->refs[r].slot : c->dirty[d];
		struct slot *s = &c->slots[slot];
		struct fold f = { 0 };
		bool have_home = d < ndirty && c->dirty[d] == slot;

		slot_refresh(c, slot);
		scratch_clear(c->scratch);
		for (; r < nrefs && c->refs[r].slot == slot; r++) {
			if (s->state != SLOT_READY || !s->cg)
				continue;
			if (c->refs[r].st)
				fold_stage(c, s, &f, c->refs[r].st);
			else
				fold_stage_dist(c->scratch, &f, SD_IRQOFF, c->refs[r].irqoff);
		}
		if (have_home && s->state == SLOT_READY && s->cg) {
			if (d >= win_first + win_n) {
				win_first = d;
				win_n = run_length(c, d, ndirty);
				err = read_homes(c, win_first, win_n);
			}
			if (!err && c->src.irqoff_trace)
				err = read_irq_home(c, slot, c->irq_homes);
			if (!err)
				err = fold_home(c, s, &f, &c->homes[d - win_first],
						c->src.irqoff_trace ? c->irq_homes : NULL, epoch);
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
		fold_sys_stage(c, &c->irq_percpu[cpu].other[epoch & 1], SYS_IRQ_OTHER, epoch,
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
	err = sys_add(c, SYS_IRQ_OTHER, &ch.f, &c->sys_total.irq.other, &c->sys_open.irq.other);
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

static int read_lost_map(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.lost);
	__u64 *percpu = c->lost_percpu;

	for (__u32 k = 0; k < LOST_MAX; k++) {
		uint64_t sum = 0;

		if (k == LOST_RETIRED) {
			c->lost[k] = c->retired_dropped;
			continue;
		}
		if (bpf_map_lookup_elem(fd, &k, percpu))
			return -errno;
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			sum += percpu[cpu];
		c->lost[k] = sum;
	}
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
	if (!err)
		err = read_lost_map(c);
	if (!err)
		err = housekeeping(c, nslots);
	drop_idle_ksyms(c);
	return err;
}
