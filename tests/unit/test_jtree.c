// SPDX-License-Identifier: GPL-2.0
/*
 * jtree: the trees yajl's events build, whatever chunks the text comes in;
 * integers to 2^64-1 and no further; the rows of a top-level object handed
 * over one at a time; the bounds that keep hostile text from growing it.
 */
#include <stdlib.h>
#include "check.h"
#include "jt_digest.h"

/* What a parse saw: a digest of every value, so that two parses compare. */
struct seen {
	size_t values, elements;
	uint64_t digest;
	int lists[2];
	const char *want_key;	/* value: record this member of the top object */
	uint64_t got;
	bool got_uint;
};

static int on_element(void *ctx, const struct jt *top, int list, size_t i, const struct jt *v)
{
	struct seen *s = ctx;

	(void)top;
	CHECK(i == (size_t)s->lists[list], "element %zu, expected %d", i, s->lists[list]);
	s->lists[list]++;
	s->elements++;
	jt_digest(&s->digest, v);
	return 0;
}

static int on_value(void *ctx, const struct jt *v)
{
	struct seen *s = ctx;
	const struct jt *m = s->want_key ? jt_get(v, s->want_key) : NULL;

	s->values++;
	jt_digest(&s->digest, v);
	s->got_uint = jt_is(m, JT_UINT);
	s->got = s->got_uint ? m->u : 0;
	return 0;
}

static const char *const lists[] = { "cgroups", "processes" };

/* Parses len bytes of text in chunks of step bytes (0: whole); returns 0 or -1, err set. */
static int parse_len(const char *text, size_t len, size_t step, struct seen *s, char *err,
		     size_t errlen, size_t *line)
{
	struct jt_handler h = { lists, 2, on_element, on_value, s };
	struct jt_parser *p = jt_parser_new(&h);
	size_t at = 0;
	int ret = 0;

	while (!ret && at < len) {
		size_t n = step && len - at > step ? step : len - at;

		ret = jt_feed(p, text + at, n);
		at += n;
	}
	if (!ret)
		ret = jt_finish(p);
	snprintf(err, errlen, "%s", ret ? jt_error(p) : "");
	if (line)
		*line = jt_line(p);
	jt_parser_free(p);
	return ret;
}

static int parse(const char *text, size_t step, struct seen *s, char *err, size_t errlen,
		 size_t *line)
{
	return parse_len(text, strlen(text), step, s, err, errlen, line);
}

static const char sample[] =
	"{\"schema\":\"rstatlat/1\",\"type\":\"summary\",\"n\":18446744073709551615,"
	"\"cgroups\":[{\"id\":1,\"path\":\"/a\\u00e9\\\"\",\"h\":[{\"ge\":0,\"le\":0,\"count\":3}]},"
	"{\"id\":2,\"path\":\"/b\",\"h\":[]},7,null],\"x\":[true,false,-1,1.5,\"s\"],"
	"\"processes\":[{\"comm\":\"cat\"}]}\n"
	"\n  {\"schema\":\"rstatlat/1\",\"cgroups\":[]}\n";

static void test_chunks_do_not_matter(void)
{
	struct seen whole = { .want_key = "n" }, bytewise = { .want_key = "n" };
	char err[160];
	size_t steps[] = { 1, 2, 3, 7, 64 };

	CHECK(parse(sample, 0, &whole, err, sizeof(err), NULL) == 0, "%s", err);
	CHECK(whole.values == 2 && whole.elements == 5 && whole.lists[0] == 4 &&
	      whole.lists[1] == 1, "values %zu elements %zu", whole.values, whole.elements);
	for (size_t k = 0; k < sizeof(steps) / sizeof(*steps); k++) {
		memset(&bytewise, 0, sizeof(bytewise));
		bytewise.want_key = "n";
		CHECK(parse(sample, steps[k], &bytewise, err, sizeof(err), NULL) == 0, "%s", err);
		CHECK(bytewise.digest == whole.digest && bytewise.elements == whole.elements,
		      "chunks of %zu: another tree", steps[k]);
	}
}

/* Integers: 0 to 2^64-1 as such; other numbers typed apart; past 2^64-1 refused. */
static void test_integers(void)
{
	static const struct { const char *n; bool ok, is_uint; uint64_t v; } cases[] = {
		{ "0", true, true, 0 },
		{ "9223372036854775808", true, true, 9223372036854775808ULL },
		{ "18446744073709551615", true, true, UINT64_MAX },
		{ "18446744073709551616", false, false, 0 },
		{ "99999999999999999999", false, false, 0 },
		{ "184467440737095516150", false, false, 0 },
		{ "-1", true, false, 0 },
		{ "1.5", true, false, 0 },
		{ "1e3", true, false, 0 },
	};
	char text[128], err[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct seen s = { .want_key = "n" };
		int ret;

		snprintf(text, sizeof(text), "{\"n\":%s}\n", cases[i].n);
		ret = parse(text, 0, &s, err, sizeof(err), NULL);
		CHECK((ret == 0) == cases[i].ok, "%s: %s", cases[i].n, err);
		CHECK(!cases[i].ok || (s.got_uint == cases[i].is_uint && s.got == cases[i].v),
		      "%s read as %llu", cases[i].n, (unsigned long long)s.got);
		CHECK(cases[i].ok || strstr(err, "past 2^64-1"), "%s: %s", cases[i].n, err);
	}
}

static void expect_refused_len(const char *text, size_t len, const char *want, size_t want_line)
{
	struct seen s = { 0 };
	char err[160];
	size_t line;

	CHECK(parse_len(text, len, 5, &s, err, sizeof(err), &line) == -1, "accepted: %.40s", text);
	CHECK(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
	CHECK(!want_line || line == want_line, "%s: line %zu, not %zu", want, line, want_line);
}

static void expect_refused(const char *text, const char *want, size_t want_line)
{
	expect_refused_len(text, strlen(text), want, want_line);
}

static void test_refused(void)
{
	char deep[128] = "";

	for (int i = 0; i < JT_DEPTH_MAX + 1; i++)
		strcat(deep, "[");
	expect_refused("{\"a\":1,\"b\":2,\"a\":3}", "duplicate key \"a\"", 1);
	expect_refused("\n\n{\"cgroups\":[{\"a\":1,\"a\":1}]}", "duplicate key", 3);
	expect_refused(deep, "nested more than", 1);
	expect_refused("[\"a\\u0000b\"]", "\\u0000", 1);
	expect_refused("{\"a\\u0000\":1}", "\\u0000", 1);
	expect_refused("{\"a\":1}\n{\"b\":tru}", "not JSON", 2);
	expect_refused("{\"a\":", "premature EOF", 1);
	{
		static const char nul[] = "{\"a\":1}\n{\"b\":\"x\0y\"}";

		expect_refused_len(nul, sizeof(nul) - 1, "a NUL byte", 2);
	}
}

/* A string that never ends is refused near JT_TOKEN_MAX, not held to the end. */
static void test_token_bound(void)
{
	struct seen s = { 0 };
	struct jt_handler h = { lists, 2, on_element, on_value, &s };
	struct jt_parser *p = jt_parser_new(&h);
	static char chunk[64 << 10];
	size_t fed = 0;
	int ret;

	memset(chunk, 'a', sizeof(chunk));
	ret = jt_feed(p, "{\"k\":\"", 6);
	while (!ret && fed < 2 * JT_TOKEN_MAX) {
		ret = jt_feed(p, chunk, sizeof(chunk));
		fed += sizeof(chunk);
	}
	CHECK(ret == -1 && jt_failed(p) && strstr(jt_error(p), "no JSON token ends"),
	      "fed %zu: %s", fed, jt_error(p));
	CHECK(fed <= JT_TOKEN_MAX + 2 * sizeof(chunk), "refused after %zu bytes", fed);
	jt_parser_free(p);
}

int main(void)
{
	RUN_TEST(test_chunks_do_not_matter());
	RUN_TEST(test_integers());
	RUN_TEST(test_refused());
	RUN_TEST(test_token_bound());
	return check_done("test_jtree");
}
