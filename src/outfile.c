// SPDX-License-Identifier: GPL-2.0
/* Files written whole or not at all: a temporary beside PATH, then rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "outfile.h"

/* What PATH is now: -EEXIST when it is there and not a regular file. */
static int check_target(const char *path, mode_t *existing)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISREG(st.st_mode))
		return -EEXIST;
	*existing = st.st_mode & 07777;
	return 0;
}

static mode_t shell_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

int outfile_open(struct outfile *o, const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	mode_t existing = (mode_t)-1;
	int n, fd, err;

	memset(o, 0, sizeof(*o));
	err = check_target(path, &existing);
	if (err)
		return err;
	if (mode == OUTFILE_MODE_LIKE_SHELL)
		mode = existing != (mode_t)-1 ? existing : shell_mode();
	/* a dot name: node_exporter reads only *.prom, and never this one */
	if (slash)
		n = snprintf(o->tmp, sizeof(o->tmp), "%.*s/.%s.XXXXXX", (int)(slash - path), path,
			     slash + 1);
	else
		n = snprintf(o->tmp, sizeof(o->tmp), ".%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(o->tmp) || strlen(path) >= sizeof(o->path)) {
		o->tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		o->tmp[0] = '\0';
		return err;
	}
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		outfile_abort(o);
		return err;
	}
	return 0;
}

int outfile_commit(struct outfile *o)
{
	int err = 0, check;
	mode_t ignored;

	if (fflush(o->f) || fsync(fileno(o->f)))
		err = -errno;
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	/* PATH may have become a device or a directory since it was opened */
	if (!err && (check = check_target(o->path, &ignored)))
		err = check;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		outfile_abort(o);
		return err;
	}
	o->tmp[0] = '\0';
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

const char *outfile_why(int err)
{
	return err == -EEXIST ? "exists and is not a regular file" : strerror(-err);
}
