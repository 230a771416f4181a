/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The peers: each way of recording the event that part 1 measures, one
 * file each, as the setup, start and stop of a struct config (harness.h;
 * configs.c lists them).  A setup returns 0 or -errno with c->why saying
 * why; a start returns 0 or -errno once the peer records; a stop fills the
 * run's counts in.  A teardown releases what the setups made (main's
 * cleanup, which may run from a signal).
 */
#ifndef TRACEPOINT_BENCH_PEERS_H
#define TRACEPOINT_BENCH_PEERS_H

#include <linux/perf_event.h>
#include <bpf/libbpf.h>

#include "harness.h"

#define PEER_RB_BYTES	(8u << 20)	/* BPF ringbuf: the tracer's 2 x 4 MiB */
#define FTRACE_BUF_KB	8192		/* ftrace / trace-cmd: 8 MiB per CPU */

/* --- bench_peers.c: bpf/bench_peers.bpf.c, the empty program, the diagnostics --- */

extern struct bench_peers *peers;	/* loaded by peers_setup() */
extern struct bpf_link *cur_link;	/* the attached program of the run, or NULL */

/* Opens and loads bench_peers once (later calls do nothing); 0 or -errno. */
int peers_setup(void);

/* Attaches prog to the measured tracepoint as cur_link; 0 or -errno. */
int attach_to_event(const struct bpf_program *prog);

/* Detaches cur_link: the stop of every in-process BPF program. */
void stop_link(struct run_result *r);

int empty_setup(struct config *c);
int empty_start(void);
/* The diagnostics (--diag): a clock read, one or four pages touched. */
int diag_setup(struct config *c);
int clock_start(void);
int touch1_start(void);
int touch4_start(void);
void bench_peers_teardown(void);

/* --- consumer.c: the libbpf consumers' thread, draining every 1 ms to a file --- */

/* Allocates the consumer's buffer (once). */
void consumer_alloc(void);

/* ring_buffer__new's and perf_buffer__new_raw's callbacks: each record counted and kept. */
int rb_sample(void *ctx, void *data, size_t size);
enum bpf_perf_event_ret pb_event(void *ctx, int cpu, struct perf_event_header *e);

/*
 * Starts the consumer thread calling consume() into tmpdir/file, then
 * attaches prog; 0 or -errno (the thread stopped again).
 */
int consumer_attach(int (*consume)(void), const char *file, const struct bpf_program *prog);

/* Stops the thread, its file written: r's counts of records. */
void consumer_stop(struct run_result *r);

/* PERF_RECORD_LOST's count of the run. */
long long consumer_lost(void);

/* --- ringbuf.c, perfbuf.c: BPF ringbuf and perf buffer, with libbpf's consumers --- */

int ringbuf_setup(struct config *c);
int ringbuf_start(void);
void ringbuf_stop(struct run_result *r);
void ringbuf_teardown(void);

int perfbuf_setup(struct config *c);
int perfbuf_start(void);
void perfbuf_stop(struct run_result *r);
void perfbuf_teardown(void);

/* --- tracer_record.c: tracer record -a as a subprocess, and its --filter diagnostics --- */

int tracer_setup(struct config *c);
int tracer_start(void);
void tracer_stop(struct run_result *r);
/* What tracer record records: n event specifications (n <= LADDER_EVENTS); they are kept. */
void tracer_set_events(const char *const *events, int n);
int filter_setup(struct config *c);
int filter_pass_start(void);
int filter_none_start(void);
int filter_glob_start(void);

/* --- tracer_prog.c: the tracer's BPF program alone, in this process --- */

int tracer_prog_setup(struct config *c);
int tracer_prog_start(void);
void tracer_prog_teardown(void);

/* --- perf_record.c: perf record -a --- */

int perf_setup(struct config *c);
int perf_start(void);
void perf_stop(struct run_result *r);

/* --- ftrace.c: the ftrace ring buffer in an instance of ours --- */

int ftrace_setup(struct config *c);
int ftrace_start(void);
void ftrace_stop(struct run_result *r);
void ftrace_teardown(void);

/* --- trace_cmd.c: trace-cmd record --- */

int trace_cmd_setup(struct config *c);
int trace_cmd_start(void);
void trace_cmd_stop(struct run_result *r);
/* trace-cmd's complaint when it cannot run here, or "". */
const char *trace_cmd_error(void);

/* --- bpftrace.c: bpftrace counting in a map --- */

int bpftrace_setup(struct config *c);
int bpftrace_start(void);
void bpftrace_stop(struct run_result *r);

#endif
