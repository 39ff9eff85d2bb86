// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat load's messages: one line on stderr, escaped, for every part
 * of the load (load.c, load_cg.c, load_read.c).
 */
#include <stdarg.h>
#include "escape.h"
#include "load_int.h"

void load_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn("rstatlat load", fmt, ap);
	va_end(ap);
}

void load_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie("rstatlat load", code, fmt, ap);
	va_end(ap); /* not reached: each va_start has its va_end */
}
