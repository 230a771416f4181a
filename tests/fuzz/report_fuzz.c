// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness over everything `tracer report` reads from a trace
 * directory (it does not read the CTF metadata).  An input is a list of
 * files, each introduced by the marker "TRF:" and one letter naming it
 * (pack.py makes inputs from a recorded trace):
 *
 *	e  .tracer/events	s  .tracer/stacks	k  .tracer/kallsyms
 *	c  .tracer/channels	x  .tracer/context	p  .tracer/printk_formats
 *	0..3  channel0_0 .. channel0_3
 *	a, b  rare_0, rare_1 (a second channel's streams, when .tracer/channels names it)
 *
 * The files are written into a private directory (on tmpfs when there is
 * one) and the whole report runs on it, printing into /dev/null: as text,
 * as export's JSON lines, Trace Event Format or Perfetto trace, as
 * --stats, or as export's CTF copy (into a directory beside it, removed
 * after each input), by the input's size.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ftw.h>
#include <sys/stat.h>

#include "sinks/report.h"

#define MARKER		"TRF:"
#define MARKER_LEN	4

static const struct { char letter; const char *name; } files[] = {
	{ 'e', ".tracer/events" }, { 's', ".tracer/stacks" },
	{ 'k', ".tracer/kallsyms" },
	{ 'c', ".tracer/channels" }, { 'x', ".tracer/context" },
	{ 'p', ".tracer/printk_formats" },
	{ '0', "channel0_0" }, { '1', "channel0_1" },
	{ '2', "channel0_2" }, { '3', "channel0_3" },
	{ 'a', "rare_0" }, { 'b', "rare_1" },
};
#define NFILES	(sizeof(files) / sizeof(files[0]))

/* report's sinks, and export's. */
static const enum tr_report_format sinks[] = {
	TR_REPORT_TEXT, TR_REPORT_JSONL, TR_REPORT_STATS, TR_REPORT_CHROME, TR_REPORT_PERFETTO,
	TR_REPORT_CTF, TR_REPORT_LTTNG, TR_REPORT_TRACECMD, TR_REPORT_ANALYZE_SCHED,
	TR_REPORT_ANALYZE_SYSCALLS, TR_REPORT_ANALYZE_IRQ, TR_REPORT_ANALYZE_CPU, TR_REPORT_ANALYZE_OFFCPU,
};

static char dir[64], copy[80];
static FILE *devnull;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

/* The CTF copy of the last input, if it made one. */
static void remove_copy(void)
{
	if (!access(copy, F_OK) && nftw(copy, remove_entry, 8, FTW_DEPTH | FTW_PHYS))
		abort();
}

static void remove_dir(void)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/.tracer", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	rmdir(dir);
	remove_copy();
}

static void set_up(void)
{
	char path[128];
	int fd;

	snprintf(dir, sizeof(dir), "%s/tracer-fuzz.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	snprintf(path, sizeof(path), "%s/.tracer", mkdtemp(dir));
	if (mkdir(path, 0700) || !(devnull = fopen("/dev/null", "w")))
		abort();
	snprintf(copy, sizeof(copy), "%s-copy", dir);
	atexit(remove_dir);
	/* the copy's metadata, copied as it is: the reader never reads it */
	snprintf(path, sizeof(path), "%s/metadata", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "/* CTF 1.8 */\n", 14) != 14 || close(fd))
		abort();
}

static void write_file(unsigned int which, const uint8_t *data, size_t size)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, files[which].name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd))
		abort();
}

static unsigned int file_of(uint8_t letter)
{
	unsigned int i;

	for (i = 0; i < NFILES && files[i].letter != letter; i++)
		;
	return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tr_report_opts opts = { .command = "export", .dir = dir, .output_dir = copy };
	FILE *out;
	const uint8_t *end = data + size, *at, *next;
	int present[NFILES] = { 0 };
	char path[128];
	unsigned int i;

	if (!dir[0])
		set_up();
	at = memmem(data, size, MARKER, MARKER_LEN);
	while (at && end - at > MARKER_LEN) {
		unsigned int which = file_of(at[MARKER_LEN]);
		const uint8_t *body = at + MARKER_LEN + 1;

		next = memmem(body, end - body, MARKER, MARKER_LEN);
		if (which < NFILES && !present[which]) {
			write_file(which, body, (next ? next : end) - body);
			present[which] = 1;
		}
		at = next;
	}
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (!present[i])
			unlink(path);
	}
	/* Every sink: an input's size picks one, so each input runs once; an analysis's LAMI every other size. */
	opts.format = sinks[size % (sizeof(sinks) / sizeof(sinks[0]))];
	opts.lami = opts.format >= TR_REPORT_ANALYZE_SCHED && opts.format != TR_REPORT_ANALYZE_OFFCPU &&
		    size / (sizeof(sinks) / sizeof(sinks[0])) % 2;
	/* trace-cmd's sink writes a file it seeks in, and its own files beside it */
	out = devnull;
	if (opts.format == TR_REPORT_TRACECMD) {
		opts.scratch_dir = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
		out = fopen(copy, "w+");
		if (!out)
			abort();
	}
	tr_report(&opts, out);
	if (out != devnull)
		fclose(out);
	remove_copy();
	return 0;
}
