// SPDX-License-Identifier: GPL-2.0
/*
 * Files written whole or not at all (-o FILE, --textfile): nothing at PATH
 * until commit, the old file kept on abort, no temporary file left, the
 * mode a shell would give, and anything but a regular file left alone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "outfile.h"
#include "serve.h"

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
	if (d)
		closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

static void test_whole_or_nothing(void)
{
	char dir[] = "/tmp/rsl-outfile-XXXXXX", path[64], buf[64];
	struct outfile o;
	struct stat st;
	mode_t mask = umask(022);

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/run.json", dir);
	CHECK(outfile_open(&o, path, OUTFILE_MODE_LIKE_SHELL) == 0, "open");
	fputs("{}\n", o.f);
	CHECK(access(path, F_OK) != 0, "nothing at PATH before commit");
	CHECK(entries(dir) == 1, "one temporary file (hidden)");
	CHECK(outfile_commit(&o) == 0, "commit");
	slurp(path, buf, sizeof(buf));
	CHECK_STR(buf, "{}\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "mode %o", st.st_mode & 0777);
	CHECK(entries(dir) == 1, "no temporary file left: %d entries", entries(dir));
	chmod(path, 0600);
	CHECK(outfile_open(&o, path, OUTFILE_MODE_LIKE_SHELL) == 0, "open over a file");
	fputs("half", o.f);
	outfile_abort(&o);
	outfile_abort(&o);
	slurp(path, buf, sizeof(buf));
	CHECK_STR(buf, "{}\n");
	CHECK(entries(dir) == 1, "abort leaves nothing");
	CHECK(outfile_open(&o, path, OUTFILE_MODE_LIKE_SHELL) == 0, "open again");
	fputs("new\n", o.f);
	CHECK(outfile_commit(&o) == 0, "replace");
	slurp(path, buf, sizeof(buf));
	CHECK_STR(buf, "new\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "an existing file's mode kept");
	unlink(path);
	rmdir(dir);
	umask(mask);
}

/* A directory, FIFO, device or symbolic link at PATH is never replaced. */
static void test_not_regular(void)
{
	char dir[] = "/tmp/rsl-outfile-XXXXXX", path[64], target[64];
	const char *dev = "/dev/null";
	struct outfile o;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	CHECK(outfile_open(&o, dir, OUTFILE_MODE_LIKE_SHELL) == -EEXIST, "a directory");
	CHECK(outfile_open(&o, dev, OUTFILE_MODE_LIKE_SHELL) == -EEXIST, "a device");
	CHECK(stat(dev, &st) == 0 && S_ISCHR(st.st_mode), "/dev/null still a device");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo");
	CHECK(outfile_open(&o, path, 0644) == -EEXIST, "a FIFO");
	CHECK(textfile_write(path, "a 1\n", 4) == -EEXIST, "--textfile over a FIFO");
	CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO stays");
	unlink(path);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(path, sizeof(path), "%s/link", dir);
	CHECK(symlink(target, path) == 0, "symlink");
	CHECK(outfile_open(&o, path, 0644) == -EEXIST, "a symbolic link");
	CHECK_STR(outfile_why(-EEXIST), "exists and is not a regular file");
	unlink(path);
	snprintf(path, sizeof(path), "%s/missing/x", dir);
	CHECK(outfile_open(&o, path, 0644) == -ENOENT, "a missing directory");
	CHECK(entries(dir) == 0, "nothing made: %d entries", entries(dir));
	rmdir(dir);
}

int main(void)
{
	RUN_TEST(test_whole_or_nothing());
	RUN_TEST(test_not_regular());
	return check_done("test_outfile");
}
