// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracepoint_bench's command line: the options, their defaults and
 * --quick's, the measured system call, and the usage text.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

struct options opt = { .rounds = 5, .calls = 1000000, .loop_records = 2000000,
		       .sat_calls = 4000000, .ladder = { 0.5e6, 1e6, 2e6, 3e6, 4e6, 0 },
		       .nladder = 6, .ladder_secs = 1 };

/* The system calls --syscall accepts: argument-less, the same raw record. */
static const struct { const char *name; long nr; } syscalls_known[] = {
	{ "getppid", SYS_getppid }, { "getpid", SYS_getpid },
	{ "getuid", SYS_getuid }, { "getgid", SYS_getgid },
};
const char *sys_name = "getppid";
long sys_nr = SYS_getppid;
char event_name[64] = "sys_enter_getppid";
char event_spec[96] = "syscalls:sys_enter_getppid";
char exit_spec[96] = "syscalls:sys_exit_getppid";

void usage(void)
{
	fprintf(stderr, "usage: tracepoint_bench [--quick] [--rounds N] [--calls N] [--loop-records N] "
		"[--sat-calls N] [--ladder M,...] [--ladder-secs S] [--syscall getppid|getpid|getuid|getgid] "
		"[--only KEY,...] [--diag] [--tracer PATH] [--csv FILE]\n"
		"  --only KEY,...  part 1 with these configurations (none, empty and ringbuf always), and\n"
		"                  parts 2, 3 and 4 only if 'loops', 'saturation' or 'ladder' is listed; keys:\n"
		"                  tracer, tracer-prog, perfbuf, perf, trace-cmd, ftrace, bpftrace, clock,\n"
		"                  touch1, touch4\n"
		"  --ladder M,...  part 4's offered rates in M events/s, 0 for as fast as possible\n"
		"                  (default 0.5,1,2,3,4,0)\n"
		"  --ladder-secs S seconds of calls per step of part 4 (default 1)\n"
		"  --diag          add the diagnostic configurations clock, touch1, touch4\n"
		"  --csv FILE      also write every figure as the suite's CSV (bench/bench_csv.h)\n");
	exit(2);
}

/* "0.25,0.5,1": offered rates in M events/s, into opt.ladder. */
static void parse_ladder(const char *list)
{
	char *end;

	opt.nladder = 0;
	while (*list && opt.nladder < MAX_LADDER) {
		opt.ladder[opt.nladder++] = strtod(list, &end) * 1e6;
		if (end == list || (*end && *end != ','))
			usage();
		list = *end ? end + 1 : end;
	}
}

/* --syscall NAME: the generator's call and the events named after it. */
static void select_syscall(const char *name)
{
	size_t k;

	sys_name = name;
	sys_nr = -1;
	for (k = 0; k < sizeof(syscalls_known) / sizeof(syscalls_known[0]); k++)
		if (!strcmp(sys_name, syscalls_known[k].name))
			sys_nr = syscalls_known[k].nr;
	if (sys_nr < 0)
		usage();
	snprintf(event_name, sizeof(event_name), "sys_enter_%s", sys_name);
	snprintf(event_spec, sizeof(event_spec), EVENT_SYSTEM ":%s", event_name);
	snprintf(exit_spec, sizeof(exit_spec), EVENT_SYSTEM ":sys_exit_%s", sys_name);
}

/* opt.tracer: the tracer beside our build directory (build/bench/.. /tracer). */
static void default_tracer_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		snprintf(opt.tracer, sizeof(opt.tracer), "build/tracer");
		return;
	}
	self[n] = 0;
	slash = strrchr(self, '/');	/* .../build/bench/tracepoint_bench */
	if (slash)
		*slash = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(opt.tracer, sizeof(opt.tracer), "%.4000s/tracer", self);
}

/* --quick: a smoke run. */
static void quick(void)
{
	opt.quick = 1;
	opt.rounds = 2;
	opt.calls = 100000;
	opt.loop_records = 300000;
	opt.sat_calls = 200000;
	opt.ladder_secs = 0.3;
}

/* Sets the option argv[*i] names (taking its value from argv[++*i]); false if none does. */
static bool parse_option(int argc, char **argv, int *i)
{
	const char *name = argv[*i];
	bool has_value = *i + 1 < argc;

	if (!strcmp(name, "--quick"))
		quick();
	else if (!strcmp(name, "--diag"))
		opt.diag = 1;
	else if (!has_value)
		return false;
	else if (!strcmp(name, "--rounds"))
		opt.rounds = atoi(argv[++*i]);
	else if (!strcmp(name, "--calls"))
		opt.calls = atol(argv[++*i]);
	else if (!strcmp(name, "--loop-records"))
		opt.loop_records = atol(argv[++*i]);
	else if (!strcmp(name, "--sat-calls"))
		opt.sat_calls = atol(argv[++*i]);
	else if (!strcmp(name, "--ladder"))
		parse_ladder(argv[++*i]);
	else if (!strcmp(name, "--ladder-secs"))
		opt.ladder_secs = atof(argv[++*i]);
	else if (!strcmp(name, "--csv"))
		opt.csv = argv[++*i];
	else if (!strcmp(name, "--syscall"))
		select_syscall(argv[++*i]);
	else if (!strcmp(name, "--only"))
		opt.only = argv[++*i];
	else if (!strcmp(name, "--tracer"))
		snprintf(opt.tracer, sizeof(opt.tracer), "%s", argv[++*i]);
	else
		return false;
	return true;
}

void parse_options(int argc, char **argv)
{
	int i;

	default_tracer_path();
	for (i = 1; i < argc; i++)
		if (!parse_option(argc, argv, &i))
			usage();
	if (opt.rounds < 1 || opt.rounds > MAX_ROUNDS || opt.calls < 1 || opt.loop_records < 1 ||
	    opt.sat_calls < 1 || opt.nladder < 1 || opt.ladder_secs <= 0)
		usage();
}

bool diag_wanted(struct config *c)
{
	if (!opt.diag && !(opt.only && key_listed(opt.only, c->key))) {
		snprintf(c->why, sizeof(c->why), "diagnostic, with --diag only");
		return false;
	}
	return true;
}
