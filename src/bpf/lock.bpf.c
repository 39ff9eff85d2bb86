// SPDX-License-Identifier: GPL-2.0
/*
 * The rstat lock's tracepoints (6.10+): each hold and wait, each flush
 * (its holds, its parts, its cause), kept per CPU while the lock is held
 * and followed by task when a flush moves.
 */
#include "lock.bpf.h"

/* What a comm's first spill inserts: too large for the stack. */
const struct flusher_rec flusher_zero = {};


/*
 * The unlock program's count down to its next timed run (rstatlat.h,
 * OWN_SPREAD), one count for holds that took a new stage (fresh) and one
 * for the others: at 0 it times itself, has the next locked time itself,
 * and draws the next count. A run that did rare work (a stack taken, a
 * slot made, a flush that moved) is timed as itself, outside the counts:
 * tens of microseconds counted OWN_SAMPLE times would swamp the estimate.
 */
static __always_inline void own_unlock(struct lock_state *lc, __u64 now, bool fresh)
{
	__u8 left, next;

	if (lc->self_rare) {
		lc->own_ns += own_took(now, 1);
		return;
	}
	left = fresh ? lc->own_left_fresh : lc->own_left & ~OWN_LOCKED;
	if (left > 1) {
		if (fresh)
			lc->own_left_fresh = left - 1;
		else
			lc->own_left = (lc->own_left & OWN_LOCKED) | (left - 1);
		return;
	}
	/*
	 * 0: this kind's first run on this CPU since load, which only draws the
	 * first count: timing it (the coldest run there is, counted OWN_SAMPLE
	 * times) read a cold load 4% high.
	 */
	if (left)
		lc->own_ns += own_took(now, OWN_SAMPLE);
	next = OWN_SAMPLE - OWN_SPREAD + lc_random(lc) % (2 * OWN_SPREAD + 1);
	if (fresh) {
		lc->own_left_fresh = next;
		lc->own_left |= left ? OWN_LOCKED : 0;
	} else {
		lc->own_left = (left ? OWN_LOCKED : 0) | next;
	}
}

/* One run in OWN_SAMPLE adds its time to *own; returns whether it was drawn. */
static __always_inline bool own_time(__u64 *state, __u64 *own, __u64 now)
{
	if (next_random(state) & (OWN_SAMPLE - 1))
		return false;
	*own += own_took(now, OWN_SAMPLE);
	return true;
}

/*
 * A sampled flush's wall time under its stack, in the slot's home: the
 * way that has the stack, else the first free one (claimed by a
 * compare-and-swap, as other CPUs may claim at once), else CAUSE_MORE.
 */
static __noinline void cause_record(__u32 slot, __u64 key, __u32 weight, __u64 wall)
{
	struct slot_home *h = home_of(slot);
	struct cause_way *w = NULL;

	if (!h)
		return;
	for (int i = 0; i < CAUSE_WAYS; i++) {
		__u64 have = h->cause[i].key;

		if (!have)
			have = __sync_val_compare_and_swap(&h->cause[i].key, 0, key);
		if (!have || have == key) {
			w = &h->cause[i];
			break;
		}
	}
	if (!w) {
		w = &h->cause[CAUSE_WAYS];
		if (w->key != CAUSE_MORE)
			w->key = CAUSE_MORE;
	}
	__sync_fetch_and_add(&w->samples, 1);
	__sync_fetch_and_add(&w->weight, weight);
	__sync_fetch_and_add(&w->weight_ns, wall * weight);
}

/*
 * This CPU's stack budget (rstatlat.h, causes): a new window, sampled as
 * sparsely as the last one's flushes need to stay within it. A window
 * whose stacks came twice as fast as allowed ends there, its counts taken
 * at the rate they came.
 */
static __noinline void cause_budget(struct lock_state *lc, __u64 now)
{
	__u64 took = now - lc->cause_window, flushes = lc->cause_flushes;
	__u64 holds = lc->cause_holds, allowed;
	__u32 k = cause_sample;

	if (took < CAUSE_WINDOW_NS) {
		took = took ? took : 1;
		flushes = flushes * CAUSE_WINDOW_NS / took;
		holds = holds * CAUSE_WINDOW_NS / took;
	}
	allowed = holds / CAUSE_HOLDS_PER_STACK;
	allowed = allowed < 1 ? 1 : allowed > CAUSE_STACKS_PER_S ? CAUSE_STACKS_PER_S : allowed;
	for (int i = 0; i < 20 && k < flushes / allowed && k < CAUSE_K_MAX; i++)
		k *= 2;
	lc->cause_k = k;
	lc->cause_allowed = allowed;
	lc->cause_window = now;
	lc->cause_taken = lc->cause_flushes = lc->cause_holds = 0;
}

/*
 * A draw of one in k. k is a power of two at the defaults (cause_sample
 * 64, doubled by cause_budget): a mask then, not a division.
 */
static __always_inline bool one_in(struct lock_state *lc, __u32 k)
{
	__u32 r = lc_random(lc);

	return k & (k - 1) ? r % k == 0 : (r & (k - 1)) == 0;
}

/*
 * Whether the flush that just ended takes the stack that says who asked
 * for it, and the flushes it then stands for (0: none). Each flush on its
 * own, at random, one in cause_k: every K-th flush of a CPU would always
 * fall on the same one of readers taking turns. A long flush always does
 * (while the budget lasts): the long ones are those worth explaining.
 * Taken at the flush's end, after its clock read: the unwinding
 * (microseconds) would otherwise count in its own wall time.
 */
static __always_inline __u32 cause_weight(struct lock_state *lc, __u64 wall, __u32 holds,
					  __u64 now)
{
	__u32 k = cause_sample;

	if (cause_sample == 1)
		return 1;
	if (cause_budgeted) {
		if (now - lc->cause_window >= CAUSE_WINDOW_NS ||
		    lc->cause_taken >= 2 * lc->cause_allowed)
			cause_budget(lc, now);
		lc->cause_flushes++;
		lc->cause_holds += holds;
		k = lc->cause_k;
	}
	if (wall >= CAUSE_ALWAYS_NS && (!cause_budgeted || lc->cause_taken < lc->cause_allowed))
		k = 1;
	else if (!k || !one_in(lc, k))
		return 0;
	lc->cause_taken++;
	return k;
}

/*
 * The key a sampled flush counts under: its stack's cause once userspace
 * has named it, else the stack's hash (FNV-1a over its frames), the stack
 * kept for userspace to name.
 */
static __noinline __u64 cause_key(void *ctx)
{
	struct cause_stack *buf, *known;
	__u64 h = FNV1A_OFFSET;
	__u32 zero = 0;
	long n;

	buf = bpf_map_lookup_elem(&stack_buf, &zero);
	if (!buf)
		return CAUSE_NO_STACK;
	n = bpf_get_stack(ctx, buf->ip, sizeof(buf->ip), 0);
	if (n <= 0) {
		count_lost(LOST_CAUSE_STACK);
		return CAUSE_NO_STACK;
	}
	for (int i = 0; i < RSL_CAUSE_FRAMES; i++) {
		if (i * (long)sizeof(__u64) >= n)
			buf->ip[i] = 0;
		h = (h ^ buf->ip[i]) * FNV1A_PRIME;
	}
	h &= ~CAUSE_KEY_ID;
	h = h ? h : 1;
	known = bpf_map_lookup_elem(&flush_stacks, &h);
	if (known)
		return known->cause ? CAUSE_KEY_ID | known->cause : h;
	buf->cause = 0;
	if (bpf_map_update_elem(&flush_stacks, &h, buf, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&flush_stacks, &h)) {
		count_lost(LOST_CAUSE_STACK);	/* the map is full */
		return CAUSE_NO_STACK;
	}
	return h;
}

/*
 * The time a task was runnable but waiting for a CPU, from the scheduler's
 * own accounting (CONFIG_SCHED_INFO, kept whatever schedstats says since
 * 5.14): what a flusher switched out between its holds (cond_resched,
 * preemption) spent off its CPU. 0 without it (the probe says so).
 */
static __always_inline __u64 run_delay_of(struct task_struct *task)
{
	if (bpf_core_field_exists(task->sched_info))
		return task->sched_info.run_delay;
	return 0;
}

/*
 * --flush-parts timed: the irq part of a flush so far: what it took on
 * CPUs it left, and how much this CPU's irq time grew since it came here.
 */
static __always_inline __u64 flush_irq(const struct lock_state *lc, const struct flush_state *fl)
{
	return fl->irq + (lc->irq_ns > fl->irq_mark ? lc->irq_ns - fl->irq_mark : 0);
}

/*
 * A hold's wait without the irq time counted already: irqs are on between
 * the contended event and the spin (a failed trylock turns them back on),
 * so with timed parts an interrupt there is in both. (A switch there, on a
 * preemptible kernel, is rare and counts in both wait and offcpu.)
 */
static __always_inline __u64 wait_alone(const struct lock_state *lc, __u64 wait)
{
	__u64 irq;

	if (parts_from != PARTS_FROM_TIMED || !wait)
		return wait;
	irq = lc->irq_ns - lc->contended_irq;
	return irq < wait ? wait - irq : 0;
}

/*
 * A flush whose task left this CPU, kept by task until it goes on. Taken
 * from fl first (its task set to 0), as the task may at this moment look
 * for it here from another CPU. A parked flush of the same task is one
 * that never went on: replaced, and counted. With timed parts, now is when
 * the task was switched out (0: it was not seen to be). Global, as
 * flush_unpark: verified once, not at each call with each caller's state
 * (which took the unlock program's load from 8 to 115 ms).
 */
__noinline int flush_park(struct lock_state *lc, struct flush_state *fl, __u64 now)
{
	struct flush_state keep;
	__u32 tid;
	long err;

	if (!lc || !fl)
		return 0;
	tid = fl->tid;
	if (!tid || __sync_val_compare_and_swap(&fl->tid, tid, 0) != tid)
		return 0;
	lc->self_rare = 1;
	__builtin_memcpy(&keep, fl, sizeof(keep));
	keep.tid = tid;
	if (parts_from == PARTS_FROM_TIMED) {
		keep.irq = flush_irq(lc, fl);
		keep.off_ts = now;
	}
	err = bpf_map_update_elem(&flush_parked, &tid, &keep, BPF_NOEXIST);
	if (err == -EEXIST) {
		count_lost(LOST_FLUSH_OPEN);
		err = bpf_map_update_elem(&flush_parked, &tid, &keep, BPF_EXIST);
		if (err)
			__sync_fetch_and_sub(&flushes_parked, 1);	/* gone meanwhile */
	} else if (!err) {
		__sync_fetch_and_add(&flushes_parked, 1);
	}
	if (err)
		count_lost(LOST_FLUSH_OPEN);	/* the map is full */
	return 0;
}

/*
 * The parked flush of task tid, into this CPU's fl, when it is the one going
 * on with a hold of cgroup cgrp and lock cpu lock_cpu (cgrp 0: the task
 * was switched in, lock_cpu -1: none is (a flush begins), and one there is
 * a flush that never went on). Returns whether it was taken. Called by
 * flush_unparked, only while a flush is parked.
 */
__noinline int flush_unpark(struct lock_state *lc, __u32 tid, __u64 cgrp, int lock_cpu)
{
	struct flush_state *p;
	bool ours;

	if (!lc)
		return false;
	p = bpf_map_lookup_elem(&flush_parked, &tid);
	if (!p)
		return false;
	ours = !cgrp || (p->cgrp == cgrp && lock_cpu > p->last_lock_cpu);
	if (ours)
		__builtin_memcpy(&lc->fl, p, sizeof(lc->fl));
	else
		count_lost(LOST_FLUSH_OPEN);
	if (!bpf_map_delete_elem(&flush_parked, &tid))
		__sync_fetch_and_sub(&flushes_parked, 1);
	return ours;
}

/* What flush_take looks for on the other CPUs. */
struct flush_search {
	__u64 cgrp;
	__u32 tid;
	__s32 lock_cpu;
	__u32 found;
};

/*
 * bpf_loop's step: the flush on CPU cpu, when it is the task's (it left
 * that CPU between holds), copied here and taken from there.
 */
static long flush_take(__u32 cpu, struct flush_search *s)
{
	struct lock_state *lc, *there;
	__u32 zero = 0;

	there = bpf_map_lookup_percpu_elem(&lock_state, &zero, cpu);
	lc = this_lock_state();
	if (!there || !lc || there == lc || there->fl.tid != s->tid ||
	    there->fl.cgrp != s->cgrp || s->lock_cpu <= there->fl.last_lock_cpu)
		return 0;
	__builtin_memcpy(&lc->fl, &there->fl, sizeof(lc->fl));
	if (__sync_val_compare_and_swap(&there->fl.tid, s->tid, 0) == s->tid)
		s->found = 1;
	return 1;
}

/*
 * A hold of a flush that began on another CPU: the task was switched out
 * between holds and goes on here. Its record is parked, or still on the
 * CPU it left (looked for on every possible CPU: a move is rare, and
 * costs a flush a microsecond or so on hundreds of CPUs).
 */
static __always_inline bool flush_find(struct lock_state *lc, __u32 tid, __u64 cgrp,
				       int lock_cpu)
{
	struct flush_search s = { .tid = tid, .cgrp = cgrp, .lock_cpu = lock_cpu };

	lc->self_rare = 1;
	if (flush_unparked(lc, tid, cgrp, lock_cpu))
		return true;
	bpf_loop(last_cpu + 1, flush_take, &s, 0);
	/* parked there meanwhile by a flush that began on it */
	return s.found || flush_unparked(lc, tid, cgrp, lock_cpu);
}

/*
 * A hold that does not go on with the flush this CPU keeps: the first hold
 * of a flush, or one of a flush that moved here. What this CPU kept goes
 * first: another task's flush was switched out and waits to go on
 * (parked); one of this task never saw its last release. A flush begins at
 * lock cpu -1 (a whole flush), or at the first possible CPU once the
 * kernel is known to lock per CPU; before that, a hold there begins a
 * flush unless it is one moving here. A later hold whose flush is not
 * found had its beginning before rstatlat was attached, or its record was
 * lost (counted): not recorded.
 */
static __noinline void flush_begin(struct lock_state *lc, struct slot_stage *st, __u64 cgrp,
				   struct task_struct *task, __u64 began)
{
	__u32 tid = task->pid;
	struct flush_state *fl = &lc->fl;
	int lock_cpu = lc->locked_lock_cpu;
	bool first = lock_cpu < 0 || (per_cpu_walks && lock_cpu == first_cpu);

	if (fl->cgrp && fl->tid == tid)
		count_lost(LOST_FLUSH_OPEN);
	else if (fl->cgrp)
		flush_park(lc, fl, 0);
	fl->cgrp = 0;
	if (!first && flush_find(lc, tid, cgrp, lock_cpu)) {
		flush_resume(lc, tid, began);
		return;
	}
	/* a parked flush of this task would never go on: not one to find later */
	if (first)
		flush_unparked(lc, tid, cgrp, -1);
	__builtin_memset(fl, 0, sizeof(*fl));
	fl->cgrp = cgrp;
	fl->tid = tid;
	fl->lock = lock_rows ? lc->hold_lock : LOCK_ALL;
	fl->slot = st->slot - 1;
	fl->paired = 1;
	fl->last_lock_cpu = lock_cpu - 1;
	if (!first && lock_cpu != first_cpu) {
		count_lost(LOST_FLUSH_UNSEEN);
		fl->whole = !per_cpu_walks;
		return;
	}
	fl->whole = lock_cpu < 0;
	fl->start = began;
	lc->walked_cgrp = 0;
	/* the top flusher: one vote per flush */
	vote(&st->n, task->tgid);
	if (parts_from == PARTS_FROM_KERNEL)
		fl->run_delay = run_delay_of(task);
	else if (parts_from == PARTS_FROM_TIMED)
		fl->irq_mark = lc->irq_ns;
}

/*
 * The flush's last release: its wall time, holds and parts into the
 * stage (run_delay: its task's now, with kernel parts). Returns the
 * flushes a stack of it would stand for, 0 when it takes none. Global:
 * verified once, not with each state of the unlock program that calls it.
 */
__noinline int flush_record(struct lock_state *lc, struct slot_stage *st, __u64 run_delay,
			    __u64 now)
{
	struct flush_state *fl;
	__u64 wall, d;

	if (!lc || !st)
		return 0;
	fl = &lc->fl;
	fl->cgrp = 0;
	if (!fl->start)
		return 0;	/* its beginning was not seen */
	wall = now - fl->start;
	if (fl->slot + 1 != st->slot)
		st = stage_of(lc, fl->slot);
	stage_flush(st, wall, fl->holds);
	st->n.count[COUNT_FLUSH_HOLDS] += fl->holds;
	if (parts_from) {
		st->n.part[PART_HELD] += fl->held;
		st->n.part[PART_WAIT] += fl->wait;
		st->n.part[PART_SELF] += fl->self;
	}
	if (parts_from == PARTS_FROM_KERNEL) {
		d = run_delay - fl->run_delay;
		st->n.part[PART_OFFCPU] += d < wall ? d : wall;
		st->n.count[COUNT_FLUSHES_OFFCPU] += d != 0;
	} else if (parts_from == PARTS_FROM_TIMED) {
		st->n.part[PART_IRQ] += flush_irq(lc, fl);
		st->n.part[PART_OFFCPU] += fl->offcpu;
		st->n.count[COUNT_FLUSHES_OFFCPU] += fl->offcpu != 0;
	}
	return cause_sample ? cause_weight(lc, wall, fl->holds, now) : 0;
}

/*
 * A stage's figures into its comm's record (rstatlat.h, flushers), made
 * if new; the overflow's when the hash is full.
 */
static __always_inline void flusher_spill(const struct flusher_stage *fs)
{
	struct flusher_key overflow = FLUSHER_OVERFLOW;
	struct flusher_rec *r = bpf_map_lookup_elem(&flushers, &fs->key);

	if (!r) {
		/* another CPU may add it first: then this finds it */
		bpf_map_update_elem(&flushers, &fs->key, &flusher_zero, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&flushers, &fs->key);
	}
	if (!r) {
		count_lost_n(LOST_FLUSHERS_FULL, fs->flushes);
		r = bpf_map_lookup_elem(&flushers, &overflow);
		if (!r)
			return;
	}
	__sync_fetch_and_add(&r->flushes, fs->flushes);
	__sync_fetch_and_add(&r->holds, fs->holds);
	__sync_fetch_and_add(&r->flush_ns, fs->flush_ns);
	__sync_fetch_and_add(&r->hold_ns, fs->hold_ns);
	for (int i = 0; i < RSL_FLUSHER_OCTAVES; i++) {
		if (fs->flush_oct[i])
			__sync_fetch_and_add(&r->flush_oct[i], fs->flush_oct[i]);
		if (fs->hold_oct[i])
			__sync_fetch_and_add(&r->hold_oct[i], fs->hold_oct[i]);
	}
}

static __always_inline bool same_comm(const struct flusher_key *a, const struct flusher_key *b)
{
	const __u64 *x = (const __u64 *)a->comm, *y = (const __u64 *)b->comm;

	return x[0] == y[0] && x[1] == y[1];
}

/*
 * The stage, for the comm in key (a kernel thread's when kthread: cut at
 * its '/'), of process tgid, in epoch e: kept when it holds that comm's
 * flushes of e; else emptied, after a spill when it held another comm's
 * of e (one of an earlier epoch userspace has read). Global: verified
 * once.
 */
__noinline int flusher_claim(struct flusher_stage *fs, struct flusher_key *key, __u32 e,
			     __u32 tgid, __u32 kthread)
{
	bool cut = false;

	if (!fs || !key)
		return 0;
	for (int i = 0; kthread && i < RSL_COMM_LEN; i++) {
		cut |= key->comm[i] == '/';
		if (cut)
			key->comm[i] = 0;
	}
	fs->tgid = tgid;
	if (fs->epoch == e && fs->flushes) {
		if (same_comm(&fs->key, key))
			return 0;
		flusher_spill(fs);
	}
	__builtin_memset(fs, 0, sizeof(*fs));
	fs->epoch = e;
	fs->tgid = tgid;
	__builtin_memcpy(&fs->key, key, sizeof(*key));
	return 0;
}

/*
 * A recorded flush into this CPU's flusher stage (rstatlat.h, flushers):
 * its comm read only when another process's flush was the last here.
 */
static __always_inline void flusher_of(struct task_struct *task, const struct flush_state *fl,
				       __u64 wall)
{
	__u32 e = (__u32)epoch, parity = e & 1, tgid = task->tgid;
	struct flusher_stage *fs = bpf_map_lookup_elem(&flusher_stages, &parity);

	if (!fs)
		return;
	if (fs->epoch != e || !fs->flushes || fs->tgid != tgid) {
		struct flusher_key key = {};

		bpf_probe_read_kernel_str(key.comm, sizeof(key.comm), task->group_leader->comm);
		flusher_claim(fs, &key, e, tgid, !!(task->flags & PF_KTHREAD));
	}
	fs->flushes++;
	fs->holds += fl->holds;
	fs->flush_ns += wall;
	fs->hold_ns += fl->held;
	fs->flush_oct[hist_octave(wall) & (RSL_FLUSHER_OCTAVES - 1)]++;
	for (int i = 0; i < RSL_FLUSHER_OCTAVES; i++)
		fs->hold_oct[i] += fl->hold_oct[i];
}

/* ... and its cause, from its stack, when it takes one; and its flusher. */
static __always_inline void flush_end(void *ctx, struct lock_state *lc, struct slot_stage *st,
				      struct task_struct *task, __u64 now)
{
	int weight = flush_record(lc, st, parts_from == PARTS_FROM_KERNEL ? run_delay_of(task) : 0,
				  now);

	if (count_flushers && lc->fl.start)
		flusher_of(task, &lc->fl, now - lc->fl.start);
	if (weight > 0) {
		lc->self_rare = 1;	/* a stack: rare, and dear (own_unlock) */
		cause_record(lc->fl.slot, cause_key(ctx), weight, now - lc->fl.start);
	}
}

/*
 * rstatlat's own time between a flush's holds: this unlock program's since
 * its clock read (rstatlat.h, SELF_SAMPLE). Timed on one hold in
 * SELF_SAMPLE, at random, standing for SELF_SAMPLE; a hold that did rare
 * work (a new slot, a flush that moved) or this CPU's first (cold) is
 * timed as itself: weighed like a typical one it would count SELF_SAMPLE
 * times; and while holds take SELF_EXACT_NS or more, each is.
 */
static __noinline void self_time(struct lock_state *lc, struct flush_state *fl, __u64 now,
				 bool each)
{
	__u64 took = bpf_ktime_get_ns() - now;

	fl->self += each ? took : took * SELF_SAMPLE;
	lc->self_exact = took >= SELF_EXACT_NS;
	if (!lc->rand)
		lc_random(lc);
}

/* Whether this hold is one self_time times, and how. */
static __always_inline void self_maybe(struct lock_state *lc, struct flush_state *fl, __u64 now)
{
	bool each = lc->self_rare || lc->self_exact || !lc->rand;

	if (each || !(lc_random(lc) & (SELF_SAMPLE - 1)))
		self_time(lc, fl, now, each);
}

/*
 * A hold's part in its flush. A hold goes on with the flush this CPU keeps
 * when it is the same task's, of the same cgroup, and its lock cpu comes
 * later in the walk over CPUs; anything else begins a flush, or finds the
 * one it goes on with (flush_begin). Kernels take the lock in one of two
 * ways, told apart by the first acquisition's lock cpu:
 *   -1 (a whole flush under one lock, dropped between CPUs only to breathe:
 *      6.10-6.14, and 6.12 without 0efc297a): locked -1, unlock k, locked
 *      k, ... unlock -1: it ends at the release of -1;
 *   cpu (one hold per CPU, 6.15 on and where 0efc297a is backported):
 *      locked 0, unlock 0, locked 1, ... it ends at the release of the last
 *      possible CPU, and reading cpu.stat then takes the lock once more as
 *      -1 to read the totals: a hold, not a flush.
 */
static __always_inline void flush_hold(void *ctx, struct lock_state *lc, struct slot_stage *st,
				       __u64 cgrp, int unlock_cpu, __u64 hold, __u64 wait, __u64 now)
{
	int lock_cpu = lc->locked_lock_cpu;
	struct flush_state *fl = &lc->fl;
	struct task_struct *task;

	/* once the kernel is known to lock per CPU, lock cpu -1 is a totals read */
	if (lock_cpu < 0 && (per_cpu_walks || lc->walked_cgrp == cgrp)) {
		lc->walked_cgrp = 0;
		return;
	}
	task = bpf_get_current_task_btf();
	if (fl->cgrp != cgrp || fl->tid != (__u32)task->pid || lock_cpu <= fl->last_lock_cpu)
		flush_begin(lc, st, cgrp, task, now - hold - wait);
	fl->last_lock_cpu = lock_cpu;
	fl->holds++;
	if (parts_from || count_flushers)
		fl->held += hold;
	if (parts_from)
		fl->wait += wait_alone(lc, wait);
	if (count_flushers)
		fl->hold_oct[hist_octave(hold) & (RSL_FLUSHER_OCTAVES - 1)]++;
	if (lock_cpu != unlock_cpu)
		fl->paired = 0;
	/* not over until the release of -1, or of the last CPU of a walk */
	if (unlock_cpu >= 0 && (unlock_cpu < last_cpu || fl->whole)) {
		/* it goes on: what this program took is rstatlat's own time, between holds */
		if (parts_from)
			self_maybe(lc, fl, now);
		return;
	}
	/* a walk with a lock cpu missing does not teach that the kernel locks per CPU */
	if (unlock_cpu >= 0 && fl->start) {
		lc->walked_cgrp = cgrp;
		if (fl->paired && !per_cpu_walks)
			per_cpu_walks = 1;
	}
	flush_end(ctx, lc, st, task, now);
}

/*
 * The wait of a contended acquisition (0 for one that was not): from the
 * contended event on this CPU. It is this task's: between the two the task
 * spins, and before the spin it is only preemptible for a few instructions
 * (the failed trylock turns irqs back on); another task's leftover
 * contended event would need two such moves at once, and every hold here
 * clears it. None seen: a task that moved there, counted (wait_migrated).
 * Global: verified once; its caller's two paths meet again at its result.
 */
__noinline __u64 contended_wait(struct lock_state *lc, struct slot_stage *st, __u64 locked_ts)
{
	__u64 wait;

	if (!lc || !st || !lc->locked_contended)
		return 0;
	st->n.count[COUNT_CONTENDED]++;
	if (!lc->contended_ts) {
		count_lost(LOST_WAIT_MIGRATED);
		return 0;
	}
	wait = locked_ts - lc->contended_ts;
	record(st, DIST_WAIT, wait);
	return wait;
}

/*
 * The lock of this hold (lock_rows). One that goes on with the flush
 * this CPU keeps (its task's, its cgroup's, a later lock cpu) is under
 * that flush's lock; any other asks the task's innermost live lock scope
 * (its frame above this program's ctx, on the same stack), once a flush
 * and a CPU it moves to: with one hold per CPU, a flush asks once.
 */
static __always_inline __u16 lock_of_hold(struct lock_state *lc, __u64 cgrp, void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct flush_state *fl = &lc->fl;
	__u32 tid = (__u32)task->pid;
	__u64 here = (__u64)ctx;
	struct lock_scope *sc;

	if (fl->cgrp == cgrp && fl->tid == tid && lc->locked_lock_cpu > fl->last_lock_cpu)
		return fl->lock;
	sc = bpf_map_lookup_elem(&lock_scopes, &tid);
	if (!sc)
		return LOCK_UNKNOWN;
	if (sc->depth > 1 && sc->frame[1] > here)
		return sc->lock[1];
	if (sc->depth > 0 && sc->frame[0] > here)
		return sc->lock[0];
	return LOCK_UNKNOWN;
}

/*
 * The lock type of a hold (arg_type): the first bytes of the string the
 * tracepoint passes. The kernel passes its constants ("read", "write"), so
 * the pointer names the string: read again only when it changes here.
 */
static __always_inline __u64 lock_type_of(struct lock_state *lc, __u64 ptr)
{
	__u64 val = 0;

	if (ptr == lc->type_ptr)
		return lc->type_val;
	if (ptr && bpf_probe_read_kernel_str(&val, sizeof(val), (const void *)ptr) < 0)
		val = 0;
	lc->type_ptr = ptr;
	lc->type_val = val;
	return val;
}

static __always_inline void on_contended(__u64 now)
{
	struct lock_state *lc;

	if (!armed)
		return;
	lc = this_lock_state();
	if (!lc)
		return;
	lc->contended_ts = now;
	if (parts_from == PARTS_FROM_TIMED)
		lc->contended_irq = lc->irq_ns;
	own_time(&lc->rand, &lc->own_ns, now);
}

/* The floor and little more: the hold is taken up at its unlock. */
static __always_inline void on_locked(struct cgroup *cgrp, int lock_cpu, bool contended,
				      __u64 now)
{
	struct lock_state *lc;

	if (!armed)
		return;
	lc = this_lock_state();
	if (!lc)
		return;
	if (lc->locked_ts)
		count_lost(LOST_RELOCKED);
	if (holds_preemptible)
		lc->locked_task = bpf_get_current_task();
	lc->locked_ts = now;
	lc->locked_cgrp = (__u64)cgrp;
	lc->locked_lock_cpu = lock_cpu;
	lc->locked_contended = contended;
	/* drawn by the unlock before it (rstatlat.h, OWN_LOCKED) */
	if (lc->own_left & OWN_LOCKED) {
		lc->own_left &= ~OWN_LOCKED;
		lc->own_ns += own_took(now, OWN_SAMPLE);
	}
}

/*
 * Everything about a hold, after its clock read: the lock is released by
 * the kernel right after this program, so this work lies between holds.
 */
static __always_inline bool on_unlock(void *ctx, struct lock_state *lc, struct cgroup *cgrp,
				      int unlock_cpu, __u64 now)
{
	__u64 start, cg, hold, wait, type;
	__u32 tgid = 0, slot;
	struct slot_stage *st;
	bool fresh;
	int n;

	if (holds_preemptible && lc->locked_ts && lc->locked_task != bpf_get_current_task()) {
		/* the open hold is another task's, begun after ours: left to it */
		count_lost(LOST_UNPAIRED_UNLOCK);
		return false;
	}
	if (lc->locked_cgrp != (__u64)cgrp) {
		/* e.g. the lock was taken before we attached */
		count_lost(LOST_UNPAIRED_UNLOCK);
		lc->locked_ts = 0;
		lc->contended_ts = 0;
		return false;
	}
	start = lc->locked_ts;
	/*
	 * The cgroup as a number, what flushes are told apart by: loaded, as
	 * the verifier wants numbers, not pointers, in a global function's
	 * arguments (clang would reuse cgrp, known equal).
	 */
	cg = *(volatile __u64 *)&lc->locked_cgrp;
	lc->locked_cgrp = 0;
	lc->locked_ts = 0;
	lc->self_rare = 0;
	/* the task is asked only where it matters: -p, --pid (flushes ask later) */
	if (per_process || targ_tgid)
		tgid = bpf_get_current_task_btf()->tgid;
	/* written only where locks are told apart: it lies past the first line */
	if (lock_rows)
		lc->hold_lock = lock_of_hold(lc, cg, ctx);
	type = arg_type >= 0 ? lock_type_of(lc, tp_arg(ctx, arg_type)) : 0;
	n = start && (!targ_tgid || tgid == targ_tgid) ?
	    resolve_slot(&lc->cache, &lc->self_rare, cgrp, true, per_process ? tgid : 0,
			 lock_rows ? lc->hold_lock : LOCK_ALL, type, true) : -1;
	if (n < 0) {
		lc->contended_ts = 0;
		return false;
	}
	slot = n;
	hold = now - start;
	/* a new stage: the dear kind of hold, timed apart (own_unlock) */
	st = stage_taken(lc, slot, &fresh);
	st->n.count[COUNT_LOCKED]++;
	/* the call only where it times something: most holds are not contended */
	wait = 0;
	if (lc->locked_contended && !(bench_cut & BENCH_CUT_WAIT))
		wait = contended_wait(lc, st, start);
	if (threshold_ns && wait >= threshold_ns) {
		lc->self_rare = 1;
		slow_emit(ctx, SLOW_WAIT, start, wait, slot, lc->locked_lock_cpu, true);
	}
	lc->contended_ts = 0;
	record(st, DIST_HOLD, hold);
	if (irqoff_trace) {	/* what irqs_on attributes its interval by */
		lc->hold_start = start;
		lc->hold_slot = slot;
	}
	if (tick_period_ns)	/* whether a late tick overlapped a hold */
		lc->hold_end = now;
	if (threshold_ns && hold >= threshold_ns) {
		lc->self_rare = 1;
		slow_emit(ctx, SLOW_HOLD, now, hold, slot, unlock_cpu, lc->locked_contended);
	}
	if (!(bench_cut & BENCH_CUT_FLUSH))
		flush_hold(ctx, lc, st, cg, unlock_cpu, hold, wait, now);
	return fresh;
}

SEC("tp_btf/cgroup_rstat_lock_contended")
int rstat_contended(__u64 *ctx)
{
	(void)ctx;
	on_contended(bpf_ktime_get_ns());	/* the event is the signal */
	return 0;
}

SEC("tp_btf/cgroup_rstat_locked")
int rstat_locked(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	on_locked((struct cgroup *)tp_arg(ctx, arg_cgrp), tp_lock_cpu(ctx),
		  (bool)tp_arg(ctx, arg_contended), now);
	return 0;
}

SEC("tp_btf/cgroup_rstat_unlock")
int rstat_unlock(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct lock_state *lc;
	bool fresh;

	if (!armed)
		return 0;
	lc = this_lock_state();
	if (!lc)
		return 0;
	/* contended is always false at unlock; the locked event counts it */
	fresh = on_unlock(ctx, lc, (struct cgroup *)tp_arg(ctx, arg_cgrp), tp_lock_cpu(ctx), now);
	own_unlock(lc, now, fresh);
	return 0;
}
