// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uprobe_target N FILE: calls bench_probed(i, 2 * i) N times and writes
 * the loop's nanoseconds into FILE (workload 8, bench/uprobe_bench.py):
 * what a uprobe on bench_probed adds to each call, whoever records it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline, used)) long bench_probed(long a, long b)
{
	__asm__ volatile("" : : : "memory");	/* keeps the call */
	return a ^ b;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[1]) : 0, sum = 0;
	long long start;
	FILE *out;

	if (n <= 0) {
		fprintf(stderr, "usage: uprobe_target CALLS FILE\n");
		return 2;
	}
	start = now_ns();
	for (i = 0; i < n; i++)
		sum += bench_probed(i, 2 * i);
	start = now_ns() - start;
	out = fopen(argv[2], "w");
	if (!out || fprintf(out, "%lld %ld\n", start, sum) < 0 || fclose(out))
		return 1;
	return 0;
}
