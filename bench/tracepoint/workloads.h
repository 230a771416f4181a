/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The workloads, one file each: a run (progress on stderr), its section of
 * the Markdown report, and its rows of the CSV (bench/bench_csv.h), in the
 * order main calls them.  The targets read parts 1 and 3.
 */
#ifndef TRACEPOINT_BENCH_WORKLOADS_H
#define TRACEPOINT_BENCH_WORKLOADS_H

#include <stdio.h>

#include "harness.h"

/* --- per_event.c: part 1, the system call under each configuration --- */

void per_event_run(void);
void per_event_print(FILE *out);
void per_event_csv(FILE *f);
/* Was configuration c measured with t threads? */
bool have(int c, int t);
/* Median over rounds of (c - base) with both measured in the same round, t threads. */
double added(int c, int base, int t);
/* Median ns per call of configuration c with t threads. */
double per_event_median(int c, int t);
/* The configuration standing for trace-cmd: itself, or the ftrace buffer it would use. */
int trace_cmd_row(void);

/* --- buffer_path.c: part 2, the buffer path alone in an in-kernel loop --- */

void buffer_path_run(void);
void buffer_path_print(FILE *out);
void buffer_path_csv(FILE *f);
/* Releases writer_loop's skeleton and buffers (main's cleanup). */
void buffer_path_teardown(void);

/* --- saturation.c: part 3, the tracer CLI with threads calling as fast as they can --- */

void saturation_run(void);
void saturation_print(FILE *out);
void saturation_csv(FILE *f);
/* The saturation run, or NULL when it did not run. */
const struct run_result *saturation_result(void);

/* --- loss_onset.c: part 4, where loss begins at offered rates --- */

void loss_onset_run(void);
void loss_onset_print(FILE *out);
void loss_onset_csv(FILE *f);

/* --- targets.c: the targets, PASS or FAIL; how many failed --- */

int targets_print(FILE *out);

#endif
