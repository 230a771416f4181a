// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer: the command line.  main() finds the command (commands.h) and
 * runs it; each command, in a file of its own, parses its options by its
 * table (options.h), strictly, and hands a plain options struct to the
 * library through its public headers (include/tracer/).
 */
#include <stdio.h>
#include <string.h>
#include <tracer/report.h>
#include <tracer/version.h>

#include "commands.h"

/* tracer --help: the commands, each with its summary. */
static void usage(FILE *out)
{
	const struct cli_command *const *cmd;

	fputs("usage: tracer COMMAND [options]\n", out);
	for (cmd = cli_commands; *cmd; cmd++)
		fprintf(out, "  %-8s %s\n", (*cmd)->name, (*cmd)->summary);
	fprintf(out, "  %-8s %s\n", "help", HELP_SUMMARY);
	fputs("tracer --version prints the version; tracer --mi-version, the LAMI version of analyze --output lami.\n",
	      out);
}

/* The command called name, or NULL. */
static const struct cli_command *find_command(const char *name)
{
	const struct cli_command *const *cmd;

	for (cmd = cli_commands; *cmd; cmd++)
		if (!strcmp((*cmd)->name, name))
			return *cmd;
	return NULL;
}

/* tracer help [COMMAND]: the exit status. */
static int cmd_help(int argc, char **argv)
{
	const struct cli_command *cmd = argc == 2 ? find_command(argv[1]) : NULL;

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	if (!cmd) {
		fprintf(stderr, "tracer help: no command '%s'; tracer help lists the commands\n",
			argv[1]);
		return 2;
	}
	cli_usage(cmd, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		fprintf(stderr, "tracer: no command given\n");
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		printf("tracer " TRACER_VERSION "\n");
		return 0;
	}
	if (!strcmp(argv[1], "--mi-version")) {
		printf(TR_LAMI_VERSION "\n");
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "tracer: unknown command '%s'; tracer help lists the commands\n",
			argv[1]);
		return 2;
	}
	cli_name_command(argv + 1);
	return cmd->run(argc - 1, argv + 1);
}
