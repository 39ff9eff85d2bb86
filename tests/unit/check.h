/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal test harness: CHECK counts, each binary prints its tally. */
#ifndef RSTATLAT_CHECK_H
#define RSTATLAT_CHECK_H

#include <stdio.h>
#include <string.h>

static int checks_passed, checks_failed;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (cond) {                                               \
			checks_passed++;                                  \
		} else {                                                  \
			checks_failed++;                                  \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,     \
				__LINE__, #cond);                         \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
		}                                                         \
	} while (0)

#define CHECK_STR(got, want)                                              \
	CHECK(strcmp((got), (want)) == 0, "got [%s] want [%s]", (got), (want))

/* The runner reads this line from every test binary. */
static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, checks_passed, checks_failed);
	return checks_failed ? 1 : 0;
}

#endif
