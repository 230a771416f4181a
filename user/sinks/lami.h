/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * LAMI 1.0, the machine interface of lttng-analyses' -mi commands, which
 * Trace Compass runs as external analyses: what tracer analyze writes
 * with --output lami.  An analysis describes its tables once (struct
 * lami_analysis): --metadata prints that, and its results are tables of
 * those classes, each a time range and rows of typed cells.  Cells are
 * objects with a "class" as lttng-analyses writes them (a duration in ns,
 * a process, an IRQ...).  Timestamps are ns since the epoch, as viewers
 * show the trace's times: the trace's clock plus its offset.
 *
 * Contract: one lami_results_begin(), then tables, each opened with
 * lami_table() and its rows with lami_row(), then lami_results_end(); a
 * row has a cell per column of its class.
 */
#ifndef TRACER_LAMI_H
#define TRACER_LAMI_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

/* A column: its title, its cells' class ("duration", "process", ...), and unit or NULL. */
struct lami_column {
	const char *title, *class, *unit;
};

/* A table class: its name in the results, its title, its columns (a NULL title ends them). */
struct lami_table_class {
	const char *name, *title;
	const struct lami_column *columns;
};

/* An analysis: what --metadata says (its table classes end with a NULL name). */
struct lami_analysis {
	const char *title, *description;
	const char *const *tags;	/* NULL-ended */
	const struct lami_table_class *classes;
};

/* a's metadata as one JSON object and a newline. */
void lami_metadata(FILE *out, const struct lami_analysis *a);

/* Results being written: where, and how far. */
struct lami {
	FILE *out;
	__s64 offset;			/* the trace's clock offset (tr_trace_clock_offset()) */
	unsigned int tables, rows, cells;
};

/* Results into out, of a trace of that clock offset (tr_trace_clock_offset()): "{"results":[". */
void lami_results_begin(struct lami *l, FILE *out, __s64 clock_offset);
/*
 * A table of class c over [begin, end] of the trace's clock; with a
 * subtitle, titled "TITLE [subtitle]" (a class of its own inheriting c).
 */
void lami_table(struct lami *l, const struct lami_table_class *c, const char *subtitle, __u64 begin, __u64 end);
/* The next row of the table. */
void lami_row(struct lami *l);
/* The cells of a row, in the order of its class's columns. */
void lami_duration(struct lami *l, double ns);	/* an average may have a fraction */
void lami_timestamp(struct lami *l, __u64 ts);	/* ts of the trace's clock */
void lami_number(struct lami *l, double value);
void lami_ratio(struct lami *l, double value);	/* 1 is 100% */
void lami_process(struct lami *l, const char *comm, __u32 pid, __u32 tid);
void lami_cpu(struct lami *l, unsigned int cpu);
void lami_syscall(struct lami *l, const char *name);
void lami_irq(struct lami *l, bool hard, unsigned int nr, const char *name);
void lami_string(struct lami *l, const char *text);
void lami_empty(struct lami *l);		/* a cell with no value */
/* "]}" after the last table, and a newline. */
void lami_results_end(struct lami *l);

#endif /* TRACER_LAMI_H */
