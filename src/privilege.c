// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/capability.h>
#include <bpf/bpf.h>
#include "privilege.h"

static bool cap_effective(cap_t caps, cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;

	return !cap_get_flag(caps, cap, CAP_EFFECTIVE, &v) && v == CAP_SET;
}

bool has_bpf_privileges(void)
{
	cap_t caps = cap_get_proc();
	bool ok;

	if (!caps)
		return geteuid() == 0;
	ok = cap_effective(caps, CAP_SYS_ADMIN) ||
	     (cap_effective(caps, CAP_BPF) && cap_effective(caps, CAP_PERFMON));
	cap_free(caps);
	return ok;
}

#ifdef RSTATLAT_STATIC
/*
 * A static program has no NSS (glibc would dlopen its modules, of the
 * host's version): the user is looked up in /etc/passwd itself, as the
 * containers and minimal roots it runs in keep their users.
 */
static struct passwd *user_entry(const char *user)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw = NULL;

	if (!f)
		return NULL;
	while ((pw = fgetpwent(f)) && strcmp(pw->pw_name, user))
		;
	fclose(f);
	if (!pw)
		errno = 0;	/* its end reached (ENOENT): no such user */
	return pw;
}
#else
static struct passwd *user_entry(const char *user)
{
	return getpwnam(user);
}
#endif

int run_as_lookup(const char *user, struct run_as *as, const char **why)
{
	struct passwd *pw;

	memset(as, 0, sizeof(*as));
	if (!user)
		return 0;
	errno = 0;
	pw = user_entry(user);
	if (!pw || strlen(user) >= sizeof(as->name)) {
		*why = errno ? strerror(errno) : "no such user";
		return -1;
	}
	as->switch_user = true;
	as->uid = pw->pw_uid;
	as->gid = pw->pw_gid;
	strcpy(as->name, user);
	return 0;
}

bool map_read_needs_cap_bpf(int map_fd, unsigned int value_size)
{
	cap_t none = cap_init();
	void *value = calloc(1, value_size ? value_size : 1);
	int status = 0;
	pid_t pid;
	__u32 key = 0;

	if (!none || !value) {
		cap_free(none);
		free(value);
		return true;
	}
	pid = fork();
	if (pid == 0) {
		/* the child only makes system calls: safe after fork in a threaded process */
		if (cap_set_proc(none))
			_exit(2);
		_exit(bpf_map_lookup_elem(map_fd, &key, value) && errno == EPERM ? 1 : 0);
	}
	cap_free(none);
	free(value);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return true;
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static int empty_bounding_set(void)
{
	for (cap_value_t c = 0; c <= cap_max_bits() - 1; c++)
		if (CAP_IS_SUPPORTED(c) && cap_drop_bound(c) && errno != EINVAL && errno != EPERM)
			return -1;
	return 0;
}

static int switch_user(const struct run_as *as, bool keep_caps)
{
	if (keep_caps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -1;
	if (setgroups(0, NULL) || setresgid(as->gid, as->gid, as->gid) ||
	    setresuid(as->uid, as->uid, as->uid))
		return -1;
	return 0;
}

static int keep_only(bool cap_bpf)
{
	cap_t caps = cap_init();
	cap_value_t bpf = CAP_BPF;
	int err;

	if (!caps)
		return -1;
	err = cap_bpf && (cap_set_flag(caps, CAP_PERMITTED, 1, &bpf, CAP_SET) ||
			  cap_set_flag(caps, CAP_EFFECTIVE, 1, &bpf, CAP_SET));
	if (!err)
		err = cap_set_proc(caps);
	cap_free(caps);
	return err ? -1 : 0;
}

int privilege_drop(const struct run_as *as, bool keep_cap_bpf, const char **why)
{
	if (empty_bounding_set()) {
		*why = "cannot empty the capability bounding set";
		return -1;
	}
	if (as->switch_user && switch_user(as, keep_cap_bpf)) {
		*why = "cannot switch user";
		return -1;
	}
	if (keep_only(keep_cap_bpf) || cap_reset_ambient()) {
		*why = "cannot drop capabilities";
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		*why = "cannot set no_new_privs";
		return -1;
	}
	return 0;
}
