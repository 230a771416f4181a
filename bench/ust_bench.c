// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workload 6, tracer's side: ns per event recorded through libtracer-ust
 * into a flight-recorder channel of 4 x 512 KiB per thread (lttng-ust's
 * default sub-buffers, per CPU there).  ust_loop.h times it; at the end
 * every event must be in the buffers or overwritten, none lost.
 */
#define _GNU_SOURCE
#include <tracer/ust.h>

#include "ust_loop.h"

TRACER_CHANNEL(BENCH, 512 * 1024, 4, TRACER_UST_OVERWRITE);

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
	if (!status && counts.lost) {
		fprintf(stderr, "ust_bench: %llu events lost\n", (unsigned long long)counts.lost);
		return 1;
	}
	return status;
}
