/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report's first pass over a trace, before its items go to a sink.
 * It names every thread by its first tracer:task_state record: the state
 * dump of a snapshot comes after the events it names, and records of
 * other CPUs may come before a thread's dump record (the main pass then
 * follows each rename as it comes).  It teaches the sink's symbols every
 * mapping, and counts the items, for the progress and the time window.
 * Problems are said in the main pass, not here.
 */
#ifndef TRACER_FIRST_PASS_H
#define TRACER_FIRST_PASS_H

#include <linux/types.h>

struct tr_symbols;
struct tr_tasks;

/* What the first pass counts. */
struct tr_first_pass {
	__u64 items;			/* records and losses */
	__u64 first;			/* the first one's time; 0: none */
};

/*
 * Reads the trace in dir once (opened apart from the main pass's): names
 * in tasks, mappings into symbols (NULL: none wanted), counts into *seen.
 * 0, or the -errno of opening it (then nothing was learnt).
 */
int tr_first_pass(const char *dir, struct tr_tasks *tasks, struct tr_symbols *symbols,
		  struct tr_first_pass *seen);

#endif /* TRACER_FIRST_PASS_H */
