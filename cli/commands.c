// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The commands, in tracer help's order (commands.h). */
#include <stddef.h>

#include "commands.h"

const struct cli_command *const cli_commands[] = {
	&record_command, &report_command, &export_command, &analyze_command, &top_command, &list_command,
	&snapshot_command, &ust_command, NULL
};
