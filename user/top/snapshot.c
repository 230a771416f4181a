// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top's snapshots: an interval's counts (top/model.c) as the
 * views' tables, each cell a number or a name, every name copied into the
 * snapshot's own strings so that it stands alone once published.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/counts.h"
#include "common/syscalls.h"

static const struct top_column task_cols[] = {
	{ "TID", "tid", TOP_ID, 7 }, { "PID", "pid", TOP_ID, 7 },
	{ "COMMAND", "comm", TOP_TEXT, 16 }, { "CPU%", "cpu_percent", TOP_PERCENT, 6 },
	{ "RUNQ-AVG", "runq_avg_ns", TOP_NS, 9 }, { "RUNQ-MAX", "runq_max_ns", TOP_NS, 9 },
	{ "SYSCALLS/S", "syscalls_per_s", TOP_RATE, 10 }, { "EVENTS", "events", TOP_COUNT, 10 },
};
static const struct top_column syscall_cols[] = {
	{ "SYSCALL", "name", TOP_TEXT, 18 }, { "NR", "nr", TOP_ID, 4 },
	{ "COUNT", "count", TOP_COUNT, 10 }, { "RATE/S", "per_s", TOP_RATE, 9 },
	{ "ERRORS", "errors", TOP_COUNT, 8 }, { "AVG", "avg_ns", TOP_NS, 9 },
	{ "P99", "p99_ns", TOP_NS, 9 }, { "MAX", "max_ns", TOP_NS, 9 },
	{ "ERR%", "count_error_percent", TOP_PERCENT, 6 },	/* --sample only: the last */
};
static const struct top_column event_cols[] = {
	{ "EVENT", "name", TOP_TEXT, 40 }, { "COUNT", "count", TOP_COUNT, 12 },
	{ "RATE/S", "per_s", TOP_RATE, 10 },
	{ "ERR%", "count_error_percent", TOP_PERCENT, 6 },	/* --sample only: the last */
};
static const struct top_column cpu_cols[] = {
	{ "CPU", "cpu", TOP_ID, 4 }, { "BUSY%", "busy_percent", TOP_PERCENT, 6 },
	{ "SWITCHES/S", "switches_per_s", TOP_RATE, 10 }, { "EVENTS/S", "events_per_s", TOP_RATE, 10 },
	{ "LOST", "lost", TOP_COUNT, 10 },
};

#define NCOLS(cols) (sizeof(cols) / sizeof(cols[0]))
/* ... of the views with an error column, which only --sample shows. */
#define NCOLS_SAMPLED(m, cols) (NCOLS(cols) - !top_sampling(m))

/* The text cells' strings, gathered while the tables are built. */
struct strings {
	char *buf;
	size_t len, size;
	int failed;
};

/* Its offset, kept in the cell's text until the buffer is final; +1: 0 is no text. */
static const char *strings_add(struct strings *s, const char *text)
{
	size_t n = strlen(text) + 1, at = s->len;

	if (s->len + n > s->size) {
		size_t size = 2 * (s->len + n) + 256;
		char *more = realloc(s->buf, size);

		if (!more) {
			s->failed = 1;
			return NULL;
		}
		s->buf = more;
		s->size = size;
	}
	memcpy(s->buf + at, text, n);
	s->len += n;
	return (const char *)(uintptr_t)(at + 1);
}

static int table_alloc(struct top_table *t, const struct top_column *cols, unsigned int ncols,
		       unsigned int rows)
{
	t->cols = cols;
	t->ncols = ncols;
	t->nrows = 0;
	t->cells = calloc((size_t)rows * ncols + 1, sizeof(*t->cells));
	return t->cells ? 0 : -1;
}

static struct top_cell *row_add(struct top_table *t)
{
	return &t->cells[(size_t)t->nrows++ * t->ncols];
}

/* What a count read stands for: itself, or under --sample itself over the share read. */
static double scaled(const struct top_model *m, __u64 count)
{
	return count / m->sample;
}

static double per_second(const struct top_model *m, __u64 count, __u64 span)
{
	return span ? scaled(m, count) * 1e9 / span : 0;
}

/* The 95% bound of a tally's estimate count / p, relative to it (0.05: 5%). */
static double sample_bound(const struct top_model *m, const struct tally *t)
{
	const struct sample_error *e = t->error;
	double sumsq;
	unsigned int cpu;

	if (!e || !t->count)
		return 0;
	sumsq = e->sumsq;
	for (cpu = 0; cpu < m->ncpu; cpu++)
		sumsq += (double)e->cpu[cpu].n * e->cpu[cpu].n;
	return 1.96 * sqrt((1 - m->sample) * sumsq) / t->count;
}

static void task_rows(const struct top_model *m, struct top_snapshot *s, struct strings *str,
		      __u64 span)
{
	struct top_table *t = &s->views[TOP_TASKS];
	unsigned int i;

	if (table_alloc(t, task_cols, NCOLS(task_cols), m->tasks.used))
		return;
	for (i = 0; i < m->tasks.size; i++) {
		const struct tr_task *task = &m->tasks.slot[i];
		const struct tr_task_top *top = &task->top;
		struct top_cell *row;

		if (!task->key || (!task->events && !top->cpu_ns && !top->waits))
			continue;
		row = row_add(t);
		row[0].value = tr_task_tid(task);
		row[1].value = task->pid;
		row[2].text = strings_add(str, task->comm);
		row[3].value = span ? 100.0 * scaled(m, top->cpu_ns) / span : 0;
		row[4].value = top->waits ? (double)top->wait_ns / top->waits : 0;
		row[5].value = top->wait_max_ns;
		row[6].value = per_second(m, top->syscalls, span);
		row[7].value = scaled(m, task->events);
	}
}

static __u64 p99(const struct syscall_row *r)
{
	__u64 want = r->lat_count - r->lat_count / 100, seen = 0;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += r->hist[i];
		if (seen >= want && seen)
			return top_bucket_top(i) < r->lat_max ? top_bucket_top(i) : r->lat_max;
	}
	return r->lat_max;
}

static void syscall_rows(const struct top_model *m, struct top_snapshot *s, struct strings *str,
			 __u64 span)
{
	struct top_table *t = &s->views[TOP_SYSCALLS];
	char unknown[32];
	unsigned int nr;

	if (table_alloc(t, syscall_cols, NCOLS_SAMPLED(m, syscall_cols), MAX_SYSCALL))
		return;
	for (nr = 0; nr < MAX_SYSCALL; nr++) {
		const struct syscall_row *r = m->syscalls[nr];
		const char *name;
		struct top_cell *row;

		if (!r || !r->calls.count)
			continue;
		name = tr_syscall_name(nr);
		snprintf(unknown, sizeof(unknown), "syscall_%u", nr);
		row = row_add(t);
		row[0].text = strings_add(str, name ? name : unknown);
		row[1].value = nr;
		row[2].value = scaled(m, r->calls.count);
		row[3].value = per_second(m, r->calls.interval, span);
		row[4].value = scaled(m, r->errors);
		row[5].value = r->lat_count ? (double)r->lat_ns / r->lat_count : 0;
		row[6].value = r->lat_count ? p99(r) : 0;
		row[7].value = r->lat_max;
		if (top_sampling(m))
			row[8].value = 100 * sample_bound(m, &r->calls);
	}
}

static void event_rows(const struct top_model *m, struct top_snapshot *s, struct strings *str,
		       __u64 span)
{
	struct top_table *t = &s->views[TOP_EVENTS];
	unsigned int i;

	if (table_alloc(t, event_cols, NCOLS_SAMPLED(m, event_cols), m->nclasses))
		return;
	for (i = 0; i < m->nclasses; i++) {
		const struct class_info *c = &m->classes[i];
		struct top_cell *row;

		if (!c->records.count || !c->name)
			continue;
		row = row_add(t);
		row[0].text = strings_add(str, c->name);
		row[1].value = scaled(m, c->records.count);
		row[2].value = per_second(m, c->records.interval, span);
		if (top_sampling(m))
			row[3].value = 100 * sample_bound(m, &c->records);
	}
}

static void cpu_rows(const struct top_model *m, struct top_snapshot *s, __u64 span)
{
	struct top_table *t = &s->views[TOP_CPUS];
	unsigned int cpu;

	if (table_alloc(t, cpu_cols, NCOLS(cpu_cols), m->ncpu))
		return;
	for (cpu = 0; cpu < m->ncpu; cpu++) {
		const struct cpu_state *c = &m->cpus[cpu];
		struct top_cell *row = row_add(t);

		row[0].value = cpu;
		row[1].value = span ? 100.0 * scaled(m, c->busy_ns) / span : 0;
		row[2].value = per_second(m, c->switches, span);
		row[3].value = per_second(m, c->events, span);
		row[4].value = c->lost;
	}
}

/* The text cells' offsets into pointers, now that the strings stay where they are. */
static void strings_fix(struct top_snapshot *s)
{
	unsigned int v, r, c;

	for (v = 0; v < TOP_NVIEWS; v++) {
		struct top_table *t = &s->views[v];

		for (r = 0; r < t->nrows; r++)
			for (c = 0; c < t->ncols; c++) {
				struct top_cell *cell = &t->cells[r * t->ncols + c];

				if (t->cols[c].unit == TOP_TEXT)
					cell->text = cell->text ?
						     s->strings + ((uintptr_t)cell->text - 1) : "";
			}
	}
}

/* Records counted in the interval, and since the start (or the last reset). */
static void record_counts(const struct top_model *m, struct top_snapshot *s)
{
	unsigned int i;

	for (i = 0; i < m->nclasses; i++) {
		s->events += m->classes[i].records.interval;
		s->total_events += m->classes[i].records.count;
	}
}

struct top_snapshot *top_snapshot_make(const struct top_model *m)
{
	struct top_snapshot *s = calloc(1, sizeof(*s));
	struct strings str = { 0 };
	__u64 span = m->end - m->start;
	unsigned int v;

	if (!s)
		return NULL;
	*s = (struct top_snapshot) { .seq = m->seq, .start = m->start, .end = m->end,
				     .status = m->status, .lost_reported = m->lost_reported,
				     .sample_percent = m->sample * 100 + 0.5 };
	record_counts(m, s);
	task_rows(m, s, &str, span);
	syscall_rows(m, s, &str, span);
	event_rows(m, s, &str, span);
	cpu_rows(m, s, span);
	s->strings = str.buf;
	s->strings_len = str.len;
	for (v = 0; v < TOP_NVIEWS; v++)
		str.failed |= !s->views[v].cells;
	if (str.failed) {
		top_snapshot_free(s);
		return NULL;
	}
	strings_fix(s);
	return s;
}

/* A text cell of from, pointing into to's strings. */
static const char *text_in(const struct top_snapshot *to, const struct top_snapshot *from,
			   const char *text)
{
	if (text >= from->strings && text < from->strings + from->strings_len)
		return to->strings + (text - from->strings);
	return "";
}

static int copy_table(struct top_snapshot *to, const struct top_snapshot *from, unsigned int v)
{
	const struct top_table *f = &from->views[v];
	struct top_table *t = &to->views[v];
	size_t n = (size_t)f->nrows * f->ncols, i;

	t->cells = malloc((n + 1) * sizeof(*t->cells));
	if (!t->cells)
		return -1;
	memcpy(t->cells, f->cells, n * sizeof(*t->cells));
	for (i = 0; i < n; i++)
		if (t->cols[i % t->ncols].unit == TOP_TEXT)
			t->cells[i].text = text_in(to, from, f->cells[i].text);
	return 0;
}

struct top_snapshot *top_snapshot_copy(const struct top_snapshot *from)
{
	struct top_snapshot *s = malloc(sizeof(*s));
	int failed = 0;
	unsigned int v;

	if (!s)
		return NULL;
	*s = *from;
	for (v = 0; v < TOP_NVIEWS; v++)
		s->views[v].cells = NULL;
	s->strings = malloc(from->strings_len + 1);
	if (s->strings)
		memcpy(s->strings, from->strings ? from->strings : "", from->strings_len);
	failed = !s->strings;
	for (v = 0; v < TOP_NVIEWS && !failed; v++)
		failed = copy_table(s, from, v);
	if (failed) {
		top_snapshot_free(s);
		return NULL;
	}
	return s;
}

void top_snapshot_free(struct top_snapshot *s)
{
	unsigned int v;

	if (!s)
		return;
	for (v = 0; v < TOP_NVIEWS; v++)
		free(s->views[v].cells);
	free(s->strings);
	free(s);
}

