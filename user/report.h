/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer report: a trace's events from all CPUs in time order, one line
 * each, as perf script prints them; losses where they happened.  A
 * record names its task by command name, process id and, where it differs
 * (a thread other than the process's first), thread id: "comm pid/tid".
 */
#ifndef TRACER_REPORT_H
#define TRACER_REPORT_H

#include <stdio.h>
#include <sys/types.h>

struct tr_report_opts {
	const char *dir;
	const char *cpus;		/* --cpu LIST, or NULL */
	pid_t pid;			/* --pid: a process, or 0 */
	pid_t tid;			/* --tid: a thread, or 0 */
	const char *const *events;	/* --event GLOBs on system:name: any matches */
	unsigned int nevents;		/* 0: every event */
	int folded;			/* --folded: the stacks folded, not the events */
};

/* Prints the report to out; returns the exit status for the command line. */
int tr_report(const struct tr_report_opts *opts, FILE *out);

#endif /* TRACER_REPORT_H */
