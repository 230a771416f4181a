// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How tracer top's snapshots read, on the screen and in --batch text
 * alike: cells, the order of rows, the header's line of losses.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/display.h"

const char *const top_view_names[TOP_NVIEWS] = { "tasks", "syscalls", "events", "cpus" };

/* Tasks by CPU time, system calls and events by count, CPUs by number. */
const unsigned int top_default_sort[TOP_NVIEWS] = { 3, 2, 1, 0 };

static void format_ns(double ns, char *buf, size_t len)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

void top_format_cell(const struct top_column *col, const struct top_cell *cell,
		     char *buf, size_t len)
{
	switch (col->unit) {
	case TOP_TEXT:
		snprintf(buf, len, "%s", cell->text);
		break;
	case TOP_ID:
	case TOP_COUNT:
		snprintf(buf, len, "%.0f", cell->value);
		break;
	case TOP_RATE:
	case TOP_PERCENT:
		snprintf(buf, len, "%.1f", cell->value);
		break;
	case TOP_NS:
		format_ns(cell->value, buf, len);
		break;
	}
}

struct sort_key {
	const struct top_table *t;
	unsigned int col;
};

/* Rows by their cell in the column; equal ones as they were. */
static int by_column(const void *a, const void *b, void *arg)
{
	const struct sort_key *k = arg;
	unsigned int i = *(const unsigned int *)a, j = *(const unsigned int *)b;
	const struct top_cell *x = top_cell(k->t, i, k->col), *y = top_cell(k->t, j, k->col);
	enum top_unit unit = k->t->cols[k->col].unit;
	int order;

	if (unit == TOP_TEXT)
		order = strcmp(x->text, y->text);
	else if (unit == TOP_ID)
		order = (x->value > y->value) - (x->value < y->value);
	else
		order = (x->value < y->value) - (x->value > y->value);
	return order ? order : (i > j) - (i < j);
}

void top_sort(struct top_table *t, unsigned int col)
{
	struct sort_key key = { t, col };
	size_t row = t->ncols * sizeof(*t->cells);
	unsigned int *order, r;
	struct top_cell *sorted;

	if (t->nrows < 2 || col >= t->ncols)
		return;
	order = malloc(t->nrows * sizeof(*order));
	sorted = malloc(t->nrows * row);
	if (order && sorted) {
		for (r = 0; r < t->nrows; r++)
			order[r] = r;
		qsort_r(order, t->nrows, sizeof(*order), by_column, &key);
		for (r = 0; r < t->nrows; r++)
			memcpy(&sorted[r * t->ncols], &t->cells[order[r] * t->ncols], row);
		memcpy(t->cells, sorted, t->nrows * row);
	}
	free(order);
	free(sorted);
}

void top_format_lost(const struct top_snapshot *s, char *buf, size_t len)
{
	const struct tr_live_status *l = &s->status;

	snprintf(buf, len,
		 "lost %llu (buffer full %llu, not yet committed %llu, too big %llu, busy %llu), kernel skipped %llu, late %llu, unread packets %llu",
		 top_lost(l), (unsigned long long)l->lost_full, (unsigned long long)l->lost_wrap,
		 (unsigned long long)l->lost_big, (unsigned long long)l->lost_busy,
		 (unsigned long long)l->misses, (unsigned long long)l->late,
		 (unsigned long long)l->unfed);
}
