/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer record's session, shared by its parts (record/README.md names
 * them and which may call which), with each part's functions below.
 * Private to them.
 */
#ifndef TRACER_SESSION_H
#define TRACER_SESSION_H

#include <pthread.h>
#include <sys/types.h>

#include <tracer/filter.h>
#include <tracer/record.h>

#include "record/recorder.h"
#include "reader/trace.h"
#include "events/events.h"
#include "buffers/buffers.h"
#include "reader/trace_dir.h"
#include "record/waiter.h"
#include "record/say.h"

/* An fentry's or fexit's skeleton instance (or NULL: the session's) and link. */
struct rec_trampoline {
	struct record *instance;
	int link_fd;
};

struct session;

/*
 * A packet output: where the consumer (record/consume.c) hands each
 * packet it takes, registered while it is open (rec_output_add()).  The
 * stream files (record/output.c), tracer top's live reader (record/live.c)
 * and the relay (record/relay_output.c) are; a new one is a file and a
 * row of enum rec_output_rank.  All but packet() may be NULL.
 */
struct rec_output {
	unsigned int rank;		/* where it comes in a packet's way (below) */
	/* A checked packet from buffer stream; a failed write sets s->write_error. */
	void (*packet)(struct session *s, unsigned int stream, const void *packet);
	/* A flush period ended at now, what it delivered taken. */
	void (*flush)(struct session *s, __u64 now);
	/* A consumer round ended at now (last: the recording's, everything taken). */
	void (*round)(struct session *s, __u64 now, int last);
	/* Its lines of the summary. */
	void (*summary)(const struct session *s);
	/* What it holds, closed or freed. */
	void (*close)(struct session *s);
};

/*
 * The order a packet goes to the outputs, each while s->write_error is 0:
 * the stream files first, so that a packet whose write failed goes
 * nowhere else.
 */
enum rec_output_rank {
	REC_OUTPUT_FILES,
	REC_OUTPUT_LIVE,
	REC_OUTPUT_RELAY,
	REC_OUTPUTS
};

struct session {
	/* What was asked, and the events (record/recorder.c, record/ust_buffers.c) */
	const struct tr_record_opts *o;
	struct tr_event_set events;
	__u32 self;			/* the recorder's pid: its records have none */
	__u32 task_state_id;		/* tracer:task_state's event id (record/statedump.h) */
	__u32 vm_map_id;		/* tracer:vm_map's (-g user), else 0 */
	__u32 trigger_id;		/* --snapshot-on's event, or TR_NO_TRIGGER */
	int trigger_recorded;		/* ... which an -e records too */
	struct tr_filter trigger;	/* ... and its filter */

	/* The BPF programs (record/recorder.c, record/attach.c) */
	struct record *skel;
	int use_kmod;			/* the backend being chosen: the module, else BPF
					 * regions (recorder.c's load_bpf(); then buffers.ops) */
	int kmod_via_perf;		/* the module writes from its perf events (6.1) */
	int derive_context;		/* the program fills common_flags, preempt count */
	int syscall_progs;		/* system call events from sys_enter/sys_exit */
	struct bpf_program *task_dump;	/* the state dump's task iterator */
	struct bpf_program *vm_dump;	/* ... and mapping iterator (-g user), or NULL */
	struct bpf_link **links;	/* one per event, then sys_enter's and sys_exit's */
	unsigned int nlinks;
	struct rec_trampoline *trampolines;	/* one per event declared by -e */
	unsigned int ntrampolines;
	unsigned int nattached;		/* tracepoints */
	pthread_t attacher;		/* attaches while the consumer runs */
	int attaching;			/* the attacher has not been joined */
	int attached_fd;		/* eventfd: the attacher is done */
	int attach_err;			/* its result, once done */

	/* The buffers (record/channels.c, buffers/buffers.h) */
	struct trb_config cfg[TR_MAX_CHANNELS];	/* each channel's buffers */
	unsigned int nchannels;
	unsigned int ncpu;
	unsigned int nstreams;		/* a buffer and a stream file per channel and CPU */
	struct tr_buffers buffers;	/* [channel * ncpu + cpu], either backend */
	char clock_desc[160];		/* the module's clock, said (rec_clock_name()) */

	/* The command and the loop (record/recorder.c) */
	pid_t child;
	pid_t command;			/* the command's pid, kept after it ends */
	int child_fd;			/* pidfd: readable when the command exits */
	int child_status;
	int release_fd;			/* write end: the held command starts */
	struct tr_waiter waiter;
	int recording;			/* everything attached, the command released */
	int status_drawn;		/* a status line is on the terminal */
	int control_fd;			/* its control socket, or -1 (record/control.c) */
	unsigned int snapshots;		/* taken so far (--flight-recorder) */
	const volatile sig_atomic_t *give_up_relay;	/* set: waits on the relay end */

	/* What was recorded and lost, for the summary (record/consume.c, recorder.c) */
	unsigned long *per_event;
	unsigned long records;
	__u64 bytes;
	int write_error;		/* -errno of a failed stream write */
	__u64 misses;			/* programs' recursion misses, as last read */
	__u64 misses_recorded;		/* ... of which written into the trace */
	__u64 last_misses_read;		/* ns */
	__u32 misses_event;		/* its event id, or TR_KMOD_NO_EVENT */

	/* The outputs, by rank, and what each holds */
	const struct rec_output *outputs[REC_OUTPUTS];
	unsigned int noutputs;
	struct tr_trace_dir dir;
	int *stream_fd;			/* [channel * ncpu + cpu], as the buffers */
	struct tr_trace *live;		/* tracer top's reader, or NULL */
	__u64 live_unfed;		/* packets it had no memory for */
	int live_status_told;		/* the sink has had a status, before any item */
	struct rec_live_stream *live_streams;	/* ... and by buffer, how far it is fed */
	struct rec_relay *relay;	/* --relay: lttng-relayd, or NULL */
	int relay_failed;		/* -errno that ended the streaming, or 0 */
	struct rec_ust *ust;		/* -e ust:...: libtracer-ust's buffers, or NULL */
};

/* --- record/output.c: the trace directory ---------------------------------- */

/* What the timestamps are (the buffers' clock), as the metadata and the summary say. */
const char *rec_clock_name(struct session *s);
/* The CTF metadata and tracer's formats into s->dir; says why not. 0 or -errno. */
int rec_write_metadata(struct session *s);
/*
 * The set's formats as .tracer/events holds them, into out (tracer top's
 * live reader reads them from memory): for each event "event ID SYSTEM
 * NAME LENGTH\n" and LENGTH bytes of tracefs format.  0, or -errno.
 */
int rec_format_events(const struct tr_event_set *events, FILE *out);
/* .tracer/events in the trace directory d: the formats as tracefs gave them. */
int rec_write_formats(const struct tr_trace_dir *d, const struct tr_event_set *events);
/* A stream file per channel and CPU in s->dir, an output; says why not.  0 or -errno. */
int rec_open_streams(struct session *s);
/* ... closed, no output any more. */
void rec_close_streams(struct session *s);
/*
 * --flight-recorder: what the buffers hold now, the newest events, as a
 * complete trace in DIR/snapshot-N, read by the protocol's get/put while
 * the writers go on, after a state dump; the last one (the recording has
 * ended, the programs are detached) finishes the writing instead, its
 * dump taken before the programs were detached.  Where, or why not, in
 * said.  0 or -errno.
 */
void rec_snapshot_dump(struct session *s);
/* The state dump: a record for every task, then (-g user) every code mapping.  0 or -errno. */
int rec_state_dump(struct session *s);
int rec_snapshot(struct session *s, int last, char *said, size_t len);

/* --- record/programs.c: the BPF programs, the backend chosen, its buffers ------ */

/* libbpf's messages to stderr (verbose: all; else none), its refusals noted. */
void rec_libbpf_messages(int verbose);
/*
 * Choose the backend, load the programs for it, fill their maps and open
 * the buffers (s->buffers); says why not.  0 or -errno.
 */
int rec_load_bpf(struct session *s);
/* Whether event ev comes from the raw sys_enter/sys_exit tracepoints, by number. */
int rec_by_syscall(const struct session *s, const struct tr_event *ev);

/* --- record/attach.c: the probes' programs and links ---------------------------- */

/* How many events are probes. */
unsigned int rec_probe_count(const struct session *s);
/* How many are by kprobe programs (kprobes, uprobes, USDT: all but fentry and fexit). */
unsigned int rec_kprobe_program_count(const struct session *s);
/* Which probe programs load, and fentry's and fexit's first functions.  0 or -errno. */
int rec_probes_configure(struct session *s);
/* s->trampolines, none yet.  0 or -ENOMEM. */
int rec_probes_prepare(struct session *s);
/* Attach event i's probe (a kprobe.multi group with its first); says why not.  0 or -errno. */
int rec_probe_attach(struct session *s, unsigned int i);
/* Detach event i's fentry or fexit, if it has one. */
void rec_probe_detach(struct session *s, unsigned int i);
/* Events the kernel skipped in fentry and fexit instances, or that found their slots taken. */
__u64 rec_probes_misses(const struct session *s);

/* --- record/control.c: tracer snapshot ---------------------------------------- */

/* The recording's control socket, watched by the waiter.  0 or -errno. */
int rec_control_open(struct session *s);
/* Answer every request waiting (never blocks for a new one). */
void rec_control_serve(struct session *s);
void rec_control_close(struct session *s);

/* --- record/consume.c: the buffers into the outputs ------------------------------ */

/* Output out takes packets from now on, in its rank among the others (once). */
void rec_output_add(struct session *s, const struct rec_output *out);
/* ... no more (if it did). */
void rec_output_remove(struct session *s, const struct rec_output *out);
/* Every delivered sub-buffer of every buffer, each checked packet to each output. */
void rec_consume(struct session *s);
/* The outputs' flush(), round(), summary(), where they have one. */
void rec_outputs_flush(struct session *s, __u64 now);
void rec_outputs_round(struct session *s, __u64 now, int last);
void rec_outputs_summary(const struct session *s);
/* Every output closed and removed. */
void rec_outputs_close(struct session *s);
/* Events lost so far, every cause. */
__u64 rec_lost_total(const struct session *s);

/* --- record/relay_output.c: --relay, the streams to lttng-relayd ------------------------ */

/* Connect and create the session, before anything is written; an output.  0 or -errno. */
int rec_relay_connect(struct session *s);
/* Its streams and the metadata written so far.  0 or -errno. */
int rec_relay_start(struct session *s);
/* A stream found while recording (a user-space buffer): its number at the relay, or -1. */
int rec_relay_new_stream(struct session *s, const char *name, __u32 stream_class,
			 __u32 instance);
/* A packet of such a stream (-1: none, nothing sent). */
void rec_relay_send(struct session *s, int stream, const void *packet);
/* What the trace's metadata file gained since, to the relay. */
void rec_relay_metadata(struct session *s);

/* --- record/live.c: tracer top's reader (tr_record_opts.live) -------------------- */

/* s->live, for s->events' records, an output; says why not.  0 or -errno. */
int rec_live_open(struct session *s);
/* Whether the sink asked to stop (its eventfd was written). */
int rec_live_stop_asked(const struct session *s);

/* --- record/channels.c: the channels' buffers --------------------------------- */

/* s->cfg, nchannels, nstreams from the options; says why not.  0 or -EINVAL. */
int rec_channels_set(struct session *s);
/* The summary's lines of what each buffer lost. */
void rec_channels_summary(const struct session *s);

/* --- record/ust_buffers.c: user-space events (libtracer-ust) ------------------------- */

/*
 * The -e specs but ust:PROVIDER:EVENT ones into specs, filters and
 * channels (n of them); those into s->ust.  0 or -errno with why.
 */
int rec_ust_split_specs(struct session *s, const char **specs, const char **filters,
			unsigned int *channels, unsigned int *n, char *why, size_t whylen);
/* The "ust" channel declared in s->dir.  0 or -errno (said). */
int rec_ust_start(struct session *s);
/* Before the command starts: the socket its processes send their buffers to.  0 or -errno. */
int rec_ust_command_socket(struct session *s);
/* In the command's process, before exec: its end of the socket kept. */
void rec_ust_in_command(struct session *s);
/* After the fork: the command's end closed here. */
void rec_ust_command_started(struct session *s);
/* Look for new processes' buffers when due, and read every buffer. */
void rec_ust_consume(struct session *s);
/* At the end: every buffer read, and the records of their open sub-buffers. */
void rec_ust_finish(struct session *s);
void rec_ust_summary(const struct session *s);
void rec_ust_close(struct session *s);

/* --- record/stack_tables.c: what names the frames of -g's stacks ------------------ */

/* With user stacks, tracer:vm_map into s->events; why not into why.  0 or -errno. */
int rec_declare_vm_map(struct session *s, char *why, size_t len);
/* The summary's lines on the mapping records. */
void rec_vm_map_summary(const struct session *s);

#endif /* TRACER_SESSION_H */
