/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dropping privileges once everything that needs them is done: programs
 * loaded and attached, kallsyms read, the port bound. The BPF maps are read
 * through the file descriptors already held.
 */
#ifndef RSTATLAT_PRIVILEGE_H
#define RSTATLAT_PRIVILEGE_H

#include <stdbool.h>
#include <sys/types.h>

struct run_as {
	bool switch_user;
	uid_t uid;
	gid_t gid;
	char name[64];
};

/*
 * Whether this process may load and attach rstatlat's programs: CAP_BPF
 * and CAP_PERFMON (5.8+), or CAP_SYS_ADMIN, in its effective set.
 */
bool has_bpf_privileges(void);

/* Looks up --user. Returns 0, or -1 with *why set. */
int run_as_lookup(const char *user, struct run_as *as, const char **why);

/*
 * Whether reading a map needs CAP_BPF here: before Linux 5.19 ("bpf: refine
 * kernel.unprivileged_bpf_disabled behaviour"), a process without it gets
 * EPERM from every bpf(2) call while kernel.unprivileged_bpf_disabled is
 * set, existing fds included; since then only creating maps and loading
 * programs. Probed, not read from a version: a child process drops every
 * capability and looks up key 0 of map_fd (value_size bytes).
 */
bool map_read_needs_cap_bpf(int map_fd, unsigned int value_size);

/*
 * Switches to as (if set), empties the capability bounding, inheritable
 * and ambient sets, keeps at most CAP_BPF (keep_cap_bpf), and sets
 * no_new_privs. Returns 0, or -1 with *why set (errno kept).
 */
int privilege_drop(const struct run_as *as, bool keep_cap_bpf, const char **why);

#endif
