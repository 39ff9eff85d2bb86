// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat: how long the cgroup rstat lock is waited for and held, per
 * flushed cgroup and flushing process. CLI and lifecycle: parse, probe,
 * open, load, attach, loop, detach.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "cgroup.h"
#include "clock.h"
#include "collect.h"
#include "command.h"
#include "compare_cli.h"
#include "load.h"
#include "escape.h"
#include "fmt.h"
#include "ksym.h"
#include "options.h"
#include "outfile.h"
#include "privilege.h"
#include "probe.h"
#include "prom.h"
#include "rstatlat.skel.h"
#include "self.h"
#include "serve.h"
#include "slow.h"
#include "view.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_ENV	3

#define VERSION "0.1.0"
#define BTF_PATH "/sys/kernel/btf/vmlinux"
/*
 * Room for 10 000 cgroups (or cgroup x process pairs with -p): about 59 MiB
 * of kernel memory, whatever the number of CPUs (docs/performance.md).
 */
#define DEFAULT_MAX_SLOTS 10000
/* Slow events (-t) are 384 bytes with their header: a burst of ~10.9k fits */
#define SLOW_RINGBUF_BYTES (4U << 20)
/*
 * A tick a millisecond: resolution well below the irqs-off intervals worth
 * finding (tens of ms on big machines), ~1000 BPF runs/s per CPU. 997, not
 * 1000, so the samples do not march in step with the kernel's own HZ tick.
 */
#define DEFAULT_SAMPLE_HZ 997
/*
 * One flush in 64, at random, takes a stack for its cause (and every
 * flush of 100 us or more): a stack costs about 1 us here, more than the
 * rest of a short flush's programs together; at 1 in 16 it still added
 * 11 ns to every lock event of the hammer (docs/performance.md).
 */
#define DEFAULT_CAUSE_SAMPLE 64
/* A named cgroup or comm this long without locks leaves its series to (other). */
#define DEFAULT_PROM_IDLE_S 300
/* node_exporter is scraped every 15 s or more: rewriting faster only wears disks */
#define DEFAULT_TEXTFILE_INTERVAL_S 15
/* An exporter's blocks below this come from the heap (start_export). */
#define EXPORT_HEAP_BYTES (32 << 20)

static struct options {
	double interval;	/* seconds, 0 = summary only */
	uint64_t count;		/* intervals, 0 = unlimited */
	double duration;	/* -d seconds, 0 = until signal */
	bool per_process;
	bool json;
	bool verbose;
	bool probe_only;
	enum source_pref source;
	enum irqoff_pref irqoff;
	enum parts_pref parts;
	bool parts_given;	/* --flush-parts: else --flush asks for timed parts */
	uint64_t cause_sample;	/* 0: causes off */
	bool cause_sample_given;	/* exactly 1 in cause_sample: no stack budget */
	bool lock_rows_on;	/* --lock-rows on: holds told apart by lock (6.16+) */
	uint64_t sample_hz;
	uint64_t threshold_ns;
	uint64_t targ_tgid;
	uint64_t max_slots;
	const char *cgroup;
	struct view_opts view;
	bool serve;		/* --prometheus */
	struct listen_addr listen;
	const char *textfile;
	double textfile_interval;
	struct prom_opts prom;
	struct run_as run_as;	/* --user */
	bool quiet;		/* exporting only: no table or summary on stdout */
	const char *output;	/* -o FILE: reports go there, whole or not at all */
	char **command;		/* -- COMMAND [ARGS], NULL-terminated; NULL: none */
	int command_argc;
	enum command_where command_where;
	const char *command_cgroup;	/* --command-cgroup PATH */
} opts = {
	.view = { .sort = SORT_HOLD_P99, .rows = 20 },
	.sample_hz = DEFAULT_SAMPLE_HZ,
	.cause_sample = DEFAULT_CAUSE_SAMPLE,
	.textfile_interval = DEFAULT_TEXTFILE_INTERVAL_S,
	.prom = { .max_cgroups = PROM_DEFAULT_MAX_CGROUPS,
		  .max_flushers = PROM_DEFAULT_MAX_FLUSHERS,
		  .idle_ns = DEFAULT_PROM_IDLE_S * 1000000000ULL, .version = VERSION },
};

static volatile sig_atomic_t exiting;

/*
 * Where reports go: stdout, -o FILE's temporary file, or with a command
 * and no -o stderr (as perf stat's counts), so that they do not mix with
 * what COMMAND prints.
 */
static FILE *out;
static struct outfile outfile;
static struct command cmd = { .go_fd = -1, .err_fd = -1, .workload_fd = -1 };
/* what the command's workload wrote for the summary (command_workload) */
static struct workload_info workload;

__attribute__((format(printf, 1, 2)))
static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn("rstatlat", fmt, ap);
	va_end(ap);
}

__attribute__((noreturn, format(printf, 2, 3)))
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	/* messages quote arguments and paths: vdie keeps them inert */
	va_start(ap, fmt);
	vdie("rstatlat", code, fmt, ap);
	va_end(ap); /* not reached: each va_start has its va_end */
}

static double parse_seconds(const char *s, const char *what)
{
	uint64_t ns;

	if (parse_duration(s, 1000000000ULL, &ns) || ns == 0)
		die(EXIT_USAGE, "invalid %s '%s': expected a positive number of seconds", what, s);
	return (double)ns / 1e9;
}

static uint64_t parse_count(const char *s, uint64_t max, const char *what)
{
	uint64_t v;

	if (parse_uint(s, max, &v))
		die(EXIT_USAGE, "invalid %s '%s'", what, s);
	return v;
}

/* Options that shape exporting, refused without it. */
static bool export_shaped, textfile_interval_given;

/* The options of exporting: --prometheus, --textfile and what shapes them. */
static bool parse_export_option(int c, const char *arg)
{
	const char *why;

	switch (c) {
	case OPT_PROMETHEUS:
		if (listen_addr_parse(arg, &opts.listen, &why))
			die(EXIT_USAGE, "invalid --prometheus '%s': %s", arg, why);
		opts.serve = true;
		return true;
	case OPT_TEXTFILE:
		if (!*arg)
			die(EXIT_USAGE, "--textfile needs a path");
		opts.textfile = arg;
		return true;
	case OPT_TEXTFILE_INTERVAL:
		opts.textfile_interval = parse_seconds(arg, "--textfile-interval");
		textfile_interval_given = true;
		return true;
	case OPT_PROM_BUCKETS:
		if (prom_buckets_parse(arg, &opts.prom, &why))
			die(EXIT_USAGE, "invalid --prom-buckets '%s': %s", arg, why);
		export_shaped = true;
		return true;
	case OPT_PROM_CLASSIC:
		opts.prom.classic_in_protobuf = true;
		return true;
	case OPT_PROM_MAX_CGROUPS:
		opts.prom.max_cgroups = parse_count(arg, 100000, "--prom-max-cgroups");
		export_shaped = true;
		return true;
	case OPT_PROM_MAX_FLUSHERS:
		opts.prom.max_flushers = parse_count(arg, RSL_FLUSHERS - 1, "--prom-max-flushers");
		export_shaped = true;
		return true;
	case OPT_PROM_IDLE:
		opts.prom.idle_ns = (uint64_t)(parse_seconds(arg, "--prom-idle") * 1e9);
		export_shaped = true;
		return true;
	case OPT_USER:
		if (run_as_lookup(arg, &opts.run_as, &why))
			die(EXIT_USAGE, "invalid --user '%s': %s", arg, why);
		return true;
	}
	return false;
}

/*
 * The first "--" ends rstatlat's arguments: what follows is COMMAND, kept
 * from getopt (which would permute INTERVAL and COMMAND together). Returns
 * the argument count left for getopt.
 */
static int split_command(int argc, char **argv)
{
	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--"))
			continue;
		if (k + 1 == argc)
			die(EXIT_USAGE, "-- needs a command after it");
		opts.command = argv + k + 1;	/* argv[argc] is NULL */
		opts.command_argc = argc - k - 1;
		return k;
	}
	return argc;
}

/* A command's run ends when it exits: what would end it otherwise is refused. */
static void check_command_options(bool command_cgroup_given)
{
	if (!opts.command) {
		if (command_cgroup_given)
			die(EXIT_USAGE, "--command-cgroup needs -- COMMAND");
		return;
	}
	if (opts.duration || opts.count)
		die(EXIT_USAGE, "with -- COMMAND the run ends when COMMAND exits: no -d or COUNT");
	if (opts.probe_only)
		die(EXIT_USAGE, "--probe runs no command");
	if (opts.serve || opts.textfile || opts.run_as.switch_user)
		die(EXIT_USAGE, "-- COMMAND is for one run: not with --prometheus, --textfile "
		    "or --user");
}

static void parse_args(int argc, char **argv)
{
	static struct option long_opts[CLI_MAX_OPTS + 1];
	static char short_opts[2 * CLI_MAX_OPTS + 2];
	bool sort_given = false, command_cgroup_given = false;
	const char *why;
	int c;

	if (prom_buckets_parse(PROM_DEFAULT_BUCKETS, &opts.prom, &why))
		die(EXIT_RUNTIME, "internal error: default buckets: %s", why);
	argc = split_command(argc, argv);
	cli_getopt_tables(&rstatlat_cli, long_opts, short_opts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		if (parse_export_option(c, optarg))
			continue;
		switch (c) {
		case 'd': opts.duration = parse_seconds(optarg, "duration"); break;
		case 'p': opts.per_process = true; break;
		case 's':
			if (sort_key_parse(optarg, &opts.view.sort))
				die(EXIT_USAGE, "unknown sort key '%s' (see --help)", optarg);
			sort_given = true;
			break;
		case 'n': opts.view.rows = parse_count(optarg, 1000000, "row count"); break;
		case 'H': opts.view.histograms = true; break;
		case 'T': opts.view.timestamp = true; break;
		case 'c': opts.cgroup = optarg; break;
		case OPT_PID:
			opts.targ_tgid = parse_count(optarg, INT_MAX, "pid");
			if (!opts.targ_tgid)
				die(EXIT_USAGE, "invalid pid '0'");
			break;
		case 't':
			if (parse_duration(optarg, 1000, &opts.threshold_ns) || !opts.threshold_ns)
				die(EXIT_USAGE, "invalid threshold '%s': expected microseconds > 0",
				    optarg);
			break;
		case 'j': opts.json = true; break;
		case OPT_MAX_ENTRIES:
			opts.max_slots = parse_count(optarg, 1 << 24, "--max-entries");
			if (!opts.max_slots)
				die(EXIT_USAGE, "--max-entries must be at least 1");
			break;
		case OPT_PROBE: opts.probe_only = true; break;
		case OPT_IRQOFF:
			if (irqoff_pref_parse(optarg, &opts.irqoff))
				die(EXIT_USAGE, "unknown irqoff source '%s': auto, trace, lock, "
				    "sample, lock+sample or off", optarg);
			break;
		case OPT_SAMPLE_HZ:
			opts.sample_hz = parse_count(optarg, 100000, "--sample-hz");
			if (!opts.sample_hz)
				die(EXIT_USAGE, "--sample-hz must be at least 1");
			break;
		case OPT_ATTACH:
			if (source_pref_parse(optarg, &opts.source))
				die(EXIT_USAGE, "invalid --attach '%s': auto, tracepoint, fentry or "
				    "kprobe", optarg);
			break;
		case OPT_FLUSH: opts.view.flush = true; break;
		case OPT_FLUSH_PARTS:
			if (parts_pref_parse(optarg, &opts.parts))
				die(EXIT_USAGE, "invalid --flush-parts '%s': kernel, timed or off",
				    optarg);
			opts.parts_given = true;
			break;
		case OPT_CAUSE_SAMPLE:
			opts.cause_sample = parse_count(optarg, 1 << 20, "--cause-sample");
			opts.cause_sample_given = true;
			break;
		case OPT_LOCK_ROWS:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die(EXIT_USAGE, "invalid --lock-rows '%s': on or off", optarg);
			opts.lock_rows_on = !strcmp(optarg, "on");
			break;
		case 'o':
			if (!*optarg)
				die(EXIT_USAGE, "-o needs a file name");
			opts.output = optarg;
			break;
		case OPT_COMMAND_CGROUP:
			command_cgroup_given = true;
			opts.command_where = !strcmp(optarg, "new") ? COMMAND_CGROUP_NEW :
					     !strcmp(optarg, "none") ? COMMAND_CGROUP_NONE :
					     COMMAND_CGROUP_PATH;
			opts.command_cgroup = optarg;
			break;
		case 'v': opts.verbose = true; break;
		case 'V': printf("rstatlat %s\n", VERSION); exit(0);
		case 'h': cli_print_help(&rstatlat_cli, stdout); exit(0);
		case ':': die(EXIT_USAGE, "option '%s' needs an argument", argv[optind - 1]);
		default: die(EXIT_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	/* the flush table is about flushes: the slowest first, every part timed */
	if (opts.view.flush && !sort_given)
		opts.view.sort = SORT_FLUSH_P99;
	if (opts.view.flush && !opts.parts_given)
		opts.parts = PARTS_TIMED_WHERE_PRESENT;
	if (optind < argc)
		opts.interval = parse_seconds(argv[optind++], "interval");
	if (optind < argc) {
		opts.count = parse_count(argv[optind++], UINT64_MAX, "count");
		if (!opts.count)
			die(EXIT_USAGE, "count must be at least 1");
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
	/*
	 * live tables every second unless JSON, which defaults to one summary,
	 * or exporting, which then prints nothing
	 */
	if (!opts.serve && !opts.textfile && export_shaped)
		die(EXIT_USAGE, "--prom-* options need --prometheus or --textfile");
	if (!opts.serve && opts.prom.classic_in_protobuf)
		die(EXIT_USAGE, "--prom-classic needs --prometheus (a textfile is text only)");
	if (!opts.textfile && textfile_interval_given)
		die(EXIT_USAGE, "--textfile-interval needs --textfile");
	check_command_options(command_cgroup_given);
	opts.quiet = (opts.serve || opts.textfile) && !opts.interval && !opts.json && !opts.output;
	/* a table a second is for a terminal: a file or a command gets the summary */
	if (!opts.interval && !opts.json && !opts.quiet && !opts.output && !opts.command)
		opts.interval = 1;
}

/*
 * libbpf speaks only with -v: every failure it reports reaches the user as
 * rstatlat's own one line, which names what failed and suggests -v.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	if (!opts.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

/* An exporter's SIGHUP (systemctl reload): see reload(). */
static volatile sig_atomic_t reload_asked;

static void on_reload(int sig)
{
	(void)sig;
	reload_asked = 1;
}

static void check_environment(struct attach_plan *plan)
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

static void kernel_info(struct kernel_info *k)
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
static bool flushers_counted(const struct attach_plan *plan)
{
	return (opts.serve || opts.textfile) && opts.prom.max_flushers &&
	       plan->source == SOURCE_TRACEPOINT;
}

/* The record of the comms that find the others full: there before any flush. */
static int make_flushers_overflow(struct rstatlat_bpf *skel)
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

static void configure(struct rstatlat_bpf *skel, const struct attach_plan *plan,
		      unsigned int max_slots, int ncpus)
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

/* Kernel memory of the maps the defaults stay under; asking for more is said first. */
#define MAP_BYTES_SAID ((uint64_t)64 << 20)

/*
 * What the maps ask of the kernel, roughly: at the start (what grows with
 * --max-entries whatever is used: the slot map's buckets, the seen epochs,
 * the free list, the chunk tables; and the per-CPU state), and at
 * --max-entries entries in use (every chunk made: collect_chunks.c).
 */
static uint64_t planned_map_bytes(const struct attach_plan *plan, unsigned int max_slots,
				  int ncpus, bool ceiling)
{
	uint64_t per_slot = sizeof(__u64) + sizeof(__u32) + 2 * sizeof(void *);

	if (ceiling)
		per_slot += sizeof(struct slot_rec) +
			    sizeof(struct slot_key) + 64 /* hash element */ +
			    (plan->irqoff_trace ? sizeof(struct dist_rec) : 0);
	return per_slot * max_slots + (uint64_t)ncpus * sizeof(struct lock_state);
}

struct run {
	struct rstatlat_bpf *skel;
	struct bpf_link **tick_links;	/* --irqoff sample: one per online CPU */
	int nticks;
	bool virtual_machine;
	struct collector *collector;
	struct ring_buffer *rb;
	struct slow_ctx *slow;		/* -t: the ring buffer's printer */
	struct kernel_info kernel;
	struct self_meter self;
	const char *source;
	const struct attach_plan *plan;
	uint64_t start_real, start_mono, last_mono, last_real;
	struct prom_state *prom;	/* exporting: the Prometheus view's state */
	struct metrics_server *server;	/* --prometheus */
	int textfile_err;		/* the last rewrite's, to say so once */
};

/* What every report of this run carries beyond the collector's figures. */
static int describe_run(struct run *run, struct report *r)
{
	r->kernel = run->kernel;
	r->attach = run->source;
	r->locks = run->plan->locks;
	r->lock_rows = run->plan->lock_rows;
	r->lock_types = run->plan->lock_types;
	for (int i = 0; i < run->plan->n && r->nattach_points < MAX_ATTACH_POINTS; i++)
		if (run->plan->points[i].chosen)
			r->attach_points[r->nattach_points++] = run->plan->points[i].name;
	r->irqoff.sample_hz = run->plan->irqoff_sample ? (unsigned int)opts.sample_hz : 0;
	r->irqoff.sample_events = run->nticks;
	r->irqoff.virtual_machine = run->virtual_machine;
	memset(&r->self, 0, sizeof(r->self));
	self_window(&run->self, &r->self, r->type == REPORT_SUMMARY);
	collector_own_time(run->collector, r->type == REPORT_SUMMARY, &r->self.bpf_sampled_ns,
			   &r->self.lock_events);
	r->self.own_known = true;
	/* the per-slot maps' chunks are made as entries are used (collect_chunks.c) */
	r->self.map_bytes_ceiling = r->self.map_bytes +
				    collector_chunk_bytes_ceiling(run->collector);
	r->self.map_bytes += collector_chunk_bytes(run->collector);
	r->self.entries = run->skel->rodata->max_slots;
	r->self.entries_used = collector_entries_used(run->collector);
	if (r->type == REPORT_SUMMARY && workload_merge(&r->workload, &workload))
		return -1;
	return opts.command ? command_describe(&cmd, &r->command) : 0;
}

static int emit(struct run *run, struct report *r)
{
	int err = describe_run(run, r) ? -ENOMEM : 0;

	if (!err && opts.json)
		json_print(out, r);
	else if (!err)
		table_print(out, r, &opts.view);
	report_free(r);
	return err ? err : ferror(out) ? -EIO : 0;
}

static int emit_interval(struct run *run)
{
	struct report r;
	uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
	int err = collector_interval(run->collector, &r);

	if (err) {
		report_free(&r);
		return err;
	}
	r.start_ns = run->last_real;
	r.duration_ns = mono - run->last_mono;
	run->last_mono = mono;
	run->last_real = real;
	return emit(run, &r);
}

static int emit_summary(struct run *run)
{
	struct report r;
	int err = collector_summary(run->collector, &r);

	if (err) {
		report_free(&r);
		return err;
	}
	r.start_ns = run->start_real;
	r.duration_ns = clock_ns(CLOCK_MONOTONIC) - run->start_mono;
	return emit(run, &r);
}

/* The textfile could not be rewritten: one line when that starts or ends. */
static void note_textfile(struct run *run, int err)
{
	if (err == run->textfile_err)
		return;
	if (err)
		fprintf(stderr, "rstatlat: cannot rewrite %s: %s (the old one stays)\n",
			opts.textfile, outfile_why(err));
	else
		fprintf(stderr, "rstatlat: %s rewritten again\n", opts.textfile);
	run->textfile_err = err;
}

/*
 * The whole run as the Prometheus view shows it, for /metrics (every read)
 * and the textfile (when asked). Returns 0, -errno, or with textfile the
 * rewrite's -errno.
 */
static int export_refresh(struct run *run, bool textfile)
{
	struct prom_http_counts http = { 0 };
	uint64_t mono = clock_ns(CLOCK_MONOTONIC);
	char *text = NULL, *pb = NULL;
	size_t len = 0, pb_len = 0;
	struct report r;
	FILE *m, *m_pb = NULL;
	/* the text is built before the next read: the rows need not be copied */
	int err = opts.per_process ? collector_summary(run->collector, &r) :
		  collector_summary_shared(run->collector, &r);

	r.start_ns = run->start_real;
	r.duration_ns = mono - run->start_mono;
	if (!err && describe_run(run, &r))
		err = -ENOMEM;
	if (run->server) {
		metrics_counts(run->server, &http);
		if (metrics_protobuf_wanted(run->server, mono) &&
		    !(m_pb = open_memstream(&pb, &pb_len)))
			err = -ENOMEM;
	}
	m = open_memstream(&text, &len);
	if (!m)
		err = -ENOMEM;
	if (!err && prom_write(run->prom, &r, &http, mono, clock_ns(CLOCK_REALTIME), m, m_pb))
		err = -ENOMEM;
	if (m && fclose(m) && !err)
		err = -ENOMEM;
	if (m_pb && fclose(m_pb) && !err)
		err = -ENOMEM;
	report_free(&r);
	if (err) {
		free(text);
		free(pb);
		return err;
	}
	if (textfile)
		err = textfile_write(opts.textfile, text, len);
	if (run->server) {
		metrics_publish(run->server, text, len, pb, pb_len);
	} else {
		free(text);
		free(pb);
	}
	return err;
}

/*
 * Prints slow events for about ms (at least one when any waits). BPF
 * wakes the poll only once the ring is half full (an interrupt per event
 * would be rstatlat's own cost between holds), so what came meanwhile is
 * read after every wait; slow_handle ends the call at the deadline
 * however fast they come.
 */
static void read_slow_events(struct run *run, int ms)
{
	run->slow->until_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000;
	if (ring_buffer__poll(run->rb, ms) != SLOW_PAUSED)
		ring_buffer__consume(run->rb);
}

/*
 * The end: what waits is printed for a second at most (a flood would
 * keep the run going for as long as it lasts); the rest is counted
 * (lost.slow_unprinted), as fast as it comes, for 100 ms at most.
 */
static void drain_slow_events(struct run *run)
{
	run->slow->until_ns = clock_ns(CLOCK_MONOTONIC) + 1000000000ULL;
	if (ring_buffer__consume(run->rb) != SLOW_PAUSED)
		return;
	run->slow->counting = true;
	run->slow->until_ns = clock_ns(CLOCK_MONOTONIC) + 100000000ULL;
	ring_buffer__consume(run->rb);
	collector_set_slow_unprinted(run->collector, run->slow->unprinted);
}

/* Serves slow events for up to 10 ms: what a read does while it waits. */
static void serve_slow_events(void *run)
{
	read_slow_events(run, 10);
}

/* Waits until `deadline` (CLOCK_MONOTONIC ns), serving slow events. */
static void wait_until(struct run *run, uint64_t deadline)
{
	while (!exiting) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		int ms;

		/* a protobuf scrape waits for the refresh that makes it */
		if (now >= deadline || reload_asked ||
		    (run->server && metrics_refresh_wanted(run->server, now)))
			return;
		ms = (int)((deadline - now + 999999) / 1000000);
		if (ms > 100)
			ms = 100;
		if (run->rb)
			read_slow_events(run, ms);
		else
			usleep((useconds_t)ms * 1000);
	}
}

/*
 * The maps are read at least every second, whatever the interval: kernel
 * bucket counts wrap at 2^32, and slots of removed cgroups and exited
 * flushers are recycled by the reads.
 */
#define READ_PERIOD_NS 1000000000ULL

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* After a read: /metrics always, the textfile when it is due. */
static int export_after_read(struct run *run, uint64_t *next_textfile, uint64_t step)
{
	bool textfile = opts.textfile && clock_ns(CLOCK_MONOTONIC) >= *next_textfile;
	int err;

	if (!run->prom)
		return 0;
	if (textfile)
		*next_textfile = clock_ns(CLOCK_MONOTONIC) + step;
	err = export_refresh(run, textfile);
	if (textfile && err != -ENOMEM) {
		note_textfile(run, err);
		err = 0;
	}
	return err;
}

/*
 * The command has exited (or rstatlat failed: then it is asked to stop,
 * and killed 5 s later): reaped, and what it left in the cgroups made for
 * it killed, before the last read, so that the summary covers all of it.
 */
static void finish_command(int err)
{
	char why[512];
	int left;

	if (err)
		command_signal(&cmd, SIGTERM);
	for (int ms = 0; !command_exited(&cmd); ms++) {
		if (ms == 5000)
			command_signal(&cmd, SIGKILL);
		usleep(1000);
	}
	left = command_kill_leftovers(&cmd);
	if (left)
		fprintf(stderr, "rstatlat: killed %d process%s the command left in %s\n", left,
			left == 1 ? "" : "es", cmd.cg[0].path);
	/* the summary goes without them, said */
	if (command_workload(&cmd, &workload, why, sizeof(why)))
		warn("%s", why);
}

/*
 * An exporter's SIGHUP: what rstatlat read from the system and keeps is
 * read again (the kernel's symbols, which name causes, when a stack next
 * needs them; whether each cgroup still exists, at the next read), and it
 * goes on serving. Its options are read once, at the start: it attached as
 * root and runs without privileges now, so a change of them needs a
 * restart, which the line says.
 */
static void reload(struct run *run)
{
	reload_asked = 0;
	collector_reload(run->collector);
	warn("SIGHUP: kernel symbols and cgroups read again; options are read at the start "
	     "only (restart to change them)");
}

static int main_loop(struct run *run)
{
	uint64_t end = opts.duration ? run->start_mono + (uint64_t)(opts.duration * 1e9) : UINT64_MAX;
	uint64_t step = opts.interval ? (uint64_t)(opts.interval * 1e9) : UINT64_MAX;
	uint64_t next_emit = opts.interval ? run->start_mono + step : UINT64_MAX;
	uint64_t next_read = run->start_mono + READ_PERIOD_NS;
	uint64_t textfile_step = (uint64_t)(opts.textfile_interval * 1e9);
	uint64_t next_textfile = opts.textfile ? run->start_mono + textfile_step : UINT64_MAX;
	uint64_t printed = 0;
	int err = 0;

	while (!exiting && !err) {
		uint64_t wake = min_u64(min_u64(next_emit, next_read), next_textfile);

		wait_until(run, wake < end ? wake : end);
		if (exiting || clock_ns(CLOCK_MONOTONIC) >= end)
			break;
		if (reload_asked) {
			reload(run);
			continue;
		}
		err = collector_read(run->collector);
		next_read = clock_ns(CLOCK_MONOTONIC) + READ_PERIOD_NS;
		if (!err)
			err = export_after_read(run, &next_textfile, textfile_step);
		if (err || clock_ns(CLOCK_MONOTONIC) < next_emit)
			continue;
		next_emit += step;
		if (next_read > next_emit)
			next_read = next_emit;
		err = emit_interval(run);
		if (opts.count && ++printed >= opts.count)
			break;
	}
	if (run->rb)
		drain_slow_events(run);
	if (opts.command)
		finish_command(err);
	if (!err)
		err = collector_read(run->collector);
	if (!err && run->prom) {
		next_textfile = 0;	/* the last figures go to the textfile too */
		err = export_after_read(run, &next_textfile, 0);
	}
	/* exporting only: the textfile and /metrics had the last figures */
	return err || opts.quiet ? err : emit_summary(run);
}

/* "hypervisor" in /proc/cpuinfo's flags: a vCPU stall looks like irqs-off. */
static bool on_virtual_machine(void)
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
static void attach_ticks(struct run *run, int ncpus)
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

static void detach_ticks(struct run *run, int ncpus)
{
	for (int cpu = 0; run->tick_links && cpu < ncpus; cpu++)
		bpf_link__destroy(run->tick_links[cpu]);
	free(run->tick_links);
}

/* Exporting: the view's state, and the port bound while still root. */
static void start_export(struct run *run)
{
	const char *why;

	if (!opts.serve && !opts.textfile)
		return;
	/*
	 * Each refresh builds a summary of every row and its text, megabytes
	 * at 10 000 cgroups, and frees them: kept in the heap for the next
	 * one, not mapped afresh (page faults were a fifth of a refresh).
	 */
	mallopt(M_MMAP_THRESHOLD, EXPORT_HEAP_BYTES);
	mallopt(M_TRIM_THRESHOLD, 2 * EXPORT_HEAP_BYTES);
	run->prom = prom_new(&opts.prom);
	if (!run->prom)
		die(EXIT_RUNTIME, "out of memory");
	if (!opts.serve)
		return;
	run->server = metrics_serve(&opts.listen, &why);
	if (!run->server)
		die(EXIT_ENV, "cannot serve on %s: %s", opts.listen.shown, why);
}

static bool output_dir_unwritable(void)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", outfile.path);
	slash = strrchr(dir, '/');
	if (!slash)
		return access(".", W_OK | X_OK) != 0;
	slash[slash == dir] = '\0';
	return access(dir, W_OK | X_OK) != 0;
}

/* Everything that needs privileges is done: attached, kallsyms read, bound. */
static void drop_privileges(struct run *run)
{
	struct bpf_map *probe_map = run->skel->maps.slot_seen;
	/* making the per-slot maps' chunks as cgroups come needs CAP_BPF too */
	bool grows = collector_can_grow(run->collector);
	bool keep = grows ||
		    map_read_needs_cap_bpf(bpf_map__fd(probe_map), bpf_map__value_size(probe_map));
	const char *why;

	if (privilege_drop(&opts.run_as, keep, &why))
		die(EXIT_ENV, "%s%s%s: %s", why, opts.run_as.switch_user ? " to " : "",
		    opts.run_as.switch_user ? opts.run_as.name : "", strerror(errno));
	/* -o FILE is renamed into place at the end, as USER */
	if (outfile.f && opts.run_as.switch_user && output_dir_unwritable())
		die(EXIT_ENV, "%s cannot write %s's directory", opts.run_as.name, opts.output);
	if (opts.verbose)
		fprintf(stderr, "rstatlat: running as uid %u, %s\n", (unsigned int)getuid(),
			grows ? "keeping CAP_BPF (to make map chunks as entries are used)" :
			keep ? "keeping CAP_BPF (this kernel needs it to read maps)" :
			"no capabilities");
}

/*
 * The first figures, before the first read: /metrics answers 503 only
 * until now, and the textfile exists from the start or rstatlat says why
 * it cannot.
 */
static void first_export(struct run *run)
{
	int err;

	if (!run->prom)
		return;
	err = export_refresh(run, opts.textfile != NULL);
	if (err == -ENOMEM)
		die(EXIT_RUNTIME, "out of memory");
	if (err)
		die(EXIT_ENV, "cannot write %s: %s", opts.textfile, outfile_why(err));
}

/* Whatever way rstatlat ends: no temporary file and no cgroup of its own left behind. */
static void clean_up(void)
{
	char why[PATH_MAX + 64];

	outfile_abort(&outfile);
	if (command_cleanup(&cmd, why, sizeof(why)))
		fprintf(stderr, "rstatlat: %s\n", why);
}

/* Before anything is traced: a FILE that cannot be written fails the run at once. */
static void open_output(void)
{
	int err;

	out = opts.command ? stderr : stdout;
	if (!opts.output || !strcmp(opts.output, "-")) {
		if (opts.output)
			out = stdout;
		return;
	}
	err = outfile_open(&outfile, opts.output, OUTFILE_MODE_LIKE_SHELL);
	if (err)
		die(EXIT_ENV, "cannot write %s: %s", opts.output, outfile_why(err));
	out = outfile.f;
}

/* The reports are complete: FILE appears, whole. Returns 0 or -errno. */
static int close_output(void)
{
	int err;

	if (out != outfile.f)
		return fflush(out) ? -EIO : 0;
	err = outfile_commit(&outfile);
	out = stdout;
	if (err)
		fprintf(stderr, "rstatlat: cannot write %s: %s\n", opts.output, outfile_why(err));
	return err;
}

/* The command's cgroups, made or found before anything loads: a failure costs nothing. */
static void prepare_command(const struct cg_table *cg)
{
	char why[PATH_MAX + 64];

	cmd.argv = opts.command;
	cmd.argc = opts.command_argc;
	if (command_cgroups(&cmd, cg, opts.command_where, opts.command_cgroup, why, sizeof(why)))
		die(opts.command_where == COMMAND_CGROUP_PATH && strstr(why, "bad --") ?
		    EXIT_USAGE : EXIT_ENV, "%s", why);
}

static void on_child(int sig)
{
	(void)sig;
	exiting = 1;
}

/*
 * While the command runs, a signal sent to rstatlat goes on to it and the
 * run ends when it exits. One from the terminal (si_code SI_KERNEL)
 * reached the command's process group already: not sent twice.
 */
static void forward_signal(int sig, siginfo_t *si, void *unused)
{
	(void)unused;
	if (si->si_code <= 0)
		command_signal(&cmd, sig);
}

/* Traced from here on: the command starts now. */
static void start_command(void)
{
	struct sigaction child = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	struct sigaction fwd = { .sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO };
	char why[PATH_MAX + 64], name[256];
	int err;

	sigaction(SIGCHLD, &child, NULL);
	if (command_fork(&cmd, why, sizeof(why)))
		die(EXIT_ENV, "%s", why);
	sigaction(SIGINT, &fwd, NULL);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	err = command_release(&cmd);
	if (err) {
		term_escape(name, sizeof(name), cmd.argv[0]);
		die(EXIT_USAGE, "cannot run %s: %s", name, strerror(err));
	}
}

/* 0, 1 for rstatlat's own failure, or the command's status. */
static int exit_status(int err)
{
	int sig;

	if (err)
		return EXIT_RUNTIME;
	if (!opts.command)
		return 0;
	return command_status(&cmd, &sig);
}

int main(int argc, char **argv)
{
	struct run run = { 0 };
	struct attach_plan plan;
	struct cg_table cg;
	struct cg_filter filter;
	struct slow_ctx slow = { 0 };
	struct collect_sources sources;
	struct ksyms *ksyms = NULL;
	unsigned int max_slots;
	int ncpus, err;
	const char *why;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return compare_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "load"))
		return load_main(argc - 1, argv + 1);
	/*
	 * A fixed threshold: freeing the megabytes of parsed kernel BTF would
	 * raise glibc's moving one to their size, and later big blocks (the
	 * kallsyms of cause naming) would come from the heap and stay
	 * resident after they are freed: 4 MiB more RSS after a churn.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	parse_args(argc, argv);
	atexit(clean_up);
	open_output();
	check_environment(&plan);
	if (opts.probe_only) {
		probe_print(out, &plan);
		close_output();
		return plan.usable ? 0 : EXIT_ENV;
	}
	if (!plan.usable)
		die(EXIT_ENV, "%s", plan.missing);
	if (cg_table_load(&cg, "/proc/cgroups", "/proc/self/mountinfo", "/proc/self/cgroup"))
		die(EXIT_ENV, "cannot read /proc/cgroups or /proc/self/mountinfo");
	/* the cgroup itself, however spelled: a typo is refused, not traced as nothing */
	if (opts.cgroup && (cg_parse_filter(&cg, opts.cgroup, &filter, &why) ||
			    cg_resolve_filter(&cg, &filter, &why)))
		die(EXIT_USAGE, "bad cgroup '%s': %s", opts.cgroup, why);
	if (opts.command)
		prepare_command(&cg);
	opts.view.clear = isatty(fileno(out)) && opts.interval > 0;
	signal(SIGPIPE, SIG_IGN);
	libbpf_set_print(libbpf_print);
	if (opts.verbose)
		probe_print(stderr, &plan);

	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		die(EXIT_ENV, "cannot read the possible CPU count");
	max_slots = opts.max_slots ? (unsigned int)opts.max_slots : DEFAULT_MAX_SLOTS;
	run.skel = rstatlat_bpf__open();
	if (!run.skel)
		die(EXIT_RUNTIME, "cannot open the BPF object: %s", strerror(errno));
	configure(run.skel, &plan, max_slots, ncpus);
	/* past what the defaults cost, the cost is said before it is paid */
	if (planned_map_bytes(&plan, max_slots, ncpus, true) > MAP_BYTES_SAID)
		fprintf(stderr, "rstatlat: --max-entries %u: the maps grow with the entries in use "
			"to about %.0f MiB at %u (%.0f MiB at the start; the defaults stay under "
			"%llu MiB)\n", max_slots,
			(double)planned_map_bytes(&plan, max_slots, ncpus, true) / (1 << 20), max_slots,
			(double)planned_map_bytes(&plan, max_slots, ncpus, false) / (1 << 20),
			(unsigned long long)(MAP_BYTES_SAID >> 20));
	err = rstatlat_bpf__load(run.skel);
	if (err == -ENOMEM || err == -E2BIG)
		die(EXIT_ENV, "cannot create the BPF maps for %u entries: about %.1f MiB of kernel "
		    "memory asked for (%s); try a smaller --max-entries or -v", max_slots,
		    (double)planned_map_bytes(&plan, max_slots, ncpus, false) / (1 << 20),
		    strerror(-err));
	if (err)
		die(err == -EPERM ? EXIT_ENV : EXIT_RUNTIME, "cannot load the BPF programs: %s%s",
		    strerror(-err), opts.verbose ? "" : " (-v shows the verifier log)");
	if ((opts.serve || opts.textfile) && opts.prom.max_flushers && !flushers_counted(&plan))
		fprintf(stderr, "rstatlat: flushers are not counted by comm with the flush functions "
			"(%s): no rstatlat_flusher_* series\n", plan.source_name);
	if (make_flushers_overflow(run.skel))
		die(EXIT_RUNTIME, "cannot make the flushers' overflow record: %s", strerror(errno));
	self_start(&run.self, run.skel->obj);
	if (opts.verbose)
		self_map_bytes(run.skel->obj, stderr);
	err = rstatlat_bpf__attach(run.skel);
	if (err)
		die(EXIT_ENV, "cannot attach (%s): %s%s", plan.source_name, strerror(-err),
		    opts.verbose ? "" : " (-v shows libbpf's messages)");
	if (plan.irqoff_sample)
		attach_ticks(&run, ncpus);
	run.virtual_machine = on_virtual_machine();

	sources = (struct collect_sources){
		.irqoff_trace = plan.irqoff_trace,
		.irqoff_lock = plan.irqoff_lock,
		.irqoff_sample = plan.irqoff_sample,
		.cpu_lock = plan_has_cpu_lock(&plan),
		.irqoff_source = plan.irqoff_source,
		.intervals = opts.interval > 0,
		.flush_parts = plan.flush_parts,
		.parts_from = plan.parts_from,
		.parts_measured = plan.parts_measured,
		.cause_sample = run.skel->rodata->cause_sample,
		.cause_budgeted = run.skel->rodata->cause_budgeted,
		.memcg_decisions = plan.memcg_decisions,
		.lock_names = plan.lock_rows ? plan.lock_names : NULL,
		.flushers = run.skel->rodata->count_flushers,
		.cgroups_gone = plan.cgroups_gone,
	};
	/*
	 * kallsyms takes a tenth of a second to read: read at start only for
	 * -t, or when privileges are to be dropped (it shows zeros to others);
	 * else the collector reads it when a flush stack first needs a name.
	 */
	if (opts.threshold_ns ||
	    (sources.cause_sample && (opts.run_as.switch_user || opts.serve || opts.textfile)))
		ksyms = ksyms_load(KALLSYMS);
	sources.ksyms = ksyms;
	run.collector = collector_new(run.skel, &cg, opts.cgroup ? &filter : NULL,
				      opts.per_process, ncpus, max_slots, &sources);
	if (!run.collector)
		die(EXIT_RUNTIME, "cannot make the collector: %s", strerror(errno ? errno : ENOMEM));
	/* counting begins once the first chunks of the maps are made (collect_chunks.c) */
	run.skel->bss->armed = 1;
	kernel_info(&run.kernel);
	run.source = plan.source_name;
	run.plan = &plan;
	if (opts.threshold_ns) {
		slow.out = out;
		slow.json = opts.json;
		slow.threshold_ns = opts.threshold_ns;
		slow.mono_to_real_ns = (int64_t)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
		slow.collector = run.collector;
		slow.cg = &cg;
		slow.cgroup_filter = opts.cgroup != NULL;
		slow.ksyms = ksyms;
		run.rb = ring_buffer__new(bpf_map__fd(run.skel->maps.events), slow_handle,
					  &slow, NULL);
		if (!run.rb)
			die(EXIT_RUNTIME, "cannot create the ring buffer: %s", strerror(errno));
		run.slow = &slow;
		collector_set_waiter(run.collector, serve_slow_events, &run);
	}
	run.start_mono = run.last_mono = clock_ns(CLOCK_MONOTONIC);
	run.start_real = run.last_real = clock_ns(CLOCK_REALTIME);
	start_export(&run);
	if (opts.run_as.switch_user || run.prom)
		drop_privileges(&run);
	/* after the drop: a thread keeps the capabilities it was started with */
	if (collector_grower_start(run.collector))
		die(EXIT_RUNTIME, "cannot start the maps' grower: %s", strerror(errno));
	first_export(&run);
	/*
	 * A closed terminal (SIGHUP) ends the run as Ctrl-C does, with its
	 * summary; an exporter's is a reload (systemctl reload), not an end.
	 */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, run.prom ? on_reload : on_signal);
	fprintf(stderr, "rstatlat: tracing cgroup rstat lock (%s, irqs-off from %s, %u entries)%s%s%s; "
		"%s\n", plan.source_name, plan.irqoff_source, max_slots,
		opts.serve ? ", serving http://" : "", opts.serve ? opts.listen.shown : "",
		opts.serve ? "/metrics" : "", opts.command ? "until the command exits" :
		"Ctrl-C to end");
	if (opts.command)
		start_command();

	err = main_loop(&run);
	metrics_refreshes_over(run.server);
	if (err)
		fprintf(stderr, "rstatlat: %s\n",
			err == -EIO ? "cannot write output" : strerror(-err));
	if (!err)
		err = close_output();
	/* the last figures never reached the textfile: a run that says it worked would hide it */
	if (!err && run.textfile_err) {
		fprintf(stderr, "rstatlat: %s holds older figures: its last rewrite failed (%s)\n",
			opts.textfile, outfile_why(run.textfile_err));
		err = run.textfile_err;
	}
	metrics_stop(run.server);
	prom_free(run.prom);
	ring_buffer__free(run.rb);
	detach_ticks(&run, ncpus);
	ksyms_free(ksyms);
	collector_free(run.collector);
	rstatlat_bpf__destroy(run.skel);
	cg_table_free(&cg);
	return exit_status(err);
}
