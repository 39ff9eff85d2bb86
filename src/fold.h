/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace half of the epoch protocol (rstatlat.h, stages and homes;
 * docs/how-it-works.md): one slot's change in one read, from the CPUs'
 * stages of the closed epoch and from its home against the home as last
 * read. Knows map contents, not maps: collect_read.c reads the maps,
 * collect_fold.c hands them here; the unit tests hand recorded or made-up
 * contents.
 */
#ifndef RSTATLAT_FOLD_H
#define RSTATLAT_FOLD_H

#include "report.h"

#define NDIST DIST_ROW_MAX

/* The home's counters as last read: changes are told from these. */
struct snap_cell {
	uint32_t bucket;
	uint32_t value;
};

struct snap_hist {
	struct snap_cell *c;	/* ascending bucket */
	uint32_t n, cap;
};

struct home_snap {
	uint64_t count[COUNT_SUMS];	/* the summed counters */
	uint64_t part[PART_MAX];
	uint32_t decisions[DECISION_MAX];	/* as the home's: they wrap */
	struct cause_way cause[CAUSE_WAYS + 1];
	uint64_t sum[NDIST];
	struct snap_hist hist[NDIST];
};

/* This read's change of one slot, dense while it is summed. */
struct scratch {
	uint64_t acc[NDIST][HIST_BUCKETS];
	int lo[NDIST], hi[NDIST];	/* bucket range touched; lo > hi: none */
};

/* The system-wide fold (collect_fold.c) uses the scratch by enum sys_dist. */
_Static_assert((int)SYS_MAX <= (int)NDIST, "the scratch has a row for each system-wide distribution");

/* This read's sums and maxima per distribution, besides the buckets. */
struct fold {
	uint64_t sum[NDIST], max[NDIST], run_max[NDIST];
	uint32_t top_tgid;
	uint64_t top_votes;
	char top_comm[RSL_COMM_LEN];
};

/* What the fold reads and writes of one slot. */
struct fold_slot {
	struct row *delta;	/* this read's change: fold_finish completes it */
	struct row *total;	/* the run's: its top flusher, by a vote over the reads */
	uint64_t *top_votes;	/* ... and that vote's margin */
	struct home_snap *snap;	/* the home as last read */
};

/*
 * The slot a CPU's stage (of either parity) holds for the closed epoch,
 * as an index, or -1: a stage of an older epoch is stale (BPF resets it
 * when next used; userspace writes no figures), 0 is none, and a slot
 * beyond the table is no slot of ours.
 */
long stage_slot(uint32_t stage_epoch, uint32_t slot_plus_one, uint64_t epoch,
		unsigned int max_slots);
/* A new slot's fold: the scratch and the sums emptied. */
void fold_start(struct scratch *sc, struct fold *f);
/* A CPU's stage of the closed epoch: its counts into delta, its distributions into the fold. */
void fold_stage(struct scratch *sc, struct fold *f, const struct fold_slot *s,
		const struct slot_stage *st);
/* A CPU's staged memcg flush decisions of the closed epoch into delta. */
void fold_decisions(const struct fold_slot *s, const uint32_t n[DECISION_MAX]);
/* One staged distribution (k: enum dist_id, or enum sys_dist in the system-wide fold). */
void fold_stage_dist(struct scratch *sc, struct fold *f, int k, const struct stage_dist *sd);
/*
 * The slot's home (and irqs-off home, or NULL), against the snapshot, which
 * it updates; maxima of the epoch by their tag. Not the causes
 * (collect_fold.c takes their changes, collect_cgroup.c names them).
 * Returns 0 or -ENOMEM.
 */
int fold_home(struct scratch *sc, struct fold *f, const struct fold_slot *s,
	      const struct slot_home *h, const struct dist_rec *irq, uint64_t epoch);
/* A home record's sum, epoch maximum and run maximum into distribution k of the fold. */
void fold_rec_figures(struct fold *f, int k, const struct dist_rec *h, uint64_t *last_sum,
		      uint64_t epoch);
/*
 * The scratch and the fold into delta: its distributions (irqs-off only
 * when irqoff), flush part other, the read's top flusher. 0 or -ENOMEM.
 */
int fold_finish(struct scratch *sc, const struct fold *f, const struct fold_slot *s, bool irqoff);

/* Whether a row holds no figures. */
bool delta_empty(const struct row *d);
/* Empties a delta, keeping its buffers for the next read. */
void delta_clear(struct row *r);
void home_snap_free(struct home_snap *h);

void scratch_clear(struct scratch *s);
void scratch_add(struct scratch *s, int k, uint32_t b, uint64_t n);
/* Distribution k of the scratch, appended to d in ascending order. 0 or -ENOMEM. */
int scratch_to_dist(struct scratch *s, int k, struct dist *d);
/* A change's maximum made honest against its top bucket (fold.c). */
void bound_max(struct dist *d, uint64_t run_max);

#endif
