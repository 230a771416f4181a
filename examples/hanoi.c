// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Towers of Hanoi of the ELFE flight recorder (../shared/seeds, S3),
 * through libtracer-ust: solved once printing each move, once recording
 * into one channel per kind of event, then dumped as a trace.
 *
 *	build/examples/hanoi DIR [N]		N disks, 6 by default
 *	build/tracer report DIR
 *
 * For n disks the trace holds, in time order: Begin and End printing
 * (TIMING), then for each call CALLS, and MOVES for a single disk or
 * RECURSE before each of the three recursive calls, then End recording
 * (TIMING).  For n = 6: CALLS 94, MOVES 63, RECURSE 93, TIMING 4.
 */
#define TRACER_PROVIDER hanoi
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracer/ust.h>

TRACER_CHANNEL(MOVES, 8192, 4, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(RECURSE, 8192, 4, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(CALLS, 8192, 4, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(TIMING, 4096, 2, TRACER_UST_OVERWRITE);

enum post { LEFT, MIDDLE, RIGHT };
static const char *const post_name[] = { "LEFT", "MIDDLE", "RIGHT" };

static void hanoi_print(int n, enum post left, enum post right, enum post middle)
{
	if (n == 1) {
		printf("Move disk from %s to %s\n", post_name[left], post_name[right]);
		return;
	}
	hanoi_print(n - 1, left, middle, right);
	hanoi_print(1, left, right, middle);
	hanoi_print(n - 1, middle, right, left);
}

static void hanoi_record(int n, enum post left, enum post right, enum post middle)
{
	TRACE(CALLS, "n=%d, left=%-6s, right=%-6s, middle=%-6s",
	      n, post_name[left], post_name[right], post_name[middle]);
	if (n == 1) {
		TRACE(MOVES, "Move disk from %s to %s", post_name[left], post_name[right]);
		return;
	}
	TRACE(RECURSE, "Recurse #1 n=%d", n);
	hanoi_record(n - 1, left, middle, right);
	TRACE(RECURSE, "Recurse #2 n=%d", n);
	hanoi_record(1, left, right, middle);
	TRACE(RECURSE, "Recurse #3 n=%d", n);
	hanoi_record(n - 1, middle, right, left);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int count = argc > 2 ? atoi(argv[2]) : 6, err;
	double t0, t1, t2;

	if (argc < 2 || argc > 3 || count < 1 || count > 20) {
		fprintf(stderr, "usage: %s DIR [DISKS]: solve the Towers of Hanoi (1 to 20 disks, "
			"6 by default) and dump a trace into DIR\n", argv[0]);
		return 2;
	}
	t0 = now_us();
	TRACE(TIMING, "Begin printing Hanoi with %d", count);
	hanoi_print(count, LEFT, MIDDLE, RIGHT);
	TRACE(TIMING, "End printing Hanoi with %d", count);
	t1 = now_us();
	TRACE(TIMING, "Begin recording Hanoi with %d", count);
	hanoi_record(count, LEFT, MIDDLE, RIGHT);
	TRACE(TIMING, "End recording Hanoi with %d", count);
	t2 = now_us();
	fflush(stdout);
	fprintf(stderr, "printing: %.0f us, recording: %.0f us\n", t1 - t0, t2 - t1);
	err = tracer_ust_dump(argv[1]);
	if (err) {
		fprintf(stderr, "hanoi: cannot dump into %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
