/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer top: what the machine does now, live (user/top/): its options
 * and the call that runs it.
 */
#ifndef TRACER_TOP_H
#define TRACER_TOP_H

#include <stdio.h>
#include <tracer/recording.h>

enum tr_top_output { TR_TOP_SCREEN, TR_TOP_TEXT, TR_TOP_JSON };

struct tr_top_opts {
	/*
	 * What to record, as record's options say it (no events: top's
	 * default ones); output is --record's directory, or NULL.
	 */
	struct tr_record_opts record;
	double interval;		/* seconds between snapshots */
	enum tr_top_output output;	/* the screen, or --batch's text or JSON */
	unsigned int iterations;	/* --batch: stop after this many snapshots, 0: never */
	unsigned int rows;		/* --batch: rows per table, 0: all */
	unsigned int sample_percent;	/* --sample: the share of packets read (100: all) */
};

/* Runs top; returns the exit status for the command line. */
int tr_top(const struct tr_top_opts *opts);

struct tr_report_opts;

/*
 * tracer analyze KIND --live: the recording record says (its live sink set
 * here) feeds analysis->format's sink (sinks/analyze_*.c) as its items
 * come, in time order, and the sink writes its table to out at the end.
 * The exit status: the recording's (its command's), else the analysis's.
 */
int tr_analyze_live(struct tr_record_opts *record, const struct tr_report_opts *analysis, FILE *out);

#endif /* TRACER_TOP_H */
