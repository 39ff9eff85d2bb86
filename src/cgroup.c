// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cgroup.h"

struct cg_id_cache {
	uint64_t id;
	uint32_t hierarchy;
	char *path;		/* NULL: looked for and not found */
	struct cg_id_cache *next;
};

static struct cg_hier *hier_get(struct cg_table *t, uint32_t id)
{
	for (int i = 0; i < t->n; i++)
		if (t->h[i].id == id)
			return &t->h[i];
	if (t->n == CG_MAX_HIER)
		return NULL;
	memset(&t->h[t->n], 0, sizeof(t->h[0]));
	t->h[t->n].id = id;
	return &t->h[t->n++];
}

const struct cg_hier *cg_hier_find(const struct cg_table *t, uint32_t id)
{
	for (int i = 0; i < t->n; i++)
		if (t->h[i].id == id)
			return &t->h[i];
	return NULL;
}

static void append_name(char *dst, size_t len, const char *name)
{
	size_t used = strlen(dst);

	snprintf(dst + used, len - used, "%s%s", used ? "," : "", name);
}

/* /proc/cgroups: "subsys hierarchy num_cgroups enabled" */
static int load_proc_cgroups(struct cg_table *t, const char *file)
{
	char line[256], name[64];
	unsigned int hier, num, enabled;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct cg_hier *h;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %u %u %u", name, &hier, &num, &enabled) != 4)
			continue;
		if (hier == 0 || !enabled)
			continue;	/* on v2 or unused */
		h = hier_get(t, hier);
		if (h)
			append_name(h->name, sizeof(h->name), name);
	}
	fclose(f);
	return 0;
}

/* /proc/self/cgroup: "9:name=systemd:/..." names hierarchies without controllers. */
static void load_self_cgroup(struct cg_table *t, const char *file)
{
	char line[4096];
	FILE *f = file ? fopen(file, "re") : NULL;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *names, *end;
		unsigned long id = strtoul(line, &names, 10);
		struct cg_hier *h;

		if (*names != ':' || id == 0)
			continue;
		names++;
		end = strchr(names, ':');
		if (!end)
			continue;
		*end = '\0';
		h = hier_get(t, id);
		if (h && !h->name[0])
			snprintf(h->name, sizeof(h->name), "%s", names);
	}
	fclose(f);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* True if every comma-separated item of want is an item of opts. */
static bool opts_contain_all(const char *opts, const char *want)
{
	char buf[128], *save = NULL, *item;

	snprintf(buf, sizeof(buf), "%s", want);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(item);
		const char *p = opts;
		bool found = false;

		while ((p = strstr(p, item))) {
			if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) {
				found = true;
				break;
			}
			p += n;
		}
		if (!found)
			return false;
	}
	return true;
}

static void set_mount(struct cg_hier *h, const char *root, const char *mnt)
{
	if (h->mounted)
		return;		/* keep the first mount of a hierarchy */
	h->mounted = true;
	snprintf(h->root, sizeof(h->root), "%s", root);
	snprintf(h->mount, sizeof(h->mount), "%s", mnt);
}

static int load_mountinfo(struct cg_table *t, const char *file)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char root[PATH_MAX], mnt[PATH_MAX], fstype[64], opts[512];
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		if (sscanf(sep + 3, "%63s %*s %511s", fstype, opts) != 2)
			continue;
		unescape_octal(root);
		unescape_octal(mnt);
		if (!strcmp(fstype, "cgroup2")) {
			struct cg_hier *h = hier_get(t, 0);

			if (h)
				set_mount(h, root, mnt);
		} else if (!strcmp(fstype, "cgroup")) {
			for (int i = 0; i < t->n; i++)
				if (t->h[i].id && t->h[i].name[0] &&
				    opts_contain_all(opts, t->h[i].name))
					set_mount(&t->h[i], root, mnt);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

int cg_table_load(struct cg_table *t, const char *proc_cgroups,
		  const char *mountinfo, const char *self_cgroup)
{
	int err;

	memset(t, 0, sizeof(*t));
	hier_get(t, 0);		/* v2 always exists */
	err = load_proc_cgroups(t, proc_cgroups);
	if (err)
		return err;
	load_self_cgroup(t, self_cgroup);
	return load_mountinfo(t, mountinfo);
}

void cg_table_free(struct cg_table *t)
{
	struct cg_id_cache *c = t->cache, *next;

	for (; c; c = next) {
		next = c->next;
		free(c->path);
		free(c);
	}
	t->cache = NULL;
}

char *cg_display_path(const struct cg_table *t, uint32_t hierarchy, const char *path)
{
	const struct cg_hier *h = cg_hier_find(t, hierarchy);
	char *out = NULL;
	int n;

	if (hierarchy == 0)
		n = asprintf(&out, "%s", path);
	else if (h && h->name[0])
		n = asprintf(&out, "%s:%s", h->name, path);
	else
		n = asprintf(&out, "hier%u:%s", hierarchy, path);
	return n < 0 ? NULL : out;
}

static void strip_trailing_slash(char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
}

/* Joins a mount's root with a path below its mount point. */
static void join_root(char *dst, size_t len, const char *root, const char *below)
{
	if (!strcmp(root, "/"))
		snprintf(dst, len, "%s", *below ? below : "/");
	else
		snprintf(dst, len, "%s%s", root, below);
	strip_trailing_slash(dst);
}

static bool path_has_prefix(const char *path, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (strncmp(path, prefix, n) || (path[n] != '/' && path[n] != '\0'))
		return false;
	*rest = path + n;
	return true;
}

/* A filesystem path below a cgroup mount: its hierarchy and cgroup path. */
static bool below_mount(const struct cg_table *t, const char *path, struct cg_filter *f)
{
	const char *rest;

	for (int i = 0; i < t->n; i++) {
		const struct cg_hier *h = &t->h[i];

		if (h->mounted && path_has_prefix(path, h->mount, &rest)) {
			f->hierarchy = h->id;
			join_root(f->path, sizeof(f->path), h->root, rest);
			return true;
		}
	}
	return false;
}

int cg_parse_filter(const struct cg_table *t, const char *arg,
		    struct cg_filter *f, const char **why)
{
	const char *colon = strchr(arg, ':');
	char real[PATH_MAX];

	memset(f, 0, sizeof(*f));
	if (!*arg) {
		*why = "empty cgroup path";
		return -1;
	}
	/* A filesystem path below a cgroup mount, as given or through a symbolic link. */
	if (below_mount(t, arg, f) ||
	    (arg[0] == '/' && realpath(arg, real) && below_mount(t, real, f)))
		return 0;
	if (colon && arg[0] != '/') {
		size_t n = (size_t)(colon - arg);

		for (int i = 0; i < t->n; i++) {
			const struct cg_hier *h = &t->h[i];

			if (h->id && strlen(h->name) == n && !strncmp(h->name, arg, n)) {
				if (colon[1] != '/') {
					*why = "cgroup path after the controller must start with '/'";
					return -1;
				}
				f->hierarchy = h->id;
				snprintf(f->path, sizeof(f->path), "%s", colon + 1);
				strip_trailing_slash(f->path);
				return 0;
			}
		}
		*why = "no mounted v1 hierarchy has that controller name";
		return -1;
	}
	if (arg[0] != '/') {
		*why = "cgroup path must be absolute (/a/b, memory:/a/b, or a path under a cgroup mount)";
		return -1;
	}
	f->hierarchy = 0;
	snprintf(f->path, sizeof(f->path), "%s", arg);
	strip_trailing_slash(f->path);
	return 0;
}

/* Folds "//" and "/./" of an absolute path in place; false when it holds "..". */
static bool fold_lexically(char *p)
{
	char *out = p, *seg = p;

	while (*seg) {
		size_t n;

		while (*seg == '/')
			seg++;
		n = strcspn(seg, "/");
		if (n == 2 && !strncmp(seg, "..", 2))
			return false;
		if (n && !(n == 1 && seg[0] == '.')) {
			*out++ = '/';
			memmove(out, seg, n);
			out += n;
		}
		seg += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
	return true;
}

int cg_resolve_filter(const struct cg_table *t, struct cg_filter *f, const char **why)
{
	const struct cg_hier *h = cg_hier_find(t, f->hierarchy);
	char dir[PATH_MAX], real[PATH_MAX], mount[PATH_MAX];
	const char *rest;
	struct stat st;

	if (!h || !h->mounted) {
		if (!fold_lexically(f->path)) {
			*why = "\"..\" in a cgroup whose hierarchy is not mounted here";
			return -1;
		}
		return 0;
	}
	/* the mount shows the cgroups below its root */
	if (cg_dir_of(t, f->hierarchy, f->path, dir, sizeof(dir))) {
		*why = "not below the cgroup this hierarchy's mount shows (or too long)";
		return -1;
	}
	if (!realpath(dir, real) || !realpath(h->mount, mount)) {
		*why = errno == ENOENT ? "no such cgroup" : strerror(errno);
		return -1;
	}
	if (!path_has_prefix(real, mount, &rest)) {
		*why = "leads out of its cgroup hierarchy";
		return -1;
	}
	if (stat(real, &st) || !S_ISDIR(st.st_mode)) {
		*why = "not a cgroup (a cgroup is a directory)";
		return -1;
	}
	return cg_path_below_mount(t, f->hierarchy, rest, f->path, sizeof(f->path));
}

bool cg_filter_match(const struct cg_filter *f, uint32_t hierarchy, const char *path)
{
	const char *rest;

	if (hierarchy != f->hierarchy)
		return false;
	if (!strcmp(f->path, "/"))
		return true;
	return path_has_prefix(path, f->path, &rest);
}

int cg_dir_of(const struct cg_table *t, uint32_t hierarchy, const char *path, char *dir,
	      size_t len)
{
	const struct cg_hier *h = cg_hier_find(t, hierarchy);
	const char *below = path;
	int n;

	if (!h || !h->mounted || !path)
		return -1;
	/* the mount shows what is below its root: the inverse of join_root() */
	if (strcmp(h->root, "/") && !path_has_prefix(path, h->root, &below))
		return -1;
	n = snprintf(dir, len, "%s%s", h->mount, strcmp(below, "/") ? below : "");
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int cg_path_below_mount(const struct cg_table *t, uint32_t hierarchy, const char *below,
			char *path, size_t len)
{
	const struct cg_hier *h = cg_hier_find(t, hierarchy);

	if (!h || !h->mounted)
		return -1;
	join_root(path, len, h->root, below);
	return 0;
}

const struct cg_hier *cg_hier_with(const struct cg_table *t, const char *controller)
{
	size_t n = strlen(controller);

	for (int i = 0; i < t->n; i++) {
		const char *p = t->h[i].name;

		if (!t->h[i].id || !t->h[i].mounted)
			continue;
		for (; (p = strstr(p, controller)); p += n)
			if ((p == t->h[i].name || p[-1] == ',') && (p[n] == ',' || !p[n]))
				return &t->h[i];
	}
	return NULL;
}

bool cg_path_exists(const struct cg_table *t, uint32_t hierarchy, const char *path,
		    uint64_t id)
{
	char full[PATH_MAX];
	struct stat st;

	if (cg_dir_of(t, hierarchy, path, full, sizeof(full)))
		return true;
	return stat(full, &st) == 0 && (uint64_t)st.st_ino == id;
}

/* nftw has no user pointer: the search state lives here. */
static struct {
	uint64_t id;
	char *found;
} search;

static int find_ino(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && (uint64_t)sb->st_ino == search.id) {
		search.found = strdup(fpath);
		return 1;
	}
	return 0;
}

const char *cg_path_of_id(struct cg_table *t, uint32_t hierarchy, uint64_t id)
{
	const struct cg_hier *h = cg_hier_find(t, hierarchy);
	struct cg_id_cache *c;
	char rel[PATH_MAX];

	for (c = t->cache; c; c = c->next)
		if (c->id == id && c->hierarchy == hierarchy)
			return c->path;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->id = id;
	c->hierarchy = hierarchy;
	c->next = t->cache;
	t->cache = c;
	if (!h || !h->mounted)
		return NULL;
	/* kernfs inode numbers are cgroup ids on 64-bit kernels */
	search.id = id;
	search.found = NULL;
	nftw(h->mount, find_ino, 16, FTW_PHYS | FTW_MOUNT);
	if (search.found) {
		join_root(rel, sizeof(rel), h->root, search.found + strlen(h->mount));
		c->path = strdup(rel);
		free(search.found);
	}
	return c->path;
}

int cg_write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 32];
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;	/* a control file takes a write whole or not at all */
	close(fd);
	return err;
}
