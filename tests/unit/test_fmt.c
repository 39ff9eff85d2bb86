// SPDX-License-Identifier: GPL-2.0
/* Duration parsing and formatting; symbol lookup on a sample kallsyms. */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "fmt.h"
#include "ksym.h"

static void test_parse(void)
{
	uint64_t ns = 0, v = 0;
	double d = 0;

	CHECK(parse_duration("100", 1000, &ns) == 0 && ns == 100000, "bare us");
	CHECK(parse_duration("1.5ms", 1000, &ns) == 0 && ns == 1500000, "ms");
	CHECK(parse_duration("250ns", 1000, &ns) == 0 && ns == 250, "ns");
	CHECK(parse_duration("2s", 1000, &ns) == 0 && ns == 2000000000ULL, "s");
	CHECK(parse_duration("0.5", 1000000000ULL, &ns) == 0 && ns == 500000000ULL, "0.5 s");
	/* one syntax for every option: decimal only, as -n's integers */
	{
		static const char *const refused[] = { "0x10", "1e1", "inf", "nan", "-1",
							"+1", " 1", "1 ", "0x1p3", "" };
		double v;

		for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
			CHECK(parse_duration(refused[i], 1, &ns) != 0, "duration '%s' taken",
			      refused[i]);
		CHECK(parse_number("+20%", "%", &v) == 0 && v == 20, "+20%%");
		CHECK(parse_number("-0.5", "", &v) == 0 && v == -0.5, "-0.5");
		CHECK(parse_number(".5", "", &v) == 0 && v == 0.5, ".5");
		CHECK(parse_number("1e-2", "", &v) != 0 && parse_number("0x5", "", &v) != 0 &&
		      parse_number("inf", "", &v) != 0, "exponent, hex, inf refused");
	}
	CHECK(parse_duration("-1", 1000, &ns) == -1, "negative");
	CHECK(parse_duration("abc", 1000, &ns) == -1, "word");
	CHECK(parse_duration("10 us", 1000, &ns) == -1, "space");
	CHECK(parse_duration("1e400", 1000, &ns) == -1, "overflow");
	CHECK(parse_duration("nan", 1000, &ns) == -1, "nan");
	CHECK(parse_duration("5h", 1000, &ns) == -1, "unit");
	CHECK(parse_duration("", 1000, &ns) == -1, "empty");
	CHECK(parse_uint("42", 100, &v) == 0 && v == 42, "uint");
	CHECK(parse_uint("101", 100, &v) == -1, "uint max");
	CHECK(parse_uint("-3", 100, &v) == -1, "uint negative");
	CHECK(parse_uint("3x", 100, &v) == -1, "uint junk");
	CHECK(parse_number("+12.5%", "%", &d) == 0 && d == 12.5, "signed percent");
	CHECK(parse_number("-3", "", &d) == 0 && d == -3, "negative number");
	CHECK(parse_number("12.5", "%", &d) == -1, "missing suffix");
	CHECK(parse_number("12.5%%", "%", &d) == -1, "suffix twice");
	CHECK(parse_number("%", "%", &d) == -1, "no number");
	CHECK(parse_number("inf", "", &d) == -1, "infinite");
	CHECK(parse_number("1e999", "", &d) == -1, "overflow");
}

static void test_format(void)
{
	char b[16];

	CHECK_STR(fmt_duration(b, sizeof(b), 850), "850ns");
	CHECK_STR(fmt_duration(b, sizeof(b), 1234), "1.23us");
	CHECK_STR(fmt_duration(b, sizeof(b), 12345678), "12.3ms");
	CHECK_STR(fmt_duration(b, sizeof(b), 123456789), "123ms");
	CHECK_STR(fmt_duration(b, sizeof(b), 2000000000ULL), "2.00s");
	CHECK_STR(fmt_duration(b, 4, 12345678), "12.");	/* cut as snprintf would */
}

static void test_put_uint(void)
{
	static const uint64_t edges[] = {
		0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 99999999, 100000000,
		9999999999999999999ULL, 10000000000000000000ULL, UINT64_MAX - 1, UINT64_MAX,
	};
	uint64_t x = 88172645463325252ULL;
	char got[24], want[24];
	int same = 0;

	for (size_t i = 0; i < sizeof(edges) / sizeof(*edges); i++) {
		*fmt_put_uint(got, edges[i]) = '\0';
		snprintf(want, sizeof(want), "%llu", (unsigned long long)edges[i]);
		CHECK_STR(got, want);
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x % 64);	/* every length */
		*fmt_put_uint(got, v) = '\0';
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		same += !strcmp(got, want);
	}
	CHECK(same == 100000, "%d of 100000 random numbers", same);
}

static void test_ksym(void)
{
	char path[] = "/tmp/rstatlat-kallsyms-XXXXXX", b[128];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct ksyms *k;

	fputs("ffffffff81000000 T _stext\nffffffff81463420 T css_rstat_flush\n"
	      "ffffffff81463600 t static_helper\nffffffff81463700 D some_data\n"
	      "ffffffffc0001000 t mod_fn\t[mymod]\n", f);
	fclose(f);
	k = ksyms_load(path);
	unlink(path);
	CHECK(k != NULL, "load");
	CHECK_STR(ksym_format(k, 0xffffffff81463430ULL, b, sizeof(b)), "css_rstat_flush+0x10");
	CHECK_STR(ksym_format(k, 0xffffffff81463600ULL, b, sizeof(b)), "static_helper+0x0");
	CHECK_STR(ksym_format(k, 0xffffffff81463800ULL, b, sizeof(b)), "static_helper+0x200");
	CHECK_STR(ksym_format(k, 0xffffffffc0001004ULL, b, sizeof(b)), "mod_fn+0x4");
	CHECK_STR(ksym_format(k, 0x1000, b, sizeof(b)), "0x1000");
	CHECK_STR(ksym_format(k, 0xffffffff80ffffffULL, b, sizeof(b)), "0xffffffff80ffffff");
	ksyms_free(k);
	/* addresses hidden from an unprivileged reader: all 0, nothing named */
	f = fopen(path, "w");
	fputs("0000000000000000 T _stext\n0000000000000000 T css_rstat_flush\n", f);
	fclose(f);
	k = ksyms_load(path);
	unlink(path);
	CHECK(k != NULL && !strcmp(ksym_format(k, 0xffffffff81463430ULL, b, sizeof(b)),
				   "0xffffffff81463430"), "hidden addresses: %s", b);
	ksyms_free(k);
	CHECK_STR(ksym_format(NULL, 0xabc, b, sizeof(b)), "0xabc");
}

int main(void)
{
	RUN_TEST(test_parse());
	RUN_TEST(test_format());
	RUN_TEST(test_put_uint());
	RUN_TEST(test_ksym());
	return check_done("test_fmt");
}
