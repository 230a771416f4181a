/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer export --format perfetto: Perfetto's protobuf trace (a Trace of
 * TracePackets), written against the field numbers of Perfetto's
 * protos/perfetto/trace/ (listed in sinks/perfetto.c), so that
 * ui.perfetto.dev and trace_processor show CPU lanes and thread states:
 *   - the scheduler's and the tasks' events (sched_switch, sched_waking,
 *     sched_wakeup, sched_wakeup_new, sched_process_fork/exit/exec/free,
 *     task_newtask, task_rename) as ftrace events in per-CPU bundles;
 *   - every other record as an instant TrackEvent on its thread's track,
 *     its fields as debug annotations;
 *   - the processes and threads with their names, as a ProcessTree;
 *   - a ClockSnapshot: tracer's times (CLOCK_MONOTONIC) are given as the
 *     boot clock, which Perfetto reads ftrace times in; the two differ by
 *     the time the machine spent suspended before the recording.
 */
#ifndef TRACER_EXPORT_PERFETTO_H
#define TRACER_EXPORT_PERFETTO_H

#include <stdio.h>

struct tr_item;
struct tr_tasks;
struct tr_perfetto;

/* NULL without memory. */
struct tr_perfetto *tr_perfetto_open(FILE *out);
/* A record, counted into its task's entry of tasks. */
void tr_perfetto_record(struct tr_perfetto *p, const struct tr_item *it, struct tr_tasks *tasks);
/* A loss: the next bundle of its CPU says events were lost before it. */
void tr_perfetto_lost(struct tr_perfetto *p, const struct tr_item *it);
/* Writes what is left and the process tree; frees p.  0, or -ENOMEM if a packet could not be built. */
int tr_perfetto_close(struct tr_perfetto *p, const struct tr_tasks *tasks);

#endif /* TRACER_EXPORT_PERFETTO_H */
