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

/* What Prometheus and others send, and which of them get the protobuf format. */
static void test_accept(void)
{
	/* Prometheus 2.42 with native histograms on, and before it (no native histograms) */
	CHECK(accept_prefers_protobuf("application/vnd.google.protobuf;"
				      "proto=io.prometheus.client.MetricFamily;encoding=delimited;"
				      "q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.1"),
	      "Prometheus with native histograms");
	CHECK(!accept_prefers_protobuf("application/openmetrics-text;version=1.0.0,"
				       "application/openmetrics-text;version=0.0.1;q=0.75,"
				       "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
	      "Prometheus without: text");
	CHECK(!accept_prefers_protobuf(NULL), "no Accept");
	CHECK(!accept_prefers_protobuf("*/*"), "curl");
	CHECK(!accept_prefers_protobuf("application/vnd.google.protobuf"),
	      "protobuf of no message named");
	CHECK(!accept_prefers_protobuf("application/vnd.google.protobuf;"
				       "proto=io.prometheus.client.MetricFamily;encoding=text"),
	      "protobuf's text encoding");
	CHECK(accept_prefers_protobuf("Application/Vnd.Google.Protobuf; "
				      "proto=io.prometheus.client.MetricFamily; encoding=delimited"),
	      "names are case-blind, spaces allowed");
	CHECK(!accept_prefers_protobuf("application/vnd.google.protobuf;"
				       "proto=io.prometheus.client.MetricFamily;encoding=delimited;"
				       "q=0.2,text/plain;q=0.9"), "text preferred");
	CHECK(!accept_prefers_protobuf("application/vnd.google.protobuf;"
				       "proto=io.prometheus.client.MetricFamily;encoding=delimited;"
				       "q=0"), "q=0: not acceptable");
	CHECK(!accept_prefers_protobuf("application/vnd.google.protobufx;"
				       "proto=io.prometheus.client.MetricFamily;encoding=delimited"),
	      "another type");
}

int main(void)
{
	RUN_TEST(test_listen_addr());
	RUN_TEST(test_textfile());
	RUN_TEST(test_accept());
	return check_done("test_serve");
}
