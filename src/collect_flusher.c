// SPDX-License-Identifier: GPL-2.0
/*
 * The flushers (rstatlat.h, flushers): each read adds the CPUs' stages of
 * the epoch it closed and what the kernel's records grew to a table of
 * every comm's figures since load; summaries show the table as rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "collect_int.h"
#include "rstatlat.skel.h"

_Static_assert(HIST_OCTAVES <= RSL_FLUSHER_OCTAVES, "an octave without a counter");

/*
 * The table: open addressing, never more than half full. RSL_FLUSHERS - 1
 * comms have figures of their own, as in the kernel; a comm beyond is
 * folded into the overflow's (its flushes counted lost). One of the
 * kernel's records keeps its entry even so, for the snapshot of its record
 * (the hash's comms may be others than the first the stages showed): at
 * most RSL_FLUSHERS more entries.
 */
#define FLUSHER_TABLE	(4 * RSL_FLUSHERS)

struct flusher_total {
	struct flusher_key key;
	bool used;
	bool folded;			/* beyond the kept comms: into the overflow's */
	struct flusher_rec total;	/* since load: staged and spilled */
	struct flusher_rec spilled;	/* the kernel's record when last read */
};

static const struct flusher_key overflow_key = FLUSHER_OVERFLOW;

int flushers_init(struct collector *c)
{
	c->flusher_table = calloc(FLUSHER_TABLE, sizeof(*c->flusher_table));
	c->flusher_percpu = calloc((size_t)c->ncpus, sizeof(*c->flusher_percpu));
	return c->flusher_table && c->flusher_percpu ? 0 : -1;
}

void flushers_free(struct collector *c)
{
	free(c->flusher_table);
	free(c->flusher_percpu);
}

static struct flusher_total *slot_of(struct collector *c, const struct flusher_key *key)
{
	uint64_t h = FNV1A_OFFSET;

	for (size_t i = 0; i < sizeof(key->comm); i++)
		h = (h ^ (unsigned char)key->comm[i]) * FNV1A_PRIME;
	for (size_t i = h & (FLUSHER_TABLE - 1);; i = (i + 1) & (FLUSHER_TABLE - 1)) {
		struct flusher_total *t = &c->flusher_table[i];

		if (!t->used || !memcmp(&t->key, key, sizeof(*key)))
			return t;
	}
}

/*
 * key's entry, made if new. When RSL_FLUSHERS - 1 comms are kept already,
 * a kernel record's is folded (kernel), a stage's comm has none: NULL.
 */
static struct flusher_total *entry_of(struct collector *c, const struct flusher_key *key,
				      bool kernel)
{
	struct flusher_total *t = slot_of(c, key);
	bool full = memcmp(key, &overflow_key, sizeof(*key)) && c->nflushers >= RSL_FLUSHERS - 1;

	if (t->used)
		return t;
	if (full && !kernel)
		return NULL;
	t->used = true;
	t->key = *key;
	t->folded = full;
	c->nflushers += !full;
	return t;
}

/* Where t's figures go: its own, or (NULL, folded) the overflow's, counted lost. */
static struct flusher_rec *total_of(struct collector *c, struct flusher_total *t,
				    uint64_t flushes)
{
	if (t && !t->folded)
		return &t->total;
	c->flushers_full += flushes;
	return &entry_of(c, &overflow_key, true)->total;
}

/* The CPUs' stages of the epoch just closed (no program writes them any more). */
static int read_flusher_stages(struct collector *c, uint64_t epoch)
{
	__u32 parity = epoch & 1;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.flusher_stages), &parity,
				c->flusher_percpu))
		return -errno;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct flusher_stage *fs = &c->flusher_percpu[cpu];
		struct flusher_rec *r;

		if (fs->epoch != (__u32)epoch || !fs->flushes)
			continue;
		r = total_of(c, entry_of(c, &fs->key, false), fs->flushes);
		r->flushes += fs->flushes;
		r->holds += fs->holds;
		r->flush_ns += fs->flush_ns;
		r->hold_ns += fs->hold_ns;
		for (int k = 0; k < RSL_FLUSHER_OCTAVES; k++) {
			r->flush_oct[k] += fs->flush_oct[k];
			r->hold_oct[k] += fs->hold_oct[k];
		}
	}
	return 0;
}

/* What one of the kernel's records grew since the last read, into its figures. */
static void add_growth(struct collector *c, struct flusher_total *t, const struct flusher_rec *now)
{
	const uint64_t *n = (const uint64_t *)now, *was = (const uint64_t *)&t->spilled;
	uint64_t *into = (uint64_t *)total_of(c, t, now->flushes - t->spilled.flushes);

	/* struct flusher_rec is all __u64: field by field */
	for (size_t i = 0; i < sizeof(*now) / sizeof(uint64_t); i++)
		into[i] += n[i] - was[i];
	t->spilled = *now;
}

/*
 * The kernel only adds records, never removes one: a walk of the keys sees
 * each that was there when it began.
 */
static int read_flusher_records(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.flushers);
	struct flusher_key key, next;
	struct flusher_rec rec;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &rec) && rec.flushes)
			add_growth(c, entry_of(c, &key, true), &rec);
	}
	return errno == ENOENT ? 0 : -errno;
}

int read_flushers(struct collector *c, uint64_t epoch)
{
	int err = read_flusher_stages(c, epoch);

	return err ? err : read_flusher_records(c);
}

/*
 * Octave counts as a distribution: each at its octave's first bucket,
 * which every power-of-two bound (the exporter's) puts in the right bin.
 * The maximum is not kept: 0.
 */
static int octaves_to_dist(struct dist *d, const __u64 *oct, uint64_t sum)
{
	for (unsigned int k = 0; k < HIST_OCTAVES; k++)
		if (dist_add(d, hist_octave_bucket(k), oct[k]))
			return -1;
	d->sum = sum;
	return 0;
}

static int flusher_row(struct row *row, const struct flusher_total *t)
{
	memset(row, 0, sizeof(*row));
	/* the comms that found no record left: never named (prom.c) */
	if (!memcmp(&t->key, &overflow_key, sizeof(t->key)))
		strcpy(row->comm, FLUSHERS_OTHER);
	else
		memcpy(row->comm, t->key.comm, sizeof(row->comm) - 1);
	row->count[COUNT_LOCKED] = t->total.holds;
	row->count[COUNT_FLUSH_HOLDS] = t->total.holds;
	if (octaves_to_dist(&row->dist[DIST_HOLD], t->total.hold_oct, t->total.hold_ns) ||
	    octaves_to_dist(&row->dist[DIST_FLUSH], t->total.flush_oct, t->total.flush_ns)) {
		row_free(row);
		return -1;
	}
	return 0;
}

int collect_flushers(struct collector *c, struct report *r)
{
	r->flushers_counted = true;
	r->flushers = calloc(c->nflushers + 1, sizeof(*r->flushers));
	if (!r->flushers)
		return -ENOMEM;
	for (size_t i = 0; i < FLUSHER_TABLE; i++) {
		const struct flusher_total *t = &c->flusher_table[i];

		if (!t->used || t->folded || !t->total.flushes)
			continue;
		if (flusher_row(&r->flushers[r->nflushers], t))
			return -ENOMEM;
		r->nflushers++;
	}
	return 0;
}
