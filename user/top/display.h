/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer top's display side, private to top*.c.  The consumer publishes
 * each snapshot through RCU (liburcu): the display copies the newest one
 * out inside a read-side section and prints the copy, so a terminal that
 * is slow, full or paused delays nothing but its own next look.
 */
#ifndef TRACER_TOP_DISPLAY_H
#define TRACER_TOP_DISPLAY_H

#include <stdio.h>

#include "top/top.h"
#include "top/model.h"

struct published;

struct top_shared {
	const struct tr_top_opts *o;
	struct published *latest;	/* RCU-protected (top/top.c); NULL until the first interval */
	int published_fd;		/* eventfd: a snapshot was published */
	int stop_fd;			/* eventfd: the display asks the recording to end */
	int ended_fd;			/* eventfd: the recording ended; the display ends */
	int reset_asked;		/* the display asks the counts to start again */
};

/* The newest snapshot, copied: the caller owns it.  NULL if there is none (or no memory). */
struct top_snapshot *top_latest(struct top_shared *sh);

/* The display asks the recording to end. */
void top_ask_stop(struct top_shared *sh);

/* A column's printf field width: names on the left, numbers on the right. */
static inline int top_column_width(const struct top_column *col)
{
	return col->unit == TOP_TEXT ? -col->width : col->width;
}

/* A cell as the screen and the batch text print it. */
void top_format_cell(const struct top_column *col, const struct top_cell *cell,
		     char *buf, size_t len);

/* Rows ordered by column col: names and ids ascending, numbers descending. */
void top_sort(struct top_table *t, unsigned int col);

/* The column each view is sorted by at first. */
extern const unsigned int top_default_sort[TOP_NVIEWS];
extern const char *const top_view_names[TOP_NVIEWS];

/* The header's lines: what was lost, by cause, never left out. */
void top_format_lost(const struct top_snapshot *s, char *buf, size_t len);

/* Events the buffers lost, every cause (the kernel's skips apart). */
static inline unsigned long long top_lost(const struct tr_live_status *l)
{
	return l->lost_full + l->lost_wrap + l->lost_big + l->lost_busy;
}

/* --- top/batch.c: --batch ---------------------------------------------------- */

/* Each snapshot as it comes, as text or JSON lines on out, until the recording ends. */
int top_batch_run(struct top_shared *sh, FILE *out);

/* --- top/screen.c: the screen -------------------------------------------------- */

/* Whether the screen can run here; if not, why in why. */
int top_screen_possible(char *why, size_t len);
/* The screen, until quit or the recording ends; then the terminal as it was. */
int top_screen_run(struct top_shared *sh);

#endif /* TRACER_TOP_DISPLAY_H */
