/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The commands' option tables, and the strict value parsers they share.
 *
 * Each command declares one table of its options (struct cli_option);
 * from it come getopt_long()'s tables, the --help text (cli_usage()) and
 * the man page (cli/man/), so what the help says and what the command
 * takes cannot drift apart.  A value that is not exactly what its option
 * takes is refused with one line naming the option (refuse()), and the
 * command exits 2 before anything is created.
 */
#ifndef TRACER_CLI_OPTIONS_H
#define TRACER_CLI_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

/*
 * One option: --name and -letter (either may be absent), the name of its
 * value in the help (NULL: it takes none), its help, and set(), which
 * takes the value (NULL for an option without one) into the command's
 * state: 0, or -errno once it said why on stderr.  An entry without a
 * name, a letter or set() is an operand's row in the help (CLI_OPERAND);
 * one without a name, a letter or a value ends the table.
 *
 * help is lines separated by '\n' (no '\n' at the end): the first beside
 * the option, the others under it, as --help prints them in 80 columns;
 * the man page fills them into one paragraph.
 */
struct cli_option {
	const char *name;
	int letter;
	const char *value;
	const char *help;
	int (*set)(void *state, const char *value);
	unsigned int flags;		/* CLI_* */
};

/* Named in another option's help: no row of its own in --help (the man page has one). */
#define CLI_IN_TEXT	1
/*
 * One --help row with the CLI_JOINED options after it: their short names
 * (-v) or long names with values (--flush-ms MS), then the first's help.
 */
#define CLI_JOINED	2

/* An operand's row in the help: what the command takes after its options. */
#define CLI_OPERAND(NAME, HELP)	{ .value = NAME, .help = HELP }

/*
 * A command: its name, its one-line summary (tracer help's list, the man
 * page's NAME), its synopsis (lines after "usage: "), its options, the
 * notes --help prints after them, and run(argc, argv) with argv[0] the
 * command's name, which returns the exit status.  examples and files are
 * the man page's: lines "TERM\tTEXT"; exit_status adds to its EXIT STATUS.
 */
struct cli_command {
	const char *name;
	const char *summary;
	const char *synopsis;
	const struct cli_option *options;
	const char *notes;
	int stop_at_operand;		/* options end at the first operand (a command to run) */
	int (*run)(int argc, char **argv);
	const char *examples;
	const char *files;
	const char *exit_status;
};

/* "tracer record" and so on: what messages (and getopt's) start with. */
extern const char *me;

/* cli_parse(): the options were taken, the operands are at optind. */
#define CLI_GO_ON	(-1)

/*
 * Names the command in messages (me) and in getopt's (argv[0], the
 * command's name, becomes "tracer NAME").
 */
void cli_name_command(char **argv);
/*
 * argv's options by cmd's table, in order, each into state through its
 * set(); --help and -h print the usage.  CLI_GO_ON with optind at the
 * first operand, or the exit status to return now: 0 after the usage, 2
 * when an option was refused (said on stderr).
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *state);
/* cmd's --help text into out. */
void cli_usage(const struct cli_command *cmd, FILE *out);
/* Whether o ends its table. */
int cli_option_end(const struct cli_option *o);
/* Whether o is an operand's row, not an option. */
int cli_option_operand(const struct cli_option *o);

/* --- Values: one strict parser per kind ------------------------------------ */

/* One line: the option, its value, what is wrong.  -EINVAL. */
int refuse(const char *option, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define DIGITS	"0123456789"

/*
 * The number the first len characters of text write in decimal digits,
 * nothing else (no sign, no space): -EINVAL, or -ERANGE past ULLONG_MAX.
 */
int decimal(const char *text, size_t len, unsigned long long *value);
/* A whole number in [min, max]. */
int parse_uint(const char *option, const char *text, unsigned long long min,
	       unsigned long long max, unsigned long long *value);
/* parse_uint() into an unsigned int, max at most UINT_MAX. */
int parse_uint_into(const char *option, const char *text, unsigned int min, unsigned int max,
		    unsigned int *value);
/* Bytes with an optional K, M or G: a power of two, as buffers are. */
int parse_size(const char *option, const char *text, __u64 *size);
/* Seconds, plain decimal digits with an optional point: "5", "0.5". */
int parse_duration(const char *option, const char *text, double *secs);
/* A CPU list for a machine of ncpu CPUs (or -errno: they could not be counted). */
int parse_cpus(const char *option, const char *text, int ncpu);
/* An event's name or glob: not empty, a glob fnmatch() takes as meant. */
int parse_event(const char *option, const char *text);
/* A process id, 1 to INT_MAX; if must_exist, of a process that exists. */
int parse_pid(const char *option, const char *text, int must_exist, pid_t *pid);
/* A value that must not be empty. */
int parse_nonempty(const char *option, const char *text);

#endif /* TRACER_CLI_OPTIONS_H */
