/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer top's display side, private to top/.  The consumer publishes
 * each snapshot through RCU (liburcu, top/handoff.c): the display copies
 * the newest one out inside a read-side section and prints the copy, so a
 * terminal that is slow, full or paused delays nothing but its own next
 * look.  A display is an ops table (the screen, --batch's output).
 */
#ifndef TRACER_TOP_DISPLAY_H
#define TRACER_TOP_DISPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "top/top.h"
#include "top/model.h"

struct published;

struct top_shared {
	const struct tr_top_opts *o;
	struct published *latest;	/* RCU-protected (top/handoff.c); NULL until the first interval */
	int published_fd;		/* eventfd: a snapshot was published */
	int stop_fd;			/* eventfd: the display asks the recording to end */
	int ended_fd;			/* eventfd: the recording ended; the display ends */
	int reset_asked;		/* the display asks the counts to start again */
};

/* --- top/handoff.c: between the consumer and the display ------------------------- */

/* sh's eventfds: 0, or -errno (those opened stay, for top_handoff_close()). */
int top_handoff_open(struct top_shared *sh);
void top_handoff_close(struct top_shared *sh);
/* Wakes fd's reader (one of sh's eventfds). */
void top_notify(int fd);
/* snap (owned by it from now) becomes the newest snapshot; the display is woken. */
void top_publish(struct top_shared *sh, struct top_snapshot *snap);
/* The end: no snapshot is published any more, and every one is freed. */
void top_unpublish(struct top_shared *sh);
/* The newest snapshot, copied: the caller owns it.  NULL if there is none (or no memory). */
struct top_snapshot *top_latest(struct top_shared *sh);
/* The display asks the recording to end. */
void top_ask_stop(struct top_shared *sh);

/* --- The displays ------------------------------------------------------------------ */

/* What the display thread runs: the screen, or --batch's tables. */
struct top_display {
	/* Whether it can run here; if not, why in why.  NULL: it always can. */
	int (*possible)(char *why, size_t len);
	/* Shows each snapshot until quit or the recording ends: the exit status. */
	int (*run)(struct top_shared *sh);
	/* It draws over the terminal: what the recorder says on stderr waits for its end. */
	bool holds_stderr;
};

/* The screen (top/screen.c); --batch's text or JSON lines on stdout (top/batch.c). */
extern const struct top_display top_screen, top_batch;

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

#endif /* TRACER_TOP_DISPLAY_H */
