// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sinks/first_pass.h"
#include "sinks/by_class.h"
#include "sinks/sink.h"
#include "sinks/tasks.h"
#include "reader/symbols.h"
#include "reader/trace.h"

struct first_pass {
	struct tr_tasks *tasks;
	struct tr_by_class names_tasks;	/* tr_tasks_learn()'s memo */
	struct tr_symbols *symbols;	/* or NULL */
	const struct tr_trace *trace;
	struct tr_first_pass *seen;
};

static void first_pass_item(void *data, const struct tr_item *it)
{
	struct first_pass *p = data;

	if (it->kind != TR_ITEM_PROBLEM && !p->seen->first)
		p->seen->first = it->ts;
	p->seen->items += it->kind != TR_ITEM_PROBLEM;
	if (it->kind == TR_ITEM_RECORD && tr_is_tracer_class(it->class, "task_state"))
		tr_tasks_learn(p->tasks, &p->names_tasks, p->trace, it, false);
	if (p->symbols)
		tr_symbols_learn(p->symbols, it);
}

int tr_first_pass(const char *dir, struct tr_tasks *tasks, struct tr_symbols *symbols,
		  struct tr_first_pass *seen)
{
	struct first_pass p = {
		.tasks = tasks, .names_tasks = { .size = 1, .fill = -1 }, .symbols = symbols,
		.seen = seen,
	};
	struct tr_trace *trace;
	char why[1024];
	int err = tr_trace_open(&trace, dir, why, sizeof(why));

	*seen = (struct tr_first_pass) { 0, 0 };
	if (err)
		return err;
	p.trace = trace;
	tr_trace_each(trace, first_pass_item, &p);
	tr_trace_close(trace);
	tr_by_class_free(&p.names_tasks);
	return 0;
}
