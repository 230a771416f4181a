// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer ust dump: a running program's libtracer-ust buffers written as a trace. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/recording.h>

#include "options.h"

/* ust's state: -o's directory (or NULL), and whether -f was given. */
struct ust_args {
	const char *dir;
	int force;
};

/* The setters of ust's options (options.h's set()): state is a struct ust_args. */
static int set_output(void *state, const char *value)
{
	((struct ust_args *)state)->dir = value;
	return 0;
}

static int set_force(void *state, const char *value)
{
	(void)value;
	((struct ust_args *)state)->force = 1;
	return 0;
}

static const struct cli_option ust_options[] = {
	{ "output", 'o', "DIR", "trace directory (default tracer-ust-PID)", set_output, 0 },
	{ "force", 'f', NULL, "replace an existing trace directory; the previous one is kept as DIR.old",
	  set_force, 0 },
	{ 0 }
};

static int cmd_ust(int argc, char **argv);

const struct cli_command ust_command = {
	.name = "ust",
	.summary = "write a running program's libtracer-ust events as a trace: tracer ust dump PID",
	.synopsis = "tracer ust dump PID [-o DIR] [-f]",
	.options = ust_options,
	.notes =
	"Writes the events in the libtracer-ust buffers of process PID as they are, as a trace\n"
	"(nothing is taken from a recording that reads them). Root, or the process's user.\n",
	.run = cmd_ust,
	.examples = "tracer ust dump 1234\tprocess 1234's events, into tracer-ust-1234\n",
	.files = "tracer-ust-PID\tthe trace directory, when -o does not name another\n",
};

/* tracer ust dump PID: the exit status. */
static int cmd_ust(int argc, char **argv)
{
	struct ust_args u = { 0 };
	char fallback[64], *end;
	int status = cli_parse(&ust_command, argc, argv, &u);
	long pid;

	if (status != CLI_GO_ON)
		return status;
	if (optind + 2 != argc || strcmp(argv[optind], "dump")) {
		fprintf(stderr, "%s: expected dump PID\n", me);
		cli_usage(&ust_command, stderr);
		return 2;
	}
	pid = strtol(argv[optind + 1], &end, 10);
	if (*end || pid <= 0 || pid > INT_MAX) {
		refuse("dump", argv[optind + 1], "not a process id");
		return 2;
	}
	snprintf(fallback, sizeof(fallback), "tracer-ust-%ld", pid);
	return tr_ust_dump(pid, u.dir ? u.dir : fallback, u.force) ? 1 : 0;
}
