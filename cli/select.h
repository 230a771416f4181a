/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What report and export share: which events, from which trace (--cpu,
 * --pid, --tid, --event, --start, --end, --raw, and DIR).
 */
#ifndef TRACER_CLI_SELECT_H
#define TRACER_CLI_SELECT_H

#include <tracer/report.h>

/*
 * The state the selecting options fill: the report's options and the
 * slots --event fills (one per argument).  It comes first in report's
 * and export's states, which the setters below take as theirs.
 */
struct selection {
	struct tr_report_opts o;
	const char **events;
};

/* The selecting options' rows, first in report's and export's tables. */
#define SELECT_OPTIONS \
	CLI_OPERAND("DIR", "trace directory (default tracer.data)"), \
	{ "cpu", 0, "LIST", "only these CPUs, e.g. 0,2-3", set_select_cpu, 0 }, \
	{ "pid", 0, "PID", "only this process (all its threads)", set_select_pid, 0 }, \
	{ "tid", 0, "TID", "only this thread", set_select_tid, 0 }, \
	{ "event", 0, "GLOB", "only these events, e.g. 'sched:*' or sched_switch; repeat for more", \
	  set_select_event, 0 }, \
	{ "start", 0, "TIME", \
	  "only from TIME on: seconds as report prints them (12345.000067890),\n" \
	  "or +SECONDS after the trace's first record, at its start (+1.5)", set_select_start, 0 }, \
	{ "end", 0, "TIME", "only up to TIME, the same way", set_select_end, 0 }, \
	{ "raw", 0, NULL, "text: each event's fields as name=value, not its tracepoint's print format", \
	  set_select_raw, 0 }

/* The setters of the rows above (options.h's set()): state is a struct selection. */
int set_select_cpu(void *state, const char *value);
int set_select_pid(void *state, const char *value);
int set_select_tid(void *state, const char *value);
int set_select_event(void *state, const char *value);
int set_select_start(void *state, const char *value);
int set_select_end(void *state, const char *value);
int set_select_raw(void *state, const char *value);

/*
 * s for command ("report", "export"): the trace tracer.data, every event;
 * --event's slots for argc arguments.  0, or -ENOMEM (free it all the same).
 */
int selection_new(struct selection *s, const char *command, int argc);
void selection_free(struct selection *s);

/* The trace directory: the one operand left, if any.  0, or -EINVAL said on stderr. */
int trace_dir_argument(struct selection *s, int argc, char **argv);

#endif /* TRACER_CLI_SELECT_H */
