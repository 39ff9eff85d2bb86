// SPDX-License-Identifier: GPL-2.0
/*
 * The per-slot maps' chunks (rstatlat.h, slot_chunk_shift): made as slots
 * are used, ahead of them, so that kernel memory follows what is tracked
 * and --max-entries is a ceiling. Each chunk is a map of its own, read and
 * cleared through its descriptor (kept here), not mapped: a mapping would
 * count the chunks' kernel memory again in rstatlat's resident memory.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect_int.h"
#include "rstatlat.skel.h"
#include "self.h"

/*
 * Slots made ahead of use: as many as are in use, and 128 at least, so
 * that a burst of new cgroups (an agent's first round, pods starting)
 * finds its chunks made. Putting chunks in place waits for an RCU grace
 * period (the kernel's rule for arrays of maps: 20-40 ms on this project's
 * VM), so chunks are made many at a time and early, once a quarter of
 * those ahead are used (grow_at): a burst of more than 96 new cgroups in
 * that time, from a start, loses events of some (counted in
 * lost.entries_growing); 1 000 a second does not. Memory stays within
 * twice what is tracked, plus 128 slots.
 */
static unsigned int slots_wanted(const struct collector *c, unsigned int used)
{
	unsigned int ahead = used > 128 ? used : 128;

	return ahead >= c->max_slots || used > c->max_slots - ahead ? c->max_slots : used + ahead;
}

/* One per-slot map: its array of maps, and each chunk's descriptor. */
struct chunk_kind {
	struct bpf_map *outer;
	const char *name;
	size_t value_size;
	int *fds;
};

static int kinds_of(struct collector *c, struct chunk_kind kinds[2])
{
	struct slot_chunks *k = &c->chunks;
	int n = 0;

	kinds[n++] = (struct chunk_kind){ c->skel->maps.slot_recs, "rsl_recs",
					  sizeof(struct slot_rec), k->rec };
	if (c->src.irqoff_trace)
		kinds[n++] = (struct chunk_kind){ c->skel->maps.slot_irqoff, "rsl_irqoff",
						  sizeof(struct dist_rec), k->irq };
	return n;
}

/*
 * Chunks [from, from + n) of one kind into their array of maps: in one
 * batch where the kernel takes one (one grace period), else one by one.
 */
static int chunks_put(const struct chunk_kind *kind, unsigned int from, unsigned int n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int outer = bpf_map__fd(kind->outer);
	__u32 keys[n], count = n;

	for (unsigned int i = 0; i < n; i++)
		keys[i] = from + i;
	if (!bpf_map_update_batch(outer, keys, &kind->fds[from], &count, &opts))
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (bpf_map_update_elem(outer, &keys[i], &kind->fds[from + i], BPF_ANY))
			return -errno;
	return 0;
}

/* A kind's chunks [from, to), made and put in place; undone on failure. */
static int kind_grow(struct collector *c, const struct chunk_kind *kind, unsigned int from,
		     unsigned int to)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	unsigned int made = from;
	int err = 0;

	for (; made < to; made++) {
		/* put in place by a round a later kind failed: made again, this one let go */
		if (kind->fds[made] >= 0) {
			__atomic_fetch_sub(&c->chunks.bytes, self_map_memlock(kind->fds[made]),
					   __ATOMIC_RELAXED);
			close(kind->fds[made]);
		}
		kind->fds[made] = bpf_map_create(BPF_MAP_TYPE_ARRAY, kind->name, sizeof(__u32),
						 (__u32)kind->value_size,
						 1U << c->chunks.shift, &opts);
		if (kind->fds[made] < 0) {
			err = -errno;
			break;
		}
	}
	if (!err)
		err = chunks_put(kind, from, to - from);
	for (unsigned int i = from; i < made; i++) {
		if (!err) {
			__atomic_fetch_add(&c->chunks.bytes, self_map_memlock(kind->fds[i]),
					   __ATOMIC_RELAXED);
			continue;
		}
		close(kind->fds[i]);
		kind->fds[i] = -1;
	}
	return err;
}

/*
 * Chunks up to `to` of every kind. A kind whose chunks were put in place
 * stays so when a later kind fails: the next round makes them again
 * (the array of maps then lets the old ones go).
 */
static int grow_to(struct collector *c, unsigned int to)
{
	struct chunk_kind kinds[2];
	int n = kinds_of(c, kinds), err = 0;

	if (to > c->chunks.max)
		to = c->chunks.max;
	for (int i = 0; i < n && !err && to > c->chunks.made; i++)
		err = kind_grow(c, &kinds[i], c->chunks.made, to);
	/* the descriptors first, then the count that lets readers use them */
	if (!err && to > c->chunks.made)
		__atomic_store_n(&c->chunks.made, to, __ATOMIC_RELEASE);
	return err;
}

/* Chunks made ahead of the slots in use, as needed; the grow bell reset. */
static int grow(struct collector *c)
{
	struct slot_chunks *k = &c->chunks;
	unsigned int used = collector_entries_peak(c), want, made, ahead;
	int err = 0;

	want = slots_wanted(c, used);
	made = k->made << k->shift;
	if (made < want && (made <= used || made - used < (want - used) * 3 / 4))
		err = grow_to(c, (want + (1U << k->shift) - 1) >> k->shift);
	made = k->made << k->shift < c->max_slots ? k->made << k->shift : c->max_slots;
	ahead = made > used ? made - used : 0;
	/* BPF hands out numbers below this only: their chunks are all there */
	c->skel->bss->slots_made = made;
	/* ... and rings when a quarter of what is ahead is used */
	c->skel->bss->grow_at = ahead * 3 / 4;
	if (!err)
		c->skel->bss->grow_rung = 0;
	return err;
}

static unsigned long cgroups_seen;

static int count_dir(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)ftw;
	cgroups_seen += type == FTW_D;
	return 0;
}

/*
 * Whether a hierarchy's cgroups flush rstat: v2's, and v1's with memory
 * or blkio (the others keep their own statistics).
 */
static bool flushes_rstat(const struct cg_hier *h)
{
	return h->mounted && (!h->id || strstr(h->name, "memory") || strstr(h->name, "blkio"));
}

/*
 * The cgroups on the host when rstatlat starts: the entries an agent's
 * first round of reads (one per container, all at once) will ask for, so
 * their chunks are made before it comes, not 100 ms after.
 */
static unsigned int host_cgroups(const struct cg_table *t)
{
	cgroups_seen = 0;
	for (int i = 0; t && i < t->n; i++)
		if (flushes_rstat(&t->h[i]))
			nftw(t->h[i].mount, count_dir, 16, FTW_PHYS | FTW_MOUNT);
	return cgroups_seen > UINT32_MAX ? UINT32_MAX : (unsigned int)cgroups_seen;
}

/*
 * The shape of an array of maps' chunks, 1 << shift records of value_size:
 * given as a map of that shape (kept by libbpf), as libbpf sizes no inner map.
 */
static int chunk_template(struct bpf_map *outer, size_t value_size, unsigned int shift)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rsl_chunk", sizeof(__u32), (__u32)value_size,
				1U << shift, &opts);

	return fd < 0 ? -1 : bpf_map__set_inner_map_fd(outer, fd);
}

int chunks_shape(struct rstatlat_bpf *skel)
{
	unsigned int shift = skel->rodata->chunk_shift;

	return chunk_template(skel->maps.slot_recs, sizeof(struct slot_rec), shift) ||
	       chunk_template(skel->maps.slot_irqoff, sizeof(struct dist_rec), shift) ? -1 : 0;
}

int chunks_init(struct collector *c)
{
	struct slot_chunks *k = &c->chunks;
	unsigned int want, n;
	int err;

	k->shift = c->skel->rodata->chunk_shift;
	n = (c->max_slots + (1U << k->shift) - 1) >> k->shift;
	k->rec = malloc(n * sizeof(*k->rec));
	k->irq = malloc(n * sizeof(*k->irq));
	if (!k->rec || !k->irq)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		k->rec[i] = k->irq[i] = -1;
	k->max = n;	/* what chunks_free closes: only once every descriptor is -1 or one */
	want = host_cgroups(c->cg);
	want = slots_wanted(c, want < c->max_slots ? want : c->max_slots);
	err = grow_to(c, (want + (1U << k->shift) - 1) >> k->shift);
	return err ? err : grow(c);
}

/* The grow bell's record says nothing: being woken is the message. */
static int bell_rung(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

/*
 * The grower: makes chunks when BPF rings (a quarter of the slots ahead
 * used), and looks every 100 ms. What it cannot make now (no memory) it
 * tries again then; the new cgroups' events meanwhile are counted.
 */
static void *grower(void *arg)
{
	struct collector *c = arg;
	struct slot_chunks *k = &c->chunks;

	while (!__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE)) {
		ring_buffer__poll(k->bell, 100);
		grow(c);
	}
	return NULL;
}

int collector_grower_start(struct collector *c)
{
	struct slot_chunks *k = &c->chunks;
	sigset_t all, old;
	int err;

	k->bell = ring_buffer__new(bpf_map__fd(c->skel->maps.grow_bell), bell_rung, NULL, NULL);
	if (!k->bell)
		return -1;
	/* signals are the main thread's: its loop sees them at once */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&k->thread, NULL, grower, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		errno = err;
		return -1;
	}
	k->running = true;
	return 0;
}

void chunks_free(struct collector *c)
{
	struct slot_chunks *k = &c->chunks;

	if (k->running) {
		__atomic_store_n(&k->stop, true, __ATOMIC_RELEASE);
		pthread_join(k->thread, NULL);
	}
	ring_buffer__free(k->bell);
	for (unsigned int i = 0; k->rec && i < k->max; i++) {
		if (k->rec[i] >= 0)
			close(k->rec[i]);
		if (k->irq[i] >= 0)
			close(k->irq[i]);
	}
	free(k->rec);
	free(k->irq);
	memset(k, 0, sizeof(*k));
}

/* The descriptor of slot's chunk in fds and its index there, or -1 before it is made. */
static int chunk_of(const struct slot_chunks *k, const int *fds, unsigned int slot, __u32 *i)
{
	unsigned int chunk = slot >> k->shift;

	*i = slot & ((1U << k->shift) - 1);
	return chunk < __atomic_load_n(&k->made, __ATOMIC_ACQUIRE) ? fds[chunk] : -1;
}

/* Slot's record of the chunks in fds into out. */
static int chunk_read(const struct slot_chunks *k, const int *fds, unsigned int slot, void *out)
{
	__u32 i;
	int fd = chunk_of(k, fds, slot, &i);

	if (fd < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(fd, &i, out) ? -errno : 0;
}

int chunk_rec_read(const struct collector *c, unsigned int slot, struct slot_rec *out)
{
	return chunk_read(&c->chunks, c->chunks.rec, slot, out);
}

int chunk_irqoff_read(const struct collector *c, unsigned int slot, struct dist_rec *out)
{
	return chunk_read(&c->chunks, c->chunks.irq, slot, out);
}

int chunk_clear(const struct collector *c, unsigned int slot)
{
	static const struct slot_rec empty_rec;
	static const struct dist_rec empty_irq;
	int fd, irq;
	__u32 i;

	fd = chunk_of(&c->chunks, c->chunks.rec, slot, &i);
	irq = chunk_of(&c->chunks, c->chunks.irq, slot, &i);
	if (fd < 0 || (c->src.irqoff_trace && irq < 0))
		return -ENOENT;
	if (bpf_map_update_elem(fd, &i, &empty_rec, BPF_ANY) ||
	    (irq >= 0 && bpf_map_update_elem(irq, &i, &empty_irq, BPF_ANY)))
		return -errno;
	return 0;
}

uint64_t collector_chunk_bytes(const struct collector *c)
{
	return __atomic_load_n(&c->chunks.bytes, __ATOMIC_RELAXED);
}

uint64_t collector_chunk_bytes_ceiling(const struct collector *c)
{
	const struct slot_chunks *k = &c->chunks;
	unsigned int made = __atomic_load_n(&k->made, __ATOMIC_ACQUIRE);

	return made ? collector_chunk_bytes(c) / made * k->max : 0;
}

bool collector_can_grow(const struct collector *c)
{
	return __atomic_load_n(&c->chunks.made, __ATOMIC_ACQUIRE) < c->chunks.max;
}
