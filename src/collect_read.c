// SPDX-License-Identifier: GPL-2.0
/*
 * A read's first phase (collect_int.h, one read): the epoch closed, every
 * CPU's stage of it and the homes that changed since the last read found,
 * and then, a batch at a time, the records of the slots they name read.
 * It reads the maps and changes no figure.
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

/*
 * The read begins: BPF records into the other parity from here on, and
 * once no program can still write the closed epoch, its stages are read
 * and the slots whose homes changed are listed.
 */
int read_open(struct collector *c, struct read_batch *b)
{
	int err;

	memset(b, 0, sizeof(*b));
	b->epoch = c->skel->bss->epoch;
	b->nslots = collector_entries_peak(c); /* every slot handed out so far */
	c->skel->bss->epoch = b->epoch + 1;
	grace_period(c);
	c->reads++;
	err = read_stages(c, b->epoch, &b->nrefs);
	b->ndirty = err ? 0 : dirty_homes(c, b->epoch, b->nslots);
	return err;
}

/*
 * A slot's record: its metadata, for a slot not described yet, and its
 * home, where it changed. A new slot whose chunk is not made yet is read
 * again at a later read; a home that cannot be read ends the read.
 */
static int read_slot_rec(struct collector *c, struct read_slot *rs, size_t i)
{
	const struct slot *s = &c->slots[rs->slot];
	struct slot_rec *rec = &c->batch_rec[i];
	int err;

	if (s->state != SLOT_EMPTY) {
		/* a described slot: its home, where it changed and the slot is named */
		rs->home = rs->home && s->state == SLOT_READY && s->cg;
		if (!rs->home)
			return 0;
		err = chunk_rec_read(c, rs->slot, rec);
		if (err)
			return err;
	} else {
		/* a new slot's metadata: before its chunk is made, a later read's */
		if (chunk_rec_read(c, rs->slot, rec)) {
			rs->home = false;
			return 0;
		}
		rs->ready = rec->meta.state == SLOT_READY;
		rs->home = rs->home && rs->ready;
	}
	rs->rec = true;
	if (rs->home && c->src.irqoff_trace)
		return chunk_irqoff_read(c, rs->slot, &c->batch_irq[i]);
	return 0;
}

/*
 * The next batch: up to READ_BATCH slots, ascending, each with its stages
 * and its record. Returns how many (0: the read is through), or -errno.
 */
int read_batch(struct collector *c, struct read_batch *b)
{
	int err = 0;

	b->n = 0;
	while (!err && b->n < READ_BATCH && (b->r < b->nrefs || b->d < b->ndirty)) {
		struct read_slot *rs = &b->s[b->n];
		bool by_ref = b->r < b->nrefs &&
			      (b->d >= b->ndirty || c->refs[b->r].slot <= c->dirty[b->d]);

		memset(rs, 0, sizeof(*rs));
		rs->slot = by_ref ? c->refs[b->r].slot : c->dirty[b->d];
		rs->ref = (uint32_t)b->r;
		while (b->r < b->nrefs && c->refs[b->r].slot == rs->slot)
			b->r++;
		rs->nrefs = (uint32_t)(b->r - rs->ref);
		rs->home = b->d < b->ndirty && c->dirty[b->d] == rs->slot;
		b->d += rs->home;
		rs->ready = c->slots[rs->slot].state == SLOT_READY;
		err = read_slot_rec(c, rs, b->n);
		b->n++;
	}
	return err ? err : (int)b->n;
}
