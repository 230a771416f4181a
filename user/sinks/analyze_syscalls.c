// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer analyze syscalls: per task and system call, the calls (an entry
 * and its exit), the errors by errno, and the latency from entry to exit,
 * as perf trace -s and lttng-syscallstats give them.  From
 * raw_syscalls:sys_enter and sys_exit where the trace has them, else from
 * the syscalls:sys_enter_NAME and sys_exit_NAME events (never both: a call
 * would count twice).  An exit ends its thread's last entry, as in
 * lttng-analyses (rt_sigreturn's exit has the number of the call the
 * signal interrupted); an exit without an entry (a call begun before the
 * trace) is no call; a loss drops the entries pending (their exit may be
 * lost), counted.  Tasks by their time in system calls, their calls by
 * theirs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/report.h>

#include "sinks/sink.h"
#include "sinks/analyze.h"
#include "sinks/by_class.h"
#include "sinks/json.h"
#include "sinks/lami.h"
#include "sinks/tasks.h"
#include "common/syscalls.h"
#include "reader/trace.h"

enum kind { OTHER, ENTER, EXIT };

/* The errnos of a call kept apart; the others are counted together. */
#define ERRNOS		6
/* A call's key: the thread's id above the call's number (below 1024), which must fit. */
#define NR_BITS		10
#define TID_LIMIT	(1u << (32 - NR_BITS))

struct thread {
	__u32 key;			/* tid */
	int nr;				/* the call it entered, */
	__u64 since;			/* ... then; 0: none pending */
};

struct call {
	__u32 key;			/* tid << NR_BITS | nr */
	struct an_durations latency;
	__u64 errors, other_errors;
	__u16 errnos[ERRNOS];
	__u64 errno_counts[ERRNOS];
};

struct syscalls {
	FILE *out;
	const struct tr_report_opts *o;
	bool raw;			/* from raw_syscalls */
	struct an_table threads, calls;
	struct tr_by_class kinds;	/* enum kind by class id, as __u8 (0xff: not worked out) */
	__u64 dropped, unkept;		/* entries a loss dropped; calls beyond the key's room */
	struct an_span span;
	__s64 clock_offset;		/* --output lami: the trace's (tr_trace_clock_offset()) */
	int err;
};

static int classify(const void *data, const struct tr_trace_class *c)
{
	const struct syscalls *s = data;

	if (s->raw && !strcmp(c->system, "raw_syscalls"))
		return !strcmp(c->name, "sys_enter") ? ENTER : !strcmp(c->name, "sys_exit") ? EXIT : OTHER;
	if (!s->raw && !strcmp(c->system, "syscalls"))
		return !strncmp(c->name, "sys_enter_", 10) ? ENTER : !strncmp(c->name, "sys_exit_", 9) ? EXIT : OTHER;
	return OTHER;
}

static enum kind kind_of(struct syscalls *s, const struct tr_item *it)
{
	return an_class_kind(&s->kinds, it, classify, s);
}

/* Call tid's nr ended at ts with ret after latency ns. */
static void count_call(struct syscalls *s, __u32 tid, int nr, __s64 ret, __u64 latency, __u64 ts)
{
	struct call *c;
	unsigned int i;

	if (tid >= TID_LIMIT || nr < 0 || nr >= 1 << NR_BITS) {
		s->unkept++;
		return;
	}
	c = an_get(&s->calls, tid << NR_BITS | nr);
	if (!c || an_durations_add(&c->latency, latency, ts)) {
		s->err = -ENOMEM;
		return;
	}
	if (ret >= 0 || ret < -4095)
		return;
	c->errors++;
	for (i = 0; i < ERRNOS && c->errnos[i] && c->errnos[i] != -ret; i++)
		;
	if (i == ERRNOS) {
		c->other_errors++;
		return;
	}
	c->errnos[i] = -ret;
	c->errno_counts[i]++;
}

static void syscalls_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct syscalls *s = state;
	enum kind k = kind_of(s, it);
	struct thread *t;
	int nr;

	tr_tasks_learn_pid(tasks, it);
	an_span_add(&s->span, it, s->o);
	if (k == OTHER)
		return;
	t = an_get(&s->threads, it->record->tid);
	if (!t) {
		s->err = -ENOMEM;
		return;
	}
	nr = (int)tr_item_number(it, s->raw ? "id" : "__syscall_nr");
	if (k == ENTER) {
		t->nr = nr;
		t->since = it->ts;
		return;
	}
	/* the call the entry named: an exit's number is not always its own (rt_sigreturn's) */
	if (t->since)
		count_call(s, it->record->tid, t->nr, (__s64)tr_item_number(it, "ret"), it->ts - t->since, it->ts);
	t->since = 0;
}

/* A loss: an exit may be lost, so the entries pending are dropped. */
static void syscalls_lost(void *state, const struct tr_item *it)
{
	struct syscalls *s = state;
	struct thread *t;
	unsigned int i;

	(void)it;
	for (i = 0; i < s->threads.size; i++)
		if ((t = an_slot(&s->threads, i)) && t->since) {
			t->since = 0;
			s->dropped++;
		}
}

/* A task's rows: its calls, and its time in them. */
struct task_rows {
	__u32 tid;
	__u64 total;
	unsigned int first, n;		/* in the calls sorted by tid, then time */
};

static int by_task_then_time(const void *a, const void *b)
{
	const struct call *x = *(const struct call *const *)a, *y = *(const struct call *const *)b;
	__u32 tx = an_key(x) >> NR_BITS, ty = an_key(y) >> NR_BITS;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->latency.sum != y->latency.sum)
		return x->latency.sum < y->latency.sum ? 1 : -1;
	return an_key(x) < an_key(y) ? -1 : an_key(x) > an_key(y);
}

static int by_total(const void *a, const void *b)
{
	const struct task_rows *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const char *call_name(int nr, char *buf, size_t len)
{
	const char *name = tr_syscall_name(nr);

	if (name)
		return name;
	snprintf(buf, len, "syscall_%d", nr);
	return buf;
}

static void print_errors(FILE *out, const struct call *c, bool json)
{
	unsigned int i;

	for (i = 0; i < ERRNOS && c->errnos[i]; i++) {
		const char *name = strerrorname_np(c->errnos[i]);

		if (json)
			fprintf(out, "%s\"%s\":%llu", i ? "," : "", name ? name : "?",
				(unsigned long long)c->errno_counts[i]);
		else
			fprintf(out, "%s%s %llu", i ? ", " : "", name ? name : "?",
				(unsigned long long)c->errno_counts[i]);
	}
	if (c->other_errors)
		fprintf(out, json ? "%s\"other\":%llu" : "%sothers %llu", i ? (json ? "," : ", ") : "",
			(unsigned long long)c->other_errors);
}

static void print_call_text(FILE *out, const struct call *c)
{
	char buf[32];
	double stdev = an_durations_stdev(&c->latency);

	fprintf(out, "  %-22s %9llu %7llu %12.3f %10.3f %10.3f %10.3f", call_name(an_key(c) & ((1 << NR_BITS) - 1), buf, sizeof(buf)),
		(unsigned long long)c->latency.count, (unsigned long long)c->errors, an_ms(c->latency.sum),
		an_us(c->latency.min), an_us(an_durations_avg(&c->latency)), an_us(c->latency.max));
	if (stdev >= 0)
		fprintf(out, " %10.3f\n", an_us(stdev));
	else
		fprintf(out, " %10s\n", "-");
	if (c->errors) {
		fprintf(out, "  %-22s errors: ", "");
		print_errors(out, c, false);
		fputc('\n', out);
	}
}

static void print_call_json(FILE *out, const struct call *c)
{
	char buf[32];

	fprintf(out, "{\"name\":\"%s\",\"nr\":%u,", call_name(an_key(c) & ((1 << NR_BITS) - 1), buf, sizeof(buf)),
		an_key(c) & ((1 << NR_BITS) - 1));
	an_durations_json(out, &c->latency);
	fprintf(out, ",\"errors\":%llu,\"errnos\":{", (unsigned long long)c->errors);
	print_errors(out, c, true);
	fprintf(out, "}}");
}

static void print_tasks(struct syscalls *s, struct call **calls, struct task_rows *tasks_rows, unsigned int ntasks,
			const struct tr_tasks *tasks)
{
	const struct tr_task *task;
	char label[64];
	unsigned int i, j;

	if (s->o->json)
		fprintf(s->out, "{\"analysis\":\"syscalls\",\"entries_dropped_by_losses\":%llu,\"tasks\":[",
			(unsigned long long)s->dropped);
	for (i = 0; i < ntasks; i++) {
		struct task_rows *r = &tasks_rows[i];

		if (s->o->json) {
			task = tr_tasks_find(tasks, r->tid);
			fprintf(s->out, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", r->tid,
				an_task_pid(tasks, r->tid));
			tr_json_string(s->out, task && task->comm[0] ? task->comm : "", 16);
			fprintf(s->out, ",\"total_ns\":%llu,\"calls\":[", (unsigned long long)r->total);
		} else {
			fprintf(s->out, "%s%s: %.3f ms in system calls\n", i ? "\n" : "",
				an_task_label(label, sizeof(label), tasks, r->tid), an_ms(r->total));
			fprintf(s->out, "  %-22s %9s %7s %12s %10s %10s %10s %10s\n", "SYSCALL", "CALLS", "ERRORS",
				"TOTAL ms", "MIN us", "AVG us", "MAX us", "STDDEV us");
		}
		for (j = r->first; j < r->first + r->n; j++) {
			if (s->o->json) {
				fprintf(s->out, "%s", j > r->first ? "," : "");
				print_call_json(s->out, calls[j]);
			} else {
				print_call_text(s->out, calls[j]);
			}
		}
		if (s->o->json)
			fprintf(s->out, "]}");
	}
	if (s->o->json)
		fprintf(s->out, "]}\n");
	else if (s->dropped)
		fprintf(s->out, "\n%llu system calls whose exit a loss may hide: not counted\n",
			(unsigned long long)s->dropped);
}

static const struct lami_column call_columns[] = {
	{ "System call", "syscall", NULL }, { "Call count", "number", "calls" }, { "Error count", "number", "calls" },
	{ "Total call duration", "duration", NULL }, { "Minimum call duration", "duration", NULL },
	{ "Average call duration", "duration", NULL }, { "Maximum call duration", "duration", NULL },
	{ "Call duration standard deviation", "duration", NULL }, { "Errors by errno", "string", NULL }, { 0 }
};
static const struct lami_column task_columns[] = {
	{ "Process", "process", NULL }, { "Total system call count", "number", "calls" },
	{ "Total call duration", "duration", NULL }, { 0 }
};
static const struct lami_table_class syscalls_classes[] = {
	{ "per-tid", "System call statistics", call_columns },
	{ "total", "Per-TID system call statistics", task_columns }, { 0 }
};
const struct lami_analysis an_lami_syscalls = {
	"System call statistics",
	"Per task and system call: the calls, errors by errno and latencies",
	(const char *const[]) { "linux-kernel", "tracer", "syscall", "stats", NULL }, syscalls_classes,
};

/* Call c's row of its task's table. */
static void call_lami(struct lami *l, const struct call *c)
{
	char *errors = NULL, name[32];
	size_t len = 0;
	FILE *text = open_memstream(&errors, &len);

	if (text) {
		print_errors(text, c, false);
		fclose(text);
	}
	lami_row(l);
	lami_syscall(l, call_name(an_key(c) & ((1 << NR_BITS) - 1), name, sizeof(name)));
	lami_number(l, c->latency.count);
	lami_number(l, c->errors);
	lami_duration(l, c->latency.sum);
	an_durations_lami(l, &c->latency);
	lami_string(l, text && errors ? errors : "");
	free(errors);
}

static void print_lami(struct syscalls *s, struct call **calls, struct task_rows *rows, unsigned int ntasks,
		       const struct tr_tasks *tasks)
{
	const struct tr_task *task;
	char label[64];
	struct lami l;
	unsigned int i, j;

	lami_results_begin(&l, s->out, s->clock_offset);
	for (i = 0; i < ntasks; i++) {
		lami_table(&l, &syscalls_classes[0], an_task_label(label, sizeof(label), tasks, rows[i].tid),
			   s->span.first, s->span.last);
		for (j = rows[i].first; j < rows[i].first + rows[i].n; j++)
			call_lami(&l, calls[j]);
	}
	lami_table(&l, &syscalls_classes[1], NULL, s->span.first, s->span.last);
	for (i = 0; i < ntasks; i++) {
		__u64 count = 0;

		for (j = rows[i].first; j < rows[i].first + rows[i].n; j++)
			count += calls[j]->latency.count;
		task = tr_tasks_find(tasks, rows[i].tid);
		lami_row(&l);
		lami_process(&l, task ? task->comm : "", an_task_pid(tasks, rows[i].tid), rows[i].tid);
		lami_number(&l, count);
		lami_duration(&l, rows[i].total);
	}
	lami_results_end(&l);
}

/* The calls of the tasks shown, sorted, grouped by task: how many tasks (-ENOMEM). */
static int rows_of(struct syscalls *s, const struct tr_tasks *tasks, struct call ***calls,
		   struct task_rows **rows)
{
	unsigned int i, n = 0, ntasks = 0;
	struct call *c;

	*calls = calloc(s->calls.used + 1, sizeof(**calls));
	*rows = calloc(s->calls.used + 1, sizeof(**rows));
	if (!*calls || !*rows)
		return -ENOMEM;
	for (i = 0; i < s->calls.size; i++)
		if ((c = an_slot(&s->calls, i)) &&
		    an_task_shown(s->o, an_task_pid(tasks, an_key(c) >> NR_BITS), an_key(c) >> NR_BITS))
			(*calls)[n++] = c;
	qsort(*calls, n, sizeof(**calls), by_task_then_time);
	for (i = 0; i < n; i++) {
		__u32 tid = an_key((*calls)[i]) >> NR_BITS;

		if (!ntasks || (*rows)[ntasks - 1].tid != tid)
			(*rows)[ntasks++] = (struct task_rows) { .tid = tid, .first = i };
		(*rows)[ntasks - 1].n++;
		(*rows)[ntasks - 1].total += (*calls)[i]->latency.sum;
	}
	qsort(*rows, ntasks, sizeof(**rows), by_total);
	return ntasks;
}

static void syscalls_free(struct syscalls *s)
{
	an_table_free_durations(&s->calls, offsetof(struct call, latency));
	an_table_free(&s->threads);
	tr_by_class_free(&s->kinds);
	free(s);
}

static int syscalls_close(void *state, const struct tr_tasks *tasks)
{
	struct syscalls *s = state;
	struct task_rows *rows = NULL;
	struct call **calls = NULL;
	int n = s->err ? s->err : rows_of(s, tasks, &calls, &rows), err;

	if (n > 0 && s->o->lami)
		print_lami(s, calls, rows, n, tasks);
	else if (n > 0)
		print_tasks(s, calls, rows, n, tasks);
	else if (!n)
		fprintf(stderr, "tracer %s syscalls: no system call %sin the trace (an entry and its exit)\n",
			s->o->command, s->o->pid || s->o->tid ? "of the task chosen " : "");
	if (n >= 0 && s->unkept)
		fprintf(stderr, "tracer %s syscalls: %llu calls of thread ids or numbers beyond the table's room not counted\n",
			s->o->command, (unsigned long long)s->unkept);
	err = n < 0 ? n : n ? 0 : -ENODATA;
	free(calls);
	free(rows);
	syscalls_free(s);
	return err;
}

static int syscalls_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace, const struct tr_report_opts *o)
{
	static const char *const need[] = { "raw_syscalls:sys_enter", "syscalls:sys_enter_*", NULL };
	int err;
	struct syscalls *s = an_new(trace, o, "syscalls", need,
				    "tracer record -e 'raw_syscalls:*' ..., or -e 'syscalls:sys_enter_NAME' -e 'syscalls:sys_exit_NAME'",
				    sizeof(*s), &err);

	if (!s)
		return err;
	*s = (struct syscalls) {
		.out = out, .o = o, .raw = tr_trace_has_class(trace, "raw_syscalls", "sys_enter"),
		.threads = { .entry_size = sizeof(struct thread) }, .calls = { .entry_size = sizeof(struct call) },
		.kinds = { .size = 1, .fill = 0xff },
	};
	if (o->lami)
		tr_trace_clock_offset(trace, &s->clock_offset);
	*sink = (struct tr_sink) { .ops = &tr_analyze_syscalls_sink, .state = s };
	return 0;
}

const struct tr_sink_ops tr_analyze_syscalls_sink = {
	.open = syscalls_open, .record = syscalls_record, .lost = syscalls_lost, .close = syscalls_close,
	.keeps_state = true, .every_task = true,
};
