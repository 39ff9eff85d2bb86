/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files written whole or not at all (-o FILE, --textfile): the text goes
 * to a hidden temporary file beside PATH, which is renamed over PATH once
 * complete. A reader never sees half a file, and a run that fails leaves
 * PATH as it was.
 */
#ifndef RSTATLAT_OUTFILE_H
#define RSTATLAT_OUTFILE_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	char path[PATH_MAX];
	char tmp[PATH_MAX];	/* "" once committed or aborted */
	FILE *f;		/* the temporary file, close-on-exec */
};

/* The mode a shell's `> PATH` would give: an existing file's, else 0666 & ~umask. */
#define OUTFILE_MODE_LIKE_SHELL ((mode_t)-1)

/*
 * Creates the temporary file. PATH may be a new name or an existing
 * regular file; anything else there (a directory, device, FIFO, socket or
 * symbolic link) is refused with -EEXIST, never replaced. Returns 0 or
 * -errno.
 */
int outfile_open(struct outfile *o, const char *path, mode_t mode);
/* Flushes, syncs and renames the temporary file over PATH. Returns 0 or -errno (then aborted). */
int outfile_commit(struct outfile *o);
/* Removes the temporary file; PATH stays as it was. Idempotent. */
void outfile_abort(struct outfile *o);
/* One-line reason for outfile_open's error, e.g. "exists and is not a regular file". */
const char *outfile_why(int err);

#endif
