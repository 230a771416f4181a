// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table of part 1's configurations: each one's key (--only, the CSV's
 * config column), its label, and its peer's setup, start and stop.  A new
 * peer is a file (peers.h) and a row here.
 */
#include "configs.h"
#include "peers.h"

/* The baseline: nothing records. */
static int none_start(void)
{
	return 0;
}

static void none_stop(struct run_result *r)
{
	(void)r;
}

struct config configs[NCONFIGS] = {
	[C_NONE] = { "none", "no tracing", NULL, none_start, none_stop },
	[C_EMPTY] = { "empty", "empty BPF program (classic tracepoint)", empty_setup, empty_start,
		     stop_link },
	[C_TRACER] = { "tracer", "**tracer record -a** (CLI, discard mode, to disk)", tracer_setup,
		       tracer_start, tracer_stop },
	[C_TRACER_PROG] = { "tracer-prog", "tracer's BPF program alone (overwrite, no reader)",
			    tracer_prog_setup, tracer_prog_start, stop_link },
	[C_RINGBUF] = { "ringbuf", "BPF ringbuf, NO_WAKEUP, drained every 1 ms to a file",
			ringbuf_setup, ringbuf_start, ringbuf_stop },
	[C_PERFBUF] = { "perfbuf", "perf buffer, 2 MiB watermark, drained every 1 ms to a file",
			perfbuf_setup, perfbuf_start, perfbuf_stop },
	[C_PERF] = { "perf", "perf record -a (to a file)", perf_setup, perf_start, perf_stop },
	[C_TRACE_CMD] = { "trace-cmd", "trace-cmd record (8 MiB/CPU)", trace_cmd_setup,
			  trace_cmd_start, trace_cmd_stop },
	[C_FTRACE] = { "ftrace", "ftrace ring buffer via tracefs (own instance, 8 MiB/CPU, reader per CPU to a file)",
		       ftrace_setup, ftrace_start, ftrace_stop },
	[C_BPFTRACE] = { "bpftrace", "bpftrace, @[tid] = count() (in-kernel map, nothing streamed)",
			 bpftrace_setup, bpftrace_start, bpftrace_stop },
	[C_CLOCK] = { "clock", "diagnostic: bpf_ktime_get_ns only", diag_setup, clock_start, stop_link },
	[C_TOUCH1] = { "touch1", "diagnostic: 1 page of an mmapable map touched (1 atomic add)",
		       diag_setup, touch1_start, stop_link },
	[C_TOUCH4] = { "touch4", "diagnostic: 4 pages touched (4 atomic adds)", diag_setup,
		       touch4_start, stop_link },
	[C_FILTER_PASS] = { "filter-pass", "diagnostic: tracer record -a --filter 'common_pid != 0' (passes all)",
			    filter_setup, filter_pass_start, tracer_stop },
	[C_FILTER_NONE] = { "filter-none", "diagnostic: tracer record -a --filter 'common_pid == 0' (passes none)",
			    filter_setup, filter_none_start, tracer_stop },
	[C_FILTER_GLOB] = { "filter-glob", "diagnostic: tracer record -a --filter 'comm ~ \"*point*\"' (passes all)",
			    filter_setup, filter_glob_start, tracer_stop },
};
