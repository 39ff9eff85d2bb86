// SPDX-License-Identifier: GPL-2.0
/* Hierarchy ids -> names and mounts, and -c filters, from sample files. */
#include <stdlib.h>
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

int main(void)
{
	test_hybrid();
	test_container();
	return check_done("test_cgroup");
}
