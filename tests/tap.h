/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Test Anything Protocol output for tracer's C tests, read by prove(1).
 * A test is a function; EXPECT* record failures with the expression and
 * values, tap_run() prints one "ok"/"not ok" line per test, tap_skip()
 * one "ok ... # SKIP reason" line, tap_done() the plan and exit status.
 */
#ifndef TRACER_TAP_H
#define TRACER_TAP_H

#include <stdio.h>
#include <stdarg.h>

static int tap_count, tap_failures, tap_current_failed;

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline void tap_fail(const char *file, int line, const char *what)
{
	tap_current_failed = 1;
	tap_diag("%s:%d: expected %s", file, line, what);
}

#define EXPECT(cond) \
	do { \
		if (!(cond)) \
			tap_fail(__FILE__, __LINE__, #cond); \
	} while (0)

#define EXPECT_EQ(a, b) \
	do { \
		unsigned long long a_ = (a), b_ = (b); \
		if (a_ != b_) { \
			tap_fail(__FILE__, __LINE__, #a " == " #b); \
			tap_diag("  %s = %llu (%#llx)", #a, a_, a_); \
			tap_diag("  %s = %llu (%#llx)", #b, b_, b_); \
		} \
	} while (0)

/* As EXPECT_EQ, and ends the test when it fails: what follows depends on it. */
#define REQUIRE_EQ(a, b) \
	do { \
		EXPECT_EQ(a, b); \
		if (tap_current_failed) \
			return; \
	} while (0)

static inline void tap_run(const char *name, void (*test)(void))
{
	tap_current_failed = 0;
	test();
	tap_count++;
	tap_failures += tap_current_failed;
	printf("%sok %d - %s\n", tap_current_failed ? "not " : "", tap_count, name);
	fflush(stdout);
}

static inline void tap_skip(const char *name, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_count, name, why);
}

/* Plan at the end, as TAP allows; exit status 1 if any test failed. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures != 0;
}

#define TAP_RUN(test) tap_run(#test, test)

#endif /* TRACER_TAP_H */
