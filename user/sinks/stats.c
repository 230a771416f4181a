// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer report --stats: what a trace holds, counted rather than printed
 * (trace-cmd report --stat, perf report --sort): its time span, its events
 * by type, by task and by CPU, and what each CPU lost.  A sink of report's
 * reader: it counts the items report would print, filters and all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/record.h>

#include "sinks/sink.h"
#include "common/cpus.h"
#include "reader/trace.h"
#include "sinks/tasks.h"

struct stats {
	FILE *out;
	__u64 events, first, last;
	__u64 by_event[TR_MAX_EVENTS];	/* by event id */
	const struct tr_trace_class *class[TR_MAX_EVENTS];
	__u64 by_cpu[TR_MAX_CPUS];
	__u64 lost_by_cpu[TR_MAX_CPUS];	/* events */
	__u64 overwritten_by_cpu[TR_MAX_CPUS];	/* sub-buffers */
	__u64 skipped;			/* events the kernel skipped, on no CPU in particular */
};

static void count_time(struct stats *s, __u64 ts)
{
	if (!s->first || ts < s->first)
		s->first = ts;
	if (ts > s->last)
		s->last = ts;
}

/*
 * Counts a record, and into its task's entry of tasks; a
 * tracer:recursion_misses record's events the kernel skipped as lost too.
 */
static void stats_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct stats *s = state;
	struct tr_task *task = tr_tasks_get(tasks, it->record->tid);
	__u32 id = it->record->id;

	s->events++;
	count_time(s, it->ts);
	if (id < TR_MAX_EVENTS) {
		s->by_event[id]++;
		s->class[id] = it->class;
	}
	if (it->cpu < TR_MAX_CPUS)
		s->by_cpu[it->cpu]++;
	if (task) {
		task->events++;
		task->pid = it->record->pid;
	}
	if (tr_is_tracer_class(it->class, "recursion_misses"))
		s->skipped += tr_item_number(it, "skipped");
}

static void stats_lost(void *state, const struct tr_item *it)
{
	struct stats *s = state;

	count_time(s, it->ts);
	if (it->cpu >= TR_MAX_CPUS)
		return;
	s->lost_by_cpu[it->cpu] += tr_item_lost(it);
	s->overwritten_by_cpu[it->cpu] += it->lost_packets;
}

/* Rows by count, largest first, then by key. */
struct row {
	__u64 count;
	__u32 key;
};

static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The rows of counts[0..n) that are not 0, sorted; their number, or -1 without memory. */
static int sorted_rows(const __u64 *counts, unsigned int n, struct row **rows)
{
	unsigned int i, used = 0;

	*rows = calloc(n ? n : 1, sizeof(**rows));
	if (!*rows)
		return -1;
	for (i = 0; i < n; i++)
		if (counts[i])
			(*rows)[used++] = (struct row) { counts[i], i };
	qsort(*rows, used, sizeof(**rows), by_count);
	return used;
}

static void print_events(const struct stats *s, FILE *out)
{
	struct row *rows;
	int n = sorted_rows(s->by_event, TR_MAX_EVENTS, &rows), i;

	fprintf(out, "\n%12s  %s\n", "EVENTS", "EVENT");
	for (i = 0; i < n; i++)
		fprintf(out, "%12llu  %s:%s\n", (unsigned long long)rows[i].count,
			s->class[rows[i].key]->system, s->class[rows[i].key]->name);
	free(rows);
}

/* Thread 0 is each CPU's idle task. */
static void print_tasks(FILE *out, const struct tr_tasks *tasks)
{
	struct row *rows = calloc(tasks->used ? tasks->used : 1, sizeof(*rows));
	unsigned int i, n = 0;

	if (!rows)
		return;
	for (i = 0; i < tasks->size; i++)
		if (tasks->slot[i].events)
			rows[n++] = (struct row) { tasks->slot[i].events, i };
	qsort(rows, n, sizeof(*rows), by_count);
	fprintf(out, "\n%12s  %s\n", "EVENTS", "TASK (COMM PID/TID)");
	for (i = 0; i < n; i++) {
		const struct tr_task *t = &tasks->slot[rows[i].key];
		__u32 tid = tr_task_tid(t);
		const char *comm = tid ? t->comm : "swapper";

		fprintf(out, t->pid == tid ? "%12llu  %s %u\n" : "%12llu  %s %u/%u\n",
			(unsigned long long)t->events, comm, t->pid, tid);
	}
	free(rows);
}

static void print_cpus(const struct stats *s, FILE *out)
{
	unsigned int cpu;

	fprintf(out, "\n%12s  %12s  %12s  %s\n", "EVENTS", "LOST", "OVERWRITTEN", "CPU");
	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++)
		if (s->by_cpu[cpu] || s->lost_by_cpu[cpu] || s->overwritten_by_cpu[cpu])
			fprintf(out, "%12llu  %12llu  %12llu  %u\n", (unsigned long long)s->by_cpu[cpu],
				(unsigned long long)s->lost_by_cpu[cpu],
				(unsigned long long)s->overwritten_by_cpu[cpu], cpu);
}

/* The tables, with the tasks' counts and names from tasks. */
static void stats_print(const struct stats *s, FILE *out, const struct tr_tasks *tasks)
{
	__u64 lost = s->skipped, overwritten = 0, span = s->last - s->first;
	unsigned int cpu;

	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++) {
		lost += s->lost_by_cpu[cpu];
		overwritten += s->overwritten_by_cpu[cpu];
	}
	fprintf(out, "%llu events from %llu.%09llu to %llu.%09llu (%llu.%09llu s), %llu lost, %llu sub-buffers overwritten\n",
		(unsigned long long)s->events, (unsigned long long)(s->first / 1000000000),
		(unsigned long long)(s->first % 1000000000), (unsigned long long)(s->last / 1000000000),
		(unsigned long long)(s->last % 1000000000), (unsigned long long)(span / 1000000000),
		(unsigned long long)(span % 1000000000), (unsigned long long)lost,
		(unsigned long long)overwritten);
	if (s->skipped)
		fprintf(out, "%llu of the lost skipped by the kernel (recursion misses), on no CPU in particular\n",
			(unsigned long long)s->skipped);
	print_events(s, out);
	print_tasks(out, tasks);
	print_cpus(s, out);
}


static int stats_close(void *state, const struct tr_tasks *tasks)
{
	struct stats *s = state;

	stats_print(s, s->out, tasks);
	free(s);
	return 0;
}

static int stats_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		      const struct tr_report_opts *o)
{
	struct stats *s = calloc(1, sizeof(*s));

	(void)trace;
	(void)o;
	if (!s)
		return -ENOMEM;
	s->out = out;
	*sink = (struct tr_sink) { .ops = &tr_stats_sink, .state = s };
	return 0;
}

const struct tr_sink_ops tr_stats_sink = {
	.open = stats_open, .record = stats_record, .lost = stats_lost, .close = stats_close,
};
