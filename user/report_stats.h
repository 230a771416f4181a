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

/* NULL without memory. */
struct tr_stats *tr_stats_new(void);
void tr_stats_record(struct tr_stats *s, const struct tr_item *it);
void tr_stats_lost(struct tr_stats *s, const struct tr_item *it);
/* The tables, tasks named by comm_of(ctx, tid). */
void tr_stats_print(const struct tr_stats *s, FILE *out,
		    const char *(*comm_of)(const void *ctx, __u32 tid), const void *ctx);
void tr_stats_free(struct tr_stats *s);

#endif /* TRACER_REPORT_STATS_H */
