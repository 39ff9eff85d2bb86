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
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "compare_cli.h"
#include "load.h"
#include "escape.h"
#include "ksym.h"
#include "options.h"
#include "prom.h"
#include "run.h"

#define VERSION "0.1.0"
/*
 * Room for 10 000 cgroups (or cgroup x process pairs with -p): about 59 MiB
 * of kernel memory, whatever the number of CPUs (docs/performance.md).
 */
#define DEFAULT_MAX_SLOTS 10000
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

struct options opts = {
	.view = { .sort = SORT_HOLD_P99, .rows = 20 },
	.sample_hz = DEFAULT_SAMPLE_HZ,
	.cause_sample = DEFAULT_CAUSE_SAMPLE,
	.textfile_interval = DEFAULT_TEXTFILE_INTERVAL_S,
	.prom = { .max_cgroups = PROM_DEFAULT_MAX_CGROUPS,
		  .max_flushers = PROM_DEFAULT_MAX_FLUSHERS,
		  .idle_ns = DEFAULT_PROM_IDLE_S * 1000000000ULL,
		  .version = VERSION },
};

static volatile sig_atomic_t exiting;

static struct command cmd = { .go_fd = -1, .err_fd = -1, .workload_fd = -1 };
/* what the command's workload wrote for the summary (run.workload) */
static struct workload_info workload;

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



static bool output_dir_unwritable(void)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", report_outfile.path);
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
	if (report_outfile.f && opts.run_as.switch_user && output_dir_unwritable())
		die(EXIT_ENV, "%s cannot write %s's directory", opts.run_as.name, opts.output);
	if (opts.verbose)
		fprintf(stderr, "rstatlat: running as uid %u, %s\n", (unsigned int)getuid(),
			grows ? "keeping CAP_BPF (to make map chunks as entries are used)" :
			keep ? "keeping CAP_BPF (this kernel needs it to read maps)" :
			"no capabilities");
}


/* Whatever way rstatlat ends: no temporary file and no cgroup of its own left behind. */
static void clean_up(void)
{
	char why[PATH_MAX + 64];

	outfile_abort(&report_outfile);
	if (command_cleanup(&cmd, why, sizeof(why)))
		fprintf(stderr, "rstatlat: %s\n", why);
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
	struct run run = { .cmd = &cmd, .workload = &workload };
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
	output_open();
	check_environment(&plan);
	if (opts.probe_only) {
		probe_print(report_out, &plan);
		output_close();
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
	opts.view.clear = isatty(fileno(report_out)) && opts.interval > 0;
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
		slow.out = report_out;
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
		err = output_close();
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
