// SPDX-License-Identifier: GPL-2.0
/* memcg flush decisions: memcg:memcg_flush_stats (6.13+). */
#include "lock.bpf.h"

/*
 * This CPU's decision stage for the slot in the current epoch; one of
 * another slot in this epoch goes home first (stage_claim's rule).
 */
static __noinline void decision_claim(struct decision_stage *ds, __u32 e, __u32 slot)
{
	struct slot_home *h = ds->epoch == e && ds->slot ? home_of(ds->slot - 1) : NULL;

	for (int k = 0; h && k < DECISION_MAX; k++)
		if (ds->n[k])
			__sync_fetch_and_add(&h->n.decisions[k], ds->n[k]);
	for (int k = 0; k < DECISION_MAX; k++)
		ds->n[k] = 0;
	ds->epoch = e;
	ds->slot = slot + 1;
}

static __always_inline struct decision_stage *decision_stage_of(struct memcg_state *ms,
								 __u32 slot)
{
	__u32 e = (__u32)epoch;
	struct decision_stage *ds = &ms->stage[e & 1];

	if (ds->epoch != e || ds->slot != slot + 1)
		decision_claim(ds, e, slot);
	return ds;
}

/* A flush request's decision, staged under its memcg's slot. */
static __always_inline void memcg_decision(struct lock_state *lc, struct mem_cgroup *memcg,
					   __u32 tgid, bool force, bool needs_flush)
{
	struct decision_stage *ds;
	int n;

	/*
	 * A skipped request takes no lock: it gets no slot of its own, or an
	 * agent reading memory.stat of thousands of idle containers would
	 * take every slot from the cgroups that flush.
	 */
	n = resolve_slot(&lc->memcg.cache, NULL, memcg->css.cgroup, true, per_process ? tgid : 0,
			 lock_rows ? memory_lock() : LOCK_ALL, 0, force || needs_flush);
	if (n < 0) {
		if (!force && !needs_flush)
			count_lost(LOST_SKIP_UNTRACKED);
		return;
	}
	ds = decision_stage_of(&lc->memcg, (__u32)n);
	ds->n[DECISION_ASKED]++;
	if (force)
		ds->n[DECISION_FORCED]++;
	else if (!needs_flush)
		ds->n[DECISION_SKIPPED]++;
}

/*
 * Fired for every flush a memcg asks for, before the lock: forced, or
 * skipped when too few stats changed. It fires with irqs on and may be
 * switched out midway (rstatlat.h, memcg_state): it keeps to its own
 * cache and stage.
 */
SEC("tp_btf/memcg_flush_stats")
int BPF_PROG(memcg_flush, struct mem_cgroup *memcg, __s64 stats_updates, bool force,
	     bool needs_flush)
{
	struct lock_state *lc;
	__u32 tgid = 0;
	bool timed;
	__u64 now;

	(void)ctx;
	(void)stats_updates;
	if (!armed || !memcg)
		return 0;
	/* asked only where it matters: a run's length is the window in which the kernel refuses another */
	if (targ_tgid || per_process)
		tgid = bpf_get_current_pid_tgid() >> 32;
	if (targ_tgid && tgid != targ_tgid)
		return 0;
	lc = this_lock_state();
	if (!lc)
		return 0;
	/* no clock read of its own: one run in OWN_SAMPLE takes three (rstatlat.h) */
	timed = !(next_random(&lc->memcg.rand) & (OWN_SAMPLE - 1));
	now = timed ? bpf_ktime_get_ns() : 0;
	memcg_decision(lc, memcg, tgid, force, needs_flush);
	if (timed)
		lc->memcg.own_ns += own_took(now, OWN_SAMPLE);
	return 0;
}
