// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The man pages, from the same tables as the commands' --help
 * (cli/options.h): tracer.1, and tracer-COMMAND.1 for each command.
 *
 *   man_pages DIR DATE   writes the pages into DIR, dated DATE (.TH's)
 *   man_pages --options  lists each command's options as the tables hold
 *                        them, a line each: COMMAND, then its spellings
 *                        (-e --event), for tests/run-man.t
 * Exit status 0, or 1 when a page could not be written (said on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tracer/version.h>

#include "../commands.h"

#define VERSION_SOURCE	"tracer " TRACER_VERSION
#define MANUAL		"tracer manual"

/*
 * What each page's SEE ALSO ends with: the pages written by hand
 * (cli/man/: the trace, its losses, the library), then the tools tracer
 * stands beside.
 */
#define WRITTEN		"\\fBtracer\\-format\\fR(7), \\fBtracer\\-losses\\fR(7), \\fBtracer\\-ust\\fR(3), "
#define PEERS		"\\fBperf\\-record\\fR(1), \\fBlttng\\fR(1), \\fBbabeltrace2\\fR(1)"

/* The bytes c takes in roff: a backslash and a minus are escaped. */
static int roff_len(char c)
{
	return c == '\\' || c == '-' ? 2 : 1;
}

/*
 * text as roff text lines: a backslash and a minus escaped, and a line
 * that would start with a control character ('.' or '\'') guarded.
 * at_start: text begins a line.  With fill, lines are broken at spaces to
 * stay within 80 bytes (roff fills them again), column being where text
 * starts; without, text is one line (a .TP's tag).
 */
static void roff_text(FILE *out, const char *text, int at_start, int fill, int column)
{
	const char *start = text;

	for (; *text; text++) {
		/* roff takes a '.' ending a line for a sentence's: not e.g.'s */
		if ((*text == '\n' || *text == ' ') && text - start >= 4 && !strncmp(text - 4, "e.g.", 4))
			fputs("\\&", out);
		if (fill && *text == ' ') {
			int word = 1;
			const char *p;

			for (p = text + 1; *p && *p != ' ' && *p != '\n'; p++)
				word += roff_len(*p);
			if (column + word > 78) {
				fputc('\n', out);
				column = 0;
				at_start = 1;
				continue;
			}
		}
		if (at_start && (*text == '.' || *text == '\''))
			column += fprintf(out, "\\&");
		at_start = *text == '\n';
		if (*text == '\\')
			fputs("\\e", out);
		else if (*text == '-')
			fputs("\\-", out);
		else
			fputc(*text, out);
		column = *text == '\n' ? 0 : column + roff_len(*text);
	}
}

/* text on one line (or as its lines say). */
static void roff(FILE *out, const char *text, int at_start)
{
	roff_text(out, text, at_start, 0, 0);
}

/* text filled: lines of at most 80 bytes, from a line's start. */
static void roff_fill(FILE *out, const char *text)
{
	roff_text(out, text, 1, 1, 0);
}

/* .TH and NAME: page's name (tracer-record), its summary. */
static void page_head(FILE *out, const char *page, const char *summary, const char *date)
{
	char title[64];
	size_t i;

	for (i = 0; page[i] && i < sizeof(title) - 1; i++)
		title[i] = page[i] >= 'a' && page[i] <= 'z' ? page[i] - 'a' + 'A' : page[i];
	title[i] = '\0';
	fprintf(out, ".TH %s 1 %s \"%s\" \"%s\"\n.SH NAME\n", title, date, VERSION_SOURCE, MANUAL);
	roff(out, page, 1);
	fputs(" \\-\n", out);
	roff_fill(out, summary);
	fputc('\n', out);
}

/* Lines "TERM\tTEXT" as a list, TERM in bold (EXAMPLES, FILES). */
static void term_list(FILE *out, const char *lines)
{
	const char *line, *tab, *end;
	char buf[512];

	for (line = lines; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		tab = memchr(line, '\t', end - line);
		if (!tab)
			tab = end;
		fputs(".TP\n\\fB", out);
		snprintf(buf, sizeof(buf), "%.*s", (int)(tab - line), line);
		roff(out, buf, 0);
		fputs("\\fR\n", out);
		snprintf(buf, sizeof(buf), "%.*s", tab < end ? (int)(end - tab - 1) : 0, tab + 1);
		roff_fill(out, buf);
		fputc('\n', out);
	}
}

/* An option's spellings, as a .TP's tag: "\fB\-e\fR, \fB\-\-event\fR \fIEVENT\fR". */
static void option_tag(FILE *out, const struct cli_option *o)
{
	if (o->letter)
		fprintf(out, "\\fB\\-%c\\fR%s", o->letter, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", out);
		roff(out, o->name, 0);
		fputs("\\fR", out);
	}
	if (o->value) {
		fputs(o->name || o->letter ? " \\fI" : "\\fI", out);
		roff(out, o->value, 0);
		fputs("\\fR", out);
	}
}

/* OPTIONS: each option's tag and its help; CLI_JOINED ones share one. */
static void options_section(FILE *out, const struct cli_option *o)
{
	fputs(".SH OPTIONS\n", out);
	while (!cli_option_end(o)) {
		const char *help = o->help;

		fputs(".TP\n", out);
		option_tag(out, o);
		while ((o->flags & CLI_JOINED) && (o[1].flags & CLI_JOINED)) {
			fputs(", ", out);
			option_tag(out, ++o);
		}
		fputc('\n', out);
		roff_fill(out, help);
		fputc('\n', out);
		o++;
	}
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint these options and exit\n", out);
}

/* EXIT STATUS: what every command's means, and what this one adds (or NULL). */
static void exit_status_section(FILE *out, const char *more)
{
	fputs(".SH EXIT STATUS\n"
	      ".TP\n0\nit did what it was asked\n"
	      ".TP\n1\nit failed, or found nothing; standard error says why\n"
	      ".TP\n2\nan option or an argument was refused: one line names it, and nothing was created\n",
	      out);
	if (more) {
		fputs(".PP\n", out);
		roff_fill(out, more);
		fputc('\n', out);
	}
}

/* SEE ALSO: tracer(1), the other commands' pages (not skip's), the peers. */
static void see_also(FILE *out, const struct cli_command *skip)
{
	const struct cli_command *const *cmd;

	fputs(".SH SEE ALSO\n", out);
	if (skip)
		fputs("\\fBtracer\\fR(1), ", out);
	for (cmd = cli_commands; *cmd; cmd++)
		if (*cmd != skip)
			fprintf(out, "\\fBtracer\\-%s\\fR(1), ", (*cmd)->name);
	fputs(WRITTEN PEERS "\n", out);
}

/* The files most commands read or write. */
static const char default_files[] =
	"tracer.data\tthe trace directory record writes, and report and export read, when not told otherwise\n"
	"/sys/kernel/tracing\ttracefs: the tracepoints and their formats (mounted if it is not)\n";

/* tracer-NAME.1 for cmd. */
static void command_page(FILE *out, const struct cli_command *cmd, const char *date)
{
	char page[64];
	const char *line;

	snprintf(page, sizeof(page), "tracer-%s", cmd->name);
	page_head(out, page, cmd->summary, date);
	fputs(".SH SYNOPSIS\n", out);
	for (line = cmd->synopsis; *line; line += *line == '\n') {
		size_t len = strcspn(line, "\n"), cmd_len = strlen("tracer ") + strlen(cmd->name);
		char buf[256];

		snprintf(buf, sizeof(buf), "%.*s", (int)(len - cmd_len), line + cmd_len);
		fprintf(out, "%s\\fBtracer %s\\fR", line == cmd->synopsis ? "" : ".br\n", cmd->name);
		roff(out, buf, 0);
		fputc('\n', out);
		line += len;
	}
	fputs(".SH DESCRIPTION\n\\fBtracer ", out);
	roff(out, cmd->name, 0);
	fputs("\\fR:\n", out);
	roff_fill(out, cmd->summary);
	fputs(".\n", out);
	if (cmd->notes) {
		fputs(".PP\n", out);
		roff_fill(out, cmd->notes);
	}
	options_section(out, cmd->options);
	fputs(".SH EXAMPLES\n", out);
	term_list(out, cmd->examples);
	exit_status_section(out, cmd->exit_status);
	fputs(".SH FILES\n", out);
	term_list(out, cmd->files ? cmd->files : default_files);
	see_also(out, cmd);
}

/* tracer.1: the commands, each with its summary. */
static void tracer_page(FILE *out, const char *date)
{
	const struct cli_command *const *cmd;

	page_head(out, "tracer", "record and read traces of the kernel's tracepoints and probes, and of programs",
		  date);
	fputs(".SH SYNOPSIS\n\\fBtracer\\fR \\fICOMMAND\\fR [\\fIoptions\\fR]\n"
	      ".br\n\\fBtracer help\\fR [\\fICOMMAND\\fR]\n"
	      ".SH DESCRIPTION\n"
	      "\\fBtracer\\fR records tracepoints, kernel functions and user-space probes into\n"
	      "a CTF trace directory, which \\fBbabeltrace2\\fR(1) also reads, and reads it back.\n"
	      "Each command has a page of its own, and prints its options with \\fB\\-\\-help\\fR.\n"
	      ".SS Commands\n", out);
	for (cmd = cli_commands; *cmd; cmd++) {
		fprintf(out, ".TP\n\\fBtracer\\-%s\\fR(1)\n", (*cmd)->name);
		roff_fill(out, (*cmd)->summary);
		fputc('\n', out);
	}
	fputs(".TP\n\\fBtracer help\\fR\n", out);
	roff_fill(out, HELP_SUMMARY);
	fputs("\n.SH OPTIONS\n"
	      ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the commands and exit\n"
	      ".TP\n\\fB\\-\\-version\\fR\nprint the version and exit\n"
	      ".TP\n\\fB\\-\\-mi\\-version\\fR\nprint the LAMI version that \\fBtracer analyze \\-\\-output lami\\fR\n"
	      "speaks (1.0) and exit: what Trace Compass asks an external analysis\n"
	      ".SH EXAMPLES\n", out);
	term_list(out, "tracer record -a -e 'sched:*' --duration 3\tevery scheduler event of the machine for 3 seconds, into tracer.data\n"
		       "tracer report\tthose events, one line each, in time order\n"
		       "tracer help record\trecord's options\n");
	exit_status_section(out, NULL);
	fputs(".SH FILES\n", out);
	term_list(out, default_files);
	see_also(out, NULL);
}

/* DIR/PAGE.1: cmd's page, or tracer's (NULL).  0, or 1 said on stderr. */
static int write_page(const char *dir, const char *page, const struct cli_command *cmd,
		      const char *date)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s.1", dir, page);
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "man_pages: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (cmd)
		command_page(out, cmd, date);
	else
		tracer_page(out, date);
	if (fclose(out)) {
		fprintf(stderr, "man_pages: writing %s failed: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* --options: "COMMAND -x --name" for each option of each table. */
static void list_options(void)
{
	const struct cli_command *const *cmd;
	const struct cli_option *o;

	for (cmd = cli_commands; *cmd; cmd++)
		for (o = (*cmd)->options; !cli_option_end(o); o++) {
			if (cli_option_operand(o))
				continue;
			printf("%s", (*cmd)->name);
			if (o->letter)
				printf(" -%c", o->letter);
			if (o->name)
				printf(" --%s", o->name);
			putchar('\n');
		}
}

int main(int argc, char **argv)
{
	const struct cli_command *const *cmd;
	char page[64];
	int status;

	if (argc == 2 && !strcmp(argv[1], "--options")) {
		list_options();
		return 0;
	}
	if (argc != 3) {
		fputs("usage: man_pages DIR DATE | man_pages --options\n", stderr);
		return 2;
	}
	status = write_page(argv[1], "tracer", NULL, argv[2]);
	for (cmd = cli_commands; *cmd; cmd++) {
		snprintf(page, sizeof(page), "tracer-%s", (*cmd)->name);
		status |= write_page(argv[1], page, *cmd, argv[2]);
	}
	return status;
}
