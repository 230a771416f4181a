// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer export --format chrome-json: the Trace Event Format (catapult's
 * JSON, which chrome://tracing, Perfetto's UI and speedscope open).
 *   - every record: an instant event ("ph":"i") on its thread's track,
 *     named system:name, its fields as args;
 *   - what ran on each CPU, from sched:sched_switch: complete events
 *     ("ph":"X") named by the task, on a track per CPU of a process of
 *     their own ("CPUs", pid CPUS_PID, tid = the CPU); a task
 *     switched in on one CPU ends its slice on another, so a thread is
 *     never on two CPUs at once; slices still open end at the last record;
 *   - losses: global instant events "LOST" on their CPU's track;
 *   - names: process_name and thread_name metadata ("ph":"M").
 * Times in microseconds, to the nanosecond.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "sinks/sink.h"
#include "sinks/json.h"
#include "common/cpus.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

/* Above the kernel's largest pid (pid_max at most 2^22): no task's. */
#define CPUS_PID	((1 << 22) + 1)

/* What runs on a CPU since its last sched_switch. */
struct lane {
	int open;			/* a switch was seen: tid runs since then */
	int used;			/* it has a track */
	__u32 tid;
	__u64 since;
	char comm[16];
};

struct chrome {
	FILE *out;
	int items;			/* written so far: a comma before the next */
	__u64 last;			/* the latest time seen */
	struct lane lanes[TR_MAX_CPUS];
};

static void begin_item(struct chrome *c)
{
	fputs(c->items++ ? ",\n" : "\n", c->out);
}

/* A time in µs, to the ns. */
static void print_us(FILE *out, const char *key, __u64 ns)
{
	fprintf(out, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

/* Starts the document; NULL without memory. */
static struct chrome *chrome_new(FILE *out)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (c) {
		c->out = out;
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	}
	return c;
}

/* The slice of what ran on cpu up to ts, and the lane closed. */
static void end_slice(struct chrome *c, unsigned int cpu, __u64 ts, struct tr_tasks *tasks)
{
	struct lane *l = &c->lanes[cpu];
	struct tr_task *task;

	if (!l->open)
		return;
	l->open = 0;
	if (!l->tid)
		return;
	task = tasks ? tr_tasks_get(tasks, l->tid) : NULL;
	if (task && task->cpu == (int)cpu)
		task->cpu = -1;
	begin_item(c);
	fputs("{\"ph\":\"X\",\"cat\":\"sched\",\"name\":", c->out);
	tr_json_string(c->out, l->comm, sizeof(l->comm));
	print_us(c->out, "ts", l->since);
	print_us(c->out, "dur", ts - l->since);
	fprintf(c->out, ",\"pid\":%d,\"tid\":%u,\"args\":{\"tid\":%u}}", CPUS_PID, cpu,
		l->tid);
}

/* sched_switch on it->cpu: the slice that ends, the one that begins. */
static void switched(struct chrome *c, const struct tr_item *it, struct tr_tasks *tasks)
{
	__u32 next = tr_item_number(it, "next_pid");
	struct lane *l = &c->lanes[it->cpu];
	struct tr_task *task = next ? tr_tasks_get(tasks, next) : NULL;
	const char *comm;
	int len = 0;

	end_slice(c, it->cpu, it->ts, tasks);
	/* A thread runs on one CPU at a time: its slice elsewhere ends here. */
	if (task && task->cpu >= 0 && task->cpu != (int)it->cpu &&
	    c->lanes[task->cpu].open && c->lanes[task->cpu].tid == next)
		end_slice(c, task->cpu, it->ts, tasks);
	comm = tr_item_field(it, "next_comm", &len);
	*l = (struct lane) { .open = 1, .used = 1, .tid = next, .since = it->ts };
	if (comm && len > 0)
		memcpy(l->comm, comm, (size_t)len < sizeof(l->comm) - 1 ? (size_t)len : sizeof(l->comm) - 1);
	if (task)
		task->cpu = it->cpu;
}

static int is_sched_switch(const struct tr_item *it)
{
	return !strcmp(it->class->system, "sched") && !strcmp(it->class->name, "sched_switch");
}

/* A record, counted into its task's entry of tasks. */
static void chrome_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct chrome *c = state;
	struct tr_task *task = tr_tasks_get(tasks, it->record->tid);
	char name[512];

	if (it->ts > c->last)
		c->last = it->ts;
	if (task) {
		task->events++;
		task->pid = it->record->pid;
	}
	if (it->cpu < TR_MAX_CPUS && is_sched_switch(it))
		switched(c, it, tasks);
	snprintf(name, sizeof(name), "%s:%s", it->class->system, it->class->name);
	begin_item(c);
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", c->out);
	tr_json_string(c->out, name, strlen(name));
	print_us(c->out, "ts", it->ts);
	fprintf(c->out, ",\"pid\":%u,\"tid\":%u,\"args\":", it->record->pid, it->record->tid);
	tr_json_fields(c->out, it);
	fputc('}', c->out);
}

static void chrome_lost(void *state, const struct tr_item *it)
{
	struct chrome *c = state;

	if (it->ts > c->last)
		c->last = it->ts;
	if (it->cpu < TR_MAX_CPUS)
		c->lanes[it->cpu].used = 1;
	begin_item(c);
	fputs("{\"ph\":\"i\",\"s\":\"g\",\"name\":\"LOST\"", c->out);
	print_us(c->out, "ts", it->ts);
	fprintf(c->out, ",\"pid\":%d,\"tid\":%u,\"args\":{\"events\":%llu,\"subbuffers_overwritten\":%llu}}",
		CPUS_PID, it->cpu,
		(unsigned long long)tr_item_lost(it),
		(unsigned long long)it->lost_packets);
}

static void name_track(struct chrome *c, const char *what, int pid, long tid, const char *name)
{
	begin_item(c);
	fprintf(c->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d", what, pid);
	if (tid >= 0)
		fprintf(c->out, ",\"tid\":%ld", tid);
	fputs(",\"args\":{\"name\":", c->out);
	tr_json_string(c->out, name, strlen(name));
	fputs("}}", c->out);
}

/* Each process and thread with records, by the names report gives them. */
static void name_tasks(struct chrome *c, const struct tr_tasks *tasks)
{
	unsigned int i;

	for (i = 0; i < tasks->size; i++) {
		const struct tr_task *t = &tasks->slot[i];
		const struct tr_task *leader;
		__u32 tid = tr_task_tid(t);

		if (!t->key || !t->events || !tid || !t->comm[0])
			continue;
		name_track(c, "thread_name", t->pid, tid, t->comm);
		leader = tr_tasks_find(tasks, t->pid);
		if (leader && leader->comm[0])
			name_track(c, "process_name", t->pid, -1, leader->comm);
	}
}

/* Ends the open slices and the document, naming the tasks met; frees c. */
static int chrome_close(void *state, const struct tr_tasks *tasks)
{
	struct chrome *c = state;
	char name[32];
	unsigned int cpu;

	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++) {
		if (!c->lanes[cpu].used)
			continue;
		end_slice(c, cpu, c->last, NULL);
		snprintf(name, sizeof(name), "CPU %u", cpu);
		name_track(c, "thread_name", CPUS_PID, cpu, name);
	}
	name_track(c, "process_name", CPUS_PID, -1, "CPUs");
	name_tasks(c, tasks);
	fputs("\n]}\n", c->out);
	free(c);
	return 0;
}

static int chrome_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		       const struct tr_report_opts *o)
{
	struct chrome *c = chrome_new(out);

	(void)trace;
	(void)o;
	if (!c)
		return -ENOMEM;
	*sink = (struct tr_sink) { .ops = &tr_chrome_sink, .state = c };
	return 0;
}

const struct tr_sink_ops tr_chrome_sink = {
	.open = chrome_open, .record = chrome_record, .lost = chrome_lost, .close = chrome_close,
};
