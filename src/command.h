/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstatlat [OPTIONS] -- COMMAND [ARGS]: runs COMMAND in a cgroup of its
 * own (or one given, or none), traced from before it starts until it
 * exits, as `perf stat -- cmd` does. main.c drives it; this file owns
 * the child process and the cgroups made for it.
 */
#ifndef RSTATLAT_COMMAND_H
#define RSTATLAT_COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cgroup.h"
#include "report.h"

enum command_where {
	COMMAND_CGROUP_NEW,	/* rstatlat-PID in v2 and v1 memory; removed at the end */
	COMMAND_CGROUP_NONE,	/* stays in rstatlat's own cgroups; none named */
	COMMAND_CGROUP_PATH,	/* an existing cgroup (-c syntax); left as it is */
};

/* The environment variable that tells COMMAND its cgroup's directory. */
#define COMMAND_CGROUP_ENV "RSTATLAT_CGROUP"
/*
 * ... and the descriptor of a memfd where a workload it runs (rstatlat
 * load) writes its figures, for the summary (report.workload). The memfd's
 * name, as /proc/PID/fd shows it, tells it from another file of that number.
 */
#define WORKLOAD_FD_ENV "RSTATLAT_WORKLOAD_FD"
#define WORKLOAD_MEMFD_NAME "rstatlat-workload"
#define WORKLOAD_MEMFD_LINK "/memfd:" WORKLOAD_MEMFD_NAME

struct command_cg {
	uint32_t hierarchy;
	uint64_t id;
	bool made;		/* created here: emptied and removed at the end */
	char dir[PATH_MAX];	/* its directory on this host */
	char path[PATH_MAX];	/* as rows spell it: "/a/b", "memory:/a/b" */
};

struct command {
	char **argv;
	int argc;
	pid_t pid;		/* 0 until forked */
	int go_fd;		/* the child execs once a byte arrives here */
	int err_fd;		/* the child's exec errno, or EOF once it has exec'd */
	int workload_fd;		/* the memfd of WORKLOAD_FD_ENV, or -1 */
	struct command_cg cg[COMMAND_CGROUPS_MAX];
	int ncg;
	bool reaped;
	int wstatus;
};

/*
 * Finds (PATH) or makes (NEW) the command's cgroups. Returns 0, or -1 with
 * one line in why.
 */
int command_cgroups(struct command *c, const struct cg_table *t, enum command_where where,
		    const char *path, char *why, size_t len);
/*
 * Forks the child and moves it into the cgroups; it waits, not yet
 * exec'd, until command_release(). Returns 0, or -1 with why.
 */
int command_fork(struct command *c, char *why, size_t len);
/* Lets the child exec. Returns 0, or the errno exec failed with (the child is reaped). */
int command_release(struct command *c);
/* Whether the child has exited (reaps it). */
bool command_exited(struct command *c);
/* Forwards a signal to the running child. Async-signal-safe. */
void command_signal(const struct command *c, int sig);
/*
 * Kills what the command left running in the cgroups made for it and
 * the cgroups it made below them, and waits (up to a few seconds) until
 * they are empty. Returns how many processes there were.
 */
int command_kill_leftovers(struct command *c);
/*
 * Kills the child if it still runs, then empties and removes the cgroups
 * made for it, and those the command made below them. Idempotent. Returns 0, or -1 with why when a cgroup could
 * not be removed.
 */
int command_cleanup(struct command *c, char *why, size_t len);
/* As a shell gives it: the exit code, or 128 + the signal (in *sig, else 0). */
int command_status(const struct command *c, int *sig);
/*
 * What a workload the command ran (rstatlat load) wrote to WORKLOAD_FD_ENV:
 * its figures in w, or w empty when none wrote. Returns 0, or -1 with one
 * line in why (then w is empty).
 */
int command_workload(struct command *c, struct workload_info *w, char *why, size_t len);
/* What the report says of it (deep copy). Returns 0, or -1 out of memory. */
int command_describe(const struct command *c, struct command_info *out);

#endif
