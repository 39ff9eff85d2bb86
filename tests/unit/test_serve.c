// SPDX-License-Identifier: GPL-2.0
/* Serving: --prometheus addresses and the atomic textfile rewrite. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "serve.h"

static void test_listen_addr(void)
{
	struct listen_addr a;
	const char *why;

	CHECK(!listen_addr_parse("9471", &a, &why), "%s", why);
	CHECK_STR(a.shown, "127.0.0.1:9471");	/* a bare port stays on loopback */
	CHECK(!listen_addr_parse("0.0.0.0:80", &a, &why), "%s", why);
	CHECK_STR(a.shown, "0.0.0.0:80");
	CHECK(!listen_addr_parse("[::1]:9471", &a, &why) && a.ss.ss_family == AF_INET6, "IPv6");
	CHECK_STR(a.shown, "[::1]:9471");
	CHECK(listen_addr_parse("70000", &a, &why), "port beyond 65535");
	CHECK(listen_addr_parse("0", &a, &why), "port 0");
	CHECK(listen_addr_parse("abc", &a, &why), "not a port");
	CHECK(listen_addr_parse("1.2.3.4:", &a, &why), "no port");
	CHECK(listen_addr_parse(":9471", &a, &why), "no address before the colon");
	CHECK(listen_addr_parse("localhost:9471", &a, &why), "a name, not an address");
	CHECK(listen_addr_parse("::1:9471", &a, &why), "IPv6 without brackets");
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void test_textfile(void)
{
	char dir[] = "/tmp/rsl-textfile-XXXXXX", path[64], buf[64] = "";
	struct stat st;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/rstatlat.prom", dir);
	CHECK(textfile_write(path, "a 1\n", 4) == 0, "first write");
	CHECK(textfile_write(path, "b 2\n", 4) == 0, "rewrite");
	f = fopen(path, "r");
	CHECK(f && fgets(buf, sizeof(buf), f), "read back");
	if (f)
		fclose(f);
	CHECK_STR(buf, "b 2\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "mode %o", st.st_mode & 0777);
	CHECK(entries(dir) == 1, "temporary files left: %d entries", entries(dir));
	snprintf(path, sizeof(path), "%s/missing/rstatlat.prom", dir);
	CHECK(textfile_write(path, "a 1\n", 4) == -ENOENT, "missing directory");
	snprintf(path, sizeof(path), "%s/rstatlat.prom", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	RUN_TEST(test_listen_addr());
	RUN_TEST(test_textfile());
	return check_done("test_serve");
}
