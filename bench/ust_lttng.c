// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workload 6, the peer: the same loop (ust_loop.h) through lttng-ust
 * tracepoints, probes linked in; bench/ust_bench.py runs it inside an
 * lttng snapshot session (flight recorder) created before it starts.
 */
#define _GNU_SOURCE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "ust_lttng_tp.h"

#include "ust_loop.h"

static void record_ev2(long a, uintptr_t p)
{
	lttng_ust_tracepoint(bench, ev2, a, p);
}

static void record_ev2str(long a, uintptr_t p, const char *s)
{
	lttng_ust_tracepoint(bench, ev2str, a, p, s);
}

int main(int argc, char **argv)
{
	return ust_main(argc, argv);
}
