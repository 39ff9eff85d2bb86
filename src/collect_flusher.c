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

/* The table: open addressing, never more than half full. */
#define FLUSHER_TABLE	(2 * RSL_FLUSHERS)

struct flusher_total {
	struct flusher_key key;
	bool used;
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
 * key's figures, made if new; a comm beyond RSL_FLUSHERS - 1 of them goes
 * to the overflow's, as in the kernel (its flushes counted lost).
 */
static struct flusher_total *total_of(struct collector *c, const struct flusher_key *key,
				      uint64_t flushes)
{
	struct flusher_total *t = slot_of(c, key);

	if (t->used)
		return t;
	if (c->nflushers == RSL_FLUSHERS - 1 && memcmp(key, &overflow_key, sizeof(*key))) {
		c->flushers_full += flushes;
		return total_of(c, &overflow_key, 0);
	}
	t->used = true;
	t->key = *key;
	c->nflushers++;
	return t;
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
		r = &total_of(c, &fs->key, fs->flushes)->total;
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

/* What each of the kernel's records grew since the last read. */
static void add_growth(struct flusher_total *t, const struct flusher_rec *now)
{
	const uint64_t *n = (const uint64_t *)now, *was = (const uint64_t *)&t->spilled;
	uint64_t *into = (uint64_t *)&t->total;

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
			add_growth(total_of(c, &key, rec.flushes), &rec);
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

		if (!t->used || !t->total.flushes)
			continue;
		if (flusher_row(&r->flushers[r->nflushers], t))
			return -ENOMEM;
		r->nflushers++;
	}
	return 0;
}
