// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top's screen (ncurses): a header with the backend, events/s,
 * what was lost by cause and the recorder's own CPU use, then one view as
 * a table.  Keys: Tab or t s e c switch the view, < > the sort column, p
 * pauses (the numbers stay as they were), f filters the tasks by name or
 * id, r resets the counts, h shows the keys, q quits.  The terminal is
 * restored however the screen ends: q, Ctrl-C, SIGTERM or an error of
 * the recording all end it through endwin().
 */
#define _GNU_SOURCE
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top/display.h"

#define MIN_COLS	60
#define MIN_LINES	8
#define HEADER_LINES	4		/* header, losses, views, column titles */

struct screen {
	struct top_shared *sh;
	struct top_snapshot *shown;	/* a copy, sorted and filtered as shown */
	enum top_view view;
	unsigned int sort[TOP_NVIEWS];
	unsigned int first_row;		/* scrolled down this far */
	int paused, help;
	char filter[32];		/* tasks: a name's part or an id; "" none */
};

/* Whether the screen can run here; if not, why in why. */
static int screen_possible(char *why, size_t len)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(why, len, "the screen needs a terminal on standard input and output; --batch prints the tables instead");
		return 0;
	}
	if (!term || !*term || !strcmp(term, "dumb")) {
		snprintf(why, len, "TERM is %s: the screen needs a terminal that can move the cursor; --batch prints the tables instead",
			 term && *term ? term : "not set");
		return 0;
	}
	return 1;
}

/* --- Drawing ---------------------------------------------------------------------- */

static int task_matches(const struct screen *sc, const struct top_table *t, unsigned int r)
{
	char *end;
	long id = strtol(sc->filter, &end, 10);

	if (!*end)
		return top_cell(t, r, 0)->value == id || top_cell(t, r, 1)->value == id;
	return strstr(top_cell(t, r, 2)->text, sc->filter) != NULL;
}

/* Drops the tasks the filter does not match. */
static void filter_tasks(struct screen *sc)
{
	struct top_table *t = &sc->shown->views[TOP_TASKS];
	unsigned int r, kept = 0;

	if (!sc->filter[0])
		return;
	for (r = 0; r < t->nrows; r++)
		if (task_matches(sc, t, r))
			memmove(&t->cells[kept++ * t->ncols], &t->cells[r * t->ncols],
				t->ncols * sizeof(*t->cells));
	t->nrows = kept;
}

static void draw_header(const struct screen *sc)
{
	const struct top_snapshot *s = sc->shown;
	double secs = (s->end - s->start) / 1e9;
	int alarming = top_lost(&s->status) + s->status.misses > 0;
	char lost[512];

	mvprintw(0, 0, "tracer top  backend %s  interval %llu (%.1f s)  %.0f events/s  recorder CPU %.1f%%",
		 s->status.backend, (unsigned long long)s->seq, secs, secs > 0 ? s->events / secs : 0,
		 100 * s->recorder_cpu);
	if (s->sample_percent < 100)
		printw("  sampled %u%%", s->sample_percent);
	if (sc->paused) {
		attron(A_REVERSE);
		printw("  PAUSED");
		attroff(A_REVERSE);
	}
	top_format_lost(s, lost, sizeof(lost));
	if (alarming)
		attron(A_BOLD);
	mvprintw(1, 0, "%s", lost);
	if (alarming)
		attroff(A_BOLD);
}

static void draw_views(const struct screen *sc)
{
	const struct top_table *t = &sc->shown->views[sc->view];
	unsigned int v;

	move(2, 0);
	for (v = 0; v < TOP_NVIEWS; v++) {
		if (v == sc->view)
			attron(A_REVERSE);
		printw(" %s ", top_view_names[v]);
		if (v == sc->view)
			attroff(A_REVERSE);
		printw(" ");
	}
	printw("  sort: %s", t->cols[sc->sort[sc->view]].title);
	if (sc->filter[0])
		printw("  filter: %s", sc->filter);
}

static void draw_table(const struct screen *sc)
{
	const struct top_table *t = &sc->shown->views[sc->view];
	int line = HEADER_LINES - 1, width;
	unsigned int r, c;
	char cell[128];

	attron(A_REVERSE);
	mvhline(line, 0, ' ', COLS);
	move(line, 0);
	for (c = 0; c < t->ncols; c++) {
		width = top_column_width(&t->cols[c]);
		printw(c == sc->sort[sc->view] ? "%*s*" : "%*s ", width, t->cols[c].title);
	}
	attroff(A_REVERSE);
	for (r = sc->first_row; r < t->nrows && ++line < LINES - 1; r++) {
		move(line, 0);
		for (c = 0; c < t->ncols; c++) {
			width = top_column_width(&t->cols[c]);
			top_format_cell(&t->cols[c], top_cell(t, r, c), cell, sizeof(cell));
			printw("%*.*s ", width, t->cols[c].width, cell);
		}
	}
}

static const char *const help_lines[] = {
	"Tab        next view (t tasks, s system calls, e events, c CPUs)",
	"< >        sort by the column to the left, to the right",
	"p          pause: the numbers stay as they are (again: go on)",
	"f          show only the tasks whose name holds a text, or with an id",
	"r          counts begin again",
	"Up Down    scroll",
	"q          quit",
	"",
	"Counts are since the start or the last reset; rates and CPU% over the interval.",
	"Any key closes this help.",
};

static void draw_help(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++)
		mvprintw(HEADER_LINES + i, 2, "%s", help_lines[i]);
}

static void draw(struct screen *sc)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		mvprintw(0, 0, "%.*s", COLS, "terminal too small for tracer top");
		mvprintw(1, 0, "%.*s", COLS, "needs 60x8; q quits");
	} else if (!sc->shown) {
		mvprintw(0, 0, "tracer top: waiting for the first interval (%.1f s)...", sc->sh->o->interval);
	} else {
		draw_header(sc);
		draw_views(sc);
		if (sc->help)
			draw_help();
		else
			draw_table(sc);
		mvprintw(LINES - 1, 0, "%.*s", COLS,
			 "q quit  Tab view  < > sort  p pause  f filter  r reset  h help");
	}
	refresh();
}

/* --- Keys ------------------------------------------------------------------------- */

static void take_newest(struct screen *sc)
{
	struct top_snapshot *s;
	unsigned int v;

	if (sc->paused)
		return;
	s = top_latest(sc->sh);
	if (!s)
		return;
	for (v = 0; v < TOP_NVIEWS; v++)
		top_sort(&s->views[v], sc->sort[v]);
	top_snapshot_free(sc->shown);
	sc->shown = s;
	filter_tasks(sc);
}

static void ask_filter(struct screen *sc)
{
	char text[sizeof(sc->filter)] = "";

	mvhline(LINES - 1, 0, ' ', COLS);
	mvprintw(LINES - 1, 0, "filter tasks (name part or id, empty: none): ");
	echo();
	curs_set(1);
	nodelay(stdscr, FALSE);
	getnstr(text, sizeof(text) - 1);
	nodelay(stdscr, TRUE);
	curs_set(0);
	noecho();
	strcpy(sc->filter, text);
}

static void resort(struct screen *sc, int step)
{
	const struct top_table *t = sc->shown ? &sc->shown->views[sc->view] : NULL;
	unsigned int *col = &sc->sort[sc->view];

	if (!t || (step < 0 && !*col) || (step > 0 && *col + 1 >= t->ncols))
		return;
	*col += step;
	top_sort(&sc->shown->views[sc->view], *col);
}

/* One key; 1 to quit. */
static int key(struct screen *sc, int ch)
{
	static const char view_keys[TOP_NVIEWS] = { 't', 's', 'e', 'c' };
	const char *v;

	if (sc->help) {
		sc->help = 0;
		return ch == 'q';
	}
	if (ch == 'q')
		return 1;
	if (ch == '\t') {
		sc->view = (sc->view + 1) % TOP_NVIEWS;
		sc->first_row = 0;
	} else if (ch && (v = memchr(view_keys, ch, TOP_NVIEWS))) {
		sc->view = v - view_keys;
		sc->first_row = 0;
	} else if (ch == '<' || ch == '>') {
		resort(sc, ch == '<' ? -1 : 1);
	} else if (ch == 'p' || ch == ' ') {
		sc->paused = !sc->paused;
	} else if (ch == 'f') {
		ask_filter(sc);
		sc->paused = 0;
		take_newest(sc);
	} else if (ch == 'r') {
		__atomic_store_n(&sc->sh->reset_asked, 1, __ATOMIC_RELEASE);
	} else if (ch == 'h' || ch == '?') {
		sc->help = 1;
	} else if (ch == KEY_DOWN) {
		sc->first_row++;
	} else if (ch == KEY_UP && sc->first_row) {
		sc->first_row--;
	}
	return 0;
}

static void start_curses(void)
{
	sigset_t winch;

	/* This thread takes the resizes (top/top.c keeps them from the consumer). */
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	pthread_sigmask(SIG_UNBLOCK, &winch, NULL);
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
}

/* The screen, until quit or the recording ends; then the terminal as it was. */
static int screen_run(struct top_shared *sh)
{
	struct screen sc = { .sh = sh };
	struct pollfd fds[3] = {
		{ STDIN_FILENO, POLLIN, 0 }, { sh->published_fd, POLLIN, 0 }, { sh->ended_fd, POLLIN, 0 },
	};
	int quit = 0, ch;
	__u64 n;

	memcpy(sc.sort, top_default_sort, sizeof(sc.sort));
	start_curses();
	draw(&sc);
	while (!quit) {
		if (poll(fds, 3, 1000) < 0 && errno != EINTR)
			break;
		if (fds[2].revents)
			break;
		if (fds[1].revents && read(sh->published_fd, &n, sizeof(n)) == sizeof(n))
			take_newest(&sc);
		while (!quit && (ch = getch()) != ERR)
			quit = ch != KEY_RESIZE && key(&sc, ch);
		draw(&sc);
	}
	endwin();
	top_snapshot_free(sc.shown);
	if (quit)
		top_ask_stop(sh);
	return 0;
}

const struct top_display top_screen = {
	.possible = screen_possible, .run = screen_run, .holds_stderr = true,
};
