/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Part 1's configurations: the baseline, the peers (peers.h) and the
 * diagnostics, in the order of the tables and the CSV.
 */
#ifndef TRACEPOINT_BENCH_CONFIGS_H
#define TRACEPOINT_BENCH_CONFIGS_H

#include "harness.h"

enum { C_NONE, C_EMPTY, C_TRACER, C_TRACER_PROG, C_RINGBUF, C_PERFBUF, C_PERF, C_TRACE_CMD,
       C_FTRACE, C_BPFTRACE, C_CLOCK, C_TOUCH1, C_TOUCH4, C_FILTER_PASS, C_FILTER_NONE,
       C_FILTER_GLOB, NCONFIGS };

extern struct config configs[NCONFIGS];

#endif
