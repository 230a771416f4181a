/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Buffers in the kernel module: the per-CPU regions behind /dev/tracer
 * (tracer/kmod.h), mapped read-only.  The module runs the reader's steps
 * of ringbuf.h on our behalf (they write the control block); the handles
 * here are for geometry and counters.
 */
#ifndef TRACER_KMODBUF_H
#define TRACER_KMODBUF_H

#include <stddef.h>
#include <tracer/kmod.h>
#include <tracer/ringbuf.h>

struct tr_kmodbuf {
	int fd;				/* poll()s: POLLIN when a sub-buffer is ready,
					 * POLLPRI when a writer is in its last one */
	unsigned int ncpu;
	size_t region_stride;
	void **region;			/* [ncpu], NULL where mapping failed */
	struct trb_buf *cpu;		/* [ncpu] read-only handles */
	struct tr_kmod_clock_info clock;
};

/* Why the module's buffers cannot be used here, or NULL if they can. */
const char *tr_kmodbuf_unavailable(void);

/* The module was loaded with selftest=1: NMIs write tracer:nmi_test records. */
int tr_kmodbuf_selftest(void);

/* tracefs-style format of struct tr_kmod_nmi_test, for decoders. */
extern const char tr_kmodbuf_nmi_test_format[];

/*
 * Open a session with this geometry and map its regions; selftest_event_id
 * is the id for the module's self-test records or TR_KMOD_NO_EVENT.
 * 0 or -errno; -ENOMEM when the buffers do not fit in memory, after
 * saying so on stderr (how much was asked, and which limit refused it).
 */
int tr_kmodbuf_open(struct tr_kmodbuf *kb, const struct trb_config *cfg,
		    unsigned int flush_ms, __u32 selftest_event_id);
void tr_kmodbuf_close(struct tr_kmodbuf *kb);

/* 0 with the sub-buffer's position and bytes, or -EAGAIN when none is ready. */
int tr_kmodbuf_get_subbuf(struct tr_kmodbuf *kb, unsigned int cpu, __u64 *pos,
			  const char **packet);
void tr_kmodbuf_put_subbuf(struct tr_kmodbuf *kb, unsigned int cpu, __u64 pos);


/*
 * Have the module write this tracepoint's records from its own perf
 * events (kernels whose tracepoint programs cannot call kfuncs).
 */
int tr_kmodbuf_add_tracepoint(struct tr_kmodbuf *kb, __u32 event_id,
			      const struct tr_event_shape *shape);

/* Deliver what every CPU's buffer holds, each on its CPU; writers go on. */
int tr_kmodbuf_flush(struct tr_kmodbuf *kb);

/* Stop writers and flush every buffer: what is left is ready to read. */
int tr_kmodbuf_finish(struct tr_kmodbuf *kb);

#endif /* TRACER_KMODBUF_H */
