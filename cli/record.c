// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer record: its options, checked together, and the recording (tracer/recording.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <tracer/context.h>
#include <tracer/recording.h>

#include "options.h"
#include "recording.h"

/*
 * The setters of record's own options (options.h's set()): each takes
 * its value into the struct recording its state is; 0, or -errno said.
 */
static int set_function(void *state, const char *value)
{
	struct recording *r = state;
	char *spec;

	if (asprintf(&spec, "function:%s", value) < 0)
		return -ENOMEM;
	return add_event(r, keep_made(&r->a, spec));
}

static int set_all_cpus(void *state, const char *value)
{
	(void)value;
	((struct recording *)state)->o->system_wide = 1;
	return 0;
}

static int set_output(void *state, const char *value)
{
	struct recording *r = state;

	r->o->output = value;
	r->output_given = 1;
	return parse_nonempty("--output", value);
}

/* discard or overwrite into *mode: 0, or -EINVAL said naming option. */
static int parse_mode(const char *option, const char *text, enum tr_buf_mode *mode)
{
	if (strcmp(text, "discard") && strcmp(text, "overwrite"))
		return refuse(option, text, "must be discard or overwrite");
	*mode = strcmp(text, "overwrite") ? TR_MODE_DISCARD : TR_MODE_OVERWRITE;
	return 0;
}

static int set_mode(void *state, const char *value)
{
	struct recording *r = state;

	r->mode_given = 1;
	return parse_mode("--mode", value, &r->o->channels[0].mode);
}

static int set_flight_recorder(void *state, const char *value)
{
	(void)value;
	((struct recording *)state)->o->flight_recorder = 1;
	return 0;
}

static int set_snapshot_on(void *state, const char *value)
{
	((struct recording *)state)->o->snapshot_on = value;
	return 0;
}

static int set_stacks(void *state, const char *value)
{
	(void)value;
	((struct recording *)state)->o->stacks = TR_STACK_KERNEL | TR_STACK_USER;
	return 0;
}

static int set_call_graph(void *state, const char *value)
{
	struct tr_record_opts *o = ((struct recording *)state)->o;

	if (!strcmp(value, "kernel"))
		o->stacks = TR_STACK_KERNEL;
	else if (!strcmp(value, "user"))
		o->stacks = TR_STACK_USER;
	else if (!strcmp(value, "both"))
		o->stacks = TR_STACK_KERNEL | TR_STACK_USER;
	else
		return refuse("--call-graph", value, "must be kernel, user or both");
	return 0;
}

static int set_context(void *state, const char *list)
{
	char why[160];

	return tr_context_parse(list, &((struct recording *)state)->o->context, why, sizeof(why)) ?
	       refuse("--context", list, "%s", why) : 0;
}

/*
 * A sub-buffer of a quarter of the buffer, as the default channel's, but
 * at most 1 MiB unless more than TR_MAX_SUBBUFS of them would be needed.
 */
static __u64 default_subbuf(__u64 size)
{
	__u64 sub = size / 4 > (1 << 20) ? 1 << 20 : size / 4;

	if (sub < size / TR_MAX_SUBBUFS)
		sub = size / TR_MAX_SUBBUFS;
	return sub < TR_MIN_SUBBUF_SIZE ? TR_MIN_SUBBUF_SIZE : sub;
}

/* --channel NAME:SIZE[:SUBBUF][:MODE]: channel0, the default channel, is taken. */
static int parse_channel(struct tr_record_opts *o, const char *text)
{
	char *copy = strdup(text), *field[5], *save = NULL, *f;
	struct tr_channel_opts c = { .mode = MODE_UNSET }, *same;
	unsigned int n = 0, i;
	int err = copy ? 0 : -ENOMEM;

	for (f = copy ? strtok_r(copy, ":", &save) : NULL; f && n < 5; f = strtok_r(NULL, ":", &save))
		field[n++] = f;
	if (!err && (n < 2 || n > 4 || text[strlen(text) - 1] == ':' || strstr(text, "::")))
		err = refuse("--channel", text, "not NAME:SIZE[:SUBBUF][:MODE], e.g. rare:64K or flood:16M:1M:overwrite");
	if (!err && !tr_trace_dir_channel_name_ok(field[0], strlen(field[0])))
		err = refuse("--channel", text, "a channel name has 1 to %d letters, digits, '-' or '_'",
			     TR_CHANNEL_NAME_MAX - 1);
	if (!err)
		err = parse_size("--channel", field[1], &c.buffer_size);
	for (i = 2; i < n && !err; i++) {
		if (!strcmp(field[i], "discard") || !strcmp(field[i], "overwrite"))
			err = parse_mode("--channel", field[i], &c.mode);
		else if (i == 2)
			err = parse_size("--channel", field[i], &c.subbuf_size);
		else
			err = refuse("--channel", text, "MODE must be discard or overwrite");
	}
	same = err ? NULL : find_channel(o, field[0]);
	if (same == o->channels)
		err = refuse("--channel", text, "channel0 is the default channel: --buffer-size, --subbuf-size and --mode set it");
	else if (!err && !strcmp(field[0], TR_UST_CHANNEL))
		err = refuse("--channel", text, "channel " TR_UST_CHANNEL " holds user-space events: name this one otherwise");
	else if (same)
		err = refuse("--channel", text, "channel %s is defined twice", field[0]);
	if (!err && o->nchannels == TR_MAX_CHANNELS)
		err = refuse("--channel", text, "at most %d channels besides channel0", TR_MAX_CHANNELS - 1);
	if (!err) {
		strcpy(c.name, field[0]);
		if (!c.subbuf_size)
			c.subbuf_size = default_subbuf(c.buffer_size);
		o->channels[o->nchannels++] = c;
	}
	free(copy);
	return err;
}

static int set_channel(void *state, const char *value)
{
	return parse_channel(((struct recording *)state)->o, value);
}

static int set_relay(void *state, const char *value)
{
	((struct recording *)state)->o->relay = value;
	return 0;
}

static int set_relay_live(void *state, const char *value)
{
	(void)value;
	((struct recording *)state)->o->relay_live = 1;
	return 0;
}

static int set_relay_session(void *state, const char *value)
{
	((struct recording *)state)->o->relay_session = value;
	return *value && strlen(value) < 200 && *value != '.' && !strchr(value, '/') ? 0 :
	       refuse("--relay-session", value, "a name of 1 to 199 characters, no '/', not starting with '.'");
}

static const struct cli_option record_options[] = {
	{ "event", 'e', "EVENT",
	  "tracepoint, e.g. sched:sched_switch, 'sched:*', 'syscalls:sys_enter_*';\n"
	  "uprobe:PATH:FUNCTION[(ARG,...)] or uprobe:PATH:FUNCTION+OFFSET (arguments\n"
	  "by name from DWARF, else arg1..arg6), uretprobe:PATH:FUNCTION (ret),\n"
	  "usdt:PATH:PROVIDER:NAME[(ARG,...)] (tracer list --usdt PATH); ARG:string\n"
	  "reads a pointer argument as the string it points to;\n"
	  "kprobe:FUNCTION[(ARG,...)] (arguments from BTF), kretprobe:FUNCTION (ret),\n"
	  "fentry:FUNCTION[(ARG,...)], fexit:FUNCTION (arguments and ret), each also\n"
	  "with a glob over functions, e.g. 'kprobe:tcp_*' (tracer list --functions);\n"
	  "ust:PROVIDER:EVENT, events of programs linked with libtracer-ust, e.g.\n"
	  "'ust:myapp:*' (into channel ust, merged with the kernel's by time);\n"
	  "EVENT@NAME records it in channel NAME (--channel)", set_event, 0 },
	{ "function", 0, "GLOB",
	  "kernel functions, by the cheapest probe this kernel allows (fentry, then\n"
	  "kprobe.multi or kprobes); an -e naming no tracepoint but functions does the same",
	  set_function, 0 },
	{ "filter", 0, "EXPR",
	  "record only the events of the -e before it that pass EXPR, in ftrace's\n"
	  "syntax, e.g. 'prev_pid != 0 && prev_comm ~ \"kworker*\"' (evaluated in the kernel)",
	  set_filter, 0 },
	{ "all-cpus", 'a', NULL, "record every process (default without -p or a command)", set_all_cpus, 0 },
	{ "pid", 'p', "PID", "record this process and its threads", set_pid, 0 },
	{ "cpu", 'C', "LIST", "record only on these CPUs, e.g. 0,2-3", set_cpu, 0 },
	{ "comm", 0, "NAME", "record only tasks with this command name (at most 15 characters)", set_comm, 0 },
	{ "output", 'o', "DIR", "trace directory (default tracer.data)", set_output, 0 },
	{ "force", 'f', NULL, "replace an existing trace directory; the previous one is kept as DIR.old",
	  set_force, 0 },
	{ "duration", 'd', "SECS", "stop after SECS seconds, e.g. 5 or 0.5", set_duration, 0 },
	{ "mode", 0, "MODE", "discard (default: drop new events when full) or overwrite", set_mode, 0 },
	{ "flight-recorder", 0, NULL,
	  "overwrite, and write nothing until a snapshot: SIGUSR2 and the end of\n"
	  "the recording each write the newest events to DIR/snapshot-N", set_flight_recorder, 0 },
	{ "snapshot-on", 0, "SYSTEM:EVENT[:FILTER]",
	  "with --flight-recorder, a snapshot whenever EVENT passes\n"
	  "FILTER; the buffers hold still until it is taken", set_snapshot_on, 0 },
	{ NULL, 'g', NULL, "a call stack with every event, the kernel's and the user's (frame pointers)",
	  set_stacks, 0 },
	{ "call-graph", 0, "WHICH", "kernel, user or both: the stacks -g takes", set_call_graph, 0 },
	{ "context", 0, "LIST",
	  "with every event, more of who ran it: cgroup (v2 id), uid, gid, prio,\n"
	  "nice, e.g. --context cgroup,uid", set_context, 0 },
	{ "buffer-size", 0, "SIZE", "per-CPU buffer, a power of two, e.g. 4M (default 4M)", set_buffer_size, 0 },
	{ "subbuf-size", 0, "SIZE", "sub-buffer, a power of two, e.g. 1M (default 1M)", set_subbuf_size, 0 },
	{ "channel", 0, "NAME:SIZE[:SUBBUF][:MODE]",
	  "buffers of their own (SIZE per CPU, sub-buffers of\n"
	  "SUBBUF, default SIZE/4 up to 1M) for the events -e EVENT@NAME sends there,\n"
	  "so a flood elsewhere never takes their place; MODE discard or overwrite\n"
	  "(default: the recording's); at most 7, besides the default channel0", set_channel, 0 },
	{ "flush-ms", 0, "MS", "deliver partly filled sub-buffers every MS ms, 1 to 60000 (default 100)",
	  set_flush_ms, 0 },
	{ "backend", 0, "WHO", "auto (default: the kernel module if loaded), bpf or kmod", set_backend, 0 },
	{ "relay", 0, "net://HOST[:CONTROL_PORT[:DATA_PORT]]",
	  "stream the trace to LTTng's relay daemon\n"
	  "(lttng-relayd, ports 5342 and 5343 by default), which writes it under\n"
	  "HOST/SESSION-DATE/; with -o as well as into DIR, else instead", set_relay, 0 },
	{ "relay-session", 0, "NAME", "the session's name there (default: DIR's name, else tracer-PID)",
	  set_relay_session, 0 },
	{ "relay-live", 0, NULL,
	  "a live session: readers (babeltrace2 -i lttng-live\n"
	  "net://RELAY/host/HOST/SESSION) see each packet as it is flushed", set_relay_live, 0 },
	{ "verbose", 'v', NULL, "show libbpf's messages (verifier logs when loading fails)", set_verbose, 0 },
	{ 0 }
};

static int cmd_record(int argc, char **argv);

const struct cli_command record_command = {
	.name = "record",
	.summary = "record tracepoints into a CTF trace directory",
	.synopsis = "tracer record -e EVENT [-e EVENT...] [options] [-- command [args...]]",
	.options = record_options,
	.notes =
	"With a command, the exit status is the command's (128 + N when signal N ended it); 1 when\n"
	"writing failed, or the relay failed (what reached it stays readable, -o's trace is whole).\n"
	"Other tools (perf stat, perf record) see the same tracepoints while tracer records them.\n"
	"Events the kernel skips (a BPF program already running on that CPU) are counted as lost.\n",
	.stop_at_operand = 1,
	.run = cmd_record,
	.examples =
	"tracer record -a -e 'sched:*' --duration 3\tevery scheduler event of the machine for 3 seconds, into tracer.data\n"
	"tracer record -e 'syscalls:sys_enter_*' -o ls.data -- ls\tthe system calls ls makes, into ls.data\n"
	"tracer record -e sched:sched_switch --flight-recorder\tthe newest events only, written as a snapshot on SIGUSR2 or tracer snapshot\n",
	.files = "tracer.data\tthe trace directory, when -o does not name another\n"
		 "DIR/snapshot-N\ta flight recorder's snapshots\n",
	.exit_status = "With a command, the command's (128 + N when signal N ended it).",
};

/* The options that go together only in some ways; 0, or 2 once one is said. */
static int options_agree(const struct recording *r)
{
	const struct tr_record_opts *o = r->o;

	if (!o->nevents) {
		fprintf(stderr, "%s: no event given: -e EVENT, e.g. -e 'sched:*'\n", me);
		return 2;
	}
	if (o->flight_recorder && r->mode_given && o->channels[0].mode == TR_MODE_DISCARD) {
		fprintf(stderr, "%s: --flight-recorder keeps the newest events: it overwrites, and --mode discard would keep the oldest\n",
			me);
		return 2;
	}
	if (o->snapshot_on && !o->flight_recorder) {
		fprintf(stderr, "%s: --snapshot-on takes the snapshots of a flight recorder: add --flight-recorder\n",
			me);
		return 2;
	}
	if ((o->relay_live || o->relay_session) && !o->relay) {
		fprintf(stderr, "%s: --relay-live and --relay-session go with --relay net://HOST\n", me);
		return 2;
	}
	if (o->relay && o->flight_recorder) {
		fprintf(stderr, "%s: --relay streams what is recorded; a flight recorder writes only snapshots, not streamed yet\n",
			me);
		return 2;
	}
	return 0;
}

/* nftw()'s step: removes path (a directory once emptied). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/*
 * The recording r's options say, streamed to a relay if asked (--relay
 * alone: the metadata in a directory of our own, no stream file, removed
 * at the end).  The exit status.
 */
static int record_relayed(struct recording *r)
{
	char relay_dir[] = "/tmp/tracer-relay-XXXXXX", session[32], *metadata_dir = NULL;
	struct tr_record_opts *o = r->o;
	int status;

	if (o->relay && !o->relay_session) {
		const char *dir = r->output_given ? basename(o->output) : "";

		snprintf(session, sizeof(session), "tracer-%d", (int)getpid());
		o->relay_session = *dir ? dir : session;
	}
	if (o->relay && !r->output_given) {
		if (!mkdtemp(relay_dir)) {
			fprintf(stderr, "%s: cannot make a directory for the metadata: %s\n", me, strerror(errno));
			return 1;
		}
		if (asprintf(&metadata_dir, "%s/trace", relay_dir) < 0)
			return 1;
		o->output = metadata_dir;
		o->relay_only = 1;
	}
	status = tr_record(o);
	if (metadata_dir) {
		nftw(relay_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(metadata_dir);
	}
	return status;
}

/* record's options into r, and the recording. */
static int record_with(struct recording *r, int argc, char **argv)
{
	int status = cli_parse(&record_command, argc, argv, r);

	if (status != CLI_GO_ON)
		return status;
	status = options_agree(r);
	if (status)
		return status;
	if (r->o->flight_recorder)
		r->o->channels[0].mode = TR_MODE_OVERWRITE;
	if (assign_channels(r->o, &r->a))
		return 2;
	if (optind < argc)
		r->o->command = argv + optind;
	return record_relayed(r);
}

/* record's slots and defaults, then the recording: the exit status. */
static int cmd_record(int argc, char **argv)
{
	struct tr_record_opts o;
	struct recording r = { .o = &o };
	int status = 1;

	if (!event_args_new(&r.a, argc)) {
		o = record_defaults(&r.a);
		status = record_with(&r, argc, argv);
	}
	event_args_free(&r.a);
	return status;
}
