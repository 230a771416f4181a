// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer analyze: latencies and usage worked out from a trace's events, as a table or JSON. */
#include <stdio.h>
#include <string.h>
#include <getopt.h>
#include <tracer/report.h>

#include "options.h"
#include "select.h"

/* The analyses by name. */
static const struct {
	const char *name;
	enum tr_report_format format;
} analyses[] = {
	{ "sched", TR_REPORT_ANALYZE_SCHED },
	{ "syscalls", TR_REPORT_ANALYZE_SYSCALLS },
	{ "irq", TR_REPORT_ANALYZE_IRQ },
	{ "cpu", TR_REPORT_ANALYZE_CPU },
	{ "offcpu", TR_REPORT_ANALYZE_OFFCPU },
};

static int set_output(void *state, const char *value)
{
	struct selection *s = state;

	if (strcmp(value, "text") && strcmp(value, "json"))
		return refuse("--output", value, "must be text or json");
	s->o.json = !strcmp(value, "json");
	return 0;
}

static int set_timehist(void *state, const char *value)
{
	(void)value;
	((struct selection *)state)->o.timehist = 1;
	return 0;
}

static const struct cli_option analyze_options[] = {
	CLI_OPERAND("KIND", "sched: per task, its runtime, switches and wake-up latencies\n"
		    "(average, p50, p99, p99.9, max and when), from sched:sched_switch and the\n"
		    "wake-ups; syscalls: per task and system call, the calls, errors by errno and\n"
		    "latencies; irq: per hard IRQ and soft IRQ vector, the count and durations,\n"
		    "and soft IRQs' latency from raise to entry; cpu: each CPU's busy time and\n"
		    "each task's runtime, as shares of the trace's time (from sched:sched_switch);\n"
		    "offcpu: the time tasks spent blocked, by the stack they blocked in, folded for\n"
		    "flame graphs (from a -g trace's sched:sched_switch)"),
	CLI_OPERAND("DIR", "trace directory (default tracer.data)"),
	{ "cpu", 0, "LIST", "only the events of these CPUs, e.g. 0,2-3", set_select_cpu, 0 },
	{ "pid", 0, "PID", "show only this process's tasks (all the events are read)", set_select_pid, 0 },
	{ "tid", 0, "TID", "show only this thread", set_select_tid, 0 },
	{ "start", 0, "TIME",
	  "only the events from TIME on: seconds as report prints them (12345.000067890),\n"
	  "or +SECONDS after the trace's first record, at its start (+1.5)", set_select_start, 0 },
	{ "end", 0, "TIME", "only the events up to TIME, the same way", set_select_end, 0 },
	{ "output", 0, "FORMAT", "text (a table, the default) or json (one object)", set_output, 0 },
	{ "timehist", 0, NULL,
	  "sched: a line per run of a task, at its switch off a CPU, as perf sched timehist\n"
	  "prints them: its wait, scheduling delay and run time", set_timehist, 0 },
	{ 0 }
};

static int cmd_analyze(int argc, char **argv);

const struct cli_command analyze_command = {
	.name = "analyze",
	.summary = "work out latencies and usage from a trace: scheduling, system calls, IRQs, CPUs",
	.synopsis = "tracer analyze KIND [options] [DIR]",
	.options = analyze_options,
	.run = cmd_analyze,
	.notes = "An analysis reads every task's events; --pid and --tid choose the rows shown.\n"
		 "A loss in the trace drops what it may hide (a wake-up whose switch in, a call\n"
		 "whose exit may be lost): said under the table, never counted as a latency.\n",
	.examples =
	"tracer record -a -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new --duration 5 && tracer analyze sched\twake-up latencies of every task\n"
	"tracer analyze syscalls --pid 1234 ls.data\tprocess 1234's system calls: calls, errors, latencies\n"
	"tracer analyze irq --output json\tthe IRQs of tracer.data as JSON\n"
	"tracer analyze offcpu | flamegraph.pl --countname=ns >offcpu.svg\twhere tasks blocked, from a -g trace\n",
	.files = "tracer.data\tthe trace directory read when DIR is not given\n",
};

/* The analysis KIND names into s: 0, or 2 said. */
static int take_kind(struct selection *s, const char *kind)
{
	unsigned int i;

	for (i = 0; i < sizeof(analyses) / sizeof(analyses[0]); i++)
		if (!strcmp(kind, analyses[i].name)) {
			s->o.format = analyses[i].format;
			return 0;
		}
	fprintf(stderr, "%s: '%s' is no analysis: sched, syscalls, irq, cpu or offcpu\n", me, kind);
	return 2;
}

static int cmd_analyze(int argc, char **argv)
{
	struct selection s;
	int status = selection_new(&s, "analyze", argc) ? 1 : cli_parse(&analyze_command, argc, argv, &s);

	if (status == CLI_GO_ON && optind == argc) {
		fprintf(stderr, "%s: which analysis? tracer analyze sched|syscalls|irq|cpu|offcpu [DIR]\n", me);
		status = 2;
	} else if (status == CLI_GO_ON && !(status = take_kind(&s, argv[optind++]))) {
		if (s.o.timehist && s.o.format != TR_REPORT_ANALYZE_SCHED) {
			fprintf(stderr, "%s: --timehist is analyze sched's\n", me);
			status = 2;
			goto out;
		}
		if (s.o.json && s.o.format == TR_REPORT_ANALYZE_OFFCPU) {
			fprintf(stderr, "%s: offcpu writes folded stacks, not JSON\n", me);
			status = 2;
			goto out;
		}
		status = trace_dir_argument(&s, argc, argv) ? 2 : tr_report(&s.o, stdout);
	}
out:
	selection_free(&s);
	return status;
}
