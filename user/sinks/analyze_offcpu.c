// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer analyze offcpu: the time tasks spent blocked, by the call stack
 * they blocked in, folded for flame graphs ("comm;outermost;...;innermost
 * NS", flamegraph.pl --countname=ns), from a -g trace's sched:sched_switch
 * records: a switch off a CPU in a state other than R (sleeping, waiting
 * for I/O, stopped) carries the stack of the task that blocks; the time
 * up to its next switch in is that stack's.  A preempted task (R) is not
 * blocked.  A loss drops the blocked tasks' pending times (their switch
 * in may be lost), counted; a task still blocked at the end counts
 * nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/report.h>

#include "sinks/sink.h"
#include "sinks/analyze.h"
#include "sinks/stacks.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

struct blocked {
	__u32 key;			/* tid */
	char *stack;			/* folded, when it blocked; NULL: not blocked */
	__u64 since;
};

struct offcpu {
	FILE *out;
	const struct tr_report_opts *o;
	struct tr_symbols *symbols;
	struct tr_folded_stacks *stacks;
	struct an_table tasks;		/* struct blocked by tid */
	__u32 switch_id;		/* sched:sched_switch's class id + 1, once met; 0 before */
	__u64 added, dropped;
	int err;
};

/* Whether it is a sched:sched_switch record. */
static bool is_switch(struct offcpu *c, const struct tr_item *it)
{
	if (c->switch_id)
		return it->record->id + 1 == c->switch_id;
	if (strcmp(it->class->system, "sched") || strcmp(it->class->name, "sched_switch"))
		return false;
	c->switch_id = it->record->id + 1;
	return true;
}

/* prev blocks at ts in the stack it carries. */
static void block(struct offcpu *c, const struct tr_item *it, __u32 prev, struct tr_tasks *tasks)
{
	struct blocked *b;
	char *stack;

	if (!it->kernel_frames && !it->user_frames)
		return;
	stack = tr_folded_text(c->symbols, tr_tasks_comm(tasks, it), it);
	b = an_get(&c->tasks, prev);
	if (!stack || !b) {
		free(stack);
		c->err = -ENOMEM;
		return;
	}
	free(b->stack);
	b->stack = stack;
	b->since = it->ts;
}

/* next runs again at ts: its time blocked goes to its stack, if it is one of those shown. */
static void wake(struct offcpu *c, __u32 next, __u64 ts, const struct tr_tasks *tasks)
{
	struct blocked *b = an_get(&c->tasks, next);

	if (!b || !b->stack)
		return;
	if (an_task_shown(c->o, an_task_pid(tasks, next), next)) {
		c->err = tr_folded_add_text(c->stacks, b->stack, ts - b->since);
		c->added++;
	} else {
		free(b->stack);
	}
	b->stack = NULL;
}

static void offcpu_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct offcpu *c = state;
	__u32 prev, next;

	tr_tasks_learn_pid(tasks, it);
	if (c->err || !is_switch(c, it))
		return;
	prev = tr_item_number(it, "prev_pid");
	next = tr_item_number(it, "next_pid");
	if (prev && (tr_item_number(it, "prev_state") & 0xff))	/* not R: it blocks */
		block(c, it, prev, tasks);
	if (next)
		wake(c, next, it->ts, tasks);
}

/* A loss: the switches in of the blocked tasks may be lost. */
static void offcpu_lost(void *state, const struct tr_item *it)
{
	struct offcpu *c = state;
	struct blocked *b;
	unsigned int i;

	(void)it;
	for (i = 0; i < c->tasks.size; i++)
		if ((b = an_slot(&c->tasks, i)) && b->stack) {
			free(b->stack);
			b->stack = NULL;
			c->dropped++;
		}
}

static void offcpu_free(struct offcpu *c)
{
	struct blocked *b;
	unsigned int i;

	for (i = 0; i < c->tasks.size; i++)
		if ((b = an_slot(&c->tasks, i)))
			free(b->stack);
	an_table_free(&c->tasks);
	tr_folded_free(c->stacks);
	tr_symbols_close(c->symbols);
	free(c);
}

static int offcpu_close(void *state, const struct tr_tasks *tasks)
{
	struct offcpu *c = state;
	int err = c->err;

	(void)tasks;
	if (!err && c->added)
		tr_folded_print(c->stacks, c->out);
	else if (!err)
		fprintf(stderr, "tracer %s offcpu: no task %sblocked and ran again in the trace\n", c->o->command,
			c->o->pid || c->o->tid ? "chosen " : "");
	if (!err && c->dropped)
		fprintf(stderr, "tracer %s offcpu: %llu blocked times a loss may cut: not counted\n", c->o->command,
			(unsigned long long)c->dropped);
	err = err ? err : c->added ? 0 : -ENODATA;
	offcpu_free(c);
	return err;
}

static int offcpu_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace, const struct tr_report_opts *o)
{
	static const char *const need[] = { "sched:sched_switch", NULL };
	const char *record = "tracer record -a -g -e sched:sched_switch ...";
	struct offcpu *c;
	int err;

	if (!tr_trace_has_stacks(trace)) {
		fprintf(stderr, "tracer %s offcpu: the trace has no call stacks; record them: %s\n", o->command, record);
		return -ENOENT;
	}
	c = an_new(trace, o, "offcpu", need, record, sizeof(*c), &err);
	if (!c)
		return err;
	*c = (struct offcpu) { .out = out, .o = o, .symbols = tr_symbols_open(trace), .stacks = tr_folded_new(),
			       .tasks = { .entry_size = sizeof(struct blocked) } };
	if (!c->symbols || !c->stacks) {
		offcpu_free(c);
		fprintf(stderr, "tracer %s: out of memory\n", o->command);
		return -ENOMEM;
	}
	*sink = (struct tr_sink) { .ops = &tr_analyze_offcpu_sink, .state = c, .symbols = c->symbols };
	return 0;
}

const struct tr_sink_ops tr_analyze_offcpu_sink = {
	.open = offcpu_open, .record = offcpu_record, .lost = offcpu_lost, .close = offcpu_close,
	.keeps_state = true, .every_task = true,
};
