// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"

/* Decimal digits of v. */
static unsigned int decimal_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned int n = 1;

	while (n < 20 && v >= pow10[n])
		n++;
	return n;
}

void fmt_copy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/*
 * Two digits per division, written backwards once the length is known:
 * the JSON view writes millions of numbers for 10 000 rows.
 */
char *fmt_put_uint(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char *end = p + decimal_len(v), *q = end;

	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, pairs + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(q - 2, pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return end;
}

/*
 * Integer formatting by hand: the table prints six of these per row, and
 * printf (its floating point first, then its parsing) made a 10 000-row
 * table miss its 10 ms budget (docs/performance.md).
 */
char *fmt_put_duration(char *p, uint64_t ns)
{
	static const struct { uint64_t div; char unit[3]; } units[] = {
		{ 1000000000ULL, "s" }, { 1000000ULL, "ms" }, { 1000ULL, "us" }, { 1, "ns" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1 && ns < units[i].div; i++)
		;
	if (units[i].div == 1) {
		p = fmt_put_uint(p, ns);
	} else {
		uint64_t div = units[i].div, decimals, scale, v;

		/* as %.2f below 10, %.1f below 100, %.0f above */
		decimals = ns < 10 * div ? 2 : ns < 100 * div ? 1 : 0;
		scale = decimals == 2 ? 100 : decimals == 1 ? 10 : 1;
		v = (ns * scale + div / 2) / div;
		p = fmt_put_uint(p, v / scale);
		if (decimals == 2) {
			*p++ = '.';
			*p++ = (char)('0' + v % 100 / 10);
			*p++ = (char)('0' + v % 10);
		} else if (decimals == 1) {
			*p++ = '.';
			*p++ = (char)('0' + v % 10);
		}
	}
	*p++ = units[i].unit[0];
	if (units[i].unit[1])
		*p++ = units[i].unit[1];
	return p;
}

const char *fmt_duration(char *buf, size_t len, uint64_t ns)
{
	char tmp[40];
	size_t n = (size_t)(fmt_put_duration(tmp, ns) - tmp);

	/* as snprintf(buf, len, "%s", tmp) would */
	if (len) {
		n = n < len - 1 ? n : len - 1;
		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	return buf;
}

/*
 * The one syntax of a number on the command line: decimal digits with at
 * most one '.', sign allowed where the caller allows it; no hex, exponent,
 * inf or nan, which strtod() alone would take. Returns the end, or NULL.
 */
static const char *decimal_end(const char *s, bool sign)
{
	size_t digits = 0;

	if (sign && (*s == '+' || *s == '-'))
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	return digits ? s : NULL;
}

int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ns)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	uint64_t mult = default_unit_ns;
	char *end;
	double v;
	size_t i;

	if (!s || !decimal_end(s, false))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != decimal_end(s, false) || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		mult = units[i].mult;
	}
	v *= (double)mult;
	if (v >= 1.8e19)
		return -1;
	*ns = (uint64_t)(v + 0.5);
	return 0;
}

int parse_number(const char *s, const char *suffix, double *out)
{
	char *end;
	double v;

	if (!s || !decimal_end(s, true))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != decimal_end(s, true) || strcmp(end, suffix) || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}
