// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer: the command line.  Each subcommand parses its options here,
 * strictly (a value that is not exactly what the option takes is refused
 * with one line naming the option, exit 2, before anything is created),
 * and hands a plain options struct to the library (user/).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include <tracer/context.h>
#include <tracer/cpus.h>
#include <tracer/events.h>
#include <tracer/recording.h>
#include <tracer/report.h>
#include <tracer/top.h>

#define TRACER_VERSION		"0.1"

#define MAX_DURATION_S		1000000000	/* about 31 years */
#define MAX_FLUSH_MS		60000
#define MAX_COMM		15		/* what the kernel keeps of a name */

static const char usage_record[] =
"usage: tracer record -e EVENT [-e EVENT...] [options] [-- command [args...]]\n"
"  -e, --event EVENT      tracepoint, e.g. sched:sched_switch, 'sched:*', 'syscalls:sys_enter_*';\n"
"                         uprobe:PATH:FUNCTION[(ARG,...)] or uprobe:PATH:FUNCTION+OFFSET (arguments\n"
"                         by name from DWARF, else arg1..arg6), uretprobe:PATH:FUNCTION (ret),\n"
"                         usdt:PATH:PROVIDER:NAME[(ARG,...)] (tracer list --usdt PATH); ARG:string\n"
"                         reads a pointer argument as the string it points to;\n"
"                         kprobe:FUNCTION[(ARG,...)] (arguments from BTF), kretprobe:FUNCTION (ret),\n"
"                         fentry:FUNCTION[(ARG,...)], fexit:FUNCTION (arguments and ret), each also\n"
"                         with a glob over functions, e.g. 'kprobe:tcp_*' (tracer list --functions);\n"
"                         ust:PROVIDER:EVENT, events of programs linked with libtracer-ust, e.g.\n"
"                         'ust:myapp:*' (into channel ust, merged with the kernel's by time);\n"
"                         EVENT@NAME records it in channel NAME (--channel)\n"
"      --function GLOB    kernel functions, by the cheapest probe this kernel allows (fentry, then\n"
"                         kprobe.multi or kprobes); an -e naming no tracepoint but functions does the same\n"
"      --filter EXPR      record only the events of the -e before it that pass EXPR, in ftrace's\n"
"                         syntax, e.g. 'prev_pid != 0 && prev_comm ~ \"kworker*\"' (evaluated in the kernel)\n"
"  -a, --all-cpus         record every process (default without -p or a command)\n"
"  -p, --pid PID          record this process and its threads\n"
"  -C, --cpu LIST         record only on these CPUs, e.g. 0,2-3\n"
"      --comm NAME        record only tasks with this command name (at most 15 characters)\n"
"  -o, --output DIR       trace directory (default tracer.data)\n"
"  -f, --force            replace an existing trace directory; the previous one is kept as DIR.old\n"
"  -d, --duration SECS    stop after SECS seconds, e.g. 5 or 0.5\n"
"      --mode MODE        discard (default: drop new events when full) or overwrite\n"
"      --flight-recorder  overwrite, and write nothing until a snapshot: SIGUSR2 and the end of\n"
"                         the recording each write the newest events to DIR/snapshot-N\n"
"      --snapshot-on SYSTEM:EVENT[:FILTER]  with --flight-recorder, a snapshot whenever EVENT passes\n"
"                         FILTER; the buffers hold still until it is taken\n"
"  -g                     a call stack with every event, the kernel's and the user's (frame pointers)\n"
"      --call-graph WHICH kernel, user or both: the stacks -g takes\n"
"      --context LIST     with every event, more of who ran it: cgroup (v2 id), uid, gid, prio,\n"
"                         nice, e.g. --context cgroup,uid\n"
"      --buffer-size SIZE per-CPU buffer, a power of two, e.g. 4M (default 4M)\n"
"      --subbuf-size SIZE sub-buffer, a power of two, e.g. 1M (default 1M)\n"
"      --channel NAME:SIZE[:SUBBUF][:MODE]  buffers of their own (SIZE per CPU, sub-buffers of\n"
"                         SUBBUF, default SIZE/4 up to 1M) for the events -e EVENT@NAME sends there,\n"
"                         so a flood elsewhere never takes their place; MODE discard or overwrite\n"
"                         (default: the recording's); at most 7, besides the default channel0\n"
"      --flush-ms MS      deliver partly filled sub-buffers every MS ms, 1 to 60000 (default 100)\n"
"      --backend WHO      auto (default: the kernel module if loaded), bpf or kmod\n"
"      --relay net://HOST[:CONTROL_PORT[:DATA_PORT]]  stream the trace to LTTng's relay daemon\n"
"                         (lttng-relayd, ports 5342 and 5343 by default), which writes it under\n"
"                         HOST/SESSION-DATE/; with -o as well as into DIR, else instead\n"
"      --relay-session NAME  the session's name there (default: DIR's name, else tracer-PID)\n"
"      --relay-live       a live session: readers (babeltrace2 -i lttng-live\n"
"                         net://RELAY/host/HOST/SESSION) see each packet as it is flushed\n"
"  -v, --verbose          show libbpf's messages (verifier logs when loading fails)\n"
"With a command, the exit status is the command's (128 + N when signal N ended it); 1 when\n"
"writing failed, or the relay failed (what reached it stays readable, -o's trace is whole).\n"
"Other tools (perf stat, perf record) see the same tracepoints while tracer records them.\n"
"Events the kernel skips (a BPF program already running on that CPU) are counted as lost.\n";

#define USAGE_SELECT \
"  DIR                    trace directory (default tracer.data)\n" \
"      --cpu LIST         only these CPUs, e.g. 0,2-3\n" \
"      --pid PID          only this process (all its threads)\n" \
"      --tid TID          only this thread\n" \
"      --event GLOB       only these events, e.g. 'sched:*' or sched_switch; repeat for more\n" \
"      --start TIME       only from TIME on: seconds as report prints them (12345.000067890),\n" \
"                         or +SECONDS after the trace's first record, at its start (+1.5)\n" \
"      --end TIME         only up to TIME, the same way\n" \
"      --raw              text: each event's fields as name=value, not its tracepoint's print format\n"

static const char usage_report[] =
"usage: tracer report [options] [DIR]\n"
USAGE_SELECT
"      --folded           the call stacks (record -g) folded, one line per stack with its count,\n"
"                         as FlameGraph's stackcollapse scripts write them\n"
"      --stats            counts instead: the time span, events by type, by task and by CPU, losses\n";

static const char usage_export[] =
"usage: tracer export [options] --format FORMAT -o FILE [DIR]\n"
"  -o, --output FILE      where to write, replaced if it exists; - for standard output\n"
"      --format FORMAT    text: report's lines; jsonl: a JSON object per event and per loss;\n"
"                         chrome-json: the Trace Event Format (chrome://tracing, ui.perfetto.dev),\n"
"                         with what ran on each CPU from sched:sched_switch; perfetto: Perfetto's\n"
"                         protobuf trace (ui.perfetto.dev, trace_processor): CPU lanes, thread states;\n"
"                         ctf: a trace directory FILE of the selected events (report, babeltrace2)\n"
USAGE_SELECT;

static const char usage_top[] =
"usage: tracer top [-e EVENT...] [options]\n"
"  -e, --event EVENT      as record takes it (default: sched:sched_switch, sched:sched_waking,\n"
"                         raw_syscalls:sys_enter, raw_syscalls:sys_exit); --filter follows its -e\n"
"  -p, --pid PID          only this process and its threads\n"
"  -C, --cpu LIST         only these CPUs, e.g. 0,2-3\n"
"      --comm NAME        only tasks with this command name\n"
"      --interval SECS    seconds between updates, e.g. 1 or 0.5 (default 1)\n"
"      --batch            no screen: the tables as text on standard output at each update (top -b)\n"
"      --output FORMAT    with --batch: text (default) or json (an object per update and line)\n"
"      --iterations N     with --batch: stop after N updates\n"
"      --rows N           with --batch text: at most N rows per table (default 20, 0: all)\n"
"      --record DIR       also write the trace record would write into DIR (-f replaces it)\n"
"      --sample PERCENT   read the records of only this share of the sub-buffers (1 to 100) and\n"
"                         scale the counts, each with its error bound (ERR%, 95%); default 100\n"
"  -d, --duration SECS    stop after SECS seconds\n"
"      --buffer-size SIZE, --subbuf-size SIZE, --flush-ms MS, --backend WHO, -v: as record takes them\n"
"The screen: Tab or t s e c switch the view (tasks, system calls, events, CPUs), < > the sort\n"
"column, p pauses, f filters the tasks, r resets the counts, h helps, q quits.\n"
"Lost events are shown by cause in the header; none are ever left out.\n";

static const char usage_snapshot[] =
"usage: tracer snapshot [-o DIR]\n"
"  -o, --output DIR       the directory a tracer record --flight-recorder writes into (default tracer.data)\n"
"Writes what its buffers hold now as DIR/snapshot-N, as kill -USR2 does.\n";

static const char usage_ust[] =
"usage: tracer ust dump PID [-o DIR] [-f]\n"
"  -o, --output DIR       trace directory (default tracer-ust-PID)\n"
"  -f, --force            replace an existing trace directory; the previous one is kept as DIR.old\n"
"Writes the events in the libtracer-ust buffers of process PID as they are, as a trace\n"
"(nothing is taken from a recording that reads them). Root, or the process's user.\n";

static const char usage_list[] =
"usage: tracer list [GLOB]\n"
"       tracer list --functions [GLOB]\n"
"       tracer list --usdt PATH\n"
"  GLOB                   only the tracepoints matching it, e.g. 'sched:*'\n"
"      --functions        the kernel functions this kernel can probe, and by what (fentry, kprobe)\n"
"      --usdt PATH        the USDT probes of a program or library, as -e usdt:PATH:PROVIDER:NAME takes them\n";

static const char usage[] =
"usage: tracer COMMAND [options]\n"
"  record   record tracepoints into a CTF trace directory\n"
"  report   print a trace's events from all CPUs in time order\n"
"  export   write a trace's events into a file, as text or JSON lines\n"
"  top      what the machine does now, live: tasks, system calls, events, CPUs\n"
"  list     list the tracepoints (or kernel functions, USDT probes), optionally those matching a glob\n"
"  snapshot ask a flight recorder (record --flight-recorder) for a snapshot\n"
"  ust      write a running program's libtracer-ust events as a trace: tracer ust dump PID\n"
"  help     print a command's options: tracer help COMMAND\n"
"tracer --version prints the version.\n";

/* "tracer record" and so on: what messages (and getopt's) start with. */
static const char *me = "tracer";

/* --- Values: one strict parser per kind ------------------------------------ */

/* One line: the option, its value, what is wrong.  -EINVAL. */
static int refuse(const char *option, const char *value, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s '%s': ", me, option, value);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

#define DIGITS	"0123456789"

/*
 * The number the first len characters of text write in decimal digits,
 * nothing else (no sign, no space): -EINVAL, or -ERANGE past ULLONG_MAX.
 */
static int decimal(const char *text, size_t len, unsigned long long *value)
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

/* A whole number in [min, max]. */
static int parse_uint(const char *option, const char *text, unsigned long long min,
		      unsigned long long max, unsigned long long *value)
{
	if (decimal(text, strlen(text), value) || *value < min || *value > max)
		return refuse(option, text, "must be a whole number from %llu to %llu", min, max);
	return 0;
}

/* Bytes with an optional K, M or G: a power of two, as buffers are. */
static int parse_size(const char *option, const char *text, __u64 *size)
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

/* Seconds, plain decimal digits with an optional point: "5", "0.5". */
static int parse_duration(const char *option, const char *text, double *secs)
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

/* A CPU list for a machine of ncpu CPUs (or -errno: they could not be counted). */
static int parse_cpus(const char *option, const char *text, int ncpu)
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

static int parse_event(const char *option, const char *text)
{
	const char *bad = glob_problem(text);

	if (!*text)
		return refuse(option, text, "empty: name a tracepoint, e.g. sched:sched_switch");
	if (bad)
		return refuse(option, text, "not a valid glob: %s", bad);
	return 0;
}

/* -e EVENT[@CHANNEL]: the event part is checked now, the channel once all are known. */
static int parse_event_in_channel(const char *text)
{
	char *event = strndup(text, strcspn(text, "@"));
	int err = event ? parse_event("--event", event) : -ENOMEM;

	free(event);
	return err;
}

/* A channel's mode not given: the recording's, decided once all options are read. */
#define MODE_UNSET	((enum tr_buf_mode)-1)

static struct tr_channel_opts *find_channel(struct tr_record_opts *o, const char *name)
{
	unsigned int i;

	for (i = 0; i < o->nchannels; i++)
		if (!strcmp(o->channels[i].name, name))
			return &o->channels[i];
	return NULL;
}

static int parse_mode(const char *option, const char *text, enum tr_buf_mode *mode)
{
	if (strcmp(text, "discard") && strcmp(text, "overwrite"))
		return refuse(option, text, "must be discard or overwrite");
	*mode = strcmp(text, "overwrite") ? TR_MODE_DISCARD : TR_MODE_OVERWRITE;
	return 0;
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

/*
 * What -e, --function and --filter fill, one slot per argument, and the
 * specs made for them (--function's, and -e's without their @CHANNEL).
 */
struct event_args {
	const char **events, **filters;
	unsigned int *channels;
	char **made;			/* two at most per argument */
	unsigned int nmade;
};

/* Slots for argc arguments: 0, or -ENOMEM (free them all the same). */
static int event_args_new(struct event_args *a, int argc)
{
	*a = (struct event_args) {
		.events = calloc(argc, sizeof(*a->events)), .filters = calloc(argc, sizeof(*a->filters)),
		.channels = calloc(argc, sizeof(*a->channels)), .made = calloc(2 * argc, sizeof(*a->made)),
	};
	return a->events && a->filters && a->channels && a->made ? 0 : -ENOMEM;
}

/* A spec made, freed with a's slots; NULL (no memory) stays NULL. */
static char *keep_made(struct event_args *a, char *spec)
{
	if (spec)
		a->made[a->nmade++] = spec;
	return spec;
}

static void event_args_free(struct event_args *a)
{
	while (a->nmade)
		free(a->made[--a->nmade]);
	free(a->made);
	free(a->channels);
	free(a->filters);
	free(a->events);
}

/*
 * Each -e's channel, by name, into event_channels; the specs lose their
 * @CHANNEL.  Channels without a mode take the recording's.
 */
static int assign_channels(struct tr_record_opts *o, struct event_args *a)
{
	const char **events = a->events;
	unsigned int i;

	for (i = 1; i < o->nchannels; i++)
		if (o->channels[i].mode == MODE_UNSET)
			o->channels[i].mode = o->channels[0].mode;
	for (i = 0; i < o->nevents; i++) {
		const char *at = strchr(events[i], '@');
		struct tr_channel_opts *c = at ? find_channel(o, at + 1) : o->channels;

		if (!c)
			return refuse("--event", events[i], "no --channel %s", at + 1);
		a->channels[i] = c - o->channels;
		if (at && !(events[i] = keep_made(a, strndup(events[i], at - events[i]))))
			return -ENOMEM;
	}
	return 0;
}

static int parse_pid(const char *option, const char *text, int must_exist, pid_t *pid)
{
	unsigned long long n;

	if (parse_uint(option, text, 1, INT_MAX, &n))
		return -EINVAL;
	if (must_exist && kill(n, 0) && errno == ESRCH)
		return refuse(option, text, "no such process");
	*pid = n;
	return 0;
}

/* --- Commands ---------------------------------------------------------------- */

/* getopt() names the command in its messages; so do we. */
static void name_command(char **argv)
{
	static char name[32];

	snprintf(name, sizeof(name), "tracer %s", argv[0]);
	me = argv[0] = name;
}

static int bad_option(void)
{
	fprintf(stderr, "%s --help lists the options\n", me);
	return 2;
}

enum { OPT_COMM = 256, OPT_MODE, OPT_BUFFER, OPT_SUBBUF, OPT_FLUSH, OPT_BACKEND, OPT_FILTER,
       OPT_FLIGHT, OPT_SNAPSHOT_ON, OPT_CALL_GRAPH, OPT_CHANNEL, OPT_CONTEXT, OPT_FUNCTION,
       OPT_RELAY, OPT_RELAY_LIVE, OPT_RELAY_SESSION };

/* --mode given on the command line, to refuse --mode discard --flight-recorder. */
static int mode_given;
/* -o given: with --relay, the trace is written there as well. */
static int output_given;

/* --filter belongs to the -e before it, as in perf record. */
static int parse_filter(struct tr_record_opts *o, const char **filters, const char *expr)
{
	if (!o->nevents)
		return refuse("--filter", expr, "it filters the events of the -e before it, and none came before");
	if (filters[o->nevents - 1])
		return refuse("--filter", expr, "-e %s has a filter already; join the two with &&",
			      o->events[o->nevents - 1]);
	if (!*expr)
		return refuse("--filter", expr, "empty");
	filters[o->nevents - 1] = expr;
	return 0;
}

static int parse_context(struct tr_record_opts *o, const char *list)
{
	char why[160];

	return tr_context_parse(list, &o->context, why, sizeof(why)) ?
	       refuse("--context", list, "%s", why) : 0;
}

static int record_option(struct tr_record_opts *o, struct event_args *a, int c)
{
	unsigned long long n;
	char *spec;

	switch (c) {
	case 'e': a->events[o->nevents++] = optarg; return parse_event_in_channel(optarg);
	case OPT_FUNCTION:
		if (asprintf(&spec, "function:%s", optarg) < 0)
			return -ENOMEM;
		a->events[o->nevents++] = keep_made(a, spec);
		return parse_event_in_channel(spec);
	case OPT_FILTER: return parse_filter(o, a->filters, optarg);
	case 'a': o->system_wide = 1; return 0;
	case 'p': return parse_pid("--pid", optarg, 1, &o->pid);
	case 'C':
		o->cpus = optarg;
		return parse_cpus("--cpu", optarg, libbpf_num_possible_cpus());
	case OPT_COMM:
		o->comm = optarg;
		if (!*optarg || strlen(optarg) > MAX_COMM)
			return refuse("--comm", optarg, "a command name has 1 to %d characters",
				      MAX_COMM);
		return 0;
	case 'o':
		o->output = optarg;
		output_given = 1;
		return *optarg ? 0 : refuse("--output", optarg, "empty");
	case OPT_RELAY: o->relay = optarg; return 0;
	case OPT_RELAY_LIVE: o->relay_live = 1; return 0;
	case OPT_RELAY_SESSION:
		o->relay_session = optarg;
		return *optarg && strlen(optarg) < 200 && *optarg != '.' && !strchr(optarg, '/') ? 0 :
		       refuse("--relay-session", optarg, "a name of 1 to 199 characters, no '/', not starting with '.'");
	case 'f': o->force = 1; return 0;
	case 'd': return parse_duration("--duration", optarg, &o->duration);
	case OPT_MODE:
		mode_given = 1;
		return parse_mode("--mode", optarg, &o->channels[0].mode);
	case OPT_CHANNEL: return parse_channel(o, optarg);
	case OPT_FLIGHT: o->flight_recorder = 1; return 0;
	case OPT_SNAPSHOT_ON: o->snapshot_on = optarg; return 0;
	case 'g': o->stacks = TR_STACK_KERNEL | TR_STACK_USER; return 0;
	case OPT_CALL_GRAPH:
		if (!strcmp(optarg, "kernel"))
			o->stacks = TR_STACK_KERNEL;
		else if (!strcmp(optarg, "user"))
			o->stacks = TR_STACK_USER;
		else if (!strcmp(optarg, "both"))
			o->stacks = TR_STACK_KERNEL | TR_STACK_USER;
		else
			return refuse("--call-graph", optarg, "must be kernel, user or both");
		return 0;
	case OPT_CONTEXT: return parse_context(o, optarg);
	case OPT_BUFFER: return parse_size("--buffer-size", optarg, &o->channels[0].buffer_size);
	case OPT_SUBBUF: return parse_size("--subbuf-size", optarg, &o->channels[0].subbuf_size);
	case OPT_FLUSH:
		if (parse_uint("--flush-ms", optarg, 1, MAX_FLUSH_MS, &n))
			return -EINVAL;
		o->flush_ms = n;
		return 0;
	case OPT_BACKEND:
		if (!strcmp(optarg, "auto"))
			o->backend = TR_BACKEND_AUTO;
		else if (!strcmp(optarg, "bpf"))
			o->backend = TR_BACKEND_BPF;
		else if (!strcmp(optarg, "kmod"))
			o->backend = TR_BACKEND_KMOD;
		else
			return refuse("--backend", optarg, "must be auto, bpf or kmod");
		return 0;
	case 'v': o->verbose = 1; return 0;
	default: return -EINVAL;
	}
}

/* What to record and how: the options record and top share (record_option()). */
#define RECORDING_OPTIONS \
	{ "event", required_argument, NULL, 'e' }, \
	{ "filter", required_argument, NULL, OPT_FILTER }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "cpu", required_argument, NULL, 'C' }, \
	{ "comm", required_argument, NULL, OPT_COMM }, \
	{ "force", no_argument, NULL, 'f' }, \
	{ "duration", required_argument, NULL, 'd' }, \
	{ "buffer-size", required_argument, NULL, OPT_BUFFER }, \
	{ "subbuf-size", required_argument, NULL, OPT_SUBBUF }, \
	{ "flush-ms", required_argument, NULL, OPT_FLUSH }, \
	{ "backend", required_argument, NULL, OPT_BACKEND }, \
	{ "verbose", no_argument, NULL, 'v' }

/* What record and top record when not told otherwise; events, filters and channels as -e fills a's. */
static struct tr_record_opts record_defaults(const struct event_args *a)
{
	return (struct tr_record_opts) {
		.events = a->events, .filters = a->filters, .event_channels = a->channels,
		.output = "tracer.data", .flush_ms = 100,
		.channels = { { .name = TR_DEFAULT_CHANNEL, .buffer_size = 4 << 20,
				.subbuf_size = 1 << 20, .mode = TR_MODE_DISCARD } },
		.nchannels = 1,
	};
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* record's options into a's slots, and the recording. */
static int record_with(int argc, char **argv, struct event_args *a)
{
	static const struct option options[] = {
		RECORDING_OPTIONS,
		{ "function", required_argument, NULL, OPT_FUNCTION },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "flight-recorder", no_argument, NULL, OPT_FLIGHT },
		{ "snapshot-on", required_argument, NULL, OPT_SNAPSHOT_ON },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "channel", required_argument, NULL, OPT_CHANNEL },
		{ "relay", required_argument, NULL, OPT_RELAY },
		{ "relay-live", no_argument, NULL, OPT_RELAY_LIVE },
		{ "relay-session", required_argument, NULL, OPT_RELAY_SESSION },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct tr_record_opts o = record_defaults(a);
	char relay_dir[] = "/tmp/tracer-relay-XXXXXX", session[32], *metadata_dir = NULL;
	int c, status;

	while ((c = getopt_long(argc, argv, "+e:ap:C:o:fd:ghv", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_record, stdout);
			return 0;
		}
		if (c == '?')
			return bad_option();
		if (record_option(&o, a, c))
			return 2;
	}
	if (!o.nevents) {
		fprintf(stderr, "%s: no event given: -e EVENT, e.g. -e 'sched:*'\n", me);
		return 2;
	}
	if (o.flight_recorder && mode_given && o.channels[0].mode == TR_MODE_DISCARD) {
		fprintf(stderr, "%s: --flight-recorder keeps the newest events: it overwrites, and --mode discard would keep the oldest\n",
			me);
		return 2;
	}
	if (o.snapshot_on && !o.flight_recorder) {
		fprintf(stderr, "%s: --snapshot-on takes the snapshots of a flight recorder: add --flight-recorder\n",
			me);
		return 2;
	}
	if ((o.relay_live || o.relay_session) && !o.relay) {
		fprintf(stderr, "%s: --relay-live and --relay-session go with --relay net://HOST\n", me);
		return 2;
	}
	if (o.relay && o.flight_recorder) {
		fprintf(stderr, "%s: --relay streams what is recorded; a flight recorder writes only snapshots, not streamed yet\n",
			me);
		return 2;
	}
	if (o.flight_recorder)
		o.channels[0].mode = TR_MODE_OVERWRITE;
	if (assign_channels(&o, a))
		return 2;
	if (optind < argc)
		o.command = argv + optind;
	if (o.relay && !o.relay_session) {
		const char *dir = output_given ? basename(o.output) : "";

		snprintf(session, sizeof(session), "tracer-%d", (int)getpid());
		o.relay_session = *dir ? dir : session;
	}
	/* --relay alone: the metadata in a directory of our own, no stream file. */
	if (o.relay && !output_given) {
		if (!mkdtemp(relay_dir)) {
			fprintf(stderr, "%s: cannot make a directory for the metadata: %s\n", me, strerror(errno));
			return 1;
		}
		if (asprintf(&metadata_dir, "%s/trace", relay_dir) < 0)
			return 1;
		o.output = metadata_dir;
		o.relay_only = 1;
	}
	status = tr_record(&o);
	if (metadata_dir) {
		nftw(relay_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(metadata_dir);
	}
	return status;
}

static int cmd_record(int argc, char **argv)
{
	struct event_args a;
	int status = event_args_new(&a, argc) ? 1 : record_with(argc, argv, &a);

	event_args_free(&a);
	return status;
}

/*
 * A time of --start or --end, to the nanosecond: SECONDS[.FRACTION] in
 * the trace's clock, or +SECONDS[.FRACTION] after its first record.
 */
static int parse_time(const char *option, const char *text, struct tr_report_time *t)
{
	const char *at = text + (*text == '+');
	size_t whole = strspn(at, DIGITS), frac = 0;
	unsigned long long ns = 0, scale = 100000000;
	size_t i;

	if (at[whole] == '.')
		frac = strspn(at + whole + 1, DIGITS);
	if (!whole || at[whole + (at[whole] == '.') + frac] || frac > 9 || whole > 10)
		return refuse(option, text, "not a time: SECONDS[.FRACTION] as report prints it, or +SECONDS after the first record");
	for (i = 0; i < whole; i++)
		ns = ns * 10 + (at[i] - '0');
	ns *= 1000000000ull;
	for (i = 0; i < frac; i++, scale /= 10)
		ns += (at[whole + 1 + i] - '0') * scale;
	*t = (struct tr_report_time) { ns, *text == '+', 1 };
	return 0;
}

/* The options report and export share: which events, from which trace. */
enum { OPT_CPU = 256, OPT_PID, OPT_TID, OPT_EVENT, OPT_START, OPT_END, OPT_RAW, OPT_FOLDED,
       OPT_STATS, OPT_FORMAT };
#define SELECT_OPTIONS \
	{ "cpu", required_argument, NULL, OPT_CPU }, \
	{ "pid", required_argument, NULL, OPT_PID }, \
	{ "tid", required_argument, NULL, OPT_TID }, \
	{ "event", required_argument, NULL, OPT_EVENT }, \
	{ "start", required_argument, NULL, OPT_START }, \
	{ "end", required_argument, NULL, OPT_END }, \
	{ "raw", no_argument, NULL, OPT_RAW }, \
	{ "help", no_argument, NULL, 'h' }

static int select_option(struct tr_report_opts *o, const char **events, int c)
{
	switch (c) {
	case OPT_CPU:
		o->cpus = optarg;
		return parse_cpus("--cpu", optarg, TR_MAX_CPUS);
	case OPT_PID: return parse_pid("--pid", optarg, 0, &o->pid);
	case OPT_TID: return parse_pid("--tid", optarg, 0, &o->tid);
	case OPT_EVENT:
		events[o->nevents++] = optarg;
		return parse_event("--event", optarg);
	case OPT_START: return parse_time("--start", optarg, &o->start);
	case OPT_END: return parse_time("--end", optarg, &o->end);
	case OPT_RAW:
		o->raw = 1;
		return 0;
	default: return -EINVAL;
	}
}

/* The trace directory: the one argument left, if any. */
static int trace_dir_argument(struct tr_report_opts *o, int argc, char **argv)
{
	if (argc - optind > 1) {
		fprintf(stderr, "%s: one trace directory at a time (%s, %s, ...)\n", me,
			argv[optind], argv[optind + 1]);
		return -EINVAL;
	}
	if (optind < argc)
		o->dir = argv[optind];
	return 0;
}

/* report's options, events selected into events (a slot per argument), and the report. */
static int report_with(int argc, char **argv, const char **events)
{
	static const struct option options[] = {
		SELECT_OPTIONS,
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ 0 }
	};
	struct tr_report_opts o = { .command = "report", .dir = "tracer.data", .events = events };
	int c, err = 0;

	while (!err && (c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_report, stdout);
			return 0;
		}
		if (c == '?')
			return bad_option();
		if (c == OPT_FOLDED)
			o.format = TR_REPORT_FOLDED;
		else if (c == OPT_STATS)
			o.format = TR_REPORT_STATS;
		else
			err = select_option(&o, events, c);
	}
	if (err || trace_dir_argument(&o, argc, argv))
		return 2;
	return tr_report(&o, stdout);
}

static int cmd_report(int argc, char **argv)
{
	const char **events = calloc(argc, sizeof(*events));
	int status = events ? report_with(argc, argv, events) : 1;

	free(events);
	return status;
}

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
	else
		return refuse("--format", text, "must be text, jsonl, chrome-json, perfetto or ctf");
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
 * A new private file (0600, as record writes) beside path, to take its
 * place once written: its stream, its name in tmp (len bytes); or NULL
 * with errno set.
 */
static FILE *open_beside(const char *path, char *tmp, size_t len)
{
	const char *name = strrchr(path, '/');
	int dir_len = name ? name - path + 1 : 0, fd;
	FILE *out;

	if (snprintf(tmp, len, "%.*s.%s.XXXXXX", dir_len, path, path + dir_len) >= (int)len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (fd >= 0 && !out) {
		unlink(tmp);
		close(fd);
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

/* The signals that end a process by default and are not ignored now remove export's new file. */
static void remove_new_file_on_signals(void)
{
	static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ };
	struct sigaction now;
	unsigned int i;

	for (i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		if (!sigaction(ending[i], NULL, &now) && now.sa_handler == SIG_DFL)
			signal(ending[i], remove_new_file);
}

/*
 * Writes FILE anew: a new file renamed over an old one, never the old one
 * truncated (its owner and mode would stay); what export could not write
 * is said, and the new file removed, also when a signal ends export.
 * Standard output, a device or a FIFO is written as it is; a symbolic
 * link is not followed.
 */
static int export_into(const struct tr_report_opts *o, const char *path)
{
	int to_stdout = !strcmp(path, "-"), in_place, status;
	char *tmp = export_tmp;
	struct stat st;
	FILE *out;

	in_place = to_stdout || (!lstat(path, &st) && !S_ISREG(st.st_mode));
	if (!in_place)
		remove_new_file_on_signals();
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
	return status;
}

/* export's options, events selected into events (a slot per argument), and the export. */
static int export_with(int argc, char **argv, const char **events)
{
	static const struct option options[] = {
		SELECT_OPTIONS,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ 0 }
	};
	struct tr_report_opts o = { .command = "export", .dir = "tracer.data", .events = events };
	const char *output = NULL, *format = NULL;
	int c, err = 0;

	while (!err && (c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_export, stdout);
			return 0;
		}
		if (c == '?')
			return bad_option();
		if (c == OPT_FORMAT)
			err = parse_format(format = optarg, &o.format);
		else if (c == 'o')
			err = *(output = optarg) ? 0 : refuse("--output", optarg, "empty");
		else
			err = select_option(&o, events, c);
	}
	if (err || trace_dir_argument(&o, argc, argv))
		return 2;
	if (!format || !output) {
		fprintf(stderr, "%s: export needs --format (text, jsonl, chrome-json, perfetto or ctf) and -o FILE (- for standard output)\n",
			me);
		return 2;
	}
	o.progress = isatty(STDERR_FILENO);
	if (o.format == TR_REPORT_CTF) {
		o.output_dir = output;
		return tr_report(&o, stdout);
	}
	return export_into(&o, output);
}

static int cmd_export(int argc, char **argv)
{
	const char **events = calloc(argc, sizeof(*events));
	int status = events ? export_with(argc, argv, events) : 1;

	free(events);
	return status;
}

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

static int cmd_list(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "usdt", required_argument, NULL, 'U' },
		{ "functions", no_argument, NULL, 'F' },
		{ 0 }
	};
	const char *glob = NULL, *usdt = NULL;
	int c, n, functions = 0;
	char why[1024];

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'U' || c == 'F') {
			usdt = c == 'U' ? optarg : usdt;
			functions |= c == 'F';
			continue;
		}
		if (c != 'h')
			return bad_option();
		fputs(usage_list, stdout);
		return 0;
	}
	if (usdt && (optind < argc || functions)) {
		fprintf(stderr, "%s: --usdt PATH takes no glob, and no --functions\n", me);
		return 2;
	}
	if (usdt)
		return list_usdt(usdt);
	if (argc - optind > 1) {
		fprintf(stderr, "%s: one glob at most ('a*' matches names starting with a)\n", me);
		return 2;
	}
	if (optind < argc) {
		glob = argv[optind];
		if (parse_event("GLOB", glob))
			return 2;
	}
	if (functions)
		return list_functions(glob);
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

enum { OPT_INTERVAL = 512, OPT_BATCH, OPT_TOP_OUTPUT, OPT_ITERATIONS, OPT_ROWS, OPT_RECORD,
       OPT_SAMPLE };

static int top_option(struct tr_top_opts *o, int c)
{
	unsigned long long n;

	switch (c) {
	case OPT_INTERVAL:
		if (parse_duration("--interval", optarg, &o->interval))
			return -EINVAL;
		if (o->interval < 0.1 || o->interval > 3600)
			return refuse("--interval", optarg, "must be from 0.1 to 3600 seconds");
		return 0;
	case OPT_BATCH:
		if (o->output == TR_TOP_SCREEN)
			o->output = TR_TOP_TEXT;
		return 0;
	case OPT_TOP_OUTPUT:
		if (!strcmp(optarg, "json"))
			o->output = TR_TOP_JSON;
		else if (!strcmp(optarg, "text"))
			o->output = TR_TOP_TEXT;
		else
			return refuse("--output", optarg, "must be text or json");
		return 0;
	case OPT_ITERATIONS:
		if (parse_uint("--iterations", optarg, 1, UINT_MAX, &n))
			return -EINVAL;
		o->iterations = n;
		return 0;
	case OPT_ROWS:
		if (parse_uint("--rows", optarg, 0, UINT_MAX, &n))
			return -EINVAL;
		o->rows = n;
		return 0;
	case OPT_SAMPLE:
		if (parse_uint("--sample", optarg, 1, 100, &n))
			return -EINVAL;
		o->sample_percent = n;
		return 0;
	case OPT_RECORD:
		o->record.output = optarg;
		return *optarg ? 0 : refuse("--record", optarg, "empty");
	default:
		return -EINVAL;
	}
}

/* Whether option c is one top shares with record (RECORDING_OPTIONS). */
static int recording_option(int c)
{
	static const struct option shared[] = { RECORDING_OPTIONS, { 0 } };
	const struct option *o;

	for (o = shared; o->name; o++)
		if (o->val == c)
			return 1;
	return 0;
}

/* top's options into a's slots, and top. */
static int top_with(int argc, char **argv, struct event_args *a)
{
	static const struct option options[] = {
		RECORDING_OPTIONS,
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "output", required_argument, NULL, OPT_TOP_OUTPUT },
		{ "iterations", required_argument, NULL, OPT_ITERATIONS },
		{ "rows", required_argument, NULL, OPT_ROWS },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "sample", required_argument, NULL, OPT_SAMPLE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct tr_top_opts o = {
		.record = record_defaults(a), .interval = 1, .rows = 20,
		.sample_percent = 100,
	};
	int c, batch = 0;

	o.record.output = NULL;
	while ((c = getopt_long(argc, argv, "+e:p:C:fd:hv", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_top, stdout);
			return 0;
		}
		if (c == '?')
			return bad_option();
		batch |= c == OPT_BATCH;
		if (recording_option(c) ? record_option(&o.record, a, c) :
		    top_option(&o, c))
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (top watches the whole machine, or -p PID)\n",
			me, argv[optind]);
		return 2;
	}
	if (!batch && o.output != TR_TOP_SCREEN) {
		fprintf(stderr, "%s: --output prints tables without a screen: add --batch\n", me);
		return 2;
	}
	if (!batch && o.iterations) {
		fprintf(stderr, "%s: --iterations counts --batch's updates: add --batch\n", me);
		return 2;
	}
	if (assign_channels(&o.record, a))
		return 2;
	return tr_top(&o);
}

static int cmd_top(int argc, char **argv)
{
	struct event_args a;
	int status = event_args_new(&a, argc) ? 1 : top_with(argc, argv, &a);

	event_args_free(&a);
	return status;
}

static int cmd_snapshot(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *dir = "tracer.data";
	char reply[1024];
	int c;

	while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_snapshot, stdout);
			return 0;
		}
		if (c != 'o')
			return bad_option();
		dir = optarg;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected '%s'; the recording's directory is -o DIR\n", me,
			argv[optind]);
		return 2;
	}
	if (tr_record_snapshot(dir, reply, sizeof(reply))) {
		fprintf(stderr, "%s: %s\n", me, reply);
		return 1;
	}
	printf("%s\n", reply);
	return 0;
}

static int cmd_ust(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *dir = NULL;
	char fallback[64], *end;
	int c, force = 0;
	long pid;

	while ((c = getopt_long(argc, argv, "o:fh", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_ust, stdout);
			return 0;
		}
		if (c == 'o')
			dir = optarg;
		else if (c == 'f')
			force = 1;
		else
			return bad_option();
	}
	if (optind + 2 != argc || strcmp(argv[optind], "dump")) {
		fprintf(stderr, "%s: expected dump PID\n%s", me, usage_ust);
		return 2;
	}
	pid = strtol(argv[optind + 1], &end, 10);
	if (*end || pid <= 0 || pid > INT_MAX) {
		refuse("dump", argv[optind + 1], "not a process id");
		return 2;
	}
	snprintf(fallback, sizeof(fallback), "tracer-ust-%ld", pid);
	return tr_ust_dump(pid, dir ? dir : fallback, force) ? 1 : 0;
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "record", cmd_record, usage_record },
	{ "report", cmd_report, usage_report },
	{ "export", cmd_export, usage_export },
	{ "list", cmd_list, usage_list },
	{ "snapshot", cmd_snapshot, usage_snapshot },
	{ "top", cmd_top, usage_top },
	{ "ust", cmd_ust, usage_ust },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* tracer help [COMMAND] */
static int cmd_help(int argc, char **argv)
{
	const struct command *cmd = argc == 2 ? find_command(argv[1]) : NULL;

	if (argc == 1) {
		fputs(usage, stdout);
		return 0;
	}
	if (!cmd) {
		fprintf(stderr, "tracer help: no command '%s'; tracer help lists the commands\n",
			argv[1]);
		return 2;
	}
	fputs(cmd->usage, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		fprintf(stderr, "tracer: no command given\n%s", usage);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		printf("tracer " TRACER_VERSION "\n");
		return 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "tracer: unknown command '%s'; tracer help lists the commands\n",
			argv[1]);
		return 2;
	}
	name_command(argv + 1);
	return cmd->run(argc - 1, argv + 1);
}
