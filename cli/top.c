// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer top: what the machine does now, live (tracer/top.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <tracer/top.h>

#include "options.h"
#include "recording.h"

/*
 * top's state: what to record (first: record's setters take it as
 * theirs; its o is top.record), top's own options, and whether --batch
 * was given.
 */
struct top_args {
	struct recording rec;
	struct tr_top_opts top;
	int batch;
};

/* The setters of top's own options (options.h's set()): state is a struct top_args. */
static int set_interval(void *state, const char *value)
{
	struct tr_top_opts *o = &((struct top_args *)state)->top;

	if (parse_duration("--interval", value, &o->interval))
		return -EINVAL;
	if (o->interval < 0.1 || o->interval > 3600)
		return refuse("--interval", value, "must be from 0.1 to 3600 seconds");
	return 0;
}

static int set_batch(void *state, const char *value)
{
	struct top_args *t = state;

	(void)value;
	t->batch = 1;
	if (t->top.output == TR_TOP_SCREEN)
		t->top.output = TR_TOP_TEXT;
	return 0;
}

static int set_output(void *state, const char *value)
{
	struct tr_top_opts *o = &((struct top_args *)state)->top;

	if (!strcmp(value, "json"))
		o->output = TR_TOP_JSON;
	else if (!strcmp(value, "text"))
		o->output = TR_TOP_TEXT;
	else
		return refuse("--output", value, "must be text or json");
	return 0;
}

static int set_iterations(void *state, const char *value)
{
	return parse_uint_into("--iterations", value, 1, UINT_MAX, &((struct top_args *)state)->top.iterations);
}

static int set_rows(void *state, const char *value)
{
	return parse_uint_into("--rows", value, 0, UINT_MAX, &((struct top_args *)state)->top.rows);
}

static int set_sample(void *state, const char *value)
{
	return parse_uint_into("--sample", value, 1, 100, &((struct top_args *)state)->top.sample_percent);
}

static int set_record(void *state, const char *value)
{
	((struct top_args *)state)->top.record.output = value;
	return parse_nonempty("--record", value);
}

/* The help of the options top takes as record does, on one row. */
#define AS_RECORD	"as record takes them"

static const struct cli_option top_options[] = {
	{ "event", 'e', "EVENT",
	  "as record takes it (default: sched:sched_switch, sched:sched_waking,\n"
	  "raw_syscalls:sys_enter, raw_syscalls:sys_exit); --filter follows its -e", set_event, 0 },
	{ "filter", 0, "EXPR", "only the events of the -e before it that pass EXPR, as record takes it",
	  set_filter, CLI_IN_TEXT },
	{ "pid", 'p', "PID", "only this process and its threads", set_pid, 0 },
	{ "cpu", 'C', "LIST", "only these CPUs, e.g. 0,2-3", set_cpu, 0 },
	{ "comm", 0, "NAME", "only tasks with this command name", set_comm, 0 },
	{ "interval", 0, "SECS", "seconds between updates, e.g. 1 or 0.5 (default 1)", set_interval, 0 },
	{ "batch", 0, NULL,
	  "no screen: the tables as text on standard output at each update (top -b)", set_batch, 0 },
	{ "output", 0, "FORMAT", "with --batch: text (default) or json (an object per update and line)",
	  set_output, 0 },
	{ "iterations", 0, "N", "with --batch: stop after N updates", set_iterations, 0 },
	{ "rows", 0, "N", "with --batch text: at most N rows per table (default 20, 0: all)", set_rows, 0 },
	{ "record", 0, "DIR", "also write the trace record would write into DIR (-f replaces it)",
	  set_record, 0 },
	{ "force", 'f', NULL,
	  "with --record, replace an existing trace directory; the previous one is kept as DIR.old",
	  set_force, CLI_IN_TEXT },
	{ "sample", 0, "PERCENT",
	  "read the records of only this share of the sub-buffers (1 to 100) and\n"
	  "scale the counts, each with its error bound (ERR%, 95%); default 100", set_sample, 0 },
	{ "duration", 'd', "SECS", "stop after SECS seconds", set_duration, 0 },
	{ "buffer-size", 0, "SIZE", AS_RECORD, set_buffer_size, CLI_JOINED },
	{ "subbuf-size", 0, "SIZE", AS_RECORD, set_subbuf_size, CLI_JOINED },
	{ "flush-ms", 0, "MS", AS_RECORD, set_flush_ms, CLI_JOINED },
	{ "backend", 0, "WHO", AS_RECORD, set_backend, CLI_JOINED },
	{ "verbose", 'v', NULL, AS_RECORD, set_verbose, CLI_JOINED },
	{ 0 }
};

static int cmd_top(int argc, char **argv);

const struct cli_command top_command = {
	.name = "top",
	.summary = "what the machine does now, live: tasks, system calls, events, CPUs",
	.synopsis = "tracer top [-e EVENT...] [options]",
	.options = top_options,
	.notes =
	"The screen: Tab or t s e c switch the view (tasks, system calls, events, CPUs), < > the sort\n"
	"column, p pauses, f filters the tasks, r resets the counts, h helps, q quits.\n"
	"Lost events are shown by cause in the header; none are ever left out.\n",
	.stop_at_operand = 1,
	.run = cmd_top,
	.examples =
	"tracer top\tthe tasks, system calls, events and CPUs of the machine, updated every second\n"
	"tracer top --batch --iterations 5 --output json\tfive updates as JSON on standard output\n"
	"tracer top -e 'sched:*' --record sched.data\tthe scheduler's events, shown and written as a trace\n",
};

/* top's options into t, and top. */
static int top_with(struct top_args *t, int argc, char **argv)
{
	int status = cli_parse(&top_command, argc, argv, t);

	if (status != CLI_GO_ON)
		return status;
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (top watches the whole machine, or -p PID)\n",
			me, argv[optind]);
		return 2;
	}
	if (!t->batch && t->top.output != TR_TOP_SCREEN) {
		fprintf(stderr, "%s: --output prints tables without a screen: add --batch\n", me);
		return 2;
	}
	if (!t->batch && t->top.iterations) {
		fprintf(stderr, "%s: --iterations counts --batch's updates: add --batch\n", me);
		return 2;
	}
	if (assign_channels(&t->top.record, &t->rec.a))
		return 2;
	return tr_top(&t->top);
}

/* top's slots and defaults, then top: the exit status. */
static int cmd_top(int argc, char **argv)
{
	struct top_args t = { .rec.o = &t.top.record };
	int status = 1;

	if (!event_args_new(&t.rec.a, argc)) {
		t.top = (struct tr_top_opts) {
			.record = record_defaults(&t.rec.a), .interval = 1, .rows = 20,
			.sample_percent = 100,
		};
		t.top.record.output = NULL;
		status = top_with(&t, argc, argv);
	}
	event_args_free(&t.rec.a);
	return status;
}
