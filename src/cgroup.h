/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup hierarchies: which hierarchy id is which controller set and where
 * it is mounted, for v2 (hierarchy 0) and every v1 hierarchy.
 */
#ifndef RSTATLAT_CGROUP_H
#define RSTATLAT_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define CG_MAX_HIER 64

struct cg_hier {
	uint32_t id;
	bool mounted;
	char name[128];		/* "" for v2, "memory", "cpu,cpuacct", "name=systemd" */
	char mount[PATH_MAX];	/* where it is mounted */
	char root[PATH_MAX];	/* which cgroup that mount shows, usually "/" */
};

struct cg_id_cache;

struct cg_table {
	struct cg_hier h[CG_MAX_HIER];
	int n;
	struct cg_id_cache *cache;
};

/* Where a -c filter points: a hierarchy and a path inside it. */
struct cg_filter {
	uint32_t hierarchy;
	char path[PATH_MAX];	/* "/" or "/a/b", no trailing slash */
};

/*
 * Reads /proc/cgroups, mountinfo and (optional, for named v1 hierarchies
 * such as name=systemd) /proc/self/cgroup. Paths are parameters so tests
 * can use sample files. Returns 0 or -errno.
 */
int cg_table_load(struct cg_table *t, const char *proc_cgroups,
		  const char *mountinfo, const char *self_cgroup);
void cg_table_free(struct cg_table *t);
const struct cg_hier *cg_hier_find(const struct cg_table *t, uint32_t id);

/* "/a/b" for v2, "memory:/a/b" for v1, "hier7:/a/b" if unknown. Malloced. */
char *cg_display_path(const struct cg_table *t, uint32_t hierarchy, const char *path);

/*
 * Accepts "memory:/a/b", "/a/b" (v2), or a path under a cgroup mount such
 * as /sys/fs/cgroup/memory/a/b. Returns 0, or -1 with *why set.
 */
int cg_parse_filter(const struct cg_table *t, const char *arg,
		    struct cg_filter *f, const char **why);
bool cg_filter_match(const struct cg_filter *f, uint32_t hierarchy, const char *path);
/*
 * The cgroup itself behind a parsed filter, where its hierarchy is
 * mounted here: "." and ".." resolved, "//" folded, symbolic links
 * followed; one that does not exist is refused (-1, *why). Where the
 * hierarchy is not mounted (a container), the path is only folded
 * lexically, and ".." refused.
 */
int cg_resolve_filter(const struct cg_table *t, struct cg_filter *f, const char **why);

/*
 * Whether the cgroup at path (inside its hierarchy, as cg_path_of_id and
 * the BPF capture give it) still exists with this id. True when it cannot
 * tell (hierarchy not mounted here, or path outside the mount's root).
 */
bool cg_path_exists(const struct cg_table *t, uint32_t hierarchy, const char *path,
		    uint64_t id);

/*
 * The directory of the cgroup at path (inside its hierarchy) on this
 * host's mount. Returns 0, or -1 when its hierarchy is not mounted here or
 * the path is outside the mount's root.
 */
int cg_dir_of(const struct cg_table *t, uint32_t hierarchy, const char *path, char *dir,
	      size_t len);
/* The path inside its hierarchy of `below` ("/x") under the mount. Returns 0 or -1. */
int cg_path_below_mount(const struct cg_table *t, uint32_t hierarchy, const char *below,
			char *path, size_t len);
/* The mounted v1 hierarchy that has this controller ("memory"), or NULL. */
const struct cg_hier *cg_hier_with(const struct cg_table *t, const char *controller);

/* Writes text to dir/name (a cgroup's control file) in one write. Returns 0 or -errno. */
int cg_write_file(const char *dir, const char *name, const char *text);
/* Path of a live cgroup given its id, by searching its mount. Cached. */
const char *cg_path_of_id(struct cg_table *t, uint32_t hierarchy, uint64_t id);

#endif
