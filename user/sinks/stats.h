/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer report --stats: what a trace holds, counted rather than printed
 * (trace-cmd report --stat, perf report --sort): its time span, its events
 * by type, by task and by CPU, and what each CPU lost.  A sink of report's
 * reader: it counts the items report would print, filters and all.
 */
#ifndef TRACER_REPORT_STATS_H
#define TRACER_REPORT_STATS_H

#include <stdio.h>
#include <linux/types.h>

struct tr_item;
struct tr_stats;
struct tr_tasks;

/* NULL without memory. */
struct tr_stats *tr_stats_new(void);
/* Counts a record, and into its task's entry of tasks. */
void tr_stats_record(struct tr_stats *s, const struct tr_item *it, struct tr_tasks *tasks);
void tr_stats_lost(struct tr_stats *s, const struct tr_item *it);
/* Counts events the kernel skipped (a tracer:recursion_misses record's) as lost. */
void tr_stats_skipped(struct tr_stats *s, __u64 events);
/* The tables, with the tasks' counts and names from tasks. */
void tr_stats_print(const struct tr_stats *s, FILE *out, const struct tr_tasks *tasks);
void tr_stats_free(struct tr_stats *s);

#endif /* TRACER_REPORT_STATS_H */
