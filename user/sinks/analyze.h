/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What tracer analyze's sinks share (analyze_sched.c, analyze_syscalls.c,
 * analyze_irq.c): entries by a 32-bit key, durations with their
 * statistics, percentiles and log2 histogram, and how a task is named.
 * An analysis is a sink like the others (sink.h): the pipeline hands it
 * every task's records and every loss (every_task), it keeps what it
 * works out, and prints a table, or JSON, when it is closed.  An analysis
 * that has nothing to show says so in one line and its close returns
 * -ENODATA (exit status 1, nothing else said).
 */
#ifndef TRACER_ANALYZE_H
#define TRACER_ANALYZE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct tr_item;
struct tr_tasks;
struct tr_trace;
struct tr_report_opts;

/*
 * Entries of entry_size bytes by a key, each starting with __u32 key + 1
 * (0: a free slot): open addressing in a table that doubles to stay at
 * most half full.  A pointer to an entry holds until the next an_get().
 */
struct an_table {
	unsigned char *slots;
	size_t entry_size;
	unsigned int size, used;	/* size: a power of two, or 0 */
};

/* key's entry, added zeroed (but its key) if new; NULL without memory. */
void *an_get(struct an_table *t, __u32 key);
/* Slot i's entry (i < t->size), or NULL for a free slot. */
void *an_slot(const struct an_table *t, unsigned int i);
static inline __u32 an_key(const void *entry)
{
	return *(const __u32 *)entry - 1;
}
void an_table_free(struct an_table *t);
/* The same, each entry's struct an_durations at offset freed first. */
void an_table_free_durations(struct an_table *t, size_t offset);

/* Durations, in ns: how many, their sum, extremes, spread, each (for percentiles) and log2 histogram. */
struct an_durations {
	__u64 count, sum, min, max;
	__u64 max_at;			/* when the longest ended */
	double sum_sq;
	__u64 *each;			/* count of them, sorted once a percentile is asked */
	size_t room;
	bool sorted;
	__u64 log2[64];			/* [i]: durations of i + 1 binary digits ([0]: 0 and 1 ns) */
};

/* ns, ended at time at: 0, or -ENOMEM (then only the counts have it). */
int an_durations_add(struct an_durations *d, __u64 ns, __u64 at);
/* The p-th percentile (0 < p <= 100), nearest rank: the smallest duration with p% of them at most it. */
__u64 an_durations_percentile(struct an_durations *d, double p);
/* Their standard deviation (of a sample: n - 1), or -1 with fewer than two. */
double an_durations_stdev(const struct an_durations *d);
static inline double an_durations_avg(const struct an_durations *d)
{
	return d->count ? (double)d->sum / d->count : 0;
}
void an_durations_free(struct an_durations *d);

/* The log2 histogram as text bars, a line per power of two from the first to the last it has. */
void an_durations_histogram(FILE *out, const struct an_durations *d, const char *indent);
/* d as JSON members: "count", "total_ns", "min_ns", "avg_ns", "max_ns", "stdev_ns" (then the caller's). */
void an_durations_json(FILE *out, const struct an_durations *d);

struct lami;
/* d's minimum, average, maximum and standard deviation as LAMI durations (none where it has no value). */
void an_durations_lami(struct lami *l, const struct an_durations *d);

/* The time an analysis covers: from the first record it was handed to the last. */
struct an_span {
	__u64 first, last;
};
/*
 * Record it in s; with --start or --end, not the tracer's records of tasks
 * and mappings, which come from before the window too.
 */
void an_span_add(struct an_span *s, const struct tr_item *it, const struct tr_report_opts *o);

struct tr_by_class;
struct tr_trace_class;

/*
 * What kind of record it is to an analysis, as classify(data, its class)
 * says, worked out once per class into kinds (a tr_by_class of __u8
 * filled with 0xff; without memory, worked out each time).
 */
int an_class_kind(struct tr_by_class *kinds, const struct tr_item *it,
		  int (*classify)(const void *data, const struct tr_trace_class *class), const void *data);

/* How a task is shown: "comm pid/tid", "comm tid" (its process unknown or itself), into buf. */
const char *an_task_label(char *buf, size_t len, const struct tr_tasks *tasks, __u32 tid);
/* Whether o's --pid and --tid let thread tid (of process pid, 0 if unknown) be shown. */
bool an_task_shown(const struct tr_report_opts *o, __u32 pid, __u32 tid);
/* The process of thread tid as tasks know it, or 0. */
__u32 an_task_pid(const struct tr_tasks *tasks, __u32 tid);

/*
 * A new analysis's state, size bytes zeroed, once the trace has one of
 * the events any names (a NULL-ended list of "system:name", the name a
 * glob): else it refuses to run, saying in one line how to record them
 * (record).  The state, or NULL with *err -ENOENT or -ENOMEM, said.
 */
void *an_new(const struct tr_trace *trace, const struct tr_report_opts *o, const char *analysis,
	     const char *const *any, const char *record, size_t size, int *err);

/* The LAMI descriptions of the analyses (--output lami --metadata). */
struct lami_analysis;
extern const struct lami_analysis an_lami_sched, an_lami_cpu, an_lami_syscalls, an_lami_irq;

/* ns as milliseconds or microseconds with 3 decimals. */
static inline double an_ms(__u64 ns)
{
	return ns / 1e6;
}
static inline double an_us(__u64 ns)
{
	return ns / 1e3;
}

#endif /* TRACER_ANALYZE_H */
