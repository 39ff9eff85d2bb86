// SPDX-License-Identifier: GPL-2.0
/*
 * A run's BPF side made ready (run.h): the environment checked and the
 * probe's plan made, the skeleton's knobs and maps set from it, only the
 * chosen programs loaded, and --irqoff sample's cpu-clock events.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "escape.h"
#include "prom.h"
#include "run.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"
/* Slow events (-t) are 384 bytes with their header: a burst of ~10.9k fits */
#define SLOW_RINGBUF_BYTES (4U << 20)

void check_environment(struct attach_plan *plan)
{
	bool privileged = has_bpf_privileges();

	if (!opts.probe_only && !privileged)
		die(EXIT_ENV, "needs root, or CAP_BPF and CAP_PERFMON");
	if (access(BTF_PATH, R_OK))
		die(EXIT_ENV, "no kernel BTF at %s (needs CONFIG_DEBUG_INFO_BTF)", BTF_PATH);
	if (probe_kernel(plan, NULL, opts.source, opts.irqoff, opts.parts, privileged))
		die(EXIT_ENV, "cannot parse kernel BTF at %s", BTF_PATH);
	/* parts asked for by name: none is a refusal, not a silent run without */
	if (plan->usable && !opts.probe_only && opts.parts_given && opts.parts != PARTS_OFF &&
	    !plan->flush_parts)
		die(EXIT_ENV, "--flush-parts: not on this kernel: %s", plan->parts_why);
	if (!opts.lock_rows_on)
		plan_lock_rows_off(plan);
	if (plan->flush_causes && !opts.cause_sample) {
		plan->flush_causes = false;
		snprintf(plan->causes_why, sizeof(plan->causes_why), "--cause-sample 0");
	}
}

void kernel_info(struct kernel_info *k)
{
	struct utsname u;

	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	k->cpus_possible = libbpf_num_possible_cpus();
	k->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * Only the chosen points' programs load; everything else stays off. A
 * chosen point without its program is a table renamed on one side only:
 * a hard error, not a run that measures nothing.
 */
static void choose_programs(struct rstatlat_bpf *skel, const struct attach_plan *plan)
{
	struct bpf_program *prog, *progs[2];
	char missing[96];

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(skel->progs.irqoff_tick, plan->irqoff_sample);
	for (int i = 0; i < plan->n; i++) {
		if (!plan->points[i].chosen)
			continue;
		if (probe_find_programs(skel->obj, plan->source, &plan->points[i], progs, missing))
			die(EXIT_RUNTIME, "internal error: no BPF program in section %s for %s",
			    missing, plan->points[i].name);
		for (int k = 0; k < 2; k++)
			if (progs[k])
				bpf_program__set_autoload(progs[k], true);
	}
}

/*
 * The lowest and highest possible CPU ids: where a flush that locks per
 * CPU begins and ends. Read from the mask ("0-3,8-11"), as the count
 * libbpf gives is not the highest id when the mask has holes.
 */
static void possible_cpu_range(int *first, int *last, int ncpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	char mask[4096], *p;

	*first = 0;
	*last = ncpus - 1;
	if (!f)
		return;
	if (fgets(mask, sizeof(mask), f)) {
		*first = atoi(mask);
		p = mask + strcspn(mask, "\n");
		while (p > mask && (p[-1] >= '0' && p[-1] <= '9'))
			p--;
		*last = atoi(p);
	}
	fclose(f);
}

/*
 * Flushes are counted by comm for the exporter's flusher series, where
 * flushes are kept per CPU: the tracepoints (rstatlat.h, flushers).
 */
bool flushers_counted(const struct attach_plan *plan)
{
	return (opts.serve || opts.textfile) && opts.prom.max_flushers &&
	       plan->source == SOURCE_TRACEPOINT;
}

/* The record of the comms that find the others full: there before any flush. */
int make_flushers_overflow(struct rstatlat_bpf *skel)
{
	static const struct flusher_rec zero;
	struct flusher_key overflow = FLUSHER_OVERFLOW;

	if (!skel->rodata->count_flushers)
		return 0;
	return bpf_map__update_elem(skel->maps.flushers, &overflow, sizeof(overflow), &zero,
				    sizeof(zero), BPF_ANY);
}

/*
 * RSTATLAT_BENCH_CUT (rstatlat.h, BENCH_CUT_*): make bench's cost
 * attribution, which makes the figures wrong, so it is said; anything but
 * a number within BENCH_CUT_ALL is refused.
 */
static __u32 bench_cut(void)
{
	const char *env = getenv("RSTATLAT_BENCH_CUT");
	char *end;
	unsigned long v;

	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoul(env, &end, 0);
	if (errno || *end || v > BENCH_CUT_ALL)
		die(EXIT_USAGE, "RSTATLAT_BENCH_CUT: '%s' is not a number from 0 to %d",
		    env, BENCH_CUT_ALL);
	if (v)
		warn("RSTATLAT_BENCH_CUT=%lu: parts of the lock path are cut for make bench; "
		     "the figures are wrong", v);
	return (__u32)v;
}

void configure(struct rstatlat_bpf *skel, const struct attach_plan *plan, unsigned int max_slots,
	       int ncpus)
{
	unsigned int chunks;
	int first, last;

	skel->rodata->arg_cgrp = (__u32)plan->args.cgrp;
	skel->rodata->arg_cpu = plan->args.cpu;
	skel->rodata->arg_contended = (__u32)plan->args.contended;
	if (plan_has_cpu_lock(plan))
		skel->rodata->cpu_lock_arg_contended = (__u32)plan->cpu_lock_args.contended;
	possible_cpu_range(&first, &last, ncpus);
	skel->rodata->first_cpu = first;
	skel->rodata->last_cpu = last;
	skel->rodata->tick_period_ns = plan->irqoff_sample ? 1000000000ULL / opts.sample_hz : 0;
	skel->rodata->targ_tgid = (__u32)opts.targ_tgid;
	skel->rodata->per_process = opts.per_process;
	skel->rodata->threshold_ns = opts.threshold_ns;
	skel->rodata->max_slots = max_slots;
	skel->rodata->irqoff_trace = plan->irqoff_trace;
	skel->rodata->parts_from = plan->parts_from;
	skel->rodata->cause_sample = plan->flush_causes ? (__u32)opts.cause_sample : 0;
	skel->rodata->cause_budgeted = !opts.cause_sample_given;
	skel->rodata->bench_cut = bench_cut();
	bpf_map__set_max_entries(skel->maps.flush_stacks,
				 skel->rodata->cause_sample ? RSL_CAUSE_STACKS : 1);
	/* chunks made by the collector as slots are used (rstatlat.h, slot_chunk_shift) */
	skel->rodata->chunk_shift = slot_chunk_shift(max_slots);
	chunks = ((max_slots - 1) >> skel->rodata->chunk_shift) + 1;
	bpf_map__set_max_entries(skel->maps.slot_recs, chunks);
	bpf_map__set_max_entries(skel->maps.slot_irqoff, plan->irqoff_trace ? chunks : 1);
	if (chunks_shape(skel))
		die(EXIT_ENV, "cannot make the maps' chunks: %s", strerror(errno));
	bpf_map__set_max_entries(skel->maps.slot_seen, max_slots);
	bpf_map__set_max_entries(skel->maps.slot_ids, max_slots);
	bpf_map__set_max_entries(skel->maps.free_slots, max_slots);
	/* a source that is off costs no memory: its per-CPU state is not created */
	bpf_map__set_autocreate(skel->maps.irq_state, plan->irqoff_trace);
	bpf_map__set_autocreate(skel->maps.tick_state, plan->irqoff_sample);
	bpf_map__set_autocreate(skel->maps.cpu_lock_state, plan_has_cpu_lock(plan));
	/* the flush functions keep flushes with the task; the tracepoints per CPU */
	bpf_map__set_autocreate(skel->maps.task_flush, plan->source != SOURCE_TRACEPOINT);
	bpf_map__set_autocreate(skel->maps.flush_parked, plan->source == SOURCE_TRACEPOINT);
	/* holds told apart by lock: each task's open lock scopes */
	skel->rodata->lock_rows = plan->lock_rows;
	skel->rodata->holds_preemptible = !plan->holds_irqs_off;
	skel->rodata->arg_type = plan->lock_types ? plan->args.type : -1;
	bpf_map__set_autocreate(skel->maps.lock_scopes, plan->lock_rows);
	bpf_map__set_autocreate(skel->maps.cgroups_gone, plan->cgroups_gone);
	skel->rodata->count_flushers = flushers_counted(plan);
	bpf_map__set_autocreate(skel->maps.flushers, skel->rodata->count_flushers);
	bpf_map__set_autocreate(skel->maps.flusher_stages, skel->rodata->count_flushers);
	/* without -t nothing is ever submitted: one page is the minimum */
	bpf_map__set_max_entries(skel->maps.events, opts.threshold_ns ?
				 SLOW_RINGBUF_BYTES : (unsigned int)getpagesize());
	choose_programs(skel, plan);
}


/*
 * What the maps ask of the kernel, roughly: at the start (what grows with
 * --max-entries whatever is used: the slot map's buckets, the seen epochs,
 * the free list, the chunk tables; and the per-CPU state), and at
 * --max-entries entries in use (every chunk made: collect_chunks.c).
 */
uint64_t planned_map_bytes(const struct attach_plan *plan, unsigned int max_slots, int ncpus,
			   bool ceiling)
{
	uint64_t per_slot = sizeof(__u64) + sizeof(__u32) + 2 * sizeof(void *);

	if (ceiling)
		per_slot += sizeof(struct slot_rec) +
			    sizeof(struct slot_key) + 64 /* hash element */ +
			    (plan->irqoff_trace ? sizeof(struct dist_rec) : 0);
	return per_slot * max_slots + (uint64_t)ncpus * sizeof(struct lock_state);
}

/* "hypervisor" in /proc/cpuinfo's flags: a vCPU stall looks like irqs-off. */
bool on_virtual_machine(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool vm = false;

	while (f && !vm && fgets(line, sizeof(line), f))
		vm = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	return vm;
}

/* One cpu-clock event per online CPU, each running irqoff_tick. */
void attach_ticks(struct run *run, int ncpus)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000000ULL / opts.sample_hz,
	};

	run->tick_links = calloc((size_t)ncpus, sizeof(*run->tick_links));
	if (!run->tick_links)
		die(EXIT_RUNTIME, "out of memory");
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV)
				continue;	/* possible but offline */
			die(EXIT_ENV, "cannot open a cpu-clock event on CPU %d: %s", cpu,
			    strerror(errno));
		}
		run->tick_links[cpu] = bpf_program__attach_perf_event(run->skel->progs.irqoff_tick,
								     fd);
		if (!run->tick_links[cpu]) {
			close(fd);
			die(EXIT_ENV, "cannot attach to the cpu-clock event on CPU %d: %s", cpu,
			    strerror(errno));
		}
		run->nticks++;
	}
}

void detach_ticks(struct run *run, int ncpus)
{
	for (int cpu = 0; run->tick_links && cpu < ncpus; cpu++)
		bpf_link__destroy(run->tick_links[cpu]);
	free(run->tick_links);
}

