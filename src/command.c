// SPDX-License-Identifier: GPL-2.0
/*
 * -- COMMAND: the child process and its cgroups. The child is forked
 * held on a pipe, moved into its cgroups while still rstatlat's code, and
 * exec's only once rstatlat traces: its first flush is measured. A second
 * pipe, close-on-exec, brings back exec's errno or, by its closing, the
 * news that exec worked.
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "command.h"
#include "report_read.h"

/* How long leftovers get to die, and a removed cgroup to go. */
#define EMPTY_WAIT_MS 5000
#define POLL_MS 20

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The pids in cgroup.procs, up to max (-1 when it cannot be read). */
static int read_procs(const char *dir, pid_t *pids, int max)
{
	char path[PATH_MAX + 32];
	FILE *f;
	long pid;
	int n = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (n < max && fscanf(f, "%ld", &pid) == 1)
		pids[n++] = (pid_t)pid;
	fclose(f);
	return n;
}

static int add_cgroup(struct command *c, const struct cg_table *t, uint32_t hierarchy,
		      const char *path, bool made, char *why, size_t len)
{
	struct command_cg *g = &c->cg[c->ncg];
	struct stat st;
	char *shown;

	g->hierarchy = hierarchy;
	g->made = made;
	snprintf(g->path, sizeof(g->path), "%s", path);
	if (cg_dir_of(t, hierarchy, path, g->dir, sizeof(g->dir))) {
		snprintf(why, len, "cgroup %.200s is not under a cgroup mount here", path);
		return -1;
	}
	if (!made && stat(g->dir, &st)) {
		snprintf(why, len, "cgroup %.200s: %s", g->dir, strerror(errno));
		return -1;
	}
	if (made && mkdir(g->dir, 0755)) {
		snprintf(why, len, "cannot make cgroup %.200s: %s", g->dir, strerror(errno));
		return errno == EEXIST ? -2 : -1;
	}
	if (stat(g->dir, &st)) {
		snprintf(why, len, "cgroup %.200s: %s", g->dir, strerror(errno));
		return -1;
	}
	g->id = (uint64_t)st.st_ino;	/* kernfs inode numbers are cgroup ids on 64-bit */
	shown = cg_display_path(t, hierarchy, path);
	if (!shown) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	snprintf(g->path, sizeof(g->path), "%s", shown);
	free(shown);
	c->ncg++;
	return 0;
}

/*
 * rstatlat-PID below the mount's root in v2 and, on a hybrid host, in the
 * v1 memory hierarchy (memory.stat there flushes that memcg's statistics).
 */
static int make_cgroups(struct command *c, const struct cg_table *t, char *why, size_t len)
{
	const struct cg_hier *v2 = cg_hier_find(t, 0), *memory = cg_hier_with(t, "memory");
	const struct cg_hier *want[2] = { v2 && v2->mounted ? v2 : NULL, memory };
	char below[64], path[PATH_MAX];

	if (!want[0] && !want[1]) {
		snprintf(why, len, "no cgroup v2 or v1 memory hierarchy is mounted: give "
			 "--command-cgroup PATH or none");
		return -1;
	}
	for (int n = 0; n < 100; n++) {
		int err = 0;

		snprintf(below, sizeof(below), n ? "/rstatlat-%d-%d" : "/rstatlat-%d",
			 (int)getpid(), n);
		for (int i = 0; i < 2 && !err; i++)
			if (want[i]) {
				cg_path_below_mount(t, want[i]->id, below, path, sizeof(path));
				err = add_cgroup(c, t, want[i]->id, path, true, why, len);
			}
		if (!err)
			return 0;
		command_cleanup(c, NULL, 0);	/* the ones made of this name */
		c->ncg = 0;
		if (err != -2)
			return -1;
	}
	return -1;
}

int command_cgroups(struct command *c, const struct cg_table *t, enum command_where where,
		    const char *path, char *why, size_t len)
{
	struct cg_filter f;
	const char *reason;

	c->go_fd = c->err_fd = c->workload_fd = -1;
	if (where == COMMAND_CGROUP_NONE)
		return 0;
	if (where == COMMAND_CGROUP_NEW)
		return make_cgroups(c, t, why, len);
	if (cg_parse_filter(t, path, &f, &reason)) {
		snprintf(why, len, "bad --command-cgroup '%.200s': %s", path, reason);
		return -1;
	}
	return add_cgroup(c, t, f.hierarchy, f.path, false, why, len) ? -1 : 0;
}

/* The child, before exec: waits for the go, then becomes COMMAND. */
static void child(struct command *c, int go_read, int err_write)
{
	static const int reset[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT };
	sigset_t none;
	char go;
	int e;

	for (size_t i = 0; i < sizeof(reset) / sizeof(*reset); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* EOF without the byte: rstatlat gave up before it traced */
	if (read(go_read, &go, 1) != 1)
		_exit(127);
	close(go_read);
	if (c->ncg)
		setenv(COMMAND_CGROUP_ENV, c->cg[0].dir, 1);
	if (c->workload_fd >= 0 && !fcntl(c->workload_fd, F_SETFD, 0)) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", c->workload_fd);
		setenv(WORKLOAD_FD_ENV, fd, 1);
	}
	execvp(c->argv[0], c->argv);
	e = errno;
	if (write(err_write, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int command_fork(struct command *c, char *why, size_t len)
{
	int go[2], err[2];
	char pid[24];

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		snprintf(why, len, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	c->workload_fd = memfd_create(WORKLOAD_MEMFD_NAME, MFD_CLOEXEC);
	if (c->workload_fd < 0) {
		snprintf(why, len, "cannot make a memfd: %s", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		c->pid = 0;
		return -1;
	}
	if (!c->pid) {
		close(go[1]);
		close(err[0]);
		child(c, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	snprintf(pid, sizeof(pid), "%d", (int)c->pid);
	for (int i = 0; i < c->ncg; i++) {
		int e = cg_write_file(c->cg[i].dir, "cgroup.procs", pid);

		if (e) {
			snprintf(why, len, "cannot move the command into %.200s: %s", c->cg[i].dir,
				 strerror(-e));
			return -1;
		}
	}
	return 0;
}

int command_release(struct command *c)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "g", 1) != 1)
		e = errno;
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n <= 0 && !e)
		return 0;
	if (!e)
		e = EIO;
	while (!command_exited(c))
		sleep_ms(1);
	return e;
}

bool command_exited(struct command *c)
{
	pid_t r;

	if (c->reaped || !c->pid)
		return c->reaped;
	do
		r = waitpid(c->pid, &c->wstatus, WNOHANG);
	while (r < 0 && errno == EINTR);
	c->reaped = r == c->pid || (r < 0 && errno == ECHILD);
	return c->reaped;
}

void command_signal(const struct command *c, int sig)
{
	if (c->pid > 0 && !c->reaped)
		kill(c->pid, sig);
}

/*
 * dir and the cgroups below it, as paths (rstatlat has threads: no chdir),
 * on its own mount. NULL when it cannot be read.
 */
static FTS *walk_below(const char *dir)
{
	char *const roots[] = { (char *)dir, NULL };

	return fts_open(roots, FTS_PHYSICAL | FTS_NOSTAT | FTS_NOCHDIR | FTS_XDEV, NULL);
}

/*
 * The processes in dir and the cgroups the command made below it (a
 * workload's own, such as rstatlat load's), each SIGKILLed when kill:
 * how many there were.
 */
static int subtree_procs(const char *dir, bool kill_them)
{
	FTS *fts = walk_below(dir);
	pid_t pids[256];
	FTSENT *e;
	int all = 0;

	while (fts && (e = fts_read(fts))) {
		int n;

		if (e->fts_info != FTS_D)
			continue;
		n = read_procs(e->fts_path, pids, 256);
		for (int i = 0; kill_them && i < n; i++)
			kill(pids[i], SIGKILL);
		all += n > 0 ? n : 0;
	}
	if (fts)
		fts_close(fts);
	return all;
}

/* v2 kills a subtree at once (cgroup.kill, 5.14+); v1 one process at a time. */
static void kill_all(const struct command_cg *g)
{
	if (cg_write_file(g->dir, "cgroup.kill", "1"))
		subtree_procs(g->dir, true);
}

/* The cgroups below dir, deepest first: a cgroup goes only once its children have. */
static void remove_below(const char *dir)
{
	FTS *fts = walk_below(dir);
	FTSENT *e;

	while (fts && (e = fts_read(fts)))
		if (e->fts_info == FTS_DP && e->fts_level > 0)
			rmdir(e->fts_path);
	if (fts)
		fts_close(fts);
}

int command_kill_leftovers(struct command *c)
{
	int left = 0;

	for (int i = 0; i < c->ncg; i++) {
		int n;

		if (!c->cg[i].made)
			continue;
		n = subtree_procs(c->cg[i].dir, false);
		if (n > left)
			left = n;	/* the same processes are in each hierarchy */
		for (long waited = 0; n > 0 && waited < EMPTY_WAIT_MS; waited += POLL_MS) {
			kill_all(&c->cg[i]);
			sleep_ms(POLL_MS);
			n = subtree_procs(c->cg[i].dir, false);
		}
	}
	return left;
}

int command_cleanup(struct command *c, char *why, size_t len)
{
	int ret = 0;

	if (c->go_fd >= 0)
		close(c->go_fd);	/* a held child exits at EOF */
	if (c->err_fd >= 0)
		close(c->err_fd);
	if (c->workload_fd >= 0)
		close(c->workload_fd);
	c->go_fd = c->err_fd = c->workload_fd = -1;
	if (c->pid > 0 && !command_exited(c)) {
		kill(c->pid, SIGKILL);
		while (!command_exited(c))
			sleep_ms(1);
	}
	command_kill_leftovers(c);
	/* the kernel needs a moment after the last process leaves */
	for (int i = c->ncg - 1; i >= 0; i--) {
		long waited = 0;

		if (!c->cg[i].made)
			continue;
		/* a cgroup with children is busy too (the kernel says EBUSY) */
		while (remove_below(c->cg[i].dir), rmdir(c->cg[i].dir) && errno == EBUSY &&
		       waited < EMPTY_WAIT_MS) {
			sleep_ms(POLL_MS);
			waited += POLL_MS;
		}
		if (access(c->cg[i].dir, F_OK) == 0 && !ret) {
			if (why)
				snprintf(why, len, "cannot remove cgroup %.200s: %s", c->cg[i].dir,
					 strerror(errno));
			ret = -1;
			continue;
		}
		c->cg[i].made = false;
	}
	return ret;	/* c->cg stays: the report still names them */
}

/* More than this is not what rstatlat load writes (a few KiB a distribution). */
#define WORKLOAD_BYTES_MAX (16 << 20)

int command_workload(struct command *c, struct workload_info *w, char *why, size_t len)
{
	char err[256], *buf;
	struct stat st;
	ssize_t got = 0, n;
	FILE *f;
	int ret;

	memset(w, 0, sizeof(*w));
	if (c->workload_fd < 0 || fstat(c->workload_fd, &st) || !st.st_size)
		return 0;
	if (st.st_size > WORKLOAD_BYTES_MAX) {
		snprintf(why, len, "the command's workload figures: more than %d MiB",
			 WORKLOAD_BYTES_MAX >> 20);
		return -1;
	}
	/* what is there now, and no more: a process the command left may still write */
	buf = malloc((size_t)st.st_size);
	while (buf && got < st.st_size &&
	       (n = pread(c->workload_fd, buf + got, (size_t)(st.st_size - got), got)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		got += n > 0 ? n : 0;
	}
	/* whole lines only: a process the command left may be writing one */
	while (got > 0 && buf[got - 1] != '\n')
		got--;
	f = got ? fmemopen(buf, (size_t)got, "r") : NULL;
	if (!f) {
		snprintf(why, len, "cannot read the command's workload figures: %s",
			 !buf ? "out of memory" : got ? strerror(errno) : "no whole line");
		free(buf);
		return -1;
	}
	ret = workload_read(f, w, err, sizeof(err));
	if (ret)
		snprintf(why, len, "the command's workload figures: %s", err);
	fclose(f);
	free(buf);
	return ret;
}

int command_status(const struct command *c, int *sig)
{
	*sig = 0;
	if (WIFSIGNALED(c->wstatus)) {
		*sig = WTERMSIG(c->wstatus);
		return 128 + *sig;
	}
	return WIFEXITED(c->wstatus) ? WEXITSTATUS(c->wstatus) : 1;
}

int command_describe(const struct command *c, struct command_info *out)
{
	struct command_info view = {
		.present = true,
		.argv = c->argv,
		.argc = c->argc,
		.pid = (uint32_t)c->pid,
		.ended = c->reaped,
		.ncgroups = c->ncg,
	};

	if (c->reaped)
		view.status = command_status(c, &view.signal);
	for (int i = 0; i < c->ncg; i++)
		view.cgroups[i] = (struct command_cgroup){
			.id = c->cg[i].id, .hierarchy = c->cg[i].hierarchy,
			.path = (char *)c->cg[i].path,
		};
	return command_copy(out, &view);
}
