/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer top's tables: the items of a recording, as the live reader hands
 * them out in time order, counted into intervals of the trace's clock.
 * Each interval closed becomes a snapshot, immutable once made: the views
 * (tasks, system calls, events, CPUs) as tables of cells that the screen,
 * the batch output and JSON all print.  A sink of the reader, as report's
 * are.
 */
#ifndef TRACER_TOP_MODEL_H
#define TRACER_TOP_MODEL_H

#include <linux/types.h>

#include "record/recorder.h"

struct tr_item;
struct top_model;

enum top_view { TOP_TASKS, TOP_SYSCALLS, TOP_EVENTS, TOP_CPUS, TOP_NVIEWS };

/* What a column holds, hence how it prints and sorts. */
enum top_unit {
	TOP_TEXT,			/* a name: sorts ascending */
	TOP_ID,				/* a number that names (pid, cpu, nr): ascending */
	TOP_COUNT,			/* since the start or the last reset */
	TOP_RATE,			/* per second over the interval */
	TOP_NS,				/* a duration */
	TOP_PERCENT,
};

struct top_column {
	const char *title;		/* the screen's and the batch output's */
	const char *key;		/* JSON's */
	enum top_unit unit;
	int width;
};

/* A cell: its value, or for TOP_TEXT its text (in the snapshot's strings). */
struct top_cell {
	double value;
	const char *text;
};

struct top_table {
	const struct top_column *cols;
	unsigned int ncols, nrows;
	struct top_cell *cells;		/* row by row */
};

struct top_snapshot {
	__u64 seq;			/* 1 for the first interval */
	__u64 start, end;		/* the interval, ns of the trace's clock */
	__u64 events;			/* records in it */
	__u64 total_events;		/* since the start or the last reset */
	struct tr_live_status status;	/* the recording's: backend, losses by cause so far */
	__u64 lost_reported;		/* as the packets reported them, by the interval's end */
	double recorder_cpu;		/* the recorder's CPU time over the interval (1: one CPU) */
	unsigned int sample_percent;	/* of the packets whose records were read: 100, or --sample's */
	struct top_table views[TOP_NVIEWS];
	char *strings;			/* what the text cells point into */
	size_t strings_len;
};

/*
 * Counting into intervals of interval_ns, for ncpu CPUs, from the records
 * of sample_percent of the packets (100: all): each interval closed goes
 * to publish, which owns the snapshot (NULL: no memory for it).  NULL
 * without memory.
 */
struct top_model *top_model_new(__u64 interval_ns, unsigned int ncpu, unsigned int sample_percent,
				void (*publish)(void *data, struct top_snapshot *snap), void *data);
void top_model_free(struct top_model *m);

/* The next item in time order. */
void top_model_item(struct top_model *m, const struct tr_item *item);

/*
 * Every item up to reached is in (~0: the recording ended): each interval
 * that ends by then is closed.  status goes into the snapshots.
 */
void top_model_reached(struct top_model *m, __u64 reached, const struct tr_live_status *status);

/* Counts since the start begin again with the next interval. */
void top_model_reset(struct top_model *m);

/* A copy of a snapshot, the caller's.  NULL without memory. */
struct top_snapshot *top_snapshot_copy(const struct top_snapshot *snap);
void top_snapshot_free(struct top_snapshot *snap);

/* The cell at row r, column c of a table. */
static inline const struct top_cell *top_cell(const struct top_table *t, unsigned int r,
					      unsigned int c)
{
	return &t->cells[r * t->ncols + c];
}

#endif /* TRACER_TOP_MODEL_H */
