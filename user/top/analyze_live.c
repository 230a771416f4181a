// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer analyze KIND --live: a recording whose live reader (as tracer
 * top's) hands its items to an analysis sink (sinks/analyze_*.c), the
 * sink report's pipeline feeds from a trace: the same code, the same
 * figures for the same events.  The sink opens on the live trace (its
 * classes), takes the items as they come out in time order, with the
 * tasks named as the pipeline names them, and prints when it is closed.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <tracer/report.h>
#include <tracer/top.h>

#include "record/recorder.h"
#include "sinks/by_class.h"
#include "sinks/sink.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

struct live_analysis {
	const struct tr_report_opts *o;
	FILE *out;
	struct tr_trace *trace;		/* the live one, while the recording lasts */
	struct tr_sink sink;
	bool open;
	int status;			/* the sink's open's: 2 a usage error, 1 */
	struct tr_tasks tasks;
	struct tr_by_class names_tasks;	/* tr_tasks_learn()'s memo */
};

static void opened(void *data, struct tr_trace *trace)
{
	struct live_analysis *a = data;
	int err = tr_sink_of(a->o->format)->open(&a->sink, a->out, trace, a->o);

	a->trace = trace;
	a->open = !err;
	a->status = !err ? 0 : err == -EINVAL ? 2 : 1;
}

static void item(void *data, const struct tr_item *it)
{
	struct live_analysis *a = data;

	if (!a->open)
		return;
	if (it->kind == TR_ITEM_RECORD) {
		tr_tasks_learn(&a->tasks, &a->names_tasks, a->trace, it, true);
		a->sink.ops->record(a->sink.state, it, &a->tasks);
	} else if (it->kind == TR_ITEM_LOST) {
		a->sink.ops->lost(a->sink.state, it);
	}
}

static void round_done(void *data, __u64 reached, const struct tr_live_status *status)
{
	(void)data, (void)reached, (void)status;
}

int tr_analyze_live(struct tr_record_opts *record, const struct tr_report_opts *analysis, FILE *out)
{
	struct live_analysis a = {
		.o = analysis, .out = out, .names_tasks = { .size = 1, .fill = -1 },
	};
	struct tr_live_sink sink = {
		.item = item, .round = round_done, .opened = opened, .data = &a, .stop_fd = -1,
		.sample_percent = 100,
	};
	int status, err;

	record->live = &sink;
	status = tr_record(record);
	if (a.open) {
		err = a.sink.ops->close(a.sink.state, &a.tasks);
		if (err && err != -ENODATA)
			fprintf(stderr, "tracer %s: writing the analysis failed: %s\n", analysis->command,
				strerror(-err));
		status = status ?: err ? 1 : 0;
	} else {
		status = status ?: a.status;
	}
	tr_tasks_free(&a.tasks);
	tr_by_class_free(&a.names_tasks);
	return status;
}
