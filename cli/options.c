// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The option tables turned into getopt_long()'s tables and the --help
 * text (options.h), and the strict value parsers the commands share.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/cpus.h>

#include "options.h"

#define MAX_DURATION_S		1000000000	/* about 31 years */

const char *me = "tracer";

/* The help's column: an option's help starts there, its further lines too. */
#define HELP_COLUMN	25

int cli_option_end(const struct cli_option *o)
{
	return !o->name && !o->letter && !o->value;
}

int cli_option_operand(const struct cli_option *o)
{
	return !o->name && !o->letter && o->value;
}

void cli_name_command(char **argv)
{
	static char name[32];

	snprintf(name, sizeof(name), "tracer %s", argv[0]);
	me = argv[0] = name;
}

/* getopt's message is said; this points to the help.  2, the exit status. */
static int bad_option(void)
{
	fprintf(stderr, "%s --help lists the options\n", me);
	return 2;
}

/*
 * The val getopt_long() returns for table entry i: past any letter, so
 * that each long option has its own (a prefix of two is ambiguous).
 */
#define LONG_VAL(i)	(256 + (i))

/*
 * getopt_long()'s tables from options (n entries before the end):
 * longs (n + 2 slots: --help and the end) and shorts (2n + 3 bytes).
 */
static void getopt_tables(const struct cli_option *options, int stop_at_operand,
			  struct option *longs, char *shorts)
{
	const struct cli_option *o;

	if (stop_at_operand)
		*shorts++ = '+';
	for (o = options; !cli_option_end(o); o++) {
		if (o->name)
			*longs++ = (struct option) { o->name, o->value ? required_argument : no_argument,
						     NULL, LONG_VAL(o - options) };
		if (o->letter) {
			*shorts++ = o->letter;
			if (o->value)
				*shorts++ = ':';
		}
	}
	*longs++ = (struct option) { "help", no_argument, NULL, 'h' };
	*longs = (struct option) { 0 };
	strcpy(shorts, "h");
}

/* The option getopt_long() returned c for, or NULL (its error, or no such option). */
static const struct cli_option *option_of(const struct cli_option *options, int c)
{
	const struct cli_option *o;

	for (o = options; !cli_option_end(o); o++)
		if (c == LONG_VAL(o - options) || (c == o->letter && c))
			return o->set ? o : NULL;
	return NULL;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *state)
{
	const struct cli_option *o;
	size_t n = 0;
	int c;

	while (!cli_option_end(&cmd->options[n]))
		n++;
	{
		struct option longs[n + 2];
		char shorts[2 * n + 3];

		getopt_tables(cmd->options, cmd->stop_at_operand, longs, shorts);
		while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
			if (c == 'h') {
				cli_usage(cmd, stdout);
				return 0;
			}
			o = option_of(cmd->options, c);
			if (!o)
				return bad_option();
			if (o->set(state, optarg))
				return 2;
		}
	}
	return CLI_GO_ON;
}

/* An option's row: its names, then its help from HELP_COLUMN on, line under line. */
static void print_row(FILE *out, const char *names, const char *help)
{
	int len = fprintf(out, "%s", names);

	fprintf(out, "%*s", len < HELP_COLUMN ? HELP_COLUMN - len : 2, "");
	for (; *help; help++) {
		fputc(*help, out);
		if (*help == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', out);
}

/* o's names as its row shows them: "  -e, --event EVENT", "      --raw", "  -g", "  DIR". */
static void row_names(const struct cli_option *o, char *names, size_t len)
{
	char letter[8] = "    ";

	if (o->letter)
		snprintf(letter, sizeof(letter), "-%c%s", o->letter, o->name ? ", " : "");
	snprintf(names, len, "  %s%s%s%s%s", cli_option_operand(o) ? "" : letter,
		 o->name ? "--" : "", o->name ? o->name : "",
		 o->value && !cli_option_operand(o) ? " " : "", o->value ? o->value : "");
}

/* The row of the CLI_JOINED options from o on; the entry after them. */
static const struct cli_option *print_joined(FILE *out, const struct cli_option *o)
{
	const char *help = o->help;
	char names[256];
	size_t len = snprintf(names, sizeof(names), "      ");

	for (; o->flags & CLI_JOINED; o++) {
		if (o->letter)
			len += snprintf(names + len, sizeof(names) - len, "-%c", o->letter);
		else
			len += snprintf(names + len, sizeof(names) - len, "--%s%s%s", o->name,
					o->value ? " " : "", o->value ? o->value : "");
		len += snprintf(names + len, sizeof(names) - len, "%s",
				o[1].flags & CLI_JOINED ? ", " : ": ");
	}
	fprintf(out, "%s%s\n", names, help);
	return o;
}

void cli_usage(const struct cli_command *cmd, FILE *out)
{
	const struct cli_option *o = cmd->options;
	const char *line;
	char names[256];

	fputs("usage: ", out);
	for (line = cmd->synopsis; *line; line++)	/* its lines under each other */
		fputs(*line == '\n' ? "\n       " : (char[]){ *line, 0 }, out);
	fputc('\n', out);
	while (!cli_option_end(o)) {
		if (o->flags & CLI_JOINED) {
			o = print_joined(out, o);
			continue;
		}
		if (!(o->flags & CLI_IN_TEXT)) {
			row_names(o, names, sizeof(names));
			print_row(out, names, o->help);
		}
		o++;
	}
	if (cmd->notes)
		fputs(cmd->notes, out);
}

/* --- Values: one strict parser per kind ------------------------------------ */

int refuse(const char *option, const char *value, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s '%s': ", me, option, value);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

int decimal(const char *text, size_t len, unsigned long long *value)
{
	unsigned long long n = 0;
	size_t i;

	if (!len || strspn(text, DIGITS) < len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (n > (ULLONG_MAX - (text[i] - '0')) / 10)
			return -ERANGE;
		n = n * 10 + (text[i] - '0');
	}
	*value = n;
	return 0;
}

int parse_uint(const char *option, const char *text, unsigned long long min,
	       unsigned long long max, unsigned long long *value)
{
	if (decimal(text, strlen(text), value) || *value < min || *value > max)
		return refuse(option, text, "must be a whole number from %llu to %llu", min, max);
	return 0;
}

int parse_uint_into(const char *option, const char *text, unsigned int min, unsigned int max,
		    unsigned int *value)
{
	unsigned long long n;

	if (parse_uint(option, text, min, max, &n))
		return -EINVAL;
	*value = n;
	return 0;
}

int parse_size(const char *option, const char *text, __u64 *size)
{
	static const char units[] = "kmg";
	size_t len = strspn(text, DIGITS);
	const char *unit = text[len] ? strchr(units, tolower((unsigned char)text[len])) : NULL;
	unsigned int shift = unit ? 10 * (unit - units + 1) : 0;
	unsigned long long n;

	if (!len || (text[len] && (!unit || text[len + 1])))
		return refuse(option, text, "not a size: bytes, or a number with K, M or G, e.g. 4M");
	if (decimal(text, len, &n) || n > ULLONG_MAX >> shift)
		return refuse(option, text, "too large");
	n <<= shift;
	if (!n || (n & (n - 1)))
		return refuse(option, text, "not a power of two (buffer and sub-buffer sizes are, e.g. 64K or 4M)");
	*size = n;
	return 0;
}

int parse_duration(const char *option, const char *text, double *secs)
{
	const char *end = text + strspn(text, DIGITS);
	size_t ndigits = end - text;

	if (*end == '.') {
		ndigits += strspn(end + 1, DIGITS);
		end = text + ndigits + 1;
	}
	if (!ndigits || *end)
		return refuse(option, text, "not a number of seconds, e.g. 5 or 0.5");
	*secs = strtod(text, NULL);
	if (*secs <= 0 || *secs > MAX_DURATION_S)
		return refuse(option, text, "must be more than 0 and at most %d seconds",
			      MAX_DURATION_S);
	return 0;
}

int parse_cpus(const char *option, const char *text, int ncpu)
{
	int err = ncpu > 0 ? tr_parse_cpu_list(text, NULL, ncpu) : 0;

	if (ncpu <= 0)
		return refuse(option, text, "cannot count this machine's CPUs: %s", strerror(-ncpu));
	if (err == -ERANGE)
		return refuse(option, text, "CPUs go from 0 to %u", ncpu - 1);
	if (err)
		return refuse(option, text, "not a CPU list such as 0,2-3");
	return 0;
}

/* Where the bracket expression opening at p ends (its ']'), or NULL. */
static const char *bracket_end(const char *p)
{
	p++;
	p += *p == '!' || *p == '^';
	p += *p == ']';		/* a ']' first is a member */
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char close[] = { p[1], ']', 0 };	/* [:alpha:] and the like */

			p = strstr(p + 2, close);
			if (!p)
				return NULL;
			p += 2;
		} else {
			p++;
		}
	}
	return *p ? p : NULL;
}

/* A glob fnmatch() takes as meant: every '[' closed, no '\' at the end. */
static const char *glob_problem(const char *glob)
{
	const char *p;

	for (p = glob; *p; p++) {
		if (*p == '\\' && !*++p)
			return "it ends with an escaping '\\'";
		if (*p == '[' && !(p = bracket_end(p)))
			return "a '[' is not closed by ']'";
	}
	return NULL;
}

int parse_event(const char *option, const char *text)
{
	const char *bad = glob_problem(text);

	if (!*text)
		return refuse(option, text, "empty: name a tracepoint, e.g. sched:sched_switch");
	if (bad)
		return refuse(option, text, "not a valid glob: %s", bad);
	return 0;
}

int parse_pid(const char *option, const char *text, int must_exist, pid_t *pid)
{
	unsigned long long n;

	if (parse_uint(option, text, 1, INT_MAX, &n))
		return -EINVAL;
	if (must_exist && kill(n, 0) && errno == ESRCH)
		return refuse(option, text, "no such process");
	*pid = n;
	return 0;
}


int parse_nonempty(const char *option, const char *text)
{
	return *text ? 0 : refuse(option, text, "empty");
}
