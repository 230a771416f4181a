// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include <tracer/record.h>

#include "report_stats.h"
#include "cpus.h"
#include "trace.h"

/* At least twice pid_max's largest value: a table at most half full. */
#define MAX_TASK_SLOTS	(1u << 23)

struct task_count {
	__u32 key;			/* tid + 1; 0: a free slot */
	__u32 pid;
	__u64 count;
};

struct tr_stats {
	__u64 events, first, last;
	__u64 by_event[TR_MAX_EVENTS];	/* by event id */
	const struct tr_trace_class *class[TR_MAX_EVENTS];
	__u64 by_cpu[TR_MAX_CPUS];
	__u64 lost_by_cpu[TR_MAX_CPUS];	/* events */
	__u64 overwritten_by_cpu[TR_MAX_CPUS];	/* sub-buffers */
	struct task_count *tasks;	/* open addressing, at most half full */
	unsigned int size, used;
};

struct tr_stats *tr_stats_new(void)
{
	return calloc(1, sizeof(struct tr_stats));
}

static struct task_count *task_slot(struct task_count *tasks, unsigned int size, __u32 key)
{
	unsigned int i = key & (size - 1);

	while (tasks[i].key && tasks[i].key != key)
		i = (i + 1) & (size - 1);
	return &tasks[i];
}

static int tasks_grow(struct tr_stats *s)
{
	unsigned int size = s->size ? 2 * s->size : 256, i;
	struct task_count *bigger;

	if (size > MAX_TASK_SLOTS || !(bigger = calloc(size, sizeof(*bigger))))
		return -1;
	for (i = 0; i < s->size; i++)
		if (s->tasks[i].key)
			*task_slot(bigger, size, s->tasks[i].key) = s->tasks[i];
	free(s->tasks);
	s->tasks = bigger;
	s->size = size;
	return 0;
}

static void count_task(struct tr_stats *s, __u32 tid, __u32 pid)
{
	struct task_count *slot;

	if (2 * (s->used + 1) > s->size && tasks_grow(s))
		return;
	slot = task_slot(s->tasks, s->size, tid + 1);
	if (!slot->key) {
		*slot = (struct task_count) { tid + 1, pid, 0 };
		s->used++;
	}
	slot->count++;
}

static void count_time(struct tr_stats *s, __u64 ts)
{
	if (!s->first || ts < s->first)
		s->first = ts;
	if (ts > s->last)
		s->last = ts;
}

void tr_stats_record(struct tr_stats *s, const struct tr_item *it)
{
	__u32 id = it->record->id;

	s->events++;
	count_time(s, it->ts);
	if (id < TR_MAX_EVENTS) {
		s->by_event[id]++;
		s->class[id] = it->class;
	}
	if (it->cpu < TR_MAX_CPUS)
		s->by_cpu[it->cpu]++;
	count_task(s, it->record->tid, it->record->pid);
}

void tr_stats_lost(struct tr_stats *s, const struct tr_item *it)
{
	count_time(s, it->ts);
	if (it->cpu >= TR_MAX_CPUS)
		return;
	s->lost_by_cpu[it->cpu] += it->lost_full + it->lost_wrap + it->lost_big + it->lost_busy;
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

static void print_events(const struct tr_stats *s, FILE *out)
{
	struct row *rows;
	int n = sorted_rows(s->by_event, TR_MAX_EVENTS, &rows), i;

	fprintf(out, "\n%12s  %s\n", "EVENTS", "EVENT");
	for (i = 0; i < n; i++)
		fprintf(out, "%12llu  %s:%s\n", (unsigned long long)rows[i].count,
			s->class[rows[i].key]->system, s->class[rows[i].key]->name);
	free(rows);
}

static void print_tasks(const struct tr_stats *s, FILE *out,
			const char *(*comm_of)(const void *ctx, __u32 tid), const void *ctx)
{
	struct row *rows = calloc(s->used ? s->used : 1, sizeof(*rows));
	unsigned int i, n = 0;

	if (!rows)
		return;
	for (i = 0; i < s->size; i++)
		if (s->tasks[i].key)
			rows[n++] = (struct row) { s->tasks[i].count, i };
	qsort(rows, n, sizeof(*rows), by_count);
	fprintf(out, "\n%12s  %s\n", "EVENTS", "TASK (COMM PID/TID)");
	for (i = 0; i < n; i++) {
		const struct task_count *t = &s->tasks[rows[i].key];
		__u32 tid = t->key - 1;

		fprintf(out, t->pid == tid ? "%12llu  %s %u\n" : "%12llu  %s %u/%u\n",
			(unsigned long long)t->count, comm_of(ctx, tid), t->pid, tid);
	}
	free(rows);
}

static void print_cpus(const struct tr_stats *s, FILE *out)
{
	unsigned int cpu;

	fprintf(out, "\n%12s  %12s  %12s  %s\n", "EVENTS", "LOST", "OVERWRITTEN", "CPU");
	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++)
		if (s->by_cpu[cpu] || s->lost_by_cpu[cpu] || s->overwritten_by_cpu[cpu])
			fprintf(out, "%12llu  %12llu  %12llu  %u\n", (unsigned long long)s->by_cpu[cpu],
				(unsigned long long)s->lost_by_cpu[cpu],
				(unsigned long long)s->overwritten_by_cpu[cpu], cpu);
}

void tr_stats_print(const struct tr_stats *s, FILE *out,
		    const char *(*comm_of)(const void *ctx, __u32 tid), const void *ctx)
{
	__u64 lost = 0, overwritten = 0, span = s->last - s->first;
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
	print_events(s, out);
	print_tasks(s, out, comm_of, ctx);
	print_cpus(s, out);
}

void tr_stats_free(struct tr_stats *s)
{
	if (s)
		free(s->tasks);
	free(s);
}
