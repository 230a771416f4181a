/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer export --format chrome-json: the Trace Event Format (catapult's
 * JSON, which chrome://tracing, Perfetto's UI and speedscope open).
 *   - every record: an instant event ("ph":"i") on its thread's track,
 *     named system:name, its fields as args;
 *   - what ran on each CPU, from sched:sched_switch: complete events
 *     ("ph":"X") named by the task, on a track per CPU of a process of
 *     their own ("CPUs", pid TR_CHROME_CPUS_PID, tid = the CPU); a task
 *     switched in on one CPU ends its slice on another, so a thread is
 *     never on two CPUs at once; slices still open end at the last record;
 *   - losses: global instant events "LOST" on their CPU's track;
 *   - names: process_name and thread_name metadata ("ph":"M").
 * Times in microseconds, to the nanosecond.
 */
#ifndef TRACER_EXPORT_CHROME_H
#define TRACER_EXPORT_CHROME_H

#include <stdio.h>

/* Above the kernel's largest pid (pid_max at most 2^22): no task's. */
#define TR_CHROME_CPUS_PID	((1 << 22) + 1)

struct tr_item;
struct tr_tasks;
struct tr_chrome;

/* Starts the document; NULL without memory. */
struct tr_chrome *tr_chrome_open(FILE *out);
/* A record, counted into its task's entry of tasks. */
void tr_chrome_record(struct tr_chrome *c, const struct tr_item *it, struct tr_tasks *tasks);
void tr_chrome_lost(struct tr_chrome *c, const struct tr_item *it);
/* Ends the open slices and the document, naming the tasks met; frees c. */
void tr_chrome_close(struct tr_chrome *c, const struct tr_tasks *tasks);

#endif /* TRACER_EXPORT_CHROME_H */
