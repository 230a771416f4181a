// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer report: a trace's events, or their stacks folded, or counts, on standard output. */
#include <stdio.h>
#include <tracer/report.h>

#include "options.h"
#include "select.h"

/* The setters of report's own options (options.h's set()): state is a struct selection. */
static int set_folded(void *state, const char *value)
{
	(void)value;
	((struct selection *)state)->o.format = TR_REPORT_FOLDED;
	return 0;
}

static int set_stats(void *state, const char *value)
{
	(void)value;
	((struct selection *)state)->o.format = TR_REPORT_STATS;
	return 0;
}

static const struct cli_option report_options[] = {
	SELECT_OPTIONS,
	{ "folded", 0, NULL,
	  "the call stacks (record -g) folded, one line per stack with its count,\n"
	  "as FlameGraph's stackcollapse scripts write them", set_folded, 0 },
	{ "stats", 0, NULL,
	  "counts instead: the time span, events by type, by task and by CPU, losses", set_stats, 0 },
	{ 0 }
};

static int cmd_report(int argc, char **argv);

const struct cli_command report_command = {
	.name = "report",
	.summary = "print a trace's events from all CPUs in time order",
	.synopsis = "tracer report [options] [DIR]",
	.options = report_options,
	.run = cmd_report,
	.examples =
	"tracer report\tthe events of tracer.data, one line each\n"
	"tracer report --pid 1234 --event 'sched:*' --start +1 ls.data\tprocess 1234's scheduler events from the trace's second second on\n"
	"tracer report --folded | flamegraph.pl >stacks.svg\ta flame graph of the stacks record -g took\n",
	.files = "tracer.data\tthe trace directory read when DIR is not given\n",
};

/* report's options, and the report: the exit status. */
static int cmd_report(int argc, char **argv)
{
	struct selection s;
	int status = selection_new(&s, "report", argc) ? 1 : cli_parse(&report_command, argc, argv, &s);

	if (status == CLI_GO_ON)
		status = trace_dir_argument(&s, argc, argv) ? 2 : tr_report(&s.o, stdout);
	selection_free(&s);
	return status;
}
