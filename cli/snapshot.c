// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer snapshot: a flight recorder (record --flight-recorder) asked for a snapshot. */
#include <getopt.h>
#include <stdio.h>
#include <tracer/recording.h>

#include "options.h"

/* -o DIR (options.h's set()): state is the directory's name. */
static int set_output(void *state, const char *value)
{
	*(const char **)state = value;
	return 0;
}

static const struct cli_option snapshot_options[] = {
	{ "output", 'o', "DIR",
	  "the directory a tracer record --flight-recorder writes into (default tracer.data)", set_output, 0 },
	{ 0 }
};

static int cmd_snapshot(int argc, char **argv);

const struct cli_command snapshot_command = {
	.name = "snapshot",
	.summary = "ask a flight recorder (record --flight-recorder) for a snapshot",
	.synopsis = "tracer snapshot [-o DIR]",
	.options = snapshot_options,
	.notes = "Writes what its buffers hold now as DIR/snapshot-N, as kill -USR2 does.\n",
	.run = cmd_snapshot,
	.examples = "tracer snapshot -o flight.data\tthe newest events of the flight recorder writing into flight.data, as flight.data/snapshot-N\n",
	.files = "DIR/snapshot-N\tthe snapshots\n",
};

/* The snapshot asked for, its answer printed: the exit status. */
static int cmd_snapshot(int argc, char **argv)
{
	const char *dir = "tracer.data";
	char reply[1024];
	int status = cli_parse(&snapshot_command, argc, argv, &dir);

	if (status != CLI_GO_ON)
		return status;
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected '%s'; the recording's directory is -o DIR\n", me,
			argv[optind]);
		return 2;
	}
	if (tr_record_snapshot(dir, reply, sizeof(reply))) {
		fprintf(stderr, "%s: %s\n", me, reply);
		return 1;
	}
	printf("%s\n", reply);
	return 0;
}
