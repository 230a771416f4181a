// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workload 6, tracer's side: ns per event recorded through libtracer-ust
 * into a channel of 4 x 512 KiB per thread (lttng-ust's default
 * sub-buffers, per CPU there): flight recorder (overwrite mode), or with
 * -DUST_BENCH_DISCARD the discard mode that `tracer record` streams to
 * disk (build/bench/ust_bench_disk).  ust_loop.h times it.  Events are
 * bench:ev2 and bench:ev2str, as lttng-ust's.
 */
#define _GNU_SOURCE
#define TRACER_PROVIDER bench
#include <tracer/ust.h>

#include "ust_loop.h"

#ifdef UST_BENCH_DISCARD
TRACER_CHANNEL(BENCH, 512 * 1024, 4, TRACER_UST_DISCARD);
#define MAY_LOSE	1	/* when the recorder falls behind: its summary counts them */
#else
TRACER_CHANNEL(BENCH, 512 * 1024, 4, TRACER_UST_OVERWRITE);
#define MAY_LOSE	0	/* a flight recorder overwrites, never loses */
#endif

static void record_ev2(long a, uintptr_t p)
{
	tracer_event(BENCH, ev2, a, p);
}

static void record_ev2str(long a, uintptr_t p, const char *s)
{
	tracer_event(BENCH, ev2str, a, p, s);
}

int main(int argc, char **argv)
{
	struct tracer_ust_counts counts;
	int status = ust_main(argc, argv);

	tracer_ust_counts(&counts);
	if (!status && counts.lost && !MAY_LOSE) {
		fprintf(stderr, "ust_bench: %llu events lost\n", (unsigned long long)counts.lost);
		return 1;
	}
	return status;
}
