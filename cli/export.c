// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer export: a trace's events into a file, in one of --format's formats. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <tracer/report.h>

#include "options.h"
#include "select.h"

/* export's state: the selection first (select.h), then what only export takes. */
struct export_args {
	struct selection s;
	const char *output, *format;
};

/* --format's name into *format: 0, or -EINVAL said. */
static int parse_format(const char *text, enum tr_report_format *format)
{
	if (!strcmp(text, "text"))
		*format = TR_REPORT_TEXT;
	else if (!strcmp(text, "jsonl"))
		*format = TR_REPORT_JSONL;
	else if (!strcmp(text, "chrome-json"))
		*format = TR_REPORT_CHROME;
	else if (!strcmp(text, "perfetto"))
		*format = TR_REPORT_PERFETTO;
	else if (!strcmp(text, "ctf"))
		*format = TR_REPORT_CTF;
	else if (!strcmp(text, "lttng"))
		*format = TR_REPORT_LTTNG;
	else if (!strcmp(text, "trace-cmd"))
		*format = TR_REPORT_TRACECMD;
	else
		return refuse("--format", text, "must be text, jsonl, chrome-json, perfetto, ctf, lttng or trace-cmd");
	return 0;
}

/* FILE for writing, private as the trace is; never through a symbolic link. */
static FILE *open_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *out = fd < 0 ? NULL : fdopen(fd, "w");

	if (fd >= 0 && !out)
		close(fd);
	return out;
}

/*
 * A new private file (0600, as record writes, and the sudo user's under
 * sudo) beside path, to take its place once written: its stream, its name
 * in tmp (len bytes); or NULL with errno set.
 */
static FILE *open_beside(const char *path, char *tmp, size_t len)
{
	const char *name = strrchr(path, '/');
	int dir_len = name ? name - path + 1 : 0, fd, err;
	FILE *out;

	if (snprintf(tmp, len, "%.*s.%s.XXXXXX", dir_len, path, path + dir_len) >= (int)len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	err = tr_report_give_file(fd);
	out = err ? NULL : fdopen(fd, "w");
	if (!out) {
		err = err ? -err : errno;
		unlink(tmp);
		close(fd);
		errno = err;
	}
	return out;
}

/* The new file export is writing (export_into()), or "": a signal that ends export removes it. */
static char export_tmp[PATH_MAX];

/* Ends export at signal sig as its default action would, removing its new file first. */
static void remove_new_file(int sig)
{
	if (export_tmp[0])
		unlink(export_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The signals that end a process by default and are not ignored now go to handler. */
static void on_ending_signals(void (*handler)(int))
{
	static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ };
	struct sigaction now;
	unsigned int i;

	for (i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		if (!sigaction(ending[i], NULL, &now) && now.sa_handler == SIG_DFL)
			signal(ending[i], handler);
}

/* The signal that asked a CTF export to stop, or 0. */
static volatile sig_atomic_t stop_signal;

static void ask_stop(int sig)
{
	stop_signal = sig;
}

/*
 * export --format ctf or lttng into dir: the report writes the directory itself.
 * A signal that would end export stops it at the next record instead,
 * the directory removed, and then ends it as it would have.  The exit
 * status.
 */
static int export_directory(struct tr_report_opts *o, const char *dir)
{
	int status;

	o->output_dir = dir;
	o->stop = &stop_signal;
	on_ending_signals(ask_stop);
	status = tr_report(o, stdout);
	if (stop_signal) {
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return status;
}

/*
 * Writes FILE anew: a new file renamed over an old one, never the old one
 * truncated (its owner and mode would stay); what export could not write
 * is said, and the new file removed, also when a signal ends export.
 * Standard output, a device or a FIFO is written as it is; a symbolic
 * link is not followed.  trace-cmd's sink makes files of its own beside
 * FILE: a signal stops it at the next record instead (as
 * export_directory()), and its files are removed with the new one.
 */
static int export_into(struct tr_report_opts *o, const char *path)
{
	int to_stdout = !strcmp(path, "-"), in_place, status;
	char *tmp = export_tmp, *copy = NULL;
	struct stat st;
	FILE *out;

	in_place = to_stdout || (!lstat(path, &st) && !S_ISREG(st.st_mode));
	if (o->format == TR_REPORT_TRACECMD) {
		o->stop = &stop_signal;
		o->scratch_dir = to_stdout || !(copy = strdup(path)) ? NULL : dirname(copy);
		on_ending_signals(ask_stop);
	} else if (!in_place) {
		on_ending_signals(remove_new_file);
	}
	out = to_stdout ? stdout : in_place ? open_output(path) : open_beside(path, tmp, sizeof(export_tmp));
	if (!out) {
		tmp[0] = '\0';
		fprintf(stderr, "%s: cannot write %s: %s\n", me, path, strerror(errno));
		return 1;
	}
	status = tr_report(o, out);
	if ((fflush(out) || ferror(out) || (!to_stdout && fclose(out))) && !status) {
		fprintf(stderr, "%s: writing %s failed: %s\n", me, path, strerror(errno));
		status = 1;
	}
	if (!in_place && !status && rename(tmp, path)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", me, path, strerror(errno));
		status = 1;
	}
	if (!in_place && status)
		unlink(tmp);
	tmp[0] = '\0';
	free(copy);
	if (stop_signal) {
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return status;
}

/* The setters of export's own options (options.h's set()): state is a struct export_args. */
static int set_format(void *state, const char *value)
{
	struct export_args *e = state;

	e->format = value;
	return parse_format(value, &e->s.o.format);
}

static int set_output(void *state, const char *value)
{
	((struct export_args *)state)->output = value;
	return parse_nonempty("--output", value);
}

static const struct cli_option export_options[] = {
	{ "output", 'o', "FILE", "where to write, replaced if it exists; - for standard output", set_output, 0 },
	{ "format", 0, "FORMAT",
	  "text: report's lines; jsonl: a JSON object per event and per loss;\n"
	  "chrome-json: the Trace Event Format (chrome://tracing, ui.perfetto.dev),\n"
	  "with what ran on each CPU from sched:sched_switch; perfetto: Perfetto's\n"
	  "protobuf trace (ui.perfetto.dev, trace_processor): CPU lanes, thread states;\n"
	  "ctf: a trace directory FILE of the selected events (report, babeltrace2);\n"
	  "lttng: a trace directory FILE as lttng-modules 2.13 writes one (lttng-analyses,\n"
	  "Trace Compass, babeltrace2): LTTng's event and field names;\n"
	  "trace-cmd: trace-cmd's trace.dat, written by libtracecmd (trace-cmd report,\n"
	  "KernelShark); FILE must be a file, not a pipe", set_format, 0 },
	SELECT_OPTIONS,
	{ 0 }
};

static int cmd_export(int argc, char **argv);

const struct cli_command export_command = {
	.name = "export",
	.summary = "write a trace's events into a file: text, JSON lines, a Chrome or Perfetto trace, CTF, LTTng's CTF, or trace-cmd's trace.dat",
	.synopsis = "tracer export [options] --format FORMAT -o FILE [DIR]",
	.options = export_options,
	.run = cmd_export,
	.examples =
	"tracer export --format jsonl -o - | jq .name\tthe events' names, through jq\n"
	"tracer export --format perfetto -o trace.pftrace\ttracer.data for ui.perfetto.dev\n"
	"tracer export --format ctf --event 'sched:*' -o sched.data\ta trace directory of the scheduler events only\n"
	"tracer export --format lttng -o lttng.data && lttng-cputop lttng.data\tCPU usage by lttng-analyses\n"
	"tracer export --format trace-cmd -o trace.dat && kernelshark trace.dat\tthe trace in KernelShark\n",
	.files = "tracer.data\tthe trace directory read when DIR is not given\n",
};

/* export's options into e, and the export. */
static int export_with(struct export_args *e, int argc, char **argv)
{
	int status = cli_parse(&export_command, argc, argv, e);

	if (status != CLI_GO_ON)
		return status;
	if (trace_dir_argument(&e->s, argc, argv))
		return 2;
	if (!e->format || !e->output) {
		fprintf(stderr, "%s: export needs --format (text, jsonl, chrome-json, perfetto, ctf, lttng or trace-cmd) and -o FILE (- for standard output)\n",
			me);
		return 2;
	}
	e->s.o.progress = isatty(STDERR_FILENO);
	if (e->s.o.format == TR_REPORT_CTF || e->s.o.format == TR_REPORT_LTTNG)
		return export_directory(&e->s.o, e->output);
	return export_into(&e->s.o, e->output);
}

/* export's slots, the export and its exit status. */
static int cmd_export(int argc, char **argv)
{
	struct export_args e = { 0 };
	int status = selection_new(&e.s, "export", argc) ? 1 : export_with(&e, argc, argv);

	selection_free(&e.s);
	return status;
}
