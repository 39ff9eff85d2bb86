// SPDX-License-Identifier: GPL-2.0
/* Hierarchy ids -> names and mounts, and -c filters, from sample files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cgroup.h"
#include "check.h"

#define DATA "tests/data/"

static void test_hybrid(void)
{
	struct cg_table t;
	struct cg_filter f;
	const struct cg_hier *h;
	const char *why;
	char *p;

	CHECK(cg_table_load(&t, DATA "proc_cgroups.hybrid", DATA "mountinfo.hybrid",
			    DATA "self_cgroup.hybrid") == 0, "load");
	h = cg_hier_find(&t, 4);
	CHECK(h && !strcmp(h->name, "memory") && !strcmp(h->mount, "/sys/fs/cgroup/memory"),
	      "memory is hierarchy 4");
	h = cg_hier_find(&t, 9);
	CHECK(h && !strcmp(h->name, "name=systemd") && h->mounted, "named hierarchy");
	h = cg_hier_find(&t, 0);
	CHECK(h && !strcmp(h->mount, "/sys/fs/cgroup/unified"), "v2 mount");

	p = cg_display_path(&t, 4, "/a/b");
	CHECK_STR(p, "memory:/a/b");
	free(p);
	p = cg_display_path(&t, 0, "/a/b");
	CHECK_STR(p, "/a/b");
	free(p);
	p = cg_display_path(&t, 42, "/x");
	CHECK_STR(p, "hier42:/x");
	free(p);

	CHECK(cg_parse_filter(&t, "/sys/fs/cgroup/memory/a/b/", &f, &why) == 0, "fs path");
	CHECK(f.hierarchy == 4, "fs path hierarchy %u", f.hierarchy);
	CHECK_STR(f.path, "/a/b");
	CHECK(cg_parse_filter(&t, "/sys/fs/cgroup/unified", &f, &why) == 0 && f.hierarchy == 0,
	      "v2 mount root");
	CHECK_STR(f.path, "/");
	CHECK(cg_parse_filter(&t, "memory:/x", &f, &why) == 0 && f.hierarchy == 4, "memory:/x");
	CHECK_STR(f.path, "/x");
	CHECK(cg_parse_filter(&t, "/plain", &f, &why) == 0 && f.hierarchy == 0, "v2 path");
	CHECK(cg_parse_filter(&t, "bogus:/x", &f, &why) == -1, "unknown controller");
	CHECK(cg_parse_filter(&t, "memory:x", &f, &why) == -1, "relative after controller");
	CHECK(cg_parse_filter(&t, "relative", &f, &why) == -1, "relative");
	CHECK(cg_parse_filter(&t, "", &f, &why) == -1, "empty");

	cg_parse_filter(&t, "/a", &f, &why);
	CHECK(cg_filter_match(&f, 0, "/a"), "self");
	CHECK(cg_filter_match(&f, 0, "/a/b/c"), "descendant");
	CHECK(!cg_filter_match(&f, 0, "/ab"), "sibling with common prefix");
	CHECK(!cg_filter_match(&f, 4, "/a"), "other hierarchy");
	cg_parse_filter(&t, "/", &f, &why);
	CHECK(cg_filter_match(&f, 0, "/anything"), "root matches all of v2");

	/* where -- COMMAND's cgroups go */
	h = cg_hier_with(&t, "memory");
	CHECK(h && h->id == 4, "the memory hierarchy");
	h = cg_hier_with(&t, "cpuacct");
	CHECK(h && strstr(h->name, "cpuacct"), "a controller in a list");
	CHECK(!cg_hier_with(&t, "mem") && !cg_hier_with(&t, "acct"), "whole names only");
	{
		char dir[PATH_MAX], path[PATH_MAX];

		CHECK(cg_path_below_mount(&t, 0, "/rstatlat-1", path, sizeof(path)) == 0, "v2");
		CHECK_STR(path, "/rstatlat-1");
		CHECK(cg_dir_of(&t, 0, path, dir, sizeof(dir)) == 0, "its directory");
		CHECK_STR(dir, "/sys/fs/cgroup/unified/rstatlat-1");
		CHECK(cg_dir_of(&t, 4, "/", dir, sizeof(dir)) == 0, "a root");
		CHECK_STR(dir, "/sys/fs/cgroup/memory");
		CHECK(cg_dir_of(&t, 42, "/x", dir, sizeof(dir)) == -1, "unmounted");
	}
	cg_table_free(&t);
}

static void test_container(void)
{
	struct cg_table t;
	struct cg_filter f;
	const struct cg_hier *h;
	const char *why;

	CHECK(cg_table_load(&t, DATA "proc_cgroups.container", DATA "mountinfo.container",
			    NULL) == 0, "load");
	h = cg_hier_find(&t, 3);
	CHECK(h && !strcmp(h->name, "cpu,cpuacct"), "co-mounted name");
	CHECK(h && !strcmp(h->mount, "/sys/fs/cgroup/cpu,cpuacct") &&
	      !strcmp(h->root, "/kubepods/pod1"), "co-mounted mount and root");
	h = cg_hier_find(&t, 7);
	CHECK(h && !strcmp(h->mount, "/sys/fs/cgroup/memory"), "first mount of memory kept");
	CHECK(cg_parse_filter(&t, "/sys/fs/cgroup/memory/app", &f, &why) == 0, "bind root");
	CHECK(f.hierarchy == 7, "memory");
	CHECK_STR(f.path, "/kubepods/pod1/app");
	CHECK(cg_parse_filter(&t, "cpu,cpuacct:/k", &f, &why) == 0 && f.hierarchy == 3,
	      "controller list name");
	CHECK(cg_parse_filter(&t, "/mnt/cg2/x", &f, &why) == 0 && f.hierarchy == 0, "v2 elsewhere");
	CHECK_STR(f.path, "/x");
	cg_table_free(&t);

	CHECK(cg_table_load(&t, DATA "proc_cgroups.v2only", DATA "mountinfo.v2only", NULL) == 0,
	      "v2 only");
	CHECK(t.n == 1 && !strcmp(cg_hier_find(&t, 0)->mount, "/sys/fs/cgroup"), "one hierarchy");
	cg_table_free(&t);
	CHECK(cg_table_load(&t, DATA "missing", DATA "mountinfo.v2only", NULL) < 0, "missing file");
}

/* A fake mount in a temporary directory: real stat(), known inode numbers. */
static void test_path_exists(void)
{
	char dir[] = "/tmp/rstatlat-cg-XXXXXX", p[PATH_MAX];
	struct cg_table t = { 0 };
	struct stat st;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(p, sizeof(p), "%s/app", dir);
	mkdir(p, 0700);
	stat(p, &st);
	t.n = 1;
	t.h[0].id = 7;
	t.h[0].mounted = true;
	snprintf(t.h[0].mount, sizeof(t.h[0].mount), "%s", dir);
	snprintf(t.h[0].root, sizeof(t.h[0].root), "/kubepods/pod1");

	CHECK(cg_path_exists(&t, 7, "/kubepods/pod1/app", st.st_ino), "live cgroup");
	CHECK(!cg_path_exists(&t, 7, "/kubepods/pod1/app", st.st_ino + 1), "same name, new id");
	CHECK(!cg_path_exists(&t, 7, "/kubepods/pod1/gone", st.st_ino), "removed cgroup");
	/* pod10 is not below the mount's root pod1: cannot tell, so keep it */
	CHECK(cg_path_exists(&t, 7, "/kubepods/pod10/app", 1), "root prefix is a whole component");
	CHECK(cg_path_exists(&t, 9, "/x", 1), "unmounted hierarchy");
	snprintf(t.h[0].root, sizeof(t.h[0].root), "/");
	CHECK(cg_path_exists(&t, 7, "/app", st.st_ino), "root mount");
	rmdir(p);
	rmdir(dir);
}

/*
 * -c resolved to the cgroup itself: on a mounted hierarchy (here a
 * directory standing for its mount), "." and ".." resolved, "//" folded,
 * a symbolic link followed, and a path that is missing or a file refused;
 * on one not mounted, folded lexically and ".." refused.
 */
static void test_resolve(void)
{
	char dir[] = "/tmp/rsl-cg-XXXXXX", path[PATH_MAX], link[PATH_MAX + 8];
	struct cg_table t = { .n = 1 };
	struct cg_filter f;
	const char *why;
	static const char *const same[] = { "/X", "/X/", "//X", "/X/.", "/X/c/..", "/./X" };

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/X", dir);
	CHECK(mkdir(path, 0700) == 0, "mkdir X");
	snprintf(path, sizeof(path), "%s/X/c", dir);
	CHECK(mkdir(path, 0700) == 0, "mkdir X/c");
	snprintf(path, sizeof(path), "%s/X/cpu.stat", dir);
	fclose(fopen(path, "w"));
	t.h[0] = (struct cg_hier){ .id = 0, .mounted = true, .root = "/" };
	snprintf(t.h[0].mount, sizeof(t.h[0].mount), "%s", dir);
	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		CHECK(cg_parse_filter(&t, same[i], &f, &why) == 0 &&
		      cg_resolve_filter(&t, &f, &why) == 0 && !strcmp(f.path, "/X"),
		      "%s resolved to %s", same[i], f.path);
	}
	/* the mount's own path, and a link to the cgroup from elsewhere */
	snprintf(path, sizeof(path), "%s//X/c", dir);
	CHECK(cg_parse_filter(&t, path, &f, &why) == 0 && cg_resolve_filter(&t, &f, &why) == 0 &&
	      !strcmp(f.path, "/X/c"), "%s: %s", path, f.path);
	snprintf(path, sizeof(path), "%s/X", dir);
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK(symlink(path, link) == 0, "symlink");
	CHECK(cg_parse_filter(&t, link, &f, &why) == 0 && cg_resolve_filter(&t, &f, &why) == 0 &&
	      !strcmp(f.path, "/X"), "a link: %s", f.path);
	unlink(link);
	CHECK(cg_parse_filter(&t, "/nope", &f, &why) == 0 && cg_resolve_filter(&t, &f, &why) &&
	      !strcmp(why, "no such cgroup"), "missing: %s", why);
	CHECK(cg_parse_filter(&t, "/X/cpu.stat", &f, &why) == 0 &&
	      cg_resolve_filter(&t, &f, &why), "a file is not a cgroup");
	/* not mounted here: lexical only */
	t.h[0].mounted = false;
	CHECK(cg_parse_filter(&t, "//a/./b/", &f, &why) == 0 &&
	      cg_resolve_filter(&t, &f, &why) == 0 && !strcmp(f.path, "/a/b"), "folded: %s",
	      f.path);
	CHECK(cg_parse_filter(&t, "/a/../b", &f, &why) == 0 && cg_resolve_filter(&t, &f, &why),
	      "'..' refused where it cannot be resolved");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0, "cleanup");
}

int main(void)
{
	RUN_TEST(test_hybrid());
	RUN_TEST(test_container());
	RUN_TEST(test_path_exists());
	RUN_TEST(test_resolve());
	return check_done("test_cgroup");
}
