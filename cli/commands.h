/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The commands, one file each (cli/NAME.c), and their list. */
#ifndef TRACER_CLI_COMMANDS_H
#define TRACER_CLI_COMMANDS_H

#include "options.h"

extern const struct cli_command record_command, report_command, export_command, top_command,
				list_command, snapshot_command, ust_command, analyze_command;

/* The commands, in tracer help's order, NULL at the end. */
extern const struct cli_command *const cli_commands[];

/* tracer help's line for itself, after the commands'. */
#define HELP_SUMMARY	"print a command's options: tracer help COMMAND"

#endif /* TRACER_CLI_COMMANDS_H */
