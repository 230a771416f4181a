// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer: the command line.  Each subcommand parses its options here and
 * hands a plain options struct to the library (user/).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"
#include "report.h"
#include "events.h"

static const char usage_record[] =
"usage: tracer record -e EVENT [-e EVENT...] [options] [-- command [args...]]\n"
"  -e, --event EVENT      tracepoint, e.g. sched:sched_switch, 'sched:*', 'syscalls:sys_enter_*'\n"
"  -a, --all-cpus         record every process (default without -p or a command)\n"
"  -p, --pid PID          record this process and its threads\n"
"  -C, --cpu LIST         record only on these CPUs, e.g. 0,2-3\n"
"      --comm NAME        record only tasks with this command name\n"
"  -o, --output DIR       trace directory (default tracer.data)\n"
"  -f, --force            replace an existing trace directory\n"
"  -d, --duration SECS    stop after SECS seconds\n"
"      --mode MODE        discard (default: drop new events when full) or overwrite\n"
"      --buffer-size SIZE per-CPU buffer, e.g. 4M (default 4M)\n"
"      --subbuf-size SIZE sub-buffer, e.g. 1M (default 1M)\n"
"      --flush-ms MS      deliver partly filled sub-buffers every MS ms (default 100)\n"
"      --backend WHO      auto (default: the kernel module if loaded), bpf or kmod\n"
"  -v, --verbose          show libbpf's messages (verifier logs when loading fails)\n";

/* "4M", "256K", "4096": bytes, or 0 when malformed. */
static unsigned long long parse_size(const char *text)
{
	char *end;
	unsigned long long n = strtoull(text, &end, 10);

	switch (*end) {
	case 'k': case 'K': n <<= 10; end++; break;
	case 'm': case 'M': n <<= 20; end++; break;
	case 'g': case 'G': n <<= 30; end++; break;
	}
	return *end || end == text ? 0 : n;
}

static int bad_usage(const char *why, const char *usage)
{
	fprintf(stderr, "tracer: %s\n%s", why, usage);
	return 2;
}

static int cmd_record(int argc, char **argv)
{
	enum { OPT_COMM = 256, OPT_MODE, OPT_BUFFER, OPT_SUBBUF, OPT_FLUSH, OPT_BACKEND };
	static const struct option options[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "subbuf-size", required_argument, NULL, OPT_SUBBUF },
		{ "flush-ms", required_argument, NULL, OPT_FLUSH },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char **events = calloc(argc, sizeof(*events));
	struct tr_record_opts o = {
		.events = events, .output = "tracer.data", .mode = TR_MODE_DISCARD,
		.buffer_size = 4 << 20, .subbuf_size = 1 << 20, .flush_ms = 100,
	};
	int c;

	while ((c = getopt_long(argc, argv, "+e:ap:C:o:fd:hv", options, NULL)) != -1) {
		switch (c) {
		case 'e': events[o.nevents++] = optarg; break;
		case 'a': o.system_wide = 1; break;
		case 'p': o.pid = atoi(optarg); break;
		case 'C': o.cpus = optarg; break;
		case OPT_COMM: o.comm = optarg; break;
		case 'o': o.output = optarg; break;
		case 'f': o.force = 1; break;
		case 'd': o.duration = atof(optarg); break;
		case OPT_MODE:
			if (strcmp(optarg, "discard") && strcmp(optarg, "overwrite"))
				return bad_usage("--mode is discard or overwrite", usage_record);
			o.mode = strcmp(optarg, "overwrite") ? TR_MODE_DISCARD : TR_MODE_OVERWRITE;
			break;
		case OPT_BUFFER: o.buffer_size = parse_size(optarg); break;
		case OPT_SUBBUF: o.subbuf_size = parse_size(optarg); break;
		case OPT_FLUSH: o.flush_ms = atoi(optarg); break;
		case OPT_BACKEND:
			if (!strcmp(optarg, "auto"))
				o.backend = TR_BACKEND_AUTO;
			else if (!strcmp(optarg, "bpf"))
				o.backend = TR_BACKEND_BPF;
			else if (!strcmp(optarg, "kmod"))
				o.backend = TR_BACKEND_KMOD;
			else
				return bad_usage("--backend is auto, bpf or kmod", usage_record);
			break;
		case 'v': o.verbose = 1; break;
		case 'h': fputs(usage_record, stdout); return 0;
		default: return bad_usage("bad option", usage_record);
		}
	}
	if (!o.nevents)
		return bad_usage("no event given (-e)", usage_record);
	if (o.pid <= 0 && optind > 0 && argv[optind - 1] && !strcmp(argv[optind - 1], "-p"))
		return bad_usage("-p needs a process id", usage_record);
	if (!o.buffer_size || !o.subbuf_size)
		return bad_usage("sizes are numbers with an optional K, M or G", usage_record);
	if (!o.flush_ms)
		return bad_usage("--flush-ms must be at least 1", usage_record);
	if (optind < argc)
		o.command = argv + optind;
	return tr_record(&o);
}

static const char usage_report[] =
"usage: tracer report [options] [DIR]\n"
"  DIR                    trace directory (default tracer.data)\n"
"      --cpu LIST         only these CPUs, e.g. 0,2-3\n"
"      --pid PID          only this process id\n"
"      --event GLOB       only these events, e.g. 'sched:*' or sched_switch\n";

static int cmd_report(int argc, char **argv)
{
	enum { OPT_CPU = 256, OPT_PID, OPT_EVENT };
	static const struct option options[] = {
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct tr_report_opts o = { .dir = "tracer.data" };
	int c;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case OPT_CPU: o.cpus = optarg; break;
		case OPT_PID: o.pid = atoi(optarg); break;
		case OPT_EVENT: o.event = optarg; break;
		case 'h': fputs(usage_report, stdout); return 0;
		default: return bad_usage("bad option", usage_report);
		}
	}
	if (optind < argc)
		o.dir = argv[optind];
	return tr_report(&o, stdout);
}

static int cmd_list(int argc, char **argv)
{
	if (tr_tracefs_mount()) {
		fprintf(stderr, "tracer list: tracefs is not mounted and mounting it needs root: mount -t tracefs nodev /sys/kernel/tracing\n");
		return 1;
	}
	if (!tr_events_list(argc > 1 ? argv[1] : NULL, stdout) && argc > 1) {
		fprintf(stderr, "tracer list: no tracepoint matches '%s'\n", argv[1]);
		return 1;
	}
	return 0;
}

static const char usage[] =
"usage: tracer COMMAND [options]\n"
"  record   record tracepoints into a CTF trace directory\n"
"  report   print a trace's events from all CPUs in time order\n"
"  list     list the tracepoints, optionally those matching a glob\n";

int main(int argc, char **argv)
{
	if (argc < 2)
		return bad_usage("no command given", usage);
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	fprintf(stderr, "tracer: unknown command '%s'\n", argv[1]);
	return bad_usage("", usage);
}
