/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer report and tracer export: a trace's events from all CPUs in time
 * order, filtered, into one sink.  report's text has a line per event, as
 * perf script prints them, and losses where they happened; a record names
 * its task by command name, process id and, where it differs (a thread
 * other than the process's first), thread id: "comm pid/tid".  export
 * writes the same events in one of the formats below (user/sinks/).
 */
#ifndef TRACER_REPORT_H
#define TRACER_REPORT_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

enum tr_report_format {
	TR_REPORT_TEXT,			/* report's lines, and each record's stacks */
	TR_REPORT_FOLDED,		/* --folded: the stacks folded, not the events */
	TR_REPORT_JSONL,		/* a JSON object per event and per loss */
	TR_REPORT_STATS,		/* --stats: counts (sinks/stats.c) */
	TR_REPORT_CHROME,		/* the Trace Event Format (sinks/chrome.c) */
	TR_REPORT_PERFETTO,		/* Perfetto's protobuf trace (sinks/perfetto.c) */
	TR_REPORT_CTF,			/* a trace directory of the selected records (sinks/ctf_copy.c) */
	TR_REPORT_LTTNG,		/* a trace directory in lttng-modules' layout (sinks/lttng.c) */
	TR_REPORT_TRACECMD,		/* trace-cmd's trace.dat (sinks/tracecmd.c) */
	/* tracer analyze's (sinks/analyze_*.c) */
	TR_REPORT_ANALYZE_SCHED,	/* per task: runtime, switches, wake-up latencies */
	TR_REPORT_ANALYZE_SYSCALLS,	/* per task and system call: calls, errors, latencies */
	TR_REPORT_ANALYZE_IRQ,		/* per hard IRQ and soft IRQ vector: durations, raise latencies */
	TR_REPORT_ANALYZE_CPU,		/* per CPU and per task: usage */
	TR_REPORT_ANALYZE_OFFCPU,	/* the time blocked, by stack, folded */
};

/* --start, --end: a time in the trace's clock, after its first record, or since the epoch. */
struct tr_report_time {
	__u64 ns;
	int relative;			/* "+SECONDS": ns after the first record */
	int epoch;			/* LAMI's --begin/--end: ns since the epoch, as viewers show the trace's times */
	int given;
};

struct tr_report_opts {
	const char *command;		/* "report" or "export", for messages */
	const char *dir;
	const char *cpus;		/* --cpu LIST, or NULL */
	pid_t pid;			/* --pid: a process, or 0 */
	pid_t tid;			/* --tid: a thread, or 0 */
	const char *const *events;	/* --event GLOBs on system:name: any matches */
	unsigned int nevents;		/* 0: every event */
	enum tr_report_format format;
	const char *output_dir;		/* TR_REPORT_CTF, TR_REPORT_LTTNG: the directory to create */
	const char *scratch_dir;	/* TR_REPORT_TRACECMD: where its files are made ($TMPDIR if NULL) */
	int progress;			/* how far it is, on stderr (a terminal) */
	struct tr_report_time start, end;	/* only events in [start, end] */
	int raw;			/* text: fields as tep_print_fields() prints them, never the print fmt */
	int json;			/* analyses: JSON instead of a text table */
	int timehist;			/* analyze sched: a line per run of a task, not the table */
	int lami;			/* analyses: LAMI 1.0 results (lttng-analyses' -mi), not a text table */
	/*
	 * Or NULL: once *stop is nonzero (a signal's handler sets it), the
	 * report ends at the next item as one cut short: what it wrote is
	 * removed (a CTF directory) and the status is 1.
	 */
	const volatile sig_atomic_t *stop;
};

/* Prints the report to out; returns the exit status for the command line. */
int tr_report(const struct tr_report_opts *opts, FILE *out);

/* The LAMI version analyze --output lami speaks: tracer --mi-version prints it (Trace Compass asks). */
#define TR_LAMI_VERSION	"1.0"

/*
 * The LAMI metadata of analysis format (its tables' classes and columns,
 * what Trace Compass asks with --metadata) to out: 0, or -ENOENT for an
 * analysis without LAMI results (offcpu's are folded stacks).
 */
int tr_analyze_lami_metadata(enum tr_report_format format, FILE *out);

/*
 * A file export writes, fd, given to the user who ran sudo when root runs
 * through sudo, as the trace directories record and export make: 0, or
 * -errno.
 */
int tr_report_give_file(int fd);

#endif /* TRACER_REPORT_H */
