/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer record, tracer snapshot and tracer ust dump: a recording's
 * options and the calls that run them (user/record/).
 */
#ifndef TRACER_RECORDING_H
#define TRACER_RECORDING_H

#include <sys/types.h>
#include <tracer/channels.h>
#include <tracer/layout.h>
#include <tracer/record.h>

/* Who writes the buffers. */
enum tr_backend {
	TR_BACKEND_AUTO,		/* the module if loaded, else BPF */
	TR_BACKEND_BPF,			/* BPF programs into BPF map regions */
	TR_BACKEND_KMOD,		/* BPF programs through the module's kfuncs */
};

/* A channel: buffers of their own for the events sent there. */
struct tr_channel_opts {
	char name[TR_CHANNEL_NAME_MAX];
	__u64 buffer_size;		/* per CPU */
	__u64 subbuf_size;
	enum tr_buf_mode mode;
};

/* tracer top's side of a recording (user/record/recorder.h). */
struct tr_live_sink;

struct tr_record_opts {
	const char *name;		/* the command, for messages: "record" (NULL) or "top" */
	const struct tr_live_sink *live;	/* tracer top's, or NULL */
	const char *const *events;	/* specs, e.g. "sched:*" */
	const char *const *filters;	/* --filter of each spec, or NULL entries */
	const unsigned int *event_channels;	/* each spec's channel, or NULL: all in 0 */
	unsigned int nevents;
	/* [0] is the default channel, channel0: --buffer-size, --subbuf-size, --mode. */
	struct tr_channel_opts channels[TR_MAX_CHANNELS];
	unsigned int nchannels;
	int system_wide;		/* -a: every process, even with a command */
	pid_t pid;			/* -p: this process and its threads, or 0 */
	const char *cpus;		/* -C: list such as "0,2-3", or NULL */
	const char *comm;		/* --comm, or NULL */
	const char *output;		/* -o: trace directory (NULL: none, with live) */
	int force;			/* replace an existing output directory */
	double duration;		/* seconds, 0 for until stopped */
	int flight_recorder;		/* overwrite, written only in snapshots */
	const char *snapshot_on;	/* --snapshot-on "system:event[:filter]", or NULL */
	unsigned int stacks;		/* -g, --call-graph: TR_STACK_* (tracer/record.h) */
	__u32 context;			/* --context: 1 << TR_CONTEXT_* (tracer/record.h) */
	unsigned int flush_ms;
	enum tr_backend backend;
	const char *relay;		/* --relay: lttng-relayd's net:// URL, or NULL */
	const char *relay_session;	/* ... the session's name there */
	int relay_live;			/* --relay-live: live timer = flush_ms */
	int relay_only;			/* no stream files: output holds the metadata only */
	int verbose;			/* libbpf's messages and verifier logs */
	char *const *command;		/* argv to run and record, or NULL */
};

/* Runs a recording; returns the exit status for the command line. */
int tr_record(const struct tr_record_opts *opts);

/*
 * tracer snapshot: ask the flight recorder writing into dir for a
 * snapshot.  0 with the recorder's answer in reply ("snapshot N: ..."), or
 * -errno with why in reply (-EPERM: the socket is served by neither root
 * nor us).  The answer is made printable text: '?' for any other byte.
 */
int tr_record_snapshot(const char *dir, char *reply, size_t len);

/*
 * tracer ust dump: the events in the libtracer-ust buffers of process pid,
 * as they are (nothing is taken from a recorder reading them), as a trace
 * in output (replaced if force).  Found through /proc/PID/fd: root, or the
 * process's user.  0, or -errno said on stderr.
 */
int tr_ust_dump(pid_t pid, const char *output, int force);

#endif /* TRACER_RECORDING_H */
