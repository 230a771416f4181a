// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What tracer analyze's sinks share (analyze.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/report.h>

#include "sinks/sink.h"
#include "sinks/analyze.h"
#include "sinks/by_class.h"
#include "sinks/lami.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

/* More than pid_max's largest value, twice: a table at most half full. */
#define MAX_SLOTS	(1u << 24)

static unsigned char *slot_at(const struct an_table *t, unsigned int i)
{
	return t->slots + (size_t)i * t->entry_size;
}

/* The slot of key (key + 1 stored), or the free one where it goes. */
static unsigned char *slot_of(const struct an_table *t, __u32 stored)
{
	unsigned int i = (stored * 0x9e3779b1u) & (t->size - 1);
	__u32 at;

	for (;; i = (i + 1) & (t->size - 1)) {
		memcpy(&at, slot_at(t, i), sizeof(at));
		if (!at || at == stored)
			return slot_at(t, i);
	}
}

static int grow(struct an_table *t)
{
	struct an_table bigger = { .entry_size = t->entry_size, .size = t->size ? 2 * t->size : 64,
				   .used = t->used };
	unsigned int i;
	__u32 stored;

	if (bigger.size > MAX_SLOTS || !(bigger.slots = calloc(bigger.size, t->entry_size)))
		return -ENOMEM;
	for (i = 0; i < t->size; i++) {
		memcpy(&stored, slot_at(t, i), sizeof(stored));
		if (stored)
			memcpy(slot_of(&bigger, stored), slot_at(t, i), t->entry_size);
	}
	free(t->slots);
	*t = bigger;
	return 0;
}

void *an_get(struct an_table *t, __u32 key)
{
	__u32 stored = key + 1, at;
	unsigned char *slot;

	if (!stored || (2 * (t->used + 1) > t->size && grow(t)))
		return NULL;
	slot = slot_of(t, stored);
	memcpy(&at, slot, sizeof(at));
	if (!at) {
		memcpy(slot, &stored, sizeof(stored));
		t->used++;
	}
	return slot;
}

void *an_slot(const struct an_table *t, unsigned int i)
{
	__u32 at;

	memcpy(&at, slot_at(t, i), sizeof(at));
	return at ? slot_at(t, i) : NULL;
}

void an_table_free(struct an_table *t)
{
	free(t->slots);
	*t = (struct an_table) { .entry_size = t->entry_size };
}

void an_table_free_durations(struct an_table *t, size_t offset)
{
	unsigned char *entry;
	unsigned int i;

	for (i = 0; i < t->size; i++)
		if ((entry = an_slot(t, i)))
			an_durations_free((struct an_durations *)(entry + offset));
	an_table_free(t);
}

int an_durations_add(struct an_durations *d, __u64 ns, __u64 at)
{
	unsigned int digits = ns > 1 ? 64 - __builtin_clzll(ns) : 1;

	d->min = !d->count || ns < d->min ? ns : d->min;
	if (!d->count || ns > d->max) {
		d->max = ns;
		d->max_at = at;
	}
	d->count++;
	d->sum += ns;
	d->sum_sq += (double)ns * ns;
	d->log2[digits - 1]++;
	if (d->count > d->room) {
		size_t room = d->room ? 2 * d->room : 64;
		__u64 *more = realloc(d->each, room * sizeof(*more));

		if (!more)
			return -ENOMEM;
		d->each = more;
		d->room = room;
	}
	d->each[d->count - 1] = ns;
	d->sorted = false;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

__u64 an_durations_percentile(struct an_durations *d, double p)
{
	size_t kept = d->count < d->room ? d->count : d->room, rank;

	if (!kept)
		return 0;
	if (!d->sorted)
		qsort(d->each, kept, sizeof(*d->each), by_value);
	d->sorted = true;
	rank = (size_t)ceil(p / 100 * kept);
	return d->each[(rank ? rank : 1) - 1];
}

double an_durations_stdev(const struct an_durations *d)
{
	double n = d->count, mean = n ? d->sum / n : 0, var;

	if (d->count < 2)
		return -1;
	var = (d->sum_sq - n * mean * mean) / (n - 1);
	return var > 0 ? sqrt(var) : 0;
}

void an_durations_free(struct an_durations *d)
{
	free(d->each);
	*d = (struct an_durations) { 0 };
}

void an_durations_histogram(FILE *out, const struct an_durations *d, const char *indent)
{
	static const char bar[] = "########################################";
	unsigned int first = 64, last = 0, i;
	__u64 most = 0;

	for (i = 0; i < 64; i++)
		if (d->log2[i]) {
			first = first < i ? first : i;
			last = i;
			most = d->log2[i] > most ? d->log2[i] : most;
		}
	for (i = first; i <= last && most; i++) {
		__u64 low = i ? 1ull << i : 0, high = (1ull << (i + 1)) - 1;
		int width = (int)((d->log2[i] * 40 + most - 1) / most);

		fprintf(out, "%s%12.3f .. %12.3f us %10llu |%-40.*s|\n", indent, an_us(low), an_us(high),
			(unsigned long long)d->log2[i], width, bar);
	}
}

void an_durations_json(FILE *out, const struct an_durations *d)
{
	double stdev = an_durations_stdev(d);

	fprintf(out, "\"count\":%llu,\"total_ns\":%llu,\"min_ns\":%llu,\"avg_ns\":%.1f,\"max_ns\":%llu",
		(unsigned long long)d->count, (unsigned long long)d->sum, (unsigned long long)d->min,
		an_durations_avg(d), (unsigned long long)d->max);
	if (stdev >= 0)
		fprintf(out, ",\"stdev_ns\":%.1f", stdev);
}

void an_durations_lami(struct lami *l, const struct an_durations *d)
{
	double stdev = an_durations_stdev(d);

	if (!d->count) {
		lami_empty(l);
		lami_empty(l);
		lami_empty(l);
	} else {
		lami_duration(l, d->min);
		lami_duration(l, an_durations_avg(d));
		lami_duration(l, d->max);
	}
	if (stdev >= 0)
		lami_duration(l, stdev);
	else
		lami_empty(l);
}

void an_span_add(struct an_span *s, const struct tr_item *it, const struct tr_report_opts *o)
{
	if ((o->start.given || o->end.given) &&
	    (tr_is_tracer_class(it->class, "task_state") || tr_is_tracer_class(it->class, "vm_map")))
		return;
	s->first = s->first && s->first < it->ts ? s->first : it->ts;
	s->last = it->ts > s->last ? it->ts : s->last;
}

int tr_analyze_lami_metadata(enum tr_report_format format, FILE *out)
{
	const struct lami_analysis *a = format == TR_REPORT_ANALYZE_SCHED ? &an_lami_sched :
					format == TR_REPORT_ANALYZE_CPU ? &an_lami_cpu :
					format == TR_REPORT_ANALYZE_SYSCALLS ? &an_lami_syscalls :
					format == TR_REPORT_ANALYZE_IRQ ? &an_lami_irq : NULL;

	if (!a)
		return -ENOENT;
	lami_metadata(out, a);
	return 0;
}

int an_class_kind(struct tr_by_class *kinds, const struct tr_item *it,
		  int (*classify)(const void *data, const struct tr_trace_class *class), const void *data)
{
	__u8 *memo = tr_by_class(kinds, it->record->id);

	if (memo && *memo == 0xff)
		*memo = classify(data, it->class);
	return memo ? *memo : classify(data, it->class);
}

__u32 an_task_pid(const struct tr_tasks *tasks, __u32 tid)
{
	const struct tr_task *task = tr_tasks_find(tasks, tid);

	return task ? task->pid : 0;
}

const char *an_task_label(char *buf, size_t len, const struct tr_tasks *tasks, __u32 tid)
{
	const struct tr_task *task = tr_tasks_find(tasks, tid);
	const char *comm = !tid ? "swapper" : task && task->comm[0] ? task->comm : "?";

	if (task && task->pid && task->pid != tid)
		snprintf(buf, len, "%s %u/%u", comm, task->pid, tid);
	else
		snprintf(buf, len, "%s %u", comm, tid);
	return buf;
}

bool an_task_shown(const struct tr_report_opts *o, __u32 pid, __u32 tid)
{
	return (!o->pid || (pid == (__u32)o->pid) || tid == (__u32)o->pid) && (!o->tid || tid == (__u32)o->tid);
}

/* Whether the trace has one of the events any names. */
static bool has_one_of(const struct tr_trace *trace, const char *const *any)
{
	char system[256];
	unsigned int i;

	for (i = 0; any[i]; i++) {
		const char *colon = strchr(any[i], ':');

		snprintf(system, sizeof(system), "%.*s", (int)(colon - any[i]), any[i]);
		if (tr_trace_has_class(trace, system, colon + 1))
			return true;
	}
	return false;
}

void *an_new(const struct tr_trace *trace, const struct tr_report_opts *o, const char *analysis,
	     const char *const *any, const char *record, size_t size, int *err)
{
	void *state = NULL;

	*err = 0;
	if (!has_one_of(trace, any)) {
		fprintf(stderr, "tracer %s %s: the trace has no %s%s events; record them: %s\n", o->command,
			analysis, any[0], any[1] ? " or like" : "", record);
		*err = -ENOENT;
	} else if (!(state = calloc(1, size))) {
		fprintf(stderr, "tracer %s: out of memory\n", o->command);
		*err = -ENOMEM;
	}
	return state;
}
