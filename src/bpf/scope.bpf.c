// SPDX-License-Identifier: GPL-2.0
/* Lock scopes (lock_rows, 6.16+): which lock a task's holds are under. */
#include "lock.bpf.h"

/*
 * A call that names a lock begins, its frame at ctx: levels whose frames
 * are not above it have returned (their exits skipped) and go first.
 */
static __always_inline void scope_enter(void *ctx, __u16 lock)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lock_scope *sc = bpf_map_lookup_elem(&lock_scopes, &tid);
	__u64 here = (__u64)ctx;
	struct lock_scope first = { .frame = { here }, .lock = { lock }, .depth = 1 };

	if (!sc) {
		/* only this task inserts its pid: no race but a full map */
		if (bpf_map_update_elem(&lock_scopes, &tid, &first, BPF_NOEXIST))
			count_lost(LOST_LOCK_SCOPE);
		return;
	}
	if (sc->depth > 1 && sc->frame[1] <= here)
		sc->depth = 1;
	if (sc->depth > 0 && sc->frame[0] <= here)
		sc->depth = 0;
	if (sc->depth > 1)
		return;	/* nothing nests deeper today: its holds take the inner level */
	sc->frame[sc->depth & 1] = here;
	sc->lock[sc->depth & 1] = lock;
	sc->depth++;
}

/* Its exit pops its own level only; the last level's removes the entry. */
static __always_inline void scope_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lock_scope *sc = bpf_map_lookup_elem(&lock_scopes, &tid);
	__u64 here = (__u64)ctx;

	if (!sc)
		return;
	if (sc->depth > 1 && sc->frame[1] == here)
		sc->depth = 1;
	else if (sc->depth > 0 && sc->frame[0] == here)
		sc->depth = 0;	/* and an inner level whose exit was skipped */
	if (!sc->depth)
		bpf_map_delete_elem(&lock_scopes, &tid);
}

/*
 * css_rstat_flush(css) takes the lock of css->ss: the subsystem's, or the
 * base stats' where ss is NULL (the cgroup's own css).
 */
SEC("fentry/css_rstat_flush")
int BPF_PROG(scope_flush_enter, struct cgroup_subsys_state *css)
{
	struct cgroup_subsys *ss = css->ss;
	__u32 id = ss ? (__u32)ss->id : 0;

	scope_enter(ctx, !ss ? LOCK_BASE : id < LOCK_IDS_MAX - LOCK_SUBSYS ? LOCK_SUBSYS + id :
		    LOCK_UNKNOWN);
	return 0;
}

SEC("fexit/css_rstat_flush")
int BPF_PROG(scope_flush_exit)
{
	scope_exit(ctx);
	return 0;
}

/* cpu.stat reads its totals under the base lock after its flush. */
SEC("fentry/cgroup_base_stat_cputime_show")
int BPF_PROG(scope_cputime_enter)
{
	scope_enter(ctx, LOCK_BASE);
	return 0;
}

SEC("fexit/cgroup_base_stat_cputime_show")
int BPF_PROG(scope_cputime_exit)
{
	scope_exit(ctx);
	return 0;
}
