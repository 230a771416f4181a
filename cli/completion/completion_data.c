// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The data of tracer's bash completion, from the same tables as the
 * commands' --help and man pages (cli/options.h), as bash functions that
 * tracer.bash (the completion's logic) calls:
 *
 *   _tracer_commands             the commands, in tracer help's order
 *   _tracer_options COMMAND      its options, every spelling
 *   _tracer_value COMMAND OPT    what OPT's value is: event, dir, file
 *                                or word (not completed: a number, a
 *                                choice, an expression); nothing when
 *                                OPT takes no value
 *   _tracer_operand COMMAND      what its operands are: command (after
 *                                its options, a command to run), event,
 *                                dir; nothing when it takes none
 *
 * Usage: completion_data > FILE; exit status 0.
 */
#include <stdio.h>
#include <string.h>

#include "../commands.h"

/*
 * What a value named NAME in a table (EVENT, DIR, ...) is, for an option
 * or an operand: a GLOB operand selects tracepoints (tracer list's), a
 * GLOB option kernel functions, which are not completed.
 */
static const char *value_kind(const char *name, int operand)
{
	if (!strcmp(name, "EVENT") || (operand && !strcmp(name, "GLOB")))
		return "event";
	if (!strcmp(name, "DIR"))
		return "dir";
	if (!strcmp(name, "FILE") || !strcmp(name, "PATH"))
		return "file";
	return "word";
}

static void commands(void)
{
	const struct cli_command *const *cmd;

	fputs("_tracer_commands() {\n\techo", stdout);
	for (cmd = cli_commands; *cmd; cmd++)
		printf(" %s", (*cmd)->name);
	fputs("\n}\n", stdout);
}

static void options(void)
{
	const struct cli_command *const *cmd;
	const struct cli_option *o;

	fputs("_tracer_options() {\n\tcase $1 in\n", stdout);
	for (cmd = cli_commands; *cmd; cmd++) {
		printf("\t%s) echo '--help", (*cmd)->name);
		for (o = (*cmd)->options; !cli_option_end(o); o++) {
			if (o->letter)
				printf(" -%c", o->letter);
			if (o->name)
				printf(" --%s", o->name);
		}
		fputs("' ;;\n", stdout);
	}
	fputs("\tesac\n}\n", stdout);
}

/* One case pattern per option with a value: 'COMMAND -x'|'COMMAND --name'. */
static void values(void)
{
	const struct cli_command *const *cmd;
	const struct cli_option *o;

	fputs("_tracer_value() {\n\tcase \"$1 $2\" in\n", stdout);
	for (cmd = cli_commands; *cmd; cmd++)
		for (o = (*cmd)->options; !cli_option_end(o); o++) {
			if (!o->value || cli_option_operand(o))
				continue;
			fputs("\t", stdout);
			if (o->letter)
				printf("'%s -%c'%s", (*cmd)->name, o->letter, o->name ? "|" : "");
			if (o->name)
				printf("'%s --%s'", (*cmd)->name, o->name);
			printf(") echo %s ;;\n", value_kind(o->value, 0));
		}
	fputs("\tesac\n}\n", stdout);
}

static void operands(void)
{
	const struct cli_command *const *cmd;
	const struct cli_option *o;

	fputs("_tracer_operand() {\n\tcase $1 in\n", stdout);
	for (cmd = cli_commands; *cmd; cmd++) {
		if ((*cmd)->stop_at_operand) {
			printf("\t%s) echo command ;;\n", (*cmd)->name);
			continue;
		}
		for (o = (*cmd)->options; !cli_option_end(o); o++)
			if (cli_option_operand(o))
				printf("\t%s) echo %s ;;\n", (*cmd)->name, value_kind(o->value, 1));
	}
	fputs("\tesac\n}\n", stdout);
}

int main(void)
{
	fputs("# Generated from tracer's option tables by cli/completion/completion_data.c.\n",
	      stdout);
	commands();
	options();
	values();
	operands();
	return 0;
}
