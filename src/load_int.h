/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstatlat load's parts: the cgroups a workload makes and the tasks in
 * them (load_cg.c), the reader threads and their figures (load_read.c),
 * their one-line messages (load_msg.c), and the CLI and views (load.c).
 */
#ifndef RSTATLAT_LOAD_INT_H
#define RSTATLAT_LOAD_INT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "clock.h"
#include "report.h"

#define LOAD_EXIT_READ	1
#define LOAD_EXIT_USAGE	2
#define LOAD_EXIT_ENV	3

/* The cgroups a workload made, and the tasks it keeps in them. */
struct load_cgroups {
	char base[PATH_MAX];	/* rstatlat-load-PID */
	char (*dir)[PATH_MAX];	/* the cgroups read: base/cN, or base itself (a memcg) */
	pid_t *busy;		/* hammer: one busy task a cgroup */
	int n;
	bool base_made;
	bool v2;		/* which hierarchy base is in */
	bool given;		/* --in, --below: the user's cgroups, read as they are */
	bool other_v1;		/* ... in a v1 hierarchy, no memory.* read */
	/* poller with memory files where v2 has no memory controller: v1 twins */
	char mem_base[PATH_MAX];
	char (*mem_dir)[PATH_MAX];	/* where memory.* is read: the twins, or dir */
	bool mem_base_made;
	/* stat-reader: hogs charging memory in base until OOM-killed, restarted */
	pid_t *hogs;
	int nhogs;
	uint64_t oom_kills_before;
	long hogs_started;
};

#define LOAD_FILES_MAX 4

/* What the readers do: each read one of files of one of cg's cgroups. */
struct read_job {
	const char *files[LOAD_FILES_MAX];
	int nfiles;
	struct load_cgroups *cg;
	long reads;		/* per thread; 0: for duration_ns from the readers' start */
	uint64_t duration_ns;
	uint64_t interval_ns;	/* poller: every file of every cgroup once an interval (a round) */
	size_t touch;		/* poller: bytes written between rounds (an agent's other work) */
};

/* The figures of a run. */
struct load_figures {
	long reads;
	uint64_t wall_ns;
	struct dist lat;	/* each read's latency, in hist.h's buckets */
	long rounds, rounds_late;	/* poller: rounds, and those longer than the interval */
	struct dist round;	/* ... each round's latency */
	int signal;		/* the one that stopped it early, else 0 */
};

void load_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* One line on stderr, escaped, and on. */
void load_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* hammer: n cgroups below the v2 mount (or the command's v2 cgroup), a busy task in each. */
int load_busy_cgroups(struct load_cgroups *c, int n, char *why, size_t len);
/*
 * hammer --in, poller --below: the cgroup at dir, or those below it (each
 * child directory, by name), read as they are: nothing made in them,
 * moved or removed. memory: memory.* is read (the hierarchy reported).
 */
int load_given_cgroups(struct load_cgroups *c, const char *dir, bool below, bool memory,
		       char *why, size_t len);
/*
 * poller: n containers, each a v2 cgroup (and, with memory, a memcg: v2's
 * own where its root enables memory, else a v1 twin) with a task that runs
 * and charges a little now and then.
 */
int load_containers(struct load_cgroups *c, int n, bool memory, char *why, size_t len);
/* Whether file is the memory controller's (memory.stat, ...): read in a memcg. */
static inline bool load_memory_file(const char *file)
{
	return !strncmp(file, "memory.", 7);
}
/* The directory of cgroup i where file is read. */
const char *load_dir_of(const struct load_cgroups *c, int i, const char *file);
/*
 * stat-reader: one memcg with a memory limit (v2 where memory is enabled at
 * its root, else v1's memory hierarchy), and nhogs hogs in it.
 */
int load_memcg(struct load_cgroups *c, uint64_t limit, char *why, size_t len);
int load_hogs_start(struct load_cgroups *c, int nhogs, char *why, size_t len);
/* Reaps the hogs that died and starts others (unless stopping). */
void load_hogs_tend(struct load_cgroups *c, bool stopping);
/* OOM kills in the memcg since it was made. */
uint64_t load_oom_kills(const struct load_cgroups *c);
/* Kills (and reaps) the tasks the workload started: no hog is killed by OOM after it. */
void load_tasks_kill(struct load_cgroups *c);
/* Kills what the workload started and removes its cgroups. Idempotent; -1 if one stays. */
int load_cgroups_remove(struct load_cgroups *c);
/* Whether the host has swap on (/proc/swaps): hogs must not reach it. */
bool load_swap_on(void);

/*
 * Runs threads readers of job, taking signals (and tending job's hogs) on
 * the calling thread meanwhile. Returns 0, or an errno with *opening
 * telling an open's failure from a read's.
 */
int load_read(const struct read_job *job, int threads, const sigset_t *signals,
	      struct load_figures *f, bool *opening);

#endif
