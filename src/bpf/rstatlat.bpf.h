/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF file of rstatlat shares: the knobs, the globals, the maps
 * and the functions one file calls in another. The files, each one concern,
 * linked into one object (bpftool gen object), from which the skeleton is
 * made:
 *   rstatlat.bpf.c    defines what this header declares (RSL_DEFINE)
 *   record.bpf.h      where a figure goes: its slot (a cgroup, x process
 *                     with -p), the slot's home (shared, atomic) and this
 *                     CPU's stage (plain); slow events (-t)
 *   record.bpf.c      slots made, their paths captured, their stages
 *                     evicted into their homes; removed cgroups
 *   lock.bpf.h        the rstat lock's per-CPU state, which the other
 *                     sources add to
 *   lock.bpf.c        the rstat lock's tracepoints: holds, waits, flushes
 *                     and their causes
 *   cpu_lock.bpf.c    the per-CPU lock's tracepoints (6.10-6.16)
 *   parts.bpf.c       timed flush parts: irq time per CPU, flushers
 *                     switched out
 *   scope.bpf.c       lock scopes: which lock a task's holds are under
 *   memcg.bpf.c       memcg flush decisions (6.13+)
 *   fallback.bpf.c    the flush functions by fentry or kprobe (< 6.10)
 *   irqoff.bpf.c      irqs-off intervals: preemptirq tracepoints (trace)
 *                     and cpu-clock (sample)
 *
 * The rstat lock is taken with spin_lock_irq(), so between the locked and
 * unlock tracepoints the holder cannot leave its CPU: per-CPU state pairs
 * them, and the figures go to this CPU's stage, which no other CPU writes.
 */
#ifndef RSTATLAT_BPF_H
#define RSTATLAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rstatlat.h"

#define EEXIST		17

/* task_struct.flags: exiting, a kernel thread (include/linux/sched.h, unchanged since 2.6) */
#define PF_EXITING	0x00000004
#define PF_KTHREAD	0x00200000

/*
 * One text defines each knob, global and map in rstatlat.bpf.c, which sets
 * RSL_DEFINE, and declares it to the other files, which the linker joins
 * to that definition.
 */
#ifdef RSL_DEFINE
#define KNOB(type, name, value) const volatile type name = value
#define SHARED(type, name) type name = 0
#define RSL_EXTERN
#else
#define KNOB(type, name, value) extern const volatile type name
#define SHARED(type, name) extern type name
#define RSL_EXTERN extern
#endif

/* ---- knobs and globals ---- */

/* Knobs, set by userspace before load. */
KNOB(__u32, targ_tgid, 0); /* only this process flushes, 0 = all */
KNOB(bool, per_process, false); /* key slots by tgid too (-p) */
KNOB(__u64, threshold_ns, 0); /* -t threshold, 0 = off */
KNOB(__u32, max_slots, 1); /* max_entries of the slot maps */
KNOB(bool, irqoff_trace, false); /* --irqoff trace: slot_irqoff is sized */
KNOB(__u32, chunk_shift, SLOT_CHUNK_SHIFT_MIN); /* slots a chunk holds: 1 << it */
/*
 * Where the rstat tracepoints keep their arguments, read from the
 * prototype in BTF by the probe: (cgrp, cpu, contended) today, and
 * proposed forms without cpu or with a lock argument added.
 */
KNOB(__u32, arg_cgrp, 0);
KNOB(__s32, arg_cpu, 1); /* -1: no cpu argument */
KNOB(__u32, arg_contended, 2);
/* the lock type argument (an rwlock's "read"/"write", RFC 2026-05); -1: none */
KNOB(__s32, arg_type, -1);
/* The per-CPU lock's tracepoints (6.10-6.16), located the same way. */
KNOB(__u32, cpu_lock_arg_contended, 2);
/*
 * The lowest and highest possible CPU: a flush that locks per CPU begins
 * at the first and ends at the release of the last.
 */
KNOB(__s32, first_cpu, 0);
KNOB(__s32, last_cpu, 0);
/* --irqoff sample: the cpu-clock period; 0 = not sampling */
KNOB(__u64, tick_period_ns, 0);
/*
 * Where flush parts come from (enum parts_source): the task's scheduler
 * accounting read at a flush's start and end, or the irq and sched_switch
 * programs (attached only then); PARTS_FROM_NONE: no parts.
 */
KNOB(__u32, parts_from, PARTS_FROM_NONE);
/* One flush in cause_sample takes a stack for its cause; 0 = causes off. */
KNOB(__u32, cause_sample, 0);
/* ... and fewer where flushes come fast (rstatlat.h, causes): the default */
KNOB(bool, cause_budgeted, false);
/*
 * Holds are told apart by lock (rstatlat.h, LOCK_*): the lock scope
 * programs are attached and keep each task's open scope in lock_scopes.
 */
KNOB(bool, lock_rows, false);
/* Flushes are added up by comm (rstatlat.h, flushers): the exporter's flusher series. */
KNOB(bool, count_flushers, false);
/*
 * PREEMPT_RT: a holder of the rstat lock can be preempted, and another
 * task take another subsystem's lock on its CPU (lost.relocked): each hold
 * is then paired with its own task's unlock, never timed from another's.
 */
KNOB(bool, holds_preemptible, false);

/* make bench's cost attribution only (rstatlat.h, BENCH_CUT_*): 0 in every real run */
KNOB(__u32, bench_cut, 0);

/* Shared with userspace through the mmapped .bss. */
SHARED(__u64, epoch); /* advanced by userspace at every read (rstatlat.h) */
/*
 * Set once all programs are attached: before that, a locked event whose
 * unlock program is not attached yet would leave this CPU "holding".
 */
SHARED(__u32, armed);
/*
 * Bumped by userspace when it retires slots: a per-CPU cache filled under
 * an older generation may name a slot that is being reused, so it no
 * longer hits.
 */
SHARED(__u32, cache_gen);
SHARED(__u32, next_slot); /* slot numbers handed out so far */
/* slots whose chunks userspace has made (rstatlat.h, slot_chunk_shift) */
SHARED(__u32, slots_made);
/* the grow bell was rung and userspace has not made chunks since */
SHARED(__u32, grow_rung);
/* ... and is rung when this few made slots are left: 3/4 of those ahead */
SHARED(__u32, grow_at);
/*
 * Set once a flush is seen taking the lock per CPU (locked and unlock of the
 * same cpu, for every possible CPU): from then on a hold of lock cpu -1 is
 * cpu.stat reading its totals, not a flush.
 */
SHARED(__u32, per_cpu_walks);
/*
 * Flushes in flush_parked: while there is none, neither a context switch
 * nor a flush's move looks there.
 */
SHARED(__u32, flushes_parked);
/* A removal did not fit in cgroups_gone: userspace checks every cgroup, then clears it. */
SHARED(__u32, cgroups_gone_missed);

/*
 * Fallback (the flush functions): one flush call of the current task,
 * with the task, as the functions' entries and exits are per task.
 */
struct task_flush {
	__u64 start;		/* 0: no flush open */
	__u64 cgrp;
	__u64 hold_start;	/* inside cgroup_rstat_flush_locked */
	__u32 slot;
	__u32 holds;
	__u32 outer;		/* opened by an outer flush function */
	__u32 pad;
};

/*
 * The locks a task's flushes take, from the functions that name them
 * (lock_rows): a stack, as cgroup_base_stat_cputime_show() calls
 * css_rstat_flush(); nothing nests deeper. Each level keeps the address
 * of its call's frame (the fentry ctx, on the task's stack, the same for
 * its fexit): a level is live while its frame lies above the stack
 * pointer, so a level whose exit the kernel skipped is seen to be gone,
 * and an exit whose entry it skipped pops nothing. Kept while the task
 * is inside one, by its pid.
 */
struct lock_scope {
	__u64 frame[2];
	__u16 lock[2];
	__u32 depth;	/* levels kept, 0-2 */
};

/* ---- maps ---- */

/*
 * The per-slot maps, in chunks made by userspace as slots are used
 * (rstatlat.h, slot_chunk_shift): each chunk an array, mmapable only so
 * that the kernel lays its records on page boundaries, hence on lines
 * (rstatlat.h, slot_home). Its size in chunk_shift, set with the chunks'
 * max_entries by userspace.
 */
struct rec_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << SLOT_CHUNK_SHIFT_MIN);	/* set by userspace */
	__uint(key_size, sizeof(__u32));
	/* a size, not a type: BTF would only have a forward declaration of it here */
	__uint(value_size, sizeof(struct slot_rec));
};

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* resized by userspace: chunks of --max-entries */
	__type(key, __u32);
	__array(values, struct rec_chunk);
} slot_recs SEC(".maps");

/* --irqoff trace: irqs-off intervals with a hold inside, per slot (else no chunk). */
struct irqoff_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << SLOT_CHUNK_SHIFT_MIN);	/* set by userspace */
	__uint(key_size, sizeof(__u32));
	/* a size, not a type: BTF would only have a forward declaration of it here */
	__uint(value_size, sizeof(struct dist_rec));
};

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, __u32);
	__array(values, struct irqoff_chunk);
} slot_irqoff SEC(".maps");

/*
 * The epoch in which each slot's home last changed: what userspace reads,
 * mapped. 64-bit values: an array's elements are 8-byte aligned, so that is
 * the stride userspace sees anyway.
 */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, __u32);
	__type(value, __u64);
} slot_seen SEC(".maps");

/* Grown as slots are made: --max-entries is its ceiling, not what it takes. */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, struct slot_key);
	__type(value, __u32);
} slot_ids SEC(".maps");

/* The slot index (rstatlat.h): the common path's way to a slot. */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOT_INDEX_ENTRIES);
	__type(key, __u32);
	__type(value, struct slot_index_entry);
} slot_index SEC(".maps");

/* Slots of removed cgroups and exited flushers, handed back by userspace. */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(value, __u32);
} free_slots SEC(".maps");

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sys_home);
} sys_home SEC(".maps");

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_state);
} lock_state SEC(".maps");

/* The maps of optional sources are not created when their source is off. */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_state);
} irq_state SEC(".maps");

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tick_state);
} tick_state SEC(".maps");

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_lock_state);
} cpu_lock_state SEC(".maps");

/* Fallback: the flush of each task (task_flush). */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_flush);
} task_flush SEC(".maps");

/*
 * lock_rows: the open lock scopes of the tasks inside one, by pid. A
 * preallocated hash, not task storage, whose creation can fail while
 * another task on the CPU is in a storage call: an insert here fails only
 * when full, and says so (LOST_LOCK_SCOPE). A scope program the kernel
 * skips (preempted, then re-entered on its CPU) leaves its flush's holds
 * "(unknown)", counted by userspace as program_skipped.
 */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RSL_LOCK_SCOPE_TASKS);
	__type(key, __u32);
	__type(value, struct lock_scope);
} lock_scopes SEC(".maps");

/*
 * Flushes whose task was switched out between holds while another flush
 * began on its CPU, or (timed parts) as it was switched out: by task,
 * until it goes on (rstatlat.h, flush_state). flushes_parked counts them.
 * Not preallocated (0.3 MiB): a parked flush is rare, and only the rstat
 * tracepoints' programs (6.10+) park one, where the kernel's hash maps
 * allocate from per-CPU caches (6.1+), safe under sched_switch's rq lock.
 */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);	/* the task's pid */
	__type(value, struct flush_state);
} flush_parked SEC(".maps");

/*
 * cgroup:cgroup_rmdir, where the kernel has it: the cgroups removed since
 * the last read, so that userspace need not stat each idle one. A full
 * queue sets cgroups_gone_missed: userspace then checks them all once.
 */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, RSL_CGROUPS_GONE);
	__type(value, struct cgroup_gone);
} cgroups_gone SEC(".maps");

/*
 * count_flushers: the comms' spilled flushes (rstatlat.h, flushers); not
 * created otherwise. Not preallocated (0.46 MiB for RSL_FLUSHERS): only
 * the unlock program inserts, as into flush_stacks.
 */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RSL_FLUSHERS);
	__type(key, struct flusher_key);
	__type(value, struct flusher_rec);
} flushers SEC(".maps");

/* count_flushers: each CPU's flusher stage, by epoch parity (not created otherwise). */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct flusher_stage);
} flusher_stages SEC(".maps");

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* resized by userspace */
} events SEC(".maps");

/* Wakes userspace to make chunks (ring_grow_bell): what it says is not read. */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} grow_bell SEC(".maps");

/*
 * Flush causes: the stacks of sampled flushes at their end, by a hash of
 * their frames, named by userspace (rstatlat.h). Not a stack trace map:
 * one whose bucket another stack holds is lost to it for the whole run.
 * Not preallocated: a host has a few dozen causes, not RSL_CAUSE_STACKS
 * (0.27 MiB preallocated); only the unlock program inserts, with the
 * rstat lock held, never under the scheduler's locks, as slot_ids.
 */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RSL_CAUSE_STACKS);	/* 1 when causes are off */
	__type(key, __u64);
	__type(value, struct cause_stack);
} flush_stacks SEC(".maps");

/* Where a stack is taken before it is hashed (tracepoints run with preemption off). */
RSL_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cause_stack);
} stack_buf SEC(".maps");

/* Constant tables, defined with the code that reads them. */
extern const struct flusher_rec flusher_zero; /* lock.bpf.c */
extern const __u8 debruijn32[32]; /* record.bpf.c */

/*
 * Functions one file calls in another. __hidden: the verifier checks each
 * at its calls with its caller's state, as a static function; the others
 * are global, checked once by themselves.
 */
/* record.bpf.c */
int capture_path(struct slot_meta *meta, __u64 node);
__hidden int create_slot(struct cgroup *cgrp, struct slot_key *key);
int dist_evict(struct stage_dist *sd, struct dist_rec *h, __u32 e);
__hidden void stage_evict(struct slot_stage *st);
__hidden void stage_claim(struct slot_stage *st, __u32 e, __u32 slot);
__hidden void spill(__u32 slot, __u32 k, __u32 b);
/* lock.bpf.c */
int flush_park(struct lock_state *lc, struct flush_state *fl, __u64 now);
int flush_unpark(struct lock_state *lc, __u32 tid, __u64 cgrp, int lock_cpu);

#endif /* RSTATLAT_BPF_H */
