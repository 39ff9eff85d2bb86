/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal test harness. A test is a function run by RUN_TEST; it fails
 * when any CHECK in it fails. Each binary prints one tally of tests, with
 * the number of checks beside it.
 */
#ifndef RSTATLAT_CHECK_H
#define RSTATLAT_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int checks_passed, checks_failed, tests_passed, tests_failed;
static bool in_test;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!in_test) {                                           \
			checks_failed++;                                  \
			fprintf(stderr, "FAIL %s:%d: CHECK outside a "    \
				"RUN_TEST\n", __FILE__, __LINE__);        \
		} else if (cond) {                                        \
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

/* Runs one test case: a call, with its arguments when it has any. */
#define RUN_TEST(call)                                                    \
	do {                                                              \
		int failed_before_ = checks_failed;                       \
		in_test = true;                                           \
		call;                                                     \
		in_test = false;                                          \
		if (checks_failed == failed_before_) {                    \
			tests_passed++;                                   \
		} else {                                                  \
			tests_failed++;                                   \
			fprintf(stderr, "FAILED TEST %s\n", #call);       \
		}                                                         \
	} while (0)

/* The runner reads this line from every test binary. */
static inline int check_done(const char *name)
{
	if (!tests_passed && !tests_failed) {
		fprintf(stderr, "%s: no test ran\n", name);
		tests_failed++;
	}
	printf("%s: %d passed, %d failed (%d checks)\n", name, tests_passed,
	       tests_failed + (checks_failed && !tests_failed), checks_passed + checks_failed);
	return tests_failed || checks_failed ? 1 : 0;
}

#endif
