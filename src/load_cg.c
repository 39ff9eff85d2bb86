// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroups rstatlat load makes and the tasks it keeps in them: a busy
 * task in each of hammer's cgroups, so that every read has updates to
 * flush; stat-reader's memcg, its limit set before any hog starts so that
 * only it ever OOMs, and its hogs, each moved in before it allocates
 * (it waits on a pipe until then) and restarted as the OOM killer takes
 * them. Every task is killed and every cgroup removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include "cgroup.h"
#include "command.h"
#include "load_int.h"

/* A busy task runs BUSY_RUN_US every BUSY_PERIOD_US (1% of a CPU). */
#define BUSY_RUN_US	100
#define BUSY_PERIOD_US	10000
/* A hog charges HOG_CHUNK at a time, HOG_PAUSE_US apart: 1 GiB/s at most. */
#define HOG_CHUNK	(1 << 20)
#define HOG_PAUSE_US	1000
/* A container's task also charges and frees this much each period. */
#define CONTAINER_CHURN	(256 << 10)
#define RMDIR_TRIES	250	/* 5 s at 20 ms: a killed task leaves its cgroup once reaped */

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int join(const char *dir, pid_t pid)
{
	char text[24];

	snprintf(text, sizeof(text), "%d", (int)pid);
	return cg_write_file(dir, "cgroup.procs", text);
}

/* Whether a hierarchy's directory enables a controller for its children. */
static bool enables(const char *dir, const char *controller)
{
	char path[PATH_MAX + 32], line[512], *tok, *save;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && !found; tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, controller);
	fclose(f);
	return found;
}

/* The child's side of a fork: named (the OOM killer's log, -p rows), dies with the load alone. */
static void child_setup(pid_t parent, const char *comm)
{
	sigset_t none;

	/* the terminal's ^C reaches the process group: the load alone stops, and kills them */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, comm);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
}

static void busy_task(void)
{
	for (;;) {
		uint64_t until = clock_ns(CLOCK_MONOTONIC) + BUSY_RUN_US * 1000ULL;

		while (clock_ns(CLOCK_MONOTONIC) < until)
			;
		sleep_us(BUSY_PERIOD_US - BUSY_RUN_US);
	}
}

/* A container's task: busy as busy_task, and charging and freeing CONTAINER_CHURN each period. */
static void container_task(void)
{
	for (;;) {
		uint64_t until = clock_ns(CLOCK_MONOTONIC) + BUSY_RUN_US * 1000ULL;
		char *p = mmap(NULL, CONTAINER_CHURN, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		for (size_t i = 0; p != MAP_FAILED && i < CONTAINER_CHURN; i += 4096)
			p[i] = 1;
		if (p != MAP_FAILED)
			munmap(p, CONTAINER_CHURN);
		while (clock_ns(CLOCK_MONOTONIC) < until)
			;
		sleep_us(BUSY_PERIOD_US - BUSY_RUN_US);
	}
}

/* Charges memory until the OOM killer takes it. */
static void hog_task(void)
{
	for (;;) {
		char *p = mmap(NULL, HOG_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			sleep_us(HOG_PAUSE_US);
			continue;
		}
		for (size_t i = 0; i < HOG_CHUNK; i += 4096)
			p[i] = 1;
		sleep_us(HOG_PAUSE_US);
	}
}

enum task_kind { TASK_BUSY, TASK_CONTAINER, TASK_HOG };

static const char *const task_comm[] = {
	[TASK_BUSY] = "rstatlat-busy", [TASK_CONTAINER] = "rstatlat-box", [TASK_HOG] = "rstatlat-hog",
};

/* The child: waits until it is in its cgroups (a byte comes), then does its kind's work. */
static void task_main(int go_fd, enum task_kind kind)
{
	ssize_t n;
	char byte;

	while ((n = read(go_fd, &byte, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(0);	/* not moved: it must not charge anywhere else */
	close(go_fd);
	if (kind == TASK_HOG)
		hog_task();
	if (kind == TASK_CONTAINER)
		container_task();
	busy_task();
}

/* Forks a task into dir (and dir2 when given). Returns its pid, or -errno. */
static pid_t start_task(const char *dir, const char *dir2, enum task_kind kind)
{
	pid_t parent = getpid(), pid;
	int go[2], err;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	if (!pid) {
		child_setup(parent, task_comm[kind]);
		close(go[1]);
		task_main(go[0], kind);
	}
	err = join(dir, pid);
	if (!err && dir2)
		err = join(dir2, pid);
	if (!err && write(go[1], "g", 1) != 1)
		err = -errno;
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(go[0]);
	close(go[1]);
	return err ? err : pid;
}

static int table_load(struct cg_table *t, char *why, size_t wlen)
{
	if (!cg_table_load(t, "/proc/cgroups", "/proc/self/mountinfo", "/proc/self/cgroup"))
		return 0;
	snprintf(why, wlen, "cannot read the cgroup hierarchies (/proc/self/mountinfo)");
	return -1;
}

/* Where hammer's cgroups go: the command's cgroup when it is v2's, else v2's root. */
static int v2_dir(char *dir, size_t len, bool below_command, bool *own, char *why, size_t wlen)
{
	const char *command_dir = getenv(COMMAND_CGROUP_ENV);
	struct cg_table t = { 0 };
	const struct cg_hier *v2;
	int err = 0;

	if (table_load(&t, why, wlen))
		return -1;
	v2 = cg_hier_find(&t, 0);
	if (!v2 || !v2->mounted) {
		snprintf(why, wlen, "cgroup v2 is not mounted here");
		err = -1;
	} else if (below_command && command_dir &&
		   !strncmp(command_dir, v2->mount, strlen(v2->mount))) {
		snprintf(dir, len, "%s", command_dir);
		*own = true;
	} else {
		snprintf(dir, len, "%s", v2->mount);
	}
	cg_table_free(&t);
	return err;
}

/*
 * This process's cgroup in v1 hierarchy id, from /proc/self/cgroup
 * ("4:memory:/rstatlat-9"): its directory on the mount (whose root may be
 * another cgroup's: a container's). -1 where it has none here.
 */
static int own_v1_dir(const struct cg_table *t, uint32_t id, char *dir, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[PATH_MAX + 64], *path;
	unsigned int got;
	int ret = -1;

	while (f && ret && fgets(line, sizeof(line), f)) {
		path = strchr(line, ':') ? strchr(strchr(line, ':') + 1, ':') : NULL;
		if (!path || sscanf(line, "%u:", &got) != 1 || got != id || path[1] != '/')
			continue;
		path[strcspn(path, "\n")] = '\0';
		ret = cg_dir_of(t, id, path + 1, dir, len);
	}
	if (f)
		fclose(f);
	return ret;
}

/*
 * The memory controller's home: v2's root where it enables memory, else
 * v1's memory mount, or under rstatlat -- COMMAND the command's v1 memory
 * cgroup (v1 has no rule against children of a cgroup with processes), so
 * that its rows are the command's.
 */
static int memory_dir(char *dir, size_t len, bool *v2, bool *own, char *why, size_t wlen)
{
	struct cg_table t = { 0 };
	const struct cg_hier *h;
	int err = 0;

	if (table_load(&t, why, wlen))
		return -1;
	h = cg_hier_find(&t, 0);
	*v2 = h && h->mounted && enables(h->mount, "memory");
	if (!*v2)
		h = cg_hier_with(&t, "memory");
	if (!h || !h->mounted) {
		snprintf(why, wlen, "no memory controller here (neither v2's root nor a v1 mount)");
		err = -1;
	} else {
		*own = !*v2 && getenv(COMMAND_CGROUP_ENV) && !own_v1_dir(&t, h->id, dir, len);
		if (!*own)
			snprintf(dir, len, "%s", h->mount);
	}
	cg_table_free(&t);
	return err;
}

/*
 * A workload's cgroup in parent: "rstatlat-load" inside the command's own
 * cgroup (own: rstatlat -- COMMAND made it for this run), so that its rows
 * pair across runs; elsewhere, or when one runs there already,
 * "rstatlat-load-PID". dir: PATH_MAX bytes.
 */
static int make_named(char *dir, const char *parent, bool own, char *why, size_t len)
{
	for (int pid = !own; pid < 2; pid++) {
		int n = pid ? snprintf(dir, PATH_MAX, "%s/rstatlat-load-%d", parent, (int)getpid()) :
			snprintf(dir, PATH_MAX, "%s/rstatlat-load", parent);

		if (n >= PATH_MAX) {
			snprintf(why, len, "the cgroup directory %s is too long", parent);
			return -1;
		}
		if (!mkdir(dir, 0755))
			return 0;
		if (errno != EEXIST || pid) {
			snprintf(why, len, "cannot make a cgroup in %s: %s", parent, strerror(errno));
			return -1;
		}
	}
	return -1;
}

static int make_base(struct load_cgroups *c, const char *parent, bool own, char *why, size_t len)
{
	if (make_named(c->base, parent, own, why, len))
		return -1;
	c->base_made = true;
	return 0;
}

static int make_dir(char *dir, size_t size, const char *base, int i, char *why, size_t len)
{
	if ((size_t)snprintf(dir, size, "%s/c%d", base, i) >= size) {
		snprintf(why, len, "the cgroup directory %s is too long", base);
		return -1;
	}
	if (mkdir(dir, 0755)) {
		snprintf(why, len, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Where the containers' memcgs go: below base in v2 (memory enabled there), or v1 twins. */
static int container_memory(struct load_cgroups *c, bool *v2, char *why, size_t len)
{
	char parent[PATH_MAX];
	bool own = false;

	if (memory_dir(parent, sizeof(parent), v2, &own, why, len))
		return -1;
	if (*v2)
		return 0;
	if (make_named(c->mem_base, parent, own, why, len))
		return -1;
	c->mem_base_made = true;
	return 0;
}

/* Starts a task of kind into dir (and dir2) as *slot. Returns 0, or -1 with why. */
static int start_into(pid_t *slot, const char *dir, const char *dir2, enum task_kind kind,
		      char *why, size_t len)
{
	pid_t pid = start_task(dir, dir2, kind);

	*slot = pid > 0 ? pid : 0;
	if (pid > 0)
		return 0;
	snprintf(why, len, "cannot start %s in %s: %s", task_comm[kind], dir, strerror((int)-pid));
	return -1;
}

/* n cgroups in v2, each with a task of kind; with memory, a memcg each too (load_containers). */
static int make_cgroups(struct load_cgroups *c, int n, bool memory, enum task_kind kind,
			char *why, size_t len)
{
	char parent[PATH_MAX];
	bool own = false;
	bool mem_v2 = false;
	int err;

	c->dir = calloc((size_t)n, sizeof(*c->dir));
	c->busy = calloc((size_t)n, sizeof(*c->busy));
	c->mem_dir = memory ? calloc((size_t)n, sizeof(*c->mem_dir)) : NULL;
	if (!c->dir || !c->busy || (memory && !c->mem_dir)) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	c->v2 = true;
	if (memory && container_memory(c, &mem_v2, why, len))
		return -1;
	/* a cgroup with processes (the command's) cannot enable memory below it: v2's root */
	if (v2_dir(parent, sizeof(parent), !mem_v2, &own, why, len) ||
	    make_base(c, parent, own, why, len))
		return -1;
	err = mem_v2 ? cg_write_file(c->base, "cgroup.subtree_control", "+memory") : 0;
	if (err) {
		snprintf(why, len, "cannot enable memory in %s: %s", c->base, strerror(-err));
		return -1;
	}
	c->v2 = !memory || mem_v2;	/* the hierarchy reported: where memory.* is read */
	for (int i = 0; i < n; i++) {
		if (make_dir(c->dir[i], sizeof(c->dir[i]), c->base, i, why, len))
			return -1;
		c->n = i + 1;
		if (memory && !mem_v2 &&
		    make_dir(c->mem_dir[i], sizeof(c->mem_dir[i]), c->mem_base, i, why, len))
			return -1;
		if (memory && mem_v2)
			snprintf(c->mem_dir[i], sizeof(c->mem_dir[i]), "%s", c->dir[i]);
		if (start_into(&c->busy[i], c->dir[i], memory && !mem_v2 ? c->mem_dir[i] : NULL,
			       kind, why, len))
			return -1;
	}
	return 0;
}

int load_busy_cgroups(struct load_cgroups *c, int n, char *why, size_t len)
{
	return make_cgroups(c, n, false, TASK_BUSY, why, len);
}

int load_containers(struct load_cgroups *c, int n, bool memory, char *why, size_t len)
{
	return make_cgroups(c, n, memory, TASK_CONTAINER, why, len);
}

/* The child directories of dir, by name (scandir's filter). */
static int is_child_dir(const struct dirent *d)
{
	return d->d_type == DT_DIR && strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* Reads the cgroups below base (the poller's --below) into c->dir. */
static int list_below(struct load_cgroups *c, char *why, size_t len)
{
	struct dirent **names;
	int n = scandir(c->base, &names, is_child_dir, alphasort);

	if (n < 0) {
		snprintf(why, len, "--below %s: %s", c->base, strerror(errno));
		return -1;
	}
	c->dir = n ? calloc((size_t)n, sizeof(*c->dir)) : NULL;
	for (int i = 0; i < n; i++) {
		if (c->dir && (size_t)snprintf(c->dir[c->n], sizeof(c->dir[0]), "%s/%s", c->base,
					       names[i]->d_name) < sizeof(c->dir[0]))
			c->n++;
		free(names[i]);
	}
	free(names);
	if (!c->n)
		snprintf(why, len, n ? "out of memory" : "--below %s: no cgroup below it", c->base);
	return c->n ? 0 : -1;
}

int load_given_cgroups(struct load_cgroups *c, const char *dir, bool below, bool memory,
		       char *why, size_t len)
{
	const char *opt = below ? "--below" : "--in";
	struct statfs fs;
	struct stat st;
	bool v2;

	if (stat(dir, &st) || statfs(dir, &fs)) {
		snprintf(why, len, "%s %s: %s", opt, dir, strerror(errno));
		return -1;
	}
	v2 = fs.f_type == CGROUP2_SUPER_MAGIC;
	if (!S_ISDIR(st.st_mode) || (!v2 && fs.f_type != CGROUP_SUPER_MAGIC) ||
	    strlen(dir) >= sizeof(c->base)) {
		snprintf(why, len, "%s %s: not a cgroup's directory", opt, dir);
		return -1;
	}
	/* nothing here was made by the load: load_cgroups_remove leaves base and dir alone */
	snprintf(c->base, sizeof(c->base), "%s", dir);
	c->given = true;
	c->v2 = v2 || !memory;
	c->other_v1 = !v2 && !memory;
	if (below)
		return list_below(c, why, len);
	c->dir = calloc(1, sizeof(*c->dir));
	if (!c->dir) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	snprintf(c->dir[0], sizeof(c->dir[0]), "%s", dir);
	c->n = 1;
	return 0;
}

const char *load_dir_of(const struct load_cgroups *c, int i, const char *file)
{
	return c->mem_dir && load_memory_file(file) ? c->mem_dir[i] : c->dir[i];
}

/* Not an errno: the swap the hogs could reach cannot be limited. */
#define ENOSWAP 4095

static int set_limit(const struct load_cgroups *c, uint64_t limit)
{
	char text[24];
	int err, swap;

	snprintf(text, sizeof(text), "%llu", (unsigned long long)limit);
	if (c->v2) {
		err = cg_write_file(c->base, "memory.max", text);
		swap = cg_write_file(c->base, "memory.swap.max", "0");
	} else {
		err = cg_write_file(c->base, "memory.limit_in_bytes", text);
		swap = cg_write_file(c->base, "memory.memsw.limit_in_bytes", text);
	}
	/* no swap to escape to: without swap accounting there is none to limit, and none must be on */
	return err ? err : swap && load_swap_on() ? -ENOSWAP : 0;
}

int load_memcg(struct load_cgroups *c, uint64_t limit, char *why, size_t len)
{
	char parent[PATH_MAX];
	bool own = false;
	int err;

	c->dir = calloc(1, sizeof(*c->dir));
	if (!c->dir) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	if (memory_dir(parent, sizeof(parent), &c->v2, &own, why, len) ||
	    make_base(c, parent, own, why, len))
		return -1;
	snprintf(c->dir[0], sizeof(c->dir[0]), "%s", c->base);
	c->n = 1;
	err = set_limit(c, limit);
	if (err == -ENOSWAP) {
		snprintf(why, len, "swap is on and the swap of %s cannot be limited (swap accounting "
			 "is off): hogs would swap rather than OOM", c->base);
		return -1;
	}
	if (err) {
		snprintf(why, len, "cannot set the memory limit of %s: %s", c->base, strerror(-err));
		return -1;
	}
	c->oom_kills_before = load_oom_kills(c);
	return 0;
}

int load_hogs_start(struct load_cgroups *c, int nhogs, char *why, size_t len)
{
	c->hogs = calloc((size_t)nhogs, sizeof(*c->hogs));
	if (nhogs && !c->hogs) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (int i = 0; i < nhogs; i++) {
		if (start_into(&c->hogs[i], c->base, NULL, TASK_HOG, why, len))
			return -1;
		c->nhogs = i + 1;
		c->hogs_started++;
	}
	return 0;
}

void load_hogs_tend(struct load_cgroups *c, bool stopping)
{
	for (int i = 0; i < c->nhogs; i++) {
		if (c->hogs[i] <= 0 || waitpid(c->hogs[i], NULL, WNOHANG) != c->hogs[i])
			continue;
		c->hogs[i] = stopping ? 0 : start_task(c->base, NULL, TASK_HOG);
		if (c->hogs[i] > 0)
			c->hogs_started++;
		else
			c->hogs[i] = 0;	/* counted in hogs_started: fewer run from here */
	}
}

uint64_t load_oom_kills(const struct load_cgroups *c)
{
	char path[PATH_MAX + 32], key[64];
	unsigned long long v, kills = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->base, c->v2 ? "memory.events" : "memory.oom_control");
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		if (!strcmp(key, "oom_kill"))
			kills = v;
	fclose(f);
	return kills;
}

/* Removes an empty cgroup: a killed task leaves it only once reaped, so EBUSY is retried. */
static bool remove_dir(const char *dir)
{
	for (int tries = 0; tries < RMDIR_TRIES; tries++) {
		if (!rmdir(dir) || errno == ENOENT)
			return true;
		if (errno != EBUSY)
			return false;
		sleep_us(20000);
	}
	return false;
}

static void kill_all(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++) {
		while (pids[i] > 0 && waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
		pids[i] = 0;
	}
}

void load_tasks_kill(struct load_cgroups *c)
{
	if (c->busy)
		kill_all(c->busy, c->n);
	if (c->hogs)
		kill_all(c->hogs, c->nhogs);
}

bool load_swap_on(void)
{
	char line[512];
	int lines = 0;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	return lines > 1;	/* a header, then one line a swap area */
}

int load_cgroups_remove(struct load_cgroups *c)
{
	int left = 0;

	load_tasks_kill(c);
	if (c->given)
		c->n = 0;	/* not the load's to remove */
	for (int i = c->n - 1; i >= 0; i--) {
		if (strcmp(c->dir[i], c->base))
			left += !remove_dir(c->dir[i]);
		if (c->mem_base_made && c->mem_dir[i][0])
			left += !remove_dir(c->mem_dir[i]);
	}
	c->n = 0;
	if (c->base_made)
		left += !remove_dir(c->base);
	if (c->mem_base_made)
		left += !remove_dir(c->mem_base);
	c->base_made = c->mem_base_made = false;
	return left ? -1 : 0;
}
