// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer report --folded: the call stacks a -g trace's records carry,
 * folded, one line per distinct stack with its count
 * ("comm;outermost;...;innermost COUNT", what FlameGraph's flamegraph.pl
 * reads; the user's frames, then the kernel's), in the order of their
 * text, at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/sink.h"
#include "sinks/stacks.h"
#include "sinks/tasks.h"

/* The folded sink: the distinct stacks, counted. */
struct folded {
	FILE *out;
	struct tr_symbols *symbols;	/* the frames, named */
	struct tr_folded_stacks *stacks;
};

static void folded_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct folded *f = state;

	tr_folded_add(f->stacks, f->symbols, tr_tasks_comm(tasks, it), it, 1);
}

static void folded_lost(void *state, const struct tr_item *it)
{
	(void)state;
	(void)it;
}

static int folded_close(void *state, const struct tr_tasks *tasks)
{
	struct folded *f = state;

	(void)tasks;
	tr_folded_print(f->stacks, f->out);
	tr_symbols_close(f->symbols);
	tr_folded_free(f->stacks);
	free(f);
	return 0;
}

/* -EINVAL, said, for a trace without stacks. */
static int folded_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		       const struct tr_report_opts *o)
{
	struct folded *f;

	if (!tr_trace_has_stacks(trace)) {
		fprintf(stderr, "tracer report: --folded: %s has no call stacks (record -g takes them)\n",
			o->dir);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct folded) {
		.out = out, .symbols = tr_symbols_open(trace), .stacks = tr_folded_new(),
	};
	if (!f->symbols || !f->stacks) {
		tr_symbols_close(f->symbols);
		tr_folded_free(f->stacks);
		free(f);
		return -ENOMEM;
	}
	*sink = (struct tr_sink) { .ops = &tr_folded_sink, .state = f, .symbols = f->symbols };
	return 0;
}

const struct tr_sink_ops tr_folded_sink = {
	.open = folded_open, .record = folded_record, .lost = folded_lost, .close = folded_close,
};
