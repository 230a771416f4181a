// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer analyze: latencies and usage worked out from a trace's events, as a table or JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <tracer/report.h>
#include <tracer/top.h>

#include "options.h"
#include "recording.h"
#include "select.h"

/* analyze's state: the selection first (select.h), then --live's recording, then LAMI's. */
struct analyze_args {
	struct selection s;
	int live, all;
	unsigned int pid;
	double duration;
	const char *record_to;
	int metadata, test_compatibility;
	const char *end;		/* --end, read once --begin is known */
};

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

	if (strcmp(value, "text") && strcmp(value, "json") && strcmp(value, "lami"))
		return refuse("--output", value, "must be text, json or lami");
	s->o.json = !strcmp(value, "json");
	s->o.lami = !strcmp(value, "lami");
	return 0;
}

static int set_end(void *state, const char *value)
{
	((struct analyze_args *)state)->end = value;
	return 0;
}

/* ns since the epoch into t (LAMI's --begin, --end): 0, or -EINVAL said. */
static int parse_epoch(const char *option, const char *value, struct tr_report_time *t)
{
	size_t digits = strspn(value, "0123456789");

	if (!digits || value[digits] || digits > 19)
		return refuse(option, value, "not a time: ns since the epoch, as Trace Compass passes them");
	*t = (struct tr_report_time) { .ns = strtoull(value, NULL, 10), .epoch = 1, .given = 1 };
	return 0;
}

static int set_begin(void *state, const char *value)
{
	return parse_epoch("--begin", value, &((struct selection *)state)->o.start);
}

static int set_metadata(void *state, const char *value)
{
	(void)value;
	((struct analyze_args *)state)->metadata = 1;
	return 0;
}

static int set_test_compatibility(void *state, const char *value)
{
	(void)value;
	((struct analyze_args *)state)->test_compatibility = 1;
	return 0;
}

static int set_output_progress(void *state, const char *value)
{
	(void)state;
	(void)value;
	return 0;
}

static int set_timehist(void *state, const char *value)
{
	(void)value;
	((struct selection *)state)->o.timehist = 1;
	return 0;
}

static int set_live(void *state, const char *value)
{
	(void)value;
	((struct analyze_args *)state)->live = 1;
	return 0;
}

static int set_live_all(void *state, const char *value)
{
	(void)value;
	((struct analyze_args *)state)->all = 1;
	return 0;
}

static int set_live_pid(void *state, const char *value)
{
	return parse_uint_into("-p", value, 1, 1u << 22, &((struct analyze_args *)state)->pid);
}

static int set_live_duration(void *state, const char *value)
{
	return parse_duration("--duration", value, &((struct analyze_args *)state)->duration);
}

static int set_live_output(void *state, const char *value)
{
	((struct analyze_args *)state)->record_to = value;
	return parse_nonempty("-o", value);
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
	{ "end", 0, "TIME", "only the events up to TIME, the same way (with --begin, as --begin)", set_end, 0 },
	{ "output", 0, "FORMAT",
	  "text (a table, the default), json (one object), or lami: LAMI 1.0 results, as\n"
	  "lttng-analyses' -mi commands write them, for Trace Compass's external analyses", set_output, 0 },
	{ "begin", 0, "NS",
	  "only the events from NS on, ns since the epoch as viewers show the trace's times\n"
	  "(what Trace Compass passes); --end is then read the same way", set_begin, 0 },
	{ "metadata", 0, NULL, "--output lami: print the analysis's table classes and columns, read no trace",
	  set_metadata, 0 },
	{ "test-compatibility", 0, NULL,
	  "--output lami: print nothing and exit 0 if the analysis has results for DIR, else\n"
	  "say why in one line and exit 1 or 2, as the analysis would", set_test_compatibility, 0 },
	{ "output-progress", 0, NULL, "--output lami: accepted; the results come whole at the end",
	  set_output_progress, 0 },
	{ "timehist", 0, NULL,
	  "sched: a line per run of a task, at its switch off a CPU, as perf sched timehist\n"
	  "prints them: its wait, scheduling delay and run time", set_timehist, 0 },
	{ "live", 0, NULL,
	  "analyze a recording as it runs, not a trace: of COMMAND (after --), -p PID or -a,\n"
	  "with the events KIND needs; the table at its end (Ctrl-C, --duration, the command's)",
	  set_live, 0 },
	{ NULL, 'a', NULL, "--live: every process", set_live_all, 0 },
	{ NULL, 'p', "PID", "--live: this process and its threads", set_live_pid, 0 },
	{ "duration", 0, "SECONDS", "--live: stop after this long", set_live_duration, 0 },
	{ NULL, 'o', "DIR", "--live: write the recording's trace into DIR as well", set_live_output, 0 },
	{ 0 }
};

static int cmd_analyze(int argc, char **argv);

const struct cli_command analyze_command = {
	.name = "analyze",
	.summary = "work out latencies and usage from a trace: scheduling, system calls, IRQs, CPUs",
	.synopsis = "tracer analyze KIND [options] [DIR]\n"
		    "tracer analyze KIND --live [-a | -p PID] [--duration SECONDS] [-o DIR] [-- COMMAND...]",
	.options = analyze_options,
	.run = cmd_analyze,
	.notes = "An analysis reads every task's events; --pid and --tid choose the rows shown.\n"
		 "A loss in the trace drops what it may hide (a wake-up whose switch in, a call\n"
		 "whose exit may be lost): said under the table, never counted as a latency.\n",
	.examples =
	"tracer record -a -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new --duration 5 && tracer analyze sched\twake-up latencies of every task\n"
	"tracer analyze syscalls --pid 1234 ls.data\tprocess 1234's system calls: calls, errors, latencies\n"
	"tracer analyze irq --output json\tthe IRQs of tracer.data as JSON\n"
	"tracer analyze syscalls --live -- make -j2\tmake's system calls as it runs, the table at its end\n"
	"tracer analyze offcpu | flamegraph.pl --countname=ns >offcpu.svg\twhere tasks blocked, from a -g trace\n"
	"tracer analyze irq --output lami\tthe IRQ tables as LAMI results (a Trace Compass external analysis)\n",
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

/* The events an analysis needs recorded (--live): how many, into *events. */
static unsigned int live_events(enum tr_report_format format, const char *const **events)
{
	static const char *const sched[] = { "sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup_new" };
	static const char *const syscalls[] = { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" };
	static const char *const irq[] = { "irq:*" };

	if (format == TR_REPORT_ANALYZE_SYSCALLS) {
		*events = syscalls;
		return 2;
	}
	if (format == TR_REPORT_ANALYZE_IRQ) {
		*events = irq;
		return 1;
	}
	*events = sched;
	return format == TR_REPORT_ANALYZE_CPU ? 1 : 3;
}

/* --live: a recording of what a says (the command at argv[optind] on), analyzed as it runs. */
static int analyze_live(struct analyze_args *a, int argc, char **argv)
{
	static const char *const no_filters[3];
	struct event_args none = { 0 };
	struct tr_record_opts r = record_defaults(&none);

	if (a->s.o.format == TR_REPORT_ANALYZE_OFFCPU) {
		fprintf(stderr, "%s: offcpu names stacks from a trace: tracer record -a -g -e sched:sched_switch, then tracer analyze offcpu\n",
			me);
		return 2;
	}
	if (!a->all && !a->pid && optind == argc) {
		fprintf(stderr, "%s: --live records -a, -p PID or a command (after --)\n", me);
		return 2;
	}
	r.name = "analyze";
	r.nevents = live_events(a->s.o.format, &r.events);
	r.filters = no_filters;
	r.output = a->record_to;
	r.system_wide = a->all;
	r.pid = a->pid;
	r.duration = a->duration;
	r.command = optind < argc ? &argv[optind] : NULL;
	return tr_analyze_live(&r, &a->s.o, stdout);
}

/* --output lami's checks, --end read as --begin says: 0, or 2 said. */
static int lami_checks(struct analyze_args *a)
{
	struct tr_report_opts *o = &a->s.o;

	if ((a->metadata || a->test_compatibility) && !o->lami) {
		fprintf(stderr, "%s: --metadata and --test-compatibility are --output lami's\n", me);
		return 2;
	}
	if (o->lami && (o->format == TR_REPORT_ANALYZE_OFFCPU || o->timehist || a->live)) {
		fprintf(stderr, "%s: LAMI results are the tables of sched, syscalls, irq and cpu of a trace\n", me);
		return 2;
	}
	if (!a->end)
		return 0;
	if (o->start.given && o->start.epoch)
		return parse_epoch("--end", a->end, &o->end) ? 2 : 0;
	return set_select_end(&a->s, a->end) ? 2 : 0;
}

/* --test-compatibility: the analysis of the trace, its results thrown away. */
static int test_compatibility(struct analyze_args *a)
{
	FILE *nowhere = fopen("/dev/null", "w");
	int status;

	if (!nowhere) {
		fprintf(stderr, "%s: /dev/null: %s\n", me, strerror(errno));
		return 1;
	}
	status = tr_report(&a->s.o, nowhere);
	fclose(nowhere);
	return status;
}

/* The KIND's checks, then the analysis of a trace or --live. */
static int analyze_with(struct analyze_args *a, int argc, char **argv)
{
	int status = lami_checks(a);

	if (status)
		return status;
	if (a->metadata)
		return tr_analyze_lami_metadata(a->s.o.format, stdout) ? 2 : 0;
	if (a->s.o.timehist && a->s.o.format != TR_REPORT_ANALYZE_SCHED) {
		fprintf(stderr, "%s: --timehist is analyze sched's\n", me);
		return 2;
	}
	if (a->s.o.json && a->s.o.format == TR_REPORT_ANALYZE_OFFCPU) {
		fprintf(stderr, "%s: offcpu writes folded stacks, not JSON\n", me);
		return 2;
	}
	if (a->live)
		return analyze_live(a, argc, argv);
	if (a->all || a->pid || a->duration || a->record_to) {
		fprintf(stderr, "%s: -a, -p, --duration and -o are --live's\n", me);
		return 2;
	}
	if (trace_dir_argument(&a->s, argc, argv))
		return 2;
	return a->test_compatibility ? test_compatibility(a) : tr_report(&a->s.o, stdout);
}

static int cmd_analyze(int argc, char **argv)
{
	struct analyze_args a = { 0 };
	int status = selection_new(&a.s, "analyze", argc) ? 1 : cli_parse(&analyze_command, argc, argv, &a);

	if (status == CLI_GO_ON && optind == argc) {
		fprintf(stderr, "%s: which analysis? tracer analyze sched|syscalls|irq|cpu|offcpu [DIR]\n", me);
		status = 2;
	} else if (status == CLI_GO_ON && !(status = take_kind(&a.s, argv[optind++]))) {
		status = analyze_with(&a, argc, argv);
	}
	selection_free(&a.s);
	return status;
}
