// SPDX-License-Identifier: GPL-2.0
/* Hostile cgroup names and comms: JSON stays valid, terminals stay inert. */
#include <stdlib.h>
#include "check.h"
#include "escape.h"

static char *json_of(const char *s)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	json_write_string(f, s);
	fclose(f);
	return buf;
}

static void test_json(void)
{
	CHECK_STR(json_of("plain/path"), "\"plain/path\"");
	CHECK_STR(json_of("q\"b\\s"), "\"q\\\"b\\\\s\"");
	CHECK_STR(json_of("\x1b[31mred\n\t"), "\"\\u001b[31mred\\u000a\\u0009\"");
	CHECK_STR(json_of("del\x7f"), "\"del\\u007f\"");
	CHECK_STR(json_of("caf\xc3\xa9"), "\"caf\xc3\xa9\"");	/* valid UTF-8 kept */
	CHECK_STR(json_of("\xff\xfe"), "\"\\u00ff\\u00fe\"");	/* invalid bytes */
	CHECK_STR(json_of("\xc0\xaf"), "\"\\u00c0\\u00af\"");	/* overlong '/' */
	CHECK_STR(json_of("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");	/* surrogate */
	CHECK_STR(json_of("\xe2\x82"), "\"\\u00e2\\u0082\"");	/* truncated sequence */
	CHECK_STR(json_of(""), "\"\"");
}

static int inert(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return 0;
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0)
			return 0;
	}
	return 1;
}

static void test_term(void)
{
	char buf[64];

	term_escape(buf, sizeof(buf), "\x1b]0;owned\x07title");
	CHECK_STR(buf, "\\x1b]0;owned\\x07title");
	term_escape(buf, sizeof(buf), "csi\xc2\x9b" "2J raw\x9b");
	CHECK_STR(buf, "csi\\xc2\\x9b2J raw\\x9b");
	term_escape(buf, sizeof(buf), "back\\slash\r\n");
	CHECK_STR(buf, "back\\\\slash\\x0d\\x0a");
	term_escape(buf, sizeof(buf), "caf\xc3\xa9");
	CHECK_STR(buf, "caf\xc3\xa9");
	/* truncation never splits an escape or a UTF-8 sequence */
	for (size_t len = 1; len < 24; len++) {
		char small[24];
		size_t n = term_escape(small, len, "ab\x1b\xc3\xa9\x01xyz");

		CHECK(n < len && small[n] == '\0', "terminated at %zu", len);
		CHECK(inert(small), "inert at %zu", len);
		CHECK(!strstr(small, "\\x") || strstr(small, "\\x1b"), "whole escapes at %zu", len);
	}
	/* every single byte */
	for (int c = 1; c < 256; c++) {
		char in[2] = { (char)c, 0 };

		term_escape(buf, sizeof(buf), in);
		CHECK(inert(buf), "byte 0x%02x", c);
	}
}

int main(void)
{
	test_json();
	test_term();
	return check_done("test_escape");
}
