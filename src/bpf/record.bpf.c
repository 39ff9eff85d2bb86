// SPDX-License-Identifier: GPL-2.0
/*
 * Slots made (with their cgroup's path), stages evicted into their homes,
 * and cgroups seen removed: the work of record.bpf.h that is not inlined.
 */
#include "record.bpf.h"

/* record.bpf.h, lowest_bit(): a de Bruijn sequence's positions */
const __u8 debruijn32[32] = {
	0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
	31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9,
};

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(kn->__parent))
		return BPF_CORE_READ(kn, __parent);
	return BPF_CORE_READ((struct kernfs_node___pre615 *)kn, parent);
}

/*
 * One component at names[off]: as much of it as fits, up to RSL_NAME_LEN
 * while there is room for that, then a half, then a quarter (each read a
 * constant size at an offset the verifier sees bounded). Its length with
 * the NUL; *cut: it did not fit whole; 0: no room left.
 */
static __always_inline long capture_name(struct slot_meta *meta, __u32 off, const char *name,
					 bool *cut)
{
	long len, size;

	if (off <= RSL_NAMES_LEN - RSL_NAME_LEN) {
		size = RSL_NAME_LEN;
		len = bpf_probe_read_kernel_str(&meta->names[off], RSL_NAME_LEN, name);
	} else if (off <= RSL_NAMES_LEN - RSL_NAME_LEN / 2) {
		size = RSL_NAME_LEN / 2;
		len = bpf_probe_read_kernel_str(&meta->names[off], RSL_NAME_LEN / 2, name);
	} else if (off <= RSL_NAMES_LEN - RSL_NAME_LEN / 4) {
		size = RSL_NAME_LEN / 4;
		len = bpf_probe_read_kernel_str(&meta->names[off], RSL_NAME_LEN / 4, name);
	} else {
		return 0;
	}
	*cut = len >= size;
	return len;
}

/*
 * Copy the cgroup's path, leaf first, so that a cgroup removed before
 * userspace looks at it still has a name. Components are packed: each
 * takes its length, so a typical container path fits in RSL_NAMES_LEN,
 * its leaf (the container's id) first and whole.
 * Global, so verified once (dist_evict says why); the node comes as a
 * number and is read through probe reads.
 */
__noinline int capture_path(struct slot_meta *meta, __u64 node)
{
	struct kernfs_node *kn = (struct kernfs_node *)node, *parent;
	__u32 off = 0, depth = 0;
	bool cut = false;
	long len;

	if (!meta)
		return 0;
	for (int i = 0; i < RSL_MAX_DEPTH; i++) {
		parent = kn_parent(kn);
		if (!parent)
			break;
		len = capture_name(meta, off, BPF_CORE_READ(kn, name), &cut);
		if (len <= 0) {
			meta->truncated = 1;
			break;
		}
		if (cut)
			meta->truncated = 1;
		off += len;
		depth++;
		kn = parent;
	}
	if (kn && kn_parent(kn))
		meta->truncated = 1;
	meta->depth = depth;
	return 0;
}

/* The start of the current process, to tell it from a later one with its pid. */
static __always_inline __u64 process_start(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return BPF_CORE_READ(task, group_leader, start_boottime);
}

/*
 * A quarter of the made slots ahead are used (grow_at): userspace is woken to
 * make more at once (collect_chunks.c), rather than at its next look.
 * Rung once until it has made them (grow_rung).
 */
static __always_inline void ring_grow_bell(void)
{
	__u32 left = slots_made - next_slot;

	if (!grow_rung && !__sync_val_compare_and_swap(&grow_rung, 0, 1))
		bpf_ringbuf_output(&grow_bell, &left, sizeof(left), BPF_RB_FORCE_WAKEUP);
}

__noinline __hidden int create_slot(struct cgroup *cgrp, struct slot_key *key)
{
	struct slot_meta *meta;
	struct slot_rec *rec;
	__u32 *existing;
	__u32 n;

	/* a recycled slot first, else a fresh number */
	if (bpf_map_pop_elem(&free_slots, &n)) {
		/*
		 * Look before taking a number: once full, every event of an
		 * unknown cgroup comes here, and an unchecked counter would
		 * wrap around and hand out live slots again.
		 */
		if (next_slot >= max_slots) {
			count_lost(LOST_ENTRIES_FULL);
			return -1;
		}
		if (next_slot >= slots_made) {
			ring_grow_bell();
			count_lost(LOST_ENTRIES_GROWING);
			return -1;
		}
		n = __sync_fetch_and_add(&next_slot, 1);
		if (n >= max_slots) {
			count_lost(LOST_ENTRIES_FULL);
			return -1;
		}
		if (slots_made - n <= grow_at)
			ring_grow_bell();
	}
	rec = chunk_elem(&slot_recs, n);
	meta = rec ? &rec->meta : NULL;
	if (!meta) {
		/* its chunk is not made yet: the number waits for it */
		bpf_map_push_elem(&free_slots, &n, 0);
		count_lost(LOST_ENTRIES_GROWING);
		return -1;
	}
	meta->key = *key;
	meta->flusher_cgid = bpf_get_current_cgroup_id();
	meta->flusher_start = key->tgid ? process_start() : 0;
	bpf_get_current_comm(meta->comm, sizeof(meta->comm));
	capture_path(meta, (__u64)BPF_CORE_READ(cgrp, kn));
	/*
	 * Whole before the insert makes it another CPU's to find: a program
	 * preempted in between (7.x) would leave its staged figures a slot
	 * userspace cannot name (lost.stage_unnamed). Nothing reads the
	 * slot until then but this program.
	 */
	meta->state = SLOT_READY;
	if (bpf_map_update_elem(&slot_ids, key, &n, BPF_NOEXIST) == 0)
		return n;
	/*
	 * Another CPU created the same key first: use its slot. This one is
	 * marked changed, so that userspace sees it and hands it back.
	 */
	meta->state = SLOT_DISCARDED;
	touch(n);
	existing = bpf_map_lookup_elem(&slot_ids, key);
	if (!existing) {
		count_lost(LOST_ENTRIES_FULL);
		return -1;
	}
	return *existing;
}

/*
 * A global function: the verifier checks it once, not at every call site
 * with the caller's state, which keeps the programs quick to load.
 */
__noinline int dist_evict(struct stage_dist *sd, struct dist_rec *h, __u32 e)
{
	__u32 used, i;

	if (!sd || !h)
		return 0;
	used = sd->used;
	/* the cells in use, lowest first: a cold flush uses one or two */
	for (int n = 0; n < STAGE_CELLS && used; n++) {
		i = lowest_bit(used);
		used &= used - 1;
		if (sd->cell[i].count)
			home_bucket(h, sd->cell[i].bucket, sd->cell[i].count);
	}
	if (sd->sum)
		home_sum(h, sd->sum, sd->max, e);
	return 0;
}

/* The stage's figures move to its slot's home: this CPU moved to another slot. */
__noinline __hidden void stage_evict(struct slot_stage *st)
{
	__u32 slot = st->slot - 1;
	struct slot_home *h = home_of(slot);

	if (!h)
		return;
	for (int k = 0; k < COUNT_SUMS; k++)
		if (st->n.count[k])
			__sync_fetch_and_add(&h->n.count[k], st->n.count[k]);
	for (int k = COUNT_SUMS; k < COUNT_MAX; k++)
		atomic_max(&h->n.count[k], st->n.count[k]);
	for (int k = 0; k < PART_MAX; k++)
		if (st->n.part[k])
			__sync_fetch_and_add(&h->n.part[k], st->n.part[k]);
	/* decisions are staged apart (decision_stage_of) */
	vote_merge(&h->n, &st->n);
	dist_evict(&st->d[DIST_HOLD], &h->d[DIST_HOLD], st->epoch);
	dist_evict(&st->d[DIST_WAIT], &h->d[DIST_WAIT], st->epoch);
	dist_evict(&st->d[DIST_FLUSH], &h->d[DIST_FLUSH], st->epoch);
}

/*
 * This CPU's stage for the slot in the current epoch. A stage of an older
 * epoch was read by userspace when that epoch closed: it is reset, not
 * evicted. A stage of another slot in this epoch goes home first.
 *
 * Five stages keep this rule, each with the body its contents need: the
 * slot's (here), the irqs-off slot stage (irqoff_record) and the memcg
 * decisions' (decision_stage_of), which make way for another slot by
 * evicting to their homes, and the system-wide ones (sys_stage_of,
 * cpu_lock_stage_of), which have no other slot and are only reset.
 * Userspace's side of the rule is fold.c's stage_slot().
 */
__noinline __hidden void stage_claim(struct slot_stage *st, __u32 e, __u32 slot)
{
	if (st->epoch == e && st->slot && !(bench_cut & BENCH_CUT_EVICT))
		stage_evict(st);
	__builtin_memset(&st->n, 0, sizeof(st->n));
	for (int k = 0; k < SLOT_HOME_DISTS; k++)
		dist_reset(&st->d[k]);
	st->epoch = e;
	st->slot = slot + 1;
}

/* A value whose cell another bucket holds goes to the slot's home. */
__noinline __hidden void spill(__u32 slot, __u32 k, __u32 b)
{
	struct slot_home *h = home_of(slot);

	if (h && k < SLOT_HOME_DISTS)
		home_bucket(&h->d[k], b, 1);
}

/* ---- removed cgroups ---- */

/* Every removal, tracked or not: they are rare, and a lookup would cost more. */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cgroup_removed, struct cgroup *cgrp, const char *path)
{
	struct cgroup_gone g = { 0 };
	__u16 hierarchy;

	(void)ctx;
	(void)path;
	cgroup_ident(cgrp, true, &g.cgid, &hierarchy);
	g.hierarchy = hierarchy;
	if (bpf_map_push_elem(&cgroups_gone, &g, 0))
		cgroups_gone_missed = 1;
	return 0;
}
