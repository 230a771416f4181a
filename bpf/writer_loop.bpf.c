// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF writer driven from user space: one BPF_PROG_TEST_RUN of
 * trb_write_loop writes args[0] records of event id args[1] and args[2]
 * payload bytes (copied from trb_payload_src) on the CPU it runs on.  For
 * tests of the BPF writer and for measuring the buffer path alone, with
 * no tracepoint or syscall around it.
 */
#include "ringbuf.bpf.h"

char trb_payload_src[TR_BPF_MAX_RECORD];
__u64 trb_written;
__u64 trb_failed;

struct loop_args {
	struct trb_bpf buf;
	__u32 id;
	__u32 size;
};

static long write_one(__u64 index, void *p)
{
	struct loop_args *a = p;
	struct trb_bpf_slot s;
	__u32 size = a->size;

	if (size > TR_BPF_MAX_RECORD - sizeof(struct tr_event_header) ||
	    trb_bpf_reserve(&a->buf, &s, a->id, size)) {
		__sync_fetch_and_add(&trb_failed, 1);
		return 0;
	}
	bpf_probe_read_kernel(s.record + 1, size, trb_payload_src);
	trb_bpf_commit(&a->buf, &s);
	__sync_fetch_and_add(&trb_written, 1);
	return 0;
}

SEC("raw_tp")
int trb_write_loop(struct bpf_raw_tracepoint_args *ctx)
{
	struct loop_args a = { .id = ctx->args[1], .size = ctx->args[2] };

	if (!trb_bpf_this_cpu(&a.buf, 0))
		return 1;
	bpf_loop(ctx->args[0], write_one, &a, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
