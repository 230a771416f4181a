// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top --batch (top -b): each snapshot as it comes, as text tables
 * or (--output json) one JSON object per line, for scripts.  A snapshot
 * replaced before this thread could print it (stdout blocked that long)
 * is said to be skipped, never silently.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "top/display.h"
#include "sinks/json.h"

static void text_table(FILE *out, const struct top_table *t, unsigned int max_rows)
{
	unsigned int r, c, rows = max_rows && max_rows < t->nrows ? max_rows : t->nrows;
	char cell[128];

	for (c = 0; c < t->ncols; c++)
		fprintf(out, c ? " %*s" : "%*s", top_column_width(&t->cols[c]), t->cols[c].title);
	fputc('\n', out);
	for (r = 0; r < rows; r++) {
		for (c = 0; c < t->ncols; c++) {
			top_format_cell(&t->cols[c], top_cell(t, r, c), cell, sizeof(cell));
			fprintf(out, c ? " %*s" : "%*s", top_column_width(&t->cols[c]), cell);
		}
		fputc('\n', out);
	}
	if (rows < t->nrows)
		fprintf(out, "(%u more rows)\n", t->nrows - rows);
}

static double seconds(const struct top_snapshot *s)
{
	return (s->end - s->start) / 1e9;
}

static void text_snapshot(FILE *out, const struct top_snapshot *s, unsigned int rows)
{
	char lost[512];
	unsigned int v;

	top_format_lost(s, lost, sizeof(lost));
	fprintf(out, "--- tracer top: interval %llu (%.2f s), %llu events (%.1f/s), backend %s, recorder CPU %.1f%%\n",
		(unsigned long long)s->seq, seconds(s), (unsigned long long)s->events,
		s->end > s->start ? s->events / seconds(s) : 0, s->status.backend,
		100 * s->recorder_cpu);
	fprintf(out, "--- %s\n", lost);
	if (s->sample_percent < 100)
		fprintf(out, "--- the records of %u%% of the packets read: counts are estimates, ERR%% their 95%% bound\n",
			s->sample_percent);
	for (v = 0; v < TOP_NVIEWS; v++) {
		fprintf(out, "\n%s\n", top_view_names[v]);
		text_table(out, &s->views[v], rows);
	}
	fputc('\n', out);
}

static void json_table(FILE *out, const struct top_table *t)
{
	unsigned int r, c;

	fputc('[', out);
	for (r = 0; r < t->nrows; r++) {
		fputs(r ? ",{" : "{", out);
		for (c = 0; c < t->ncols; c++) {
			const struct top_cell *cell = top_cell(t, r, c);

			fprintf(out, "%s\"%s\":", c ? "," : "", t->cols[c].key);
			if (t->cols[c].unit == TOP_TEXT)
				tr_json_string(out, cell->text, strlen(cell->text));
			else if (t->cols[c].unit == TOP_ID || t->cols[c].unit == TOP_COUNT)
				fprintf(out, "%.0f", cell->value);
			else
				fprintf(out, "%.3f", cell->value);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_snapshot(FILE *out, const struct top_snapshot *s, __u64 skipped)
{
	const struct tr_live_status *l = &s->status;
	unsigned int v;

	fprintf(out, "{\"interval\":%llu,\"start_ns\":%llu,\"end_ns\":%llu,\"seconds\":%.6f,\"events\":%llu,\"total_events\":%llu,\"backend\":",
		(unsigned long long)s->seq, (unsigned long long)s->start,
		(unsigned long long)s->end, seconds(s), (unsigned long long)s->events,
		(unsigned long long)s->total_events);
	tr_json_string(out, l->backend, strlen(l->backend));
	fprintf(out, ",\"recorder_cpu_percent\":%.2f,\"skipped\":%llu,\"sample_percent\":%u",
		100 * s->recorder_cpu, (unsigned long long)skipped, s->sample_percent);
	fprintf(out, ",\"lost\":{\"full\":%llu,\"wrap\":%llu,\"big\":%llu,\"busy\":%llu,\"misses\":%llu,\"late\":%llu,\"unread_packets\":%llu,\"reported\":%llu}",
		(unsigned long long)l->lost_full, (unsigned long long)l->lost_wrap,
		(unsigned long long)l->lost_big, (unsigned long long)l->lost_busy,
		(unsigned long long)l->misses, (unsigned long long)l->late,
		(unsigned long long)l->unfed, (unsigned long long)s->lost_reported);
	fputs(",\"views\":{", out);
	for (v = 0; v < TOP_NVIEWS; v++) {
		fprintf(out, "%s\"%s\":", v ? "," : "", top_view_names[v]);
		json_table(out, &s->views[v]);
	}
	fputs("}}\n", out);
}

/* Prints the newest snapshot if it is new; 1 once the iterations asked for are printed. */
static int print_newest(struct top_shared *sh, FILE *out, __u64 *printed_seq, unsigned int *count)
{
	const struct tr_top_opts *o = sh->o;
	struct top_snapshot *s = top_latest(sh);
	__u64 skipped;
	unsigned int v;

	if (!s || s->seq <= *printed_seq) {
		top_snapshot_free(s);
		return 0;
	}
	skipped = s->seq - *printed_seq - 1;
	for (v = 0; v < TOP_NVIEWS; v++)
		top_sort(&s->views[v], top_default_sort[v]);
	if (o->output == TR_TOP_JSON) {
		json_snapshot(out, s, skipped);
	} else {
		if (skipped)
			fprintf(out, "--- %llu intervals skipped: the output was too slow to take them\n",
				(unsigned long long)skipped);
		text_snapshot(out, s, o->rows);
	}
	fflush(out);
	*printed_seq = s->seq;
	top_snapshot_free(s);
	return o->iterations && ++*count >= o->iterations;
}

/* Each snapshot as it comes, as text or JSON lines on out, until the recording ends. */
static int batch_run(struct top_shared *sh, FILE *out)
{
	struct pollfd fds[2] = { { sh->published_fd, POLLIN, 0 }, { sh->ended_fd, POLLIN, 0 } };
	unsigned int count = 0;
	__u64 seq = 0, n;
	int done = 0;

	for (;;) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (fds[0].revents && read(sh->published_fd, &n, sizeof(n)) == sizeof(n) && !done &&
		    print_newest(sh, out, &seq, &count)) {
			done = 1;
			top_ask_stop(sh);
		}
		if (fds[1].revents) {
			if (!done)
				print_newest(sh, out, &seq, &count);
			return 0;
		}
	}
}

static int batch_run_stdout(struct top_shared *sh)
{
	return batch_run(sh, stdout);
}

const struct top_display top_batch = { .run = batch_run_stdout };
