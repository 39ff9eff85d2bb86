// SPDX-License-Identifier: GPL-2.0
/* Hostile cgroup names and comms: JSON stays valid, terminals stay inert. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "escape.h"

/* What write() puts out for s, in buf. */
static char *written(void (*write)(FILE *, const char *), const char *s, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	write(f, s);
	fclose(f);
	return buf;
}

static char *json_of(const char *s)
{
	static char buf[4096];

	return written(json_write_string, s, buf, sizeof(buf));
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

/* The buffer writer the JSON view uses gives exactly json_write_string's bytes. */
static void test_json_buffer(void)
{
	static const char *const fixed[] = {
		"plain/path", "q\"b\\s", "\x1b[31mred\n\t", "del\x7f", "caf\xc3\xa9", "\xff\xfe",
		"\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "", "\xf0\x9f\x98\x80 \xf4\x90\x80\x80",
	};
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	char in[700], *buf = malloc(JSON_STRING_ROOM(sizeof(in)) + 1), *end;
	int same = 0, tries = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++) {
		end = json_put_string(buf, fixed[i]);
		*end = '\0';
		CHECK_STR(buf, json_of(fixed[i]));
		CHECK((size_t)(end - buf) <= JSON_STRING_ROOM(strlen(fixed[i])), "room %zu", i);
	}
	/* random bytes, short and long (past json_write_string's 256-byte chunks) */
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)(i % 10 ? i % 40 : i % 650);

		for (size_t j = 0; j < len; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly UTF-8 lead and continuation bytes, some ASCII and controls */
			in[j] = (char)(x % 3 ? 0x80 + x % 0x78 : 1 + x % 0x7f);
		}
		in[len] = '\0';
		end = json_put_string(buf, in);
		*end = '\0';
		same += !strcmp(buf, json_of(in)) && (size_t)(end - buf) <= JSON_STRING_ROOM(len);
		tries++;
	}
	CHECK(same == tries, "%d of %d random strings written alike", same, tries);
	free(buf);
}

static char *html_of(const char *s)
{
	static char buf[1024];

	return written(html_write_text, s, buf, sizeof(buf));
}

/* HTML text and attributes: markup characters as references, controls as \xNN. */
/*
 * Columns as a terminal shows text: one per character, two for CJK,
 * Hangul, fullwidth forms and emoji; a cut never splits a character.
 */
static void test_columns(void)
{
	/* "a", "é" (2 bytes), "日本" (3 bytes each, wide), "한" (wide), "😀" (4 bytes, wide) */
	static const char s[] = "a\xc3\xa9\xe6\x97\xa5\xe6\x9c\xac\xed\x95\x9c\xf0\x9f\x98\x80";

	CHECK(text_columns("") == 0 && text_columns("abc") == 3, "ascii");
	CHECK(text_columns(s) == 1 + 1 + 2 + 2 + 2 + 2, "mixed: %zu", text_columns(s));
	CHECK(text_fit(s, 2) == 3, "a and e-acute fit 2 columns: %zu bytes", text_fit(s, 2));
	CHECK(text_fit(s, 3) == 3, "half of a wide one does not: %zu", text_fit(s, 3));
	CHECK(text_fit(s, 4) == 6, "one wide: %zu", text_fit(s, 4));
	CHECK(text_fit(s, 100) == strlen(s), "all");
	CHECK(text_fit("\xff\xfe", 1) == 1, "a byte that is not UTF-8 is one column, one byte");
}

static void test_html(void)
{
	char big[3000];

	CHECK_STR(html_of("/a/b"), "/a/b");
	CHECK_STR(html_of("<script>&\"'"), "&lt;script&gt;&amp;&quot;&#39;");
	CHECK_STR(html_of("x\ny\x1b[2J\xff"), "x\\x0ay\\x1b[2J\\xff");
	CHECK_STR(html_of("caf\xc3\xa9"), "caf\xc3\xa9");
	/* longer than the stack buffer: the same, from the heap */
	memset(big, '<', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	{
		size_t room = 4 * sizeof(big) + 1;
		char *out = written(html_write_text, big, malloc(room), room);

		CHECK(strlen(out) == 4 * (sizeof(big) - 1) && !strncmp(out, "&lt;&lt;", 8),
		      "long: %zu bytes", strlen(out));
		free(out);
	}
}

static char *wrapped(const char *lead, const char *text, size_t columns)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	term_wrap(f, lead, "    ", text, columns);
	fclose(f);
	return out;
}

/* Lines within the columns, broken at spaces, a word longer than a line cut, controls escaped. */
static void test_wrap(void)
{
	char *out = wrapped("  a: ", "one two three four five", 14);

	CHECK_STR(out, "  a: one two\n    three four\n    five\n");
	free(out);
	out = wrapped("", "abcdefghijklmnop", 6);
	CHECK_STR(out, "abcdef\n    gh\n    ij\n    kl\n    mn\n    op\n");
	free(out);
	out = wrapped("x: ", "at /evil\033[2J\nname", 80);
	CHECK_STR(out, "x: at /evil\\x1b[2J\\x0aname\n");
	free(out);
	out = wrapped("x: ", "", 80);
	CHECK_STR(out, "x: \n");
	free(out);
	/* an escape is never split, spaces inside a line are kept */
	out = wrapped("", "abc\033", 5);
	CHECK_STR(out, "abc\n    \\x1b\n");
	free(out);
	out = wrapped("", "a  b", 80);
	CHECK_STR(out, "a  b\n");
	free(out);
}

int main(void)
{
	RUN_TEST(test_json());
	RUN_TEST(test_json_buffer());
	RUN_TEST(test_term());
	RUN_TEST(test_html());
	RUN_TEST(test_columns());
	RUN_TEST(test_wrap());
	return check_done("test_escape");
}
