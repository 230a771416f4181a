// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer list: the tracepoints, kernel functions or USDT probes that can be recorded. */
#include <getopt.h>
#include <stdio.h>
#include <tracer/events.h>

#include "options.h"

/* list's state: --usdt's PATH (or NULL), and whether --functions was given. */
struct list_args {
	const char *usdt;
	int functions;
};

/* The setters of list's options (options.h's set()): state is a struct list_args. */
static int set_functions(void *state, const char *value)
{
	(void)value;
	((struct list_args *)state)->functions = 1;
	return 0;
}

static int set_usdt(void *state, const char *value)
{
	((struct list_args *)state)->usdt = value;
	return 0;
}

static const struct cli_option list_options[] = {
	CLI_OPERAND("GLOB", "only the tracepoints matching it, e.g. 'sched:*'"),
	{ "functions", 0, NULL, "the kernel functions this kernel can probe, and by what (fentry, kprobe)",
	  set_functions, 0 },
	{ "usdt", 0, "PATH", "the USDT probes of a program or library, as -e usdt:PATH:PROVIDER:NAME takes them",
	  set_usdt, 0 },
	{ 0 }
};

/* tracer list --usdt PATH */
static int list_usdt(const char *path)
{
	char why[1024];
	int n = tr_usdt_list(path, stdout, why, sizeof(why));

	if (n <= 0)
		fprintf(stderr, "%s: %s\n", me, why);
	return n <= 0;
}

/* tracer list --functions [GLOB] */
static int list_functions(const char *glob)
{
	char why[1024];
	int n = tr_kernel_functions_list(glob, stdout, why, sizeof(why));

	if (n < 0)
		fprintf(stderr, "%s: %s\n", me, why);
	else if (!n)
		fprintf(stderr, "%s: no kernel function this kernel can probe matches '%s'\n", me,
			glob ? glob : "*");
	return n <= 0;
}

/* tracer list [GLOB] */
static int list_tracepoints(const char *glob)
{
	char why[1024];
	int n;

	if (tr_tracefs_mount()) {
		fprintf(stderr, "%s: tracefs is not mounted and mounting it needs root: mount -t tracefs nodev /sys/kernel/tracing\n",
			me);
		return 1;
	}
	n = tr_events_list(glob, stdout, why, sizeof(why));
	if (n < 0)
		fprintf(stderr, "%s: %s\n", me, why);
	else if (!n && glob)
		fprintf(stderr, "%s: no tracepoint matches '%s'\n", me, glob);
	return n <= 0 ? 1 : 0;
}

static int cmd_list(int argc, char **argv);

const struct cli_command list_command = {
	.name = "list",
	.summary = "list the tracepoints (or kernel functions, USDT probes), optionally those matching a glob",
	.synopsis = "tracer list [GLOB]\ntracer list --functions [GLOB]\ntracer list --usdt PATH",
	.options = list_options,
	.run = cmd_list,
	.examples =
	"tracer list 'sched:*'\tthe scheduler's tracepoints\n"
	"tracer list --functions 'tcp_*'\tthe kernel's tcp_ functions, and whether fentry or a kprobe reaches them\n"
	"tracer list --usdt /usr/lib/x86_64-linux-gnu/libc.so.6\tthe C library's USDT probes\n",
};

/* list's options, and what they list: the exit status. */
static int cmd_list(int argc, char **argv)
{
	struct list_args l = { 0 };
	const char *glob = NULL;
	int status = cli_parse(&list_command, argc, argv, &l);

	if (status != CLI_GO_ON)
		return status;
	if (l.usdt && (optind < argc || l.functions)) {
		fprintf(stderr, "%s: --usdt PATH takes no glob, and no --functions\n", me);
		return 2;
	}
	if (l.usdt)
		return list_usdt(l.usdt);
	if (argc - optind > 1) {
		fprintf(stderr, "%s: one glob at most ('a*' matches names starting with a)\n", me);
		return 2;
	}
	if (optind < argc) {
		glob = argv[optind];
		if (parse_event("GLOB", glob))
			return 2;
	}
	return l.functions ? list_functions(glob) : list_tracepoints(glob);
}
