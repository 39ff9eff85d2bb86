// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace half of the epoch protocol (fold.h), without root: map
 * contents made the way the BPF programs make them (a model of record,
 * spill and evict below, after src/bpf/record.bpf.h and .c) are folded read by read,
 * and each read's change must be exactly what was recorded since the one
 * before: stages of the closed epoch only, homes against the snapshot
 * (their 32-bit counts wrapping), maxima by epoch tag, the counters'
 * table (sums and maxima), the flush parts adding up, the top flusher.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "check.h"
#include "fold.h"

/* ---- a model of the BPF side (src/bpf: record.bpf.h stage_value, record.bpf.c spill and dist_evict) ---- */

struct model_slot {
	struct slot_stage stage[2];	/* one CPU's, by epoch parity */
	struct slot_home home;
};

static void model_imax(struct dist_rec *h, uint64_t epoch, uint64_t v)
{
	__u64 *m = &h->imax[epoch & 1];

	if ((*m & ~IMAX_VALUE_MASK) != IMAX_TAG(epoch) || (*m & IMAX_VALUE_MASK) < v)
		*m = IMAX_TAG(epoch) | (v & IMAX_VALUE_MASK);
}

static void model_home_value(struct dist_rec *h, uint64_t v, uint64_t epoch)
{
	h->hist[hist_bucket(v)]++;
	h->sum += v;
	h->max = v > h->max ? v : h->max;
	model_imax(h, epoch, v);
}

/* This CPU's stage for epoch: reset when it belongs to an older one (BPF, stage_of). */
static struct slot_stage *model_stage(struct model_slot *m, uint64_t epoch)
{
	struct slot_stage *st = &m->stage[epoch & 1];

	if (st->epoch != (uint32_t)epoch) {
		memset(st, 0, sizeof(*st));
		st->epoch = (uint32_t)epoch;
		st->slot = 1;
	}
	return st;
}

/* record(): a value in its cell, or spilled to the home when another bucket holds the cell. */
static void model_record(struct model_slot *m, uint64_t epoch, int k, uint64_t v)
{
	struct stage_dist *sd = &model_stage(m, epoch)->d[k];
	uint32_t b = hist_bucket(v);
	struct stage_cell *c = &sd->cell[b & (STAGE_CELLS - 1)];

	sd->sum += v;
	sd->max = v > sd->max ? v : sd->max;
	if (stage_cell_used(sd, b) && c->bucket != b) {
		m->home.d[k].hist[b]++;
		return;
	}
	if (!stage_cell_used(sd, b)) {
		sd->used |= 1U << (b & (STAGE_CELLS - 1));
		c->count = 0;
	}
	c->bucket = b;
	c->count++;
}

/* stage_evict(): the stage's figures to the home, atomically there. */
static void model_evict(struct model_slot *m, uint64_t epoch)
{
	struct slot_stage *st = &m->stage[epoch & 1];

	for (int k = 0; k < COUNT_SUMS; k++)
		m->home.n.count[k] += st->n.count[k];
	for (int k = COUNT_SUMS; k < COUNT_MAX; k++)
		if (st->n.count[k] > m->home.n.count[k])
			m->home.n.count[k] = st->n.count[k];
	for (int k = 0; k < PART_MAX; k++)
		m->home.n.part[k] += st->n.part[k];
	for (int k = 0; k < SLOT_HOME_DISTS; k++) {
		struct stage_dist *sd = &st->d[k];
		struct dist_rec *h = &m->home.d[k];

		for (int i = 0; i < STAGE_CELLS; i++)
			h->hist[sd->cell[i].bucket] += sd->cell[i].count;
		if (sd->sum) {
			h->sum += sd->sum;
			h->max = sd->max > h->max ? sd->max : h->max;
			model_imax(h, epoch, sd->max);
		}
	}
	memset(st, 0, sizeof(*st));
}

/* ---- userspace: what collect_fold.c keeps per slot, and one read ---- */

struct reader {
	struct scratch *sc;
	struct row delta, total;
	uint64_t top_votes;
	struct home_snap snap;
};

/* One read at epoch: the stage of that epoch (if current) and the home, as fold_slots does. */
static int read_slot(struct reader *r, struct model_slot *m, uint64_t epoch)
{
	struct fold_slot fs = { &r->delta, &r->total, &r->top_votes, &r->snap };
	const struct slot_stage *st = &m->stage[epoch & 1];
	struct fold f;
	int err;

	fold_start(r->sc, &f);
	if (stage_slot(st->epoch, st->slot, epoch, 16) == 0)
		fold_stage(r->sc, &f, &fs, st);
	err = fold_home(r->sc, &f, &fs, &m->home, NULL, epoch);
	return err ? err : fold_finish(r->sc, &f, &fs, false);
}

static void reader_free(struct reader *r)
{
	row_free(&r->delta);
	row_free(&r->total);
	home_snap_free(&r->snap);
	free(r->sc);
}

static uint64_t bucket_count(const struct dist *d, unsigned int b)
{
	for (uint32_t i = 0; i < d->n; i++)
		if (d->b[i].index == b)
			return d->b[i].count;
	return 0;
}

static void test_stage_slot(void)
{
	CHECK(stage_slot(7, 3, 7, 16) == 2, "the closed epoch's stage: its slot");
	CHECK(stage_slot(5, 3, 7, 16) == -1, "an older epoch's (same parity): stale");
	CHECK(stage_slot(7, 0, 7, 16) == -1, "no slot staged");
	CHECK(stage_slot(7, 17, 7, 16) == -1, "beyond the table");
	CHECK(stage_slot(7, 3, 7ULL + (1ULL << 32), 16) == 2, "the epoch's low 32 bits");
}

/*
 * Values staged and spilled in one epoch, and evicted values of an epoch
 * before: each read's change is what was recorded since the last read,
 * the buckets exact, the maximum the epoch's own.
 */
static void test_reads_see_each_change_once(void)
{
	struct model_slot m = { 0 };
	struct reader r = { .sc = calloc(1, sizeof(*r.sc)) };
	const struct dist *hold = &r.delta.dist[DIST_HOLD];
	uint32_t b1000 = hist_bucket(1000);
	/* another bucket in the same cell as 1000's: it spills to the home */
	uint64_t clash = hist_bucket_lower(b1000 + STAGE_CELLS);

	/* epoch 1: three holds, one of them spilled; counts in the stage */
	model_record(&m, 1, DIST_HOLD, 1000);
	model_record(&m, 1, DIST_HOLD, 1000);
	model_record(&m, 1, DIST_HOLD, clash);
	model_stage(&m, 1)->n.count[COUNT_LOCKED] = 3;
	model_stage(&m, 1)->n.count[COUNT_CONTENDED] = 1;
	CHECK(read_slot(&r, &m, 1) == 0, "read 1");
	CHECK(r.delta.count[COUNT_LOCKED] == 3 && r.delta.count[COUNT_CONTENDED] == 1, "counts");
	CHECK(hold->count == 3 && bucket_count(hold, b1000) == 2 &&
	      bucket_count(hold, hist_bucket(clash)) == 1, "the spilled value counted once: %" PRIu64,
	      hold->count);
	CHECK(hold->sum == 2000 + clash && hold->max == clash, "sum %" PRIu64 " max %" PRIu64,
	      hold->sum, hold->max);
	delta_clear(&r.delta);

	/* read 2 (epoch 2): nothing new; epoch 1's stage is not read again, the spill not again */
	CHECK(read_slot(&r, &m, 2) == 0 && delta_empty(&r.delta), "read 2: no change");

	/*
	 * epoch 3: a hold, then the CPU moves to another slot (its stage is
	 * evicted into the home), comes back and stages another: the read
	 * finds one in the home and one in the stage, each once.
	 */
	model_record(&m, 3, DIST_HOLD, 5000);
	model_stage(&m, 3)->n.count[COUNT_LOCKED] = 1;
	model_evict(&m, 3);
	model_record(&m, 3, DIST_HOLD, 200);
	model_stage(&m, 3)->n.count[COUNT_LOCKED] = 1;
	CHECK(read_slot(&r, &m, 3) == 0, "read 3");
	CHECK(r.delta.count[COUNT_LOCKED] == 2, "evicted and staged locks: %" PRIu64,
	      r.delta.count[COUNT_LOCKED]);
	CHECK(hold->count == 2 && hold->sum == 5200 && hold->max == 5000,
	      "home and stage of one epoch: count %" PRIu64 " sum %" PRIu64 " max %" PRIu64,
	      hold->count, hold->sum, hold->max);
	delta_clear(&r.delta);
	reader_free(&r);
}

/*
 * A home's maximum of an older epoch is not this read's: the change's
 * maximum is then bounded by its top bucket (and the run's maximum), never
 * below a value it holds.
 */
static void test_maxima_by_epoch_tag(void)
{
	struct model_slot m = { 0 };
	struct reader r = { .sc = calloc(1, sizeof(*r.sc)) };
	const struct dist *hold = &r.delta.dist[DIST_HOLD];
	uint64_t big = 3000000, small = 700;

	model_home_value(&m.home.d[DIST_HOLD], big, 4);
	CHECK(read_slot(&r, &m, 4) == 0 && hold->max == big, "epoch 4's own maximum");
	delta_clear(&r.delta);
	/* epoch 6 (same parity as 4): a value straight into the home, smaller */
	model_home_value(&m.home.d[DIST_HOLD], small, 6);
	CHECK(read_slot(&r, &m, 6) == 0 && hold->count == 1 && hold->max == small,
	      "epoch 6: max %" PRIu64 ", not epoch 4's %" PRIu64, hold->max, big);
	delta_clear(&r.delta);
	/*
	 * epoch 8: a spilled bucket alone (its value's maximum went with the
	 * stage): epoch 6's tagged maximum is not this read's; the change's
	 * maximum is its bucket's bound
	 */
	m.home.d[DIST_HOLD].hist[hist_bucket(40)]++;
	CHECK(read_slot(&r, &m, 8) == 0 && hold->count == 1 &&
	      hold->max >= hist_bucket_lower(hist_bucket(40)) &&
	      hold->max < hist_bucket_upper(hist_bucket(40)), "bounded by its bucket: %" PRIu64,
	      hold->max);
	delta_clear(&r.delta);
	reader_free(&r);
}

/* The home's 32-bit bucket counts and memcg decisions wrap; the change is still right. */
static void test_wraps(void)
{
	struct model_slot m = { 0 };
	struct reader r = { .sc = calloc(1, sizeof(*r.sc)) };
	unsigned int b = hist_bucket(4000);

	m.home.d[DIST_WAIT].hist[b] = 0xfffffff0u;
	m.home.n.decisions[DECISION_SKIPPED] = 0xfffffffeu;
	CHECK(read_slot(&r, &m, 1) == 0, "read 1");
	delta_clear(&r.delta);
	m.home.d[DIST_WAIT].hist[b] += 0x20;	/* wraps to 0x10 */
	m.home.n.decisions[DECISION_SKIPPED] += 5;	/* wraps to 3 */
	CHECK(read_slot(&r, &m, 2) == 0, "read 2");
	CHECK(bucket_count(&r.delta.dist[DIST_WAIT], b) == 0x20, "bucket change %" PRIu64,
	      bucket_count(&r.delta.dist[DIST_WAIT], b));
	CHECK(r.delta.decisions[DECISION_SKIPPED] == 5, "decisions change %" PRIu64,
	      r.delta.decisions[DECISION_SKIPPED]);
	delta_clear(&r.delta);
	reader_free(&r);
}

/*
 * The counters' table: sums change by the home's growth, maxima
 * (COUNT_SUMS and after) are the larger of stage and home.
 */
static void test_counter_table(void)
{
	struct model_slot m = { 0 };
	struct reader r = { .sc = calloc(1, sizeof(*r.sc)) };

	m.home.n.count[COUNT_FLUSH_HOLDS] = 40;
	m.home.n.count[COUNT_FLUSHES_OFFCPU] = 2;
	m.home.n.count[COUNT_FLUSH_HOLDS_MAX] = 9;
	CHECK(read_slot(&r, &m, 1) == 0 && r.delta.count[COUNT_FLUSH_HOLDS] == 40 &&
	      r.delta.count[COUNT_FLUSHES_OFFCPU] == 2 && r.delta.count[COUNT_FLUSH_HOLDS_MAX] == 9,
	      "first read");
	delta_clear(&r.delta);
	m.home.n.count[COUNT_FLUSH_HOLDS] = 44;
	model_stage(&m, 2)->n.count[COUNT_FLUSH_HOLDS] = 3;
	model_stage(&m, 2)->n.count[COUNT_FLUSH_HOLDS_MAX] = 4;
	CHECK(read_slot(&r, &m, 2) == 0, "read 2");
	CHECK(r.delta.count[COUNT_FLUSH_HOLDS] == 7 && r.delta.count[COUNT_FLUSHES_OFFCPU] == 0,
	      "sums: the change, %" PRIu64, r.delta.count[COUNT_FLUSH_HOLDS]);
	CHECK(r.delta.count[COUNT_FLUSH_HOLDS_MAX] == 9, "maxima: the larger, %" PRIu64,
	      r.delta.count[COUNT_FLUSH_HOLDS_MAX]);
	delta_clear(&r.delta);
	reader_free(&r);
}

/* The parts add up to the wall time: other is the rest; self, an estimate, gives way. */
static void test_parts_add_up(void)
{
	struct model_slot m = { 0 };
	struct reader r = { .sc = calloc(1, sizeof(*r.sc)) };
	struct slot_stage *st;

	model_record(&m, 1, DIST_FLUSH, 1000);
	st = model_stage(&m, 1);
	st->n.part[PART_HELD] = 300;
	st->n.part[PART_WAIT] = 100;
	st->n.part[PART_SELF] = 200;
	CHECK(read_slot(&r, &m, 1) == 0 && r.delta.part[PART_OTHER] == 400 &&
	      r.delta.part[PART_SELF] == 200, "other the rest: %" PRIu64,
	      r.delta.part[PART_OTHER]);
	delta_clear(&r.delta);
	model_record(&m, 3, DIST_FLUSH, 1000);
	st = model_stage(&m, 3);
	st->n.part[PART_HELD] = 700;
	st->n.part[PART_SELF] = 500;	/* 200 more than the wall leaves */
	CHECK(read_slot(&r, &m, 3) == 0 && r.delta.part[PART_OTHER] == 0 &&
	      r.delta.part[PART_SELF] == 300, "self gives way: %" PRIu64, r.delta.part[PART_SELF]);
	delta_clear(&r.delta);
	reader_free(&r);
}

/*
 * The top flusher: the read's is the largest vote it saw; the run's a
 * Boyer-Moore vote over the reads, so a flusher that led one read and
 * lost the next two by more is not the run's.
 */
static void test_top_flusher(void)
{
	struct model_slot m = { 0 };
	struct reader r = { .sc = calloc(1, sizeof(*r.sc)) };
	struct slot_stage *st = model_stage(&m, 1);

	st->n.top_tgid = 100;
	st->n.top_votes = 5;
	memcpy(st->n.top_comm, "cadvisor", 9);
	CHECK(read_slot(&r, &m, 1) == 0 && r.delta.top_tgid == 100 &&
	      !strcmp(r.delta.top_comm, "cadvisor") && r.total.top_tgid == 100, "read 1: cadvisor");
	delta_clear(&r.delta);
	for (uint64_t e = 2; e <= 3; e++) {
		st = model_stage(&m, e);
		st->n.top_tgid = 200;
		st->n.top_votes = 4;
		memcpy(st->n.top_comm, "kubelet", 8);
		CHECK(read_slot(&r, &m, e) == 0 && r.delta.top_tgid == 200, "read %" PRIu64, e);
		delta_clear(&r.delta);
	}
	CHECK(r.total.top_tgid == 200 && !strcmp(r.total.top_comm, "kubelet") && r.top_votes == 3,
	      "the run's: kubelet by 3, got %u by %" PRIu64, r.total.top_tgid, r.top_votes);
	reader_free(&r);
}

/*
 * A stage is emptied by clearing its used cells (rstatlat.h, stage_dist):
 * cells left over from the slot it held before count for nothing.
 */
static void test_stale_cells_not_folded(void)
{
	struct scratch *sc = calloc(1, sizeof(*sc));
	struct stage_dist sd = { .sum = 100, .max = 100 };
	uint32_t b = hist_bucket(100), cell = b & (STAGE_CELLS - 1);
	uint64_t n = 0;
	struct fold f;

	fold_start(sc, &f);
	sd.cell[cell] = (struct stage_cell){ .count = 1, .bucket = b };
	sd.cell[(cell + 1) & (STAGE_CELLS - 1)] = (struct stage_cell){ .count = 7, .bucket = b + 1 };
	sd.used = 1U << cell;
	fold_stage_dist(sc, &f, DIST_HOLD, &sd);
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		n += sc->acc[DIST_HOLD][i];
	CHECK(n == 1 && sc->acc[DIST_HOLD][b] == 1, "folded %llu values, want 1",
	      (unsigned long long)n);
	free(sc);
}

int main(void)
{
	RUN_TEST(test_stage_slot());
	RUN_TEST(test_reads_see_each_change_once());
	RUN_TEST(test_maxima_by_epoch_tag());
	RUN_TEST(test_wraps());
	RUN_TEST(test_counter_table());
	RUN_TEST(test_parts_add_up());
	RUN_TEST(test_top_flusher());
	RUN_TEST(test_stale_cells_not_folded());
	return check_done("test_fold");
}
