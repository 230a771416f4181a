/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A sink: where report and export hand the items their filters keep, as a
 * method set (babeltrace2's sink components, perf's struct perf_tool).
 * The pipeline (sinks/report.c) opens the one its format names
 * (tr_sink_of()), then hands it each wanted record and each loss, in time
 * order, and closes it.  A new sink is a file that defines its ops and a
 * row in sinks/sink_table.c (and its name below, and a format in
 * include/tracer/report.h).
 */
#ifndef TRACER_SINK_H
#define TRACER_SINK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "reader/trace.h"
#include "sinks/report.h"

struct tr_tasks;
struct tr_symbols;

/* An open sink. */
struct tr_sink {
	const struct tr_sink_ops *ops;
	void *state;			/* the sink's own */
	/*
	 * What names its frames and the functions fields point to, if it
	 * names any (its own: close frees them), else NULL.  The pipeline
	 * teaches them the trace's mappings in its first pass.
	 */
	struct tr_symbols *symbols;
};

struct tr_sink_ops {
	/*
	 * Opens k on out for the trace read, as o says (o->command names the
	 * command in messages).  0; -EINVAL: a usage error, said on stderr;
	 * or -errno.  k holds nothing to close when it fails.
	 */
	int (*open)(struct tr_sink *k, FILE *out, struct tr_trace *trace,
		    const struct tr_report_opts *o);
	/* A record the filters keep; tasks holds their names (and counts for the sinks that keep some). */
	void (*record)(void *state, const struct tr_item *it, struct tr_tasks *tasks);
	/* A loss on a CPU the filters keep (never given with --pid, --tid or --event). */
	void (*lost)(void *state, const struct tr_item *it);
	/* Writes what the sink kept for the end, frees its state: 0, or -errno. */
	int (*close)(void *state, const struct tr_tasks *tasks);
	/*
	 * Or NULL: ends a sink cut short (o->stop), removing what it made
	 * (the caller removes an output file), and frees its state.
	 */
	void (*abandon)(void *state);
	/*
	 * A trace or nothing (it has abandon): a damaged trace (its problems
	 * said) abandons it instead of closing it.
	 */
	bool whole_or_nothing;
	/*
	 * A copy of the trace: what names its tasks and their code
	 * (tracer:task_state, tracer:vm_map) is kept without --event, and
	 * from outside the time window too, since what came before it holds
	 * in it.  Other sinks show neither, as perf script hides its task and
	 * mmap events.
	 */
	bool keeps_state;
	/*
	 * An analysis: it gets every task's records and every loss, and
	 * --pid and --tid choose the tasks it shows.
	 */
	bool every_task;
};

/* The sinks (sinks/sink_table.c has them by format). */
extern const struct tr_sink_ops tr_text_sink, tr_folded_sink, tr_jsonl_sink, tr_stats_sink,
	tr_chrome_sink, tr_perfetto_sink, tr_ctf_copy_sink, tr_lttng_sink, tr_tracecmd_sink,
	tr_analyze_sched_sink, tr_analyze_syscalls_sink, tr_analyze_irq_sink, tr_analyze_cpu_sink,
	tr_analyze_offcpu_sink;

/* format's sink (one of enum tr_report_format's). */
const struct tr_sink_ops *tr_sink_of(enum tr_report_format format);

/*
 * Whether class is the tracer's own name: task_state and vm_map name tasks
 * and their code (record/statedump.h), recursion_misses counts the events
 * the kernel skipped (record/recursion_misses.h), a loss which the text
 * and the stats say as one.
 */
static inline bool tr_is_tracer_class(const struct tr_trace_class *class, const char *name)
{
	return !strcmp(class->system, "tracer") && !strcmp(class->name, name);
}

#endif /* TRACER_SINK_H */
