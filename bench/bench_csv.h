/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The benchmark suite's CSV (bench/README.md, "The suite"): one row per
 * figure, written by every benchmark with --csv.  bench/suite.py pairs the
 * rows round by round (bench/paired.py) and adds the paired figures'
 * columns to its results.csv (benchlib.CSV_COLUMNS).  Columns, in order:
 *   workload, config, label, threads, param, unit,
 *   n, median, min, max            over the repetitions,
 *   ratio_to                       the peer the suite compares this row with,
 *   recorded, expected, lost       events, summed over the repetitions,
 *   baseline                       1 for a no-tracing baseline,
 *   disturbed                      repetitions kept although others used the CPUs,
 *   note, values                   the repetitions' values in round order, space-separated.
 * Absent numbers are empty fields; in a struct bench_row, a number is absent
 * unless its flag says it is there, so that designated initializers leave
 * out what a row does not have.
 */
#ifndef TRACER_BENCH_CSV_H
#define TRACER_BENCH_CSV_H

#include <stdbool.h>
#include <stdio.h>

struct bench_row {
	const char *workload, *config, *label, *param, *unit, *ratio_to, *note;
	int threads;			/* 0: not applicable */
	const double *values;		/* n of them, in round order */
	int n;
	double median, min, max;
	bool counted, lost_known;
	long long recorded, expected;		/* when counted */
	long long lost;				/* when lost_known */
	bool baseline;
	int disturbed;
};

static inline void bench_csv_header(FILE *f)
{
	fputs("workload,config,label,threads,param,unit,n,median,min,max,ratio_to,recorded,"
	      "expected,lost,baseline,disturbed,note,values\n", f);
}

static inline void bench_csv_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputs("\",", f);
}

static inline void bench_csv_number(FILE *f, bool present, double v)
{
	if (present)
		fprintf(f, "%.6g,", v);
	else
		fputc(',', f);
}

static inline void bench_csv_count(FILE *f, bool present, long long v)
{
	if (present)
		fprintf(f, "%lld,", v);
	else
		fputc(',', f);
}

static inline void bench_csv_row(FILE *f, const struct bench_row *r)
{
	int i;

	if (!f)
		return;
	bench_csv_text(f, r->workload);
	bench_csv_text(f, r->config);
	bench_csv_text(f, r->label);
	if (r->threads)
		fprintf(f, "%d,", r->threads);
	else
		fputc(',', f);
	bench_csv_text(f, r->param);
	bench_csv_text(f, r->unit);
	fprintf(f, "%d,", r->n);
	bench_csv_number(f, r->n, r->median);
	bench_csv_number(f, r->n, r->min);
	bench_csv_number(f, r->n, r->max);
	bench_csv_text(f, r->ratio_to);
	bench_csv_count(f, r->counted, r->recorded);
	bench_csv_count(f, r->counted, r->expected);
	bench_csv_count(f, r->lost_known, r->lost);
	fprintf(f, "%d,%d,", r->baseline, r->disturbed);
	bench_csv_text(f, r->note);
	fputc('"', f);
	for (i = 0; i < r->n; i++)
		fprintf(f, "%s%.6g", i ? " " : "", r->values[i]);
	fputs("\"\n", f);
}

#endif
