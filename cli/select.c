// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What report and export share (select.h): which events, from which trace. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/cpus.h>

#include "options.h"
#include "select.h"

/*
 * A time of --start or --end, to the nanosecond: SECONDS[.FRACTION] in
 * the trace's clock, or +SECONDS[.FRACTION] after its first record.
 */
static int parse_time(const char *option, const char *text, struct tr_report_time *t)
{
	const char *at = text + (*text == '+');
	size_t whole = strspn(at, DIGITS), frac = 0;
	unsigned long long ns = 0, scale = 100000000;
	size_t i;

	if (at[whole] == '.')
		frac = strspn(at + whole + 1, DIGITS);
	if (!whole || at[whole + (at[whole] == '.') + frac] || frac > 9 || whole > 10)
		return refuse(option, text, "not a time: SECONDS[.FRACTION] as report prints it, or +SECONDS after the first record");
	for (i = 0; i < whole; i++)
		ns = ns * 10 + (at[i] - '0');
	ns *= 1000000000ull;
	for (i = 0; i < frac; i++, scale /= 10)
		ns += (at[whole + 1 + i] - '0') * scale;
	*t = (struct tr_report_time) { .ns = ns, .relative = *text == '+', .given = 1 };
	return 0;
}

int set_select_cpu(void *state, const char *value)
{
	((struct selection *)state)->o.cpus = value;
	return parse_cpus("--cpu", value, TR_MAX_CPUS);
}

int set_select_pid(void *state, const char *value)
{
	return parse_pid("--pid", value, 0, &((struct selection *)state)->o.pid);
}

int set_select_tid(void *state, const char *value)
{
	return parse_pid("--tid", value, 0, &((struct selection *)state)->o.tid);
}

int set_select_event(void *state, const char *value)
{
	struct selection *s = state;

	s->events[s->o.nevents++] = value;
	return parse_event("--event", value);
}

int set_select_start(void *state, const char *value)
{
	return parse_time("--start", value, &((struct selection *)state)->o.start);
}

int set_select_end(void *state, const char *value)
{
	return parse_time("--end", value, &((struct selection *)state)->o.end);
}

int set_select_raw(void *state, const char *value)
{
	(void)value;
	((struct selection *)state)->o.raw = 1;
	return 0;
}

int selection_new(struct selection *s, const char *command, int argc)
{
	s->events = calloc(argc, sizeof(*s->events));
	s->o = (struct tr_report_opts) { .command = command, .dir = "tracer.data", .events = s->events };
	return s->events ? 0 : -ENOMEM;
}

void selection_free(struct selection *s)
{
	free(s->events);
}

int trace_dir_argument(struct selection *s, int argc, char **argv)
{
	if (argc - optind > 1) {
		fprintf(stderr, "%s: one trace directory at a time (%s, %s, ...)\n", me,
			argv[optind], argv[optind + 1]);
		return -EINVAL;
	}
	if (optind < argc)
		s->o.dir = argv[optind];
	return 0;
}
