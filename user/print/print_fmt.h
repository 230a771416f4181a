/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report's default text: a record printed with its tracepoint's own print
 * format, byte for byte as libtraceevent's tep_print_event() prints it
 * (the text of perf script and trace-cmd report), from a plan made once
 * per event class, with no libtraceevent per record.  A class whose
 * format uses what the plan does not follow gets no plan, and report
 * prints its fields instead; tests/format/print_test.c compares the two
 * texts over every tracepoint format of the running kernel.
 */
#ifndef TRACER_PRINT_FMT_H
#define TRACER_PRINT_FMT_H

#include "print/fields.h"

struct tep_event;
struct tr_trace;
struct tr_print_plan;

/*
 * The plan for the records of ev, a format tr_format_whole() passed whole
 * and libtraceevent parsed, or NULL.  Strings that pointer fields point to
 * and function names come from trace (NULL: none).
 */
struct tr_print_plan *tr_print_plan_new(struct tep_event *ev, const struct tr_trace *trace);
void tr_print_plan_free(struct tr_print_plan *plan);

/*
 * Appends the text of a record of the plan's class (size bytes at data,
 * a NUL byte after them) to line: 0; 1 if the record held less than its
 * format reads (a length, an index or a locator beyond it, a division by
 * zero), printed as far as it goes; -1 (out of memory).  It reads nothing
 * outside the record, whatever the record holds; libtraceevent would.
 */
int tr_print_plan_print(struct tr_print_plan *plan, const void *data, unsigned int size,
			struct tr_line *line);

#endif /* TRACER_PRINT_FMT_H */
