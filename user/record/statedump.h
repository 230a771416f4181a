/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who is who in a trace: tracer:task_state records (tracer/record.h) name
 * every task.  The state dump writes one per task at the start of a
 * recording and of each snapshot (LTTng's statedump); the recorder's
 * programs on task:task_newtask and task:task_rename write one as tasks
 * appear and change their command names.  report reads them to name
 * every thread, and the process each thread belongs to.
 */
#ifndef TRACER_TASKS_H
#define TRACER_TASKS_H

#include <bpf/libbpf.h>

/* Its tracefs-style format, for tr_events_add_format() and decoders. */
extern const char tr_task_state_format[];

/*
 * Runs the state dump: the task iterator program iter writes a record for
 * every task into the buffers of the CPU it runs on.  0 or -errno.
 */
int tr_tasks_dump(const struct bpf_program *iter);

#endif /* TRACER_TASKS_H */
