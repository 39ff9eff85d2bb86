/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a figure goes: its slot (a cgroup, x process with -p), found by
 * the slot index or made; the slot's home, shared by all CPUs and added to
 * atomically; this CPU's stage, plain, evicted into the home
 * (rstatlat.h); and slow events (-t), records in the ring buffer.
 */
#ifndef RECORD_BPF_H
#define RECORD_BPF_H

#include "rstatlat.bpf.h"

/* ---- slots: a cgroup (x process with -p) and its number ---- */

/* Slot slot's record in a chunked map (rstatlat.h): NULL before its chunk is made. */
static __always_inline void *chunk_elem(void *chunks, __u32 slot)
{
	__u32 chunk = slot >> chunk_shift, i = slot & ((1U << chunk_shift) - 1);
	void *m = bpf_map_lookup_elem(chunks, &chunk);

	return m ? bpf_map_lookup_elem(m, &i) : NULL;
}

/* Before 6.15 kernfs_node's parent pointer was called "parent". */
struct kernfs_node___pre615 {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

static __always_inline void count_lost_n(__u32 kind, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &kind);

	if (v)
		*v += n;
}

static __always_inline void count_lost(__u32 kind)
{
	count_lost_n(kind, 1);
}

/* Marks a slot's home as changed in this epoch. */
static __always_inline void touch(__u32 slot)
{
	__u64 *seen = bpf_map_lookup_elem(&slot_seen, &slot);
	__u64 e = epoch;

	if (seen && *seen != e)
		*seen = e;
}

/*
 * tp_btf and fentry see a typed cgroup pointer and read through it
 * directly; kprobes get a plain address and go through probe reads.
 */
static __always_inline void cgroup_ident(struct cgroup *cgrp, bool typed, __u64 *cgid,
					 __u16 *hierarchy)
{
	if (typed) {
		*cgid = cgrp->kn->id;
		*hierarchy = cgrp->root->hierarchy_id;
	} else {
		*cgid = BPF_CORE_READ(cgrp, kn, id);
		*hierarchy = BPF_CORE_READ(cgrp, root, hierarchy_id);
	}
}

/* Unique to each cgroup made since boot: tells a new cgroup at a freed one's address. */
static __always_inline __u64 cgroup_serial(struct cgroup *cgrp, bool typed)
{
	return typed ? cgrp->self.serial_nr : BPF_CORE_READ(cgrp, self.serial_nr);
}

/*
 * The slot index's entry for a key, and the slot it names when it is
 * whole and of this cache generation (gen): -1 otherwise.
 */
static __always_inline int slot_indexed(__u64 serial, __u64 who, __u32 gen,
					struct slot_index_entry **entry)
{
	__u32 i = slot_index_of(serial, who);
	struct slot_index_entry *x = bpf_map_lookup_elem(&slot_index, &i);
	__u64 sg;

	*entry = x;
	if (!x || x->serial != serial || x->who != who)
		return -1;
	sg = x->slot_gen;
	if ((__u32)sg != gen || x->check != slot_index_check(serial, who, sg))
		return -1;
	return (int)(sg >> 32);
}

static __always_inline void slot_index_fill(struct slot_index_entry *x, __u64 serial, __u64 who,
					    __u32 slot, __u32 gen)
{
	__u64 sg = (__u64)slot << 32 | gen;

	x->serial = serial;
	x->who = who;
	x->slot_gen = sg;
	x->check = slot_index_check(serial, who, sg);
}

/*
 * The slot of the cgroup under a lock (and process, -p). The per-CPU cache
 * knows the cgroup by its pointer and serial number, one load from the
 * cgroup the kernel is flushing; the slot index by its serial number; its
 * kernfs id and hierarchy, which key the slot map, are read only when
 * both miss, which sets *rare (when given). Each path that may be
 * switched out midway keeps a cache of its own.
 */
static __always_inline int resolve_slot(struct slot_cache *c, __u8 *rare, struct cgroup *cgrp,
					bool typed, __u32 tgid, __u16 lock, __u64 type, bool create)
{
	/*
	 * One read of the generation for the check and the fill: a fill under
	 * a generation read after a retirement could name its slot.
	 */
	__u32 gen = cache_gen + 1, *slot;
	__u64 serial = cgroup_serial(cgrp, typed), who = (__u64)tgid << 16 | lock;
	struct slot_index_entry *x = NULL;
	struct slot_key key = {};
	int n;

	/* the lock type only where a kernel passes one: its compare is past the first line */
	if (c->valid == gen && c->cgrp == (__u64)cgrp && c->serial == serial && c->tgid == tgid &&
	    c->lock == lock && (arg_type < 0 || c->type == type))
		return c->slot;
	if ((bench_cut & BENCH_CUT_SLOTS) && c->valid == gen)
		return c->slot;
	/* typed lock holds (none in a released kernel) keep to the slot map */
	n = type ? -1 : (bench_cut & BENCH_CUT_INDEX) ? (int)(serial & 63) :
	    slot_indexed(serial, who, gen, &x);
	if (n >= 0)
		goto cached;
	cgroup_ident(cgrp, typed, &key.cgid, &key.hierarchy);
	key.tgid = tgid;
	key.lock = lock;
	__builtin_memcpy(key.lock_type, &type, sizeof(key.lock_type));
	slot = bpf_map_lookup_elem(&slot_ids, &key);
	if (!slot && create && rare)
		*rare = 1;
	n = slot ? (int)*slot : create ? create_slot(cgrp, &key) : -1;
	if (n < 0)
		return n;
	/* a slot just made goes in on its next hit: it may have lost the race to make it */
	if (slot && x && !type)
		slot_index_fill(x, serial, who, n, gen);
cached:
	c->cgrp = (__u64)cgrp;
	c->serial = serial;
	c->tgid = tgid;
	c->lock = lock;
	c->type = type;
	c->slot = n;
	c->valid = gen;
	return n;
}

/* ---- the home: shared by all CPUs, atomic ---- */

static __always_inline void atomic_max(__u64 *p, __u64 v)
{
	__u64 old = *p, seen;

	for (int i = 0; i < 8 && v > old; i++) {
		seen = __sync_val_compare_and_swap(p, old, v);
		if (seen == old)
			break;
		old = seen;
	}
}

/* Raises the epoch's maximum, or starts it when the record is of an older epoch. */
static __always_inline void atomic_imax(__u64 *p, __u32 e, __u64 v)
{
	__u64 want = IMAX_TAG(e) | (v > IMAX_VALUE_MASK ? IMAX_VALUE_MASK : v);
	__u64 old = *p, seen;

	for (int i = 0; i < 8; i++) {
		if ((old & ~IMAX_VALUE_MASK) == IMAX_TAG(e) && (old & IMAX_VALUE_MASK) >= v)
			break;
		seen = __sync_val_compare_and_swap(p, old, want);
		if (seen == old)
			break;
		old = seen;
	}
}

static __always_inline void home_bucket(struct dist_rec *h, __u32 b, __u32 n)
{
	if (b < HIST_BUCKETS)
		__sync_fetch_and_add(&h->hist[b], n);
}

/* A sum and its largest value of epoch e into a home. */
static __always_inline void home_sum(struct dist_rec *h, __u64 sum, __u64 max, __u32 e)
{
	__sync_fetch_and_add(&h->sum, sum);
	atomic_max(&h->max, max);
	atomic_imax(&h->imax[e & 1], e, max);
}

/* One value straight into a home (figures recorded outside any stage). */
static __always_inline void home_record(struct dist_rec *h, __u64 v)
{
	home_bucket(h, hist_bucket(v), 1);
	home_sum(h, v, v, (__u32)epoch);
}

static __always_inline struct slot_home *home_of(__u32 slot)
{
	struct slot_rec *r = chunk_elem(&slot_recs, slot);

	if (!r)
		return NULL;
	touch(slot);
	return &r->home;
}

/* A slot's irqs-off home, only with --irqoff trace (chunks are made then). */
static __always_inline struct dist_rec *irqoff_home_of(__u32 slot)
{
	return irqoff_trace ? chunk_elem(&slot_irqoff, slot) : NULL;
}

/*
 * The index of x's lowest set bit (x != 0): de Bruijn, as BPF has no ctz
 * (its table in record.bpf.c).
 */
static __always_inline __u32 lowest_bit(__u32 x)
{
	return debruijn32[((x & -x) * 0x077CB531U) >> 27] & (STAGE_CELLS - 1);
}

/* One vote per flush (rstatlat.h, VOTE_MERGE): the top flusher of the slot. */
static __always_inline void vote(struct slot_counts *n, __u32 tgid)
{
	if (VOTE_MERGE(n->top_tgid, n->top_votes, tgid, 1U))
		bpf_get_current_comm(n->top_comm, sizeof(n->top_comm));
}

/*
 * The home's vote takes the stage's: a plain, racy merge. The top flusher
 * is a hint (exact per process with -p), never a count.
 */
static __always_inline void vote_merge(struct slot_counts *into, const struct slot_counts *from)
{
	if (from->top_votes &&
	    VOTE_MERGE(into->top_tgid, into->top_votes, from->top_tgid, from->top_votes))
		__builtin_memcpy(into->top_comm, from->top_comm, RSL_COMM_LEN);
}

/* ---- the stage: this CPU's, plain ---- */

/* Empties a staged distribution: its cells need no clearing (rstatlat.h, used). */
static __always_inline void dist_reset(struct stage_dist *sd)
{
	sd->sum = 0;
	sd->max = 0;
	sd->used = 0;	/* every cell empty, whatever it holds (rstatlat.h) */
}

/* This CPU's stage for the slot (stage_claim's rule); *fresh: it was taken now. */
static __always_inline struct slot_stage *stage_taken(struct lock_state *lc, __u32 slot,
						      bool *fresh)
{
	__u32 e = (__u32)epoch;
	struct slot_stage *st = &lc->stage[e & 1];

	*fresh = st->epoch != e || st->slot != slot + 1;
	if (*fresh)
		stage_claim(st, e, slot);
	return st;
}

static __always_inline struct slot_stage *stage_of(struct lock_state *lc, __u32 slot)
{
	bool fresh;

	return stage_taken(lc, slot, &fresh);
}

/*
 * Counts v in its bucket's cell. Returns false when the cell holds another
 * bucket: the caller spills v's bucket to the home.
 */
static __always_inline bool stage_value(struct stage_dist *sd, __u32 b, __u64 v)
{
	__u32 i = b & (STAGE_CELLS - 1);
	struct stage_cell *c = &sd->cell[i];

	sd->sum += v;
	if (v > sd->max)
		sd->max = v;
	if (!(sd->used & (1U << i))) {
		sd->used |= 1U << i;
		c->bucket = b;
		c->count = 1;
		return true;
	}
	if (c->bucket != b)
		return false;
	c->count++;
	return true;
}

/* Records v in distribution k (hold, wait, flush) of the slot staged on this CPU. */
static __always_inline void record(struct slot_stage *st, enum dist_id k, __u64 v)
{
	__u32 b = hist_bucket(v);

	if (k < SLOT_HOME_DISTS && !stage_value(&st->d[k], b, v))
		spill(st->slot - 1, k, b);
}

/* A system-wide distribution: this CPU's stage of the current epoch. */
static __always_inline struct sys_stage *sys_stage_of(struct sys_stage stage[2])
{
	__u32 e = (__u32)epoch;
	struct sys_stage *st = &stage[e & 1];

	if (st->epoch != e) {
		st->events = 0;
		dist_reset(&st->d);
		st->epoch = e;
	}
	return st;
}

/* Records v in a staged system-wide distribution; a spill goes to its home. */
static __always_inline void sys_record(struct stage_dist *sd, enum sys_dist home, __u64 v)
{
	__u32 b = hist_bucket(v), zero = 0;
	struct sys_home *h;

	if (stage_value(sd, b, v))
		return;
	h = bpf_map_lookup_elem(&sys_home, &zero);
	if (h && home < SYS_MAX)
		home_bucket(&h->d[home], b, 1);
}

/* ---- slow events ---- */

/*
 * A slow event: reserved and filled with what every kind has. The caller
 * adds its own fields, then slow_submit() takes the stack and sends it.
 */
static __always_inline struct slow_event *slow_begin(__u32 kind, __u64 now, __u64 duration,
							__u32 slot, int lock_cpu)
{
	struct slow_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	struct slot_meta *meta;
	struct slot_rec *rec;
	__u64 id = bpf_get_current_pid_tgid();

	if (!e) {
		count_lost(LOST_RINGBUF_FULL);
		return NULL;
	}
	__builtin_memset(e, 0, offsetof(struct slow_event, stack));
	rec = chunk_elem(&slot_recs, slot);
	meta = rec ? &rec->meta : NULL;
	e->ts = now;
	e->duration_ns = duration;
	e->cgid = meta ? meta->key.cgid : 0;
	e->hierarchy = meta ? meta->key.hierarchy : 0;
	e->kind = kind;
	e->lock_cpu = lock_cpu;
	e->cpu = bpf_get_smp_processor_id();
	e->pid = (__u32)id;
	e->tgid = id >> 32;
	e->slot = slot;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/*
 * Userspace is woken only once the ring is half full: it polls every 100 ms
 * at most anyway, and a wake-up per event would be an interrupt per slow
 * hold, between a flush's holds, of rstatlat's making.
 */
static __always_inline void slow_submit(void *ctx, struct slow_event *e)
{
	__u64 wake;

	e->stack_bytes = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	if (e->stack_bytes < 0)
		count_lost(LOST_STACK);
	wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) * 2 >=
	       bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	bpf_ringbuf_submit(e, wake ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline void slow_emit(void *ctx, __u32 kind, __u64 now, __u64 duration,
				   __u32 slot, int lock_cpu, bool contended)
{
	struct slow_event *e = slow_begin(kind, now, duration, slot, lock_cpu);

	if (!e)
		return;
	e->contended = contended;
	slow_submit(ctx, e);
}

#endif /* RECORD_BPF_H */
