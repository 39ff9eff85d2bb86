// SPDX-License-Identifier: GPL-2.0
/* One slot's change in one read, from map contents (fold.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"

void scratch_clear(struct scratch *s)
{
	for (int k = 0; k < NDIST; k++) {
		if (s->lo[k] <= s->hi[k])
			memset(&s->acc[k][s->lo[k]], 0,
			       (size_t)(s->hi[k] - s->lo[k] + 1) * sizeof(s->acc[k][0]));
		s->lo[k] = HIST_BUCKETS;
		s->hi[k] = -1;
	}
}

void scratch_add(struct scratch *s, int k, uint32_t b, uint64_t n)
{
	if (b >= HIST_BUCKETS || !n)
		return;
	s->acc[k][b] += n;
	if ((int)b < s->lo[k])
		s->lo[k] = (int)b;
	if ((int)b > s->hi[k])
		s->hi[k] = (int)b;
}

/* A distribution's change as sparse buckets, appended in ascending order. */
int scratch_to_dist(struct scratch *s, int k, struct dist *d)
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
void bound_max(struct dist *d, uint64_t run_max)
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

void delta_clear(struct row *r)
{
	memset(r->count, 0, sizeof(r->count));
	memset(r->part, 0, sizeof(r->part));
	memset(r->decisions, 0, sizeof(r->decisions));
	row_clear_causes(r);
	r->top_tgid = 0;
	r->top_comm[0] = '\0';
	r->top_locked = 0;
	for (int k = 0; k < DIST_ROW_MAX; k++)
		empty_dist(&r->dist[k]);
}

static void fold_vote(const struct fold_slot *s, struct fold *f, uint32_t tgid, const char *comm,
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
	if (VOTE_MERGE(s->total->top_tgid, *s->top_votes, tgid, votes)) {
		memcpy(s->total->top_comm, comm, RSL_COMM_LEN);
		s->total->top_comm[RSL_COMM_LEN - 1] = '\0';
	}
}

void fold_stage_dist(struct scratch *sc, struct fold *f, int k, const struct stage_dist *sd)
{
	for (int i = 0; i < STAGE_CELLS; i++)
		if (stage_cell_used(sd, i) && sd->cell[i].count)
			scratch_add(sc, k, sd->cell[i].bucket, sd->cell[i].count);
	f->sum[k] += sd->sum;
	if (sd->max > f->max[k])
		f->max[k] = sd->max;
	if (sd->max > f->run_max[k])
		f->run_max[k] = sd->max;
}

void fold_decisions(const struct fold_slot *s, const uint32_t n[DECISION_MAX])
{
	for (int k = 0; k < DECISION_MAX; k++)
		s->delta->decisions[k] += n[k];
}

void fold_stage(struct scratch *sc, struct fold *f, const struct fold_slot *s,
		const struct slot_stage *st)
{
	struct row *d = s->delta;

	for (int k = 0; k < COUNT_MAX; k++)
		count_merge(k, &d->count[k], st->n.count[k]);
	for (int k = 0; k < PART_MAX; k++)
		d->part[k] += st->n.part[k];
	fold_vote(s, f, st->n.top_tgid, st->n.top_comm, st->n.top_votes);
	for (int k = 0; k < SLOT_HOME_DISTS; k++)
		fold_stage_dist(sc, f, k, &st->d[k]);
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

void fold_rec_figures(struct fold *f, int k, const struct dist_rec *h, uint64_t *last_sum,
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

static int fold_dist_rec(const struct fold_slot *s, struct fold *f, struct scratch *sc, int k,
			 const struct dist_rec *h, uint64_t epoch)
{
	fold_rec_figures(f, k, h, &s->snap->sum[k], epoch);
	return fold_hist(&s->snap->hist[k], h->hist, sc, k);
}

int fold_home(struct scratch *sc, struct fold *f, const struct fold_slot *s,
	      const struct slot_home *h, const struct dist_rec *irq, uint64_t epoch)
{
	struct row *d = s->delta;
	struct home_snap *sn = s->snap;
	int err = 0;

	if (h->n.count[COUNT_LOCKED] != sn->count[COUNT_LOCKED])
		fold_vote(s, f, h->n.top_tgid, h->n.top_comm,
			  h->n.count[COUNT_LOCKED] - sn->count[COUNT_LOCKED]);
	for (int k = 0; k < COUNT_SUMS; k++) {
		d->count[k] += h->n.count[k] - sn->count[k];
		sn->count[k] = h->n.count[k];
	}
	/* a home's maximum is since load: an interval's own is in the stages */
	for (int k = COUNT_SUMS; k < COUNT_MAX; k++)
		count_merge(k, &d->count[k], h->n.count[k]);
	for (int k = 0; k < PART_MAX; k++) {
		d->part[k] += h->n.part[k] - sn->part[k];
		sn->part[k] = h->n.part[k];
	}
	for (int k = 0; k < DECISION_MAX; k++) {
		d->decisions[k] += (uint32_t)(h->n.decisions[k] - sn->decisions[k]);
		sn->decisions[k] = h->n.decisions[k];
	}
	for (int k = 0; k < SLOT_HOME_DISTS && !err; k++)
		err = fold_dist_rec(s, f, sc, k, &h->d[k], epoch);
	if (!err && irq)
		err = fold_dist_rec(s, f, sc, DIST_IRQOFF, irq, epoch);
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
	d->part[PART_OTHER] = known < d->dist[DIST_FLUSH].sum ? d->dist[DIST_FLUSH].sum - known : 0;
	over = known > d->dist[DIST_FLUSH].sum ? known - d->dist[DIST_FLUSH].sum : 0;
	d->part[PART_SELF] -= over < d->part[PART_SELF] ? over : d->part[PART_SELF];
}

int fold_finish(struct scratch *sc, const struct fold *f, const struct fold_slot *s, bool irqoff)
{
	struct row *d = s->delta;

	for (int k = 0; k < NDIST; k++) {
		struct dist *dd;

		if (k == DIST_IRQOFF && !irqoff)
			continue;
		dd = &d->dist[k];
		if (scratch_to_dist(sc, k, dd))
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
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (d->dist[k].count)
			return false;
	return !d->count[COUNT_LOCKED] && !d->decisions[DECISION_ASKED] && !d->ncauses;
}

void home_snap_free(struct home_snap *h)
{
	for (int k = 0; k < NDIST; k++)
		free(h->hist[k].c);
	memset(h, 0, sizeof(*h));
}

long stage_slot(uint32_t stage_epoch, uint32_t slot_plus_one, uint64_t epoch,
		unsigned int max_slots)
{
	if (stage_epoch != (uint32_t)epoch || !slot_plus_one || slot_plus_one > max_slots)
		return -1;
	return (long)slot_plus_one - 1;
}

void fold_start(struct scratch *sc, struct fold *f)
{
	scratch_clear(sc);
	memset(f, 0, sizeof(*f));
}
