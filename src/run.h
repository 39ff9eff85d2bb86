/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of rstatlat: its options (the CLI's, main.c), its state, and
 * what its files call in one another: main.c (the CLI and the run's
 * lifecycle), attach.c (the BPF object configured from the probe's plan,
 * the cpu-clock ticks) and emit.c (the run's reports: described, printed,
 * exported).
 */
#ifndef RSTATLAT_RUN_H
#define RSTATLAT_RUN_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include "collect.h"
#include "command.h"
#include "fmt.h"
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

struct options {
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
};

extern struct options opts;

/*
 * Where reports go: stdout, -o FILE's temporary file, or with a command
 * and no -o stderr (as perf stat's counts), so that they do not mix with
 * what COMMAND prints.
 */
extern FILE *report_out;
extern struct outfile report_outfile;

/* Kernel memory of the maps the defaults stay under; asking for more is said first. */
#define MAP_BYTES_SAID ((uint64_t)64 << 20)

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
	struct command *cmd; /* -- COMMAND (opts.command) */
	/* what the command's workload wrote for the summary (command_workload) */
	struct workload_info *workload;
};

static inline __attribute__((format(printf, 1, 2))) void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn("rstatlat", fmt, ap);
	va_end(ap);
}

static inline __attribute__((noreturn, format(printf, 2, 3))) void die(int code, const char *fmt,
								       ...)
{
	va_list ap;

	/* messages quote arguments and paths: vdie keeps them inert */
	va_start(ap, fmt);
	vdie("rstatlat", code, fmt, ap);
	va_end(ap); /* not reached: each va_start has its va_end */
}

/* attach.c */
void check_environment(struct attach_plan *plan);
void kernel_info(struct kernel_info *k);
bool flushers_counted(const struct attach_plan *plan);
int make_flushers_overflow(struct rstatlat_bpf *skel);
void configure(struct rstatlat_bpf *skel, const struct attach_plan *plan, unsigned int max_slots,
	       int ncpus);
uint64_t planned_map_bytes(const struct attach_plan *plan, unsigned int max_slots, int ncpus,
			   bool ceiling);
bool on_virtual_machine(void);
void attach_ticks(struct run *run, int ncpus);
void detach_ticks(struct run *run, int ncpus);

/* emit.c */
int emit_interval(struct run *run);
int emit_summary(struct run *run);
void read_slow_events(struct run *run, int ms);
void drain_slow_events(struct run *run);
void serve_slow_events(void *run);
int export_after_read(struct run *run, uint64_t *next_textfile, uint64_t step);
void start_export(struct run *run);
void first_export(struct run *run);
void output_open(void);
int output_close(void);

#endif /* RSTATLAT_RUN_H */
