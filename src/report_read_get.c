// SPDX-License-Identifier: GPL-2.0
/*
 * The checked getters every read of report_read goes through: a key
 * missing, or of another type, or out of range, is said where it is, in
 * one line; and a sum that refuses to wrap.
 */
#include <stdarg.h>
#include <stdio.h>
#include "report_read_int.h"

void say_failure(struct reader *rd, const char *fmt, ...)
{
	/* the line the parser has reached: where the problem is */
	int n = snprintf(rd->err, rd->errlen, "line %zu: ", rd->jp ? jt_line(rd->jp) : 0);
	va_list ap;

	if (n < 0 || (size_t)n >= rd->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
}

const struct jt *get(struct reader *rd, const struct jt *obj, const char *ctx, const char *key)
{
	const struct jt *v = jt_get(obj, key);

	if (!v)
		say_failure(rd, "%s%smissing key \"%s\"", ctx, *ctx ? ": " : "", key);
	return v;
}

int get_u64(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
	    uint64_t *out)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (!v)
		return -1;
	if (!jt_is(v, JT_UINT))
		return fail(rd, "%s%s\"%s\" is not a non-negative integer", ctx,
			    *ctx ? ": " : "", key);
	*out = v->u;
	return 0;
}

int get_u32(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
	    uint32_t *out)
{
	uint64_t v;

	if (get_u64(rd, obj, ctx, key, &v))
		return -1;
	if (v > UINT32_MAX)
		return fail(rd, "%s%s\"%s\" is out of range", ctx, *ctx ? ": " : "", key);
	*out = (uint32_t)v;
	return 0;
}

const char *get_str(struct reader *rd, const struct jt *obj, const char *ctx, const char *key)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (v && !jt_is(v, JT_STRING)) {
		say_failure(rd, "%s%s\"%s\" is not a string", ctx, *ctx ? ": " : "", key);
		return NULL;
	}
	return v ? v->str.s : NULL;
}

const struct jt *get_typed(struct reader *rd, const struct jt *obj, const char *ctx,
			   const char *key, bool array)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (v && (array ? !jt_is(v, JT_ARRAY) : !jt_is(v, JT_OBJECT))) {
		say_failure(rd, "%s%s\"%s\" is not an %s", ctx, *ctx ? ": " : "", key,
			    array ? "array" : "object");
		return NULL;
	}
	return v;
}

/* into += v, refusing to wrap: merged objects add their counts. */
int add_u64(struct reader *rd, const char *ctx, uint64_t *into, uint64_t v, const char *key)
{
	if (v > UINT64_MAX - *into)
		return fail(rd, "%s: \"%s\" overflows", ctx, key);
	*into += v;
	return 0;
}
