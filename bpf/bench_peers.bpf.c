// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The peers bench/tracepoint/ measures the tracer against: BPF
 * programs for syscalls:sys_enter_getppid or another argument-less system
 * call (classic tracepoint, like bpf/record.bpf.c; the loader attaches
 * them by name) that do nothing, or write the record the tracer writes
 * into a BPF ringbuf or a perf buffer; and raw_tp programs run
 * with BPF_PROG_TEST_RUN that write records in a bpf_loop, to compare
 * with bpf/writer_loop.bpf.c and with the tracer's writer (ringbuf.bpf.h)
 * in the same loop.  Not used by the tracer itself.
 *
 * The record is the tracer's: a 16-byte header (timestamp, id, size) and
 * the raw tracepoint record (12 bytes for sys_enter_getppid, padded to 16)
 * with the task's pid in its common part: 32 bytes.
 */
#include "ringbuf.bpf.h"		/* the tracer's BPF writer, for bp_tracer_loop */

#define BP_RAW_GETPPID	12	/* sys_enter_getppid: trace_entry + __syscall_nr */
#define BP_MAX_PAYLOAD	256

struct bp_record {
	__u64 ts;
	__u32 id;
	__u32 size;
	__u8 raw[16];
};

/* Tracepoint peer: drained by a consumer thread; max_entries set by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} bp_rb SEC(".maps");

/* Loop peer: large enough for one run's records, no reader during a run. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} bp_rb_loop SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} bp_pb SEC(".maps");

/* Diagnostics: pages of an mmapable array per CPU, like the tracer's regions. */
#define BP_PAGE		4096
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 4 * BP_PAGE);
	__uint(max_entries, 64);		/* set by the loader: CPUs */
} bp_pages SEC(".maps");

char bp_payload_src[BP_MAX_PAYLOAD];
__u64 bp_rb_lost;
__u64 bp_pb_lost;
__u64 bp_loop_failed;
__u64 bp_sink;

SEC("tracepoint")
int bp_empty(void *ctx)
{
	return 0;
}

static __always_inline void fill(struct bp_record *r, void *ctx)
{
	struct trace_entry *common = (struct trace_entry *)r->raw;

	r->ts = bpf_ktime_get_ns();
	r->id = 0;
	r->size = BP_RAW_GETPPID;
	bpf_probe_read_kernel(r->raw, BP_RAW_GETPPID, ctx);
	*(__u32 *)(r->raw + BP_RAW_GETPPID) = 0;
	common->pid = bpf_get_current_pid_tgid();
}

SEC("tracepoint")
int bp_ringbuf(void *ctx)
{
	struct bp_record *r = bpf_ringbuf_reserve(&bp_rb, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&bp_rb_lost, 1);
		return 0;
	}
	fill(r, ctx);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tracepoint")
int bp_perfbuf(void *ctx)
{
	struct bp_record r;

	fill(&r, ctx);
	if (bpf_perf_event_output(ctx, &bp_pb, BPF_F_CURRENT_CPU, &r, sizeof(r)))
		__sync_fetch_and_add(&bp_pb_lost, 1);
	return 0;
}

/*
 * Diagnostics on the tracepoint (tracepoint_bench --diag): what a clock
 * read costs there, and what touching one, then four, pages of an
 * mmapable map value costs (one atomic add on each).  Every system call
 * flushes the TLB on this machine, so each page a program touches is a
 * page walk.
 */
SEC("tracepoint")
int bp_clock(void *ctx)
{
	if (bpf_ktime_get_ns() == 1)
		bp_sink = 1;
	return 0;
}

static __always_inline char *this_cpu_pages(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&bp_pages, &cpu);
}

SEC("tracepoint")
int bp_touch1(void *ctx)
{
	char *p = this_cpu_pages();

	if (p)
		__sync_fetch_and_add((__u64 *)p, 1);
	return 0;
}

SEC("tracepoint")
int bp_touch4(void *ctx)
{
	char *p = this_cpu_pages();

	if (p) {
		__sync_fetch_and_add((__u64 *)p, 1);
		__sync_fetch_and_add((__u64 *)(p + BP_PAGE), 1);
		__sync_fetch_and_add((__u64 *)(p + 2 * BP_PAGE), 1);
		__sync_fetch_and_add((__u64 *)(p + 3 * BP_PAGE), 1);
	}
	return 0;
}

/* --- In-kernel loops: args[0] = count, args[1] = payload bytes ---------- */

struct bp_loop_args {
	__u32 payload;
};

/* A ringbuf record of a constant size: header, then payload copied in. */
#define BP_RB_WRITE(payload_bytes)						\
	do {									\
		struct bp_record *r = bpf_ringbuf_reserve(&bp_rb_loop,		\
				16 + (payload_bytes), 0);			\
		if (!r) {							\
			__sync_fetch_and_add(&bp_loop_failed, 1);		\
			return 0;						\
		}								\
		r->ts = bpf_ktime_get_ns();					\
		r->id = 1;							\
		r->size = (payload_bytes);					\
		if (payload_bytes)						\
			bpf_probe_read_kernel(r->raw, (payload_bytes) ? : 1,	\
					      bp_payload_src);			\
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);			\
	} while (0)

static long rb_write_one(__u64 index, void *p)
{
	struct bp_loop_args *a = p;

	switch (a->payload) {
	case 0: BP_RB_WRITE(0); break;
	case 16: BP_RB_WRITE(16); break;
	case 64: BP_RB_WRITE(64); break;
	case 256: BP_RB_WRITE(256); break;
	default:
		__sync_fetch_and_add(&bp_loop_failed, 1);
	}
	return 0;
}

SEC("raw_tp")
int bp_ringbuf_loop(struct bpf_raw_tracepoint_args *ctx)
{
	struct bp_loop_args a = { .payload = ctx->args[1] };

	bpf_loop(ctx->args[0], rb_write_one, &a, 0);
	return 0;
}

/*
 * The tracer's writer in the same loop as bpf/writer_loop.bpf.c, without
 * its two shared counters (trb_written is a global atomic add per record,
 * a cache line both CPUs fight over when both run the loop).
 */
struct bp_trb_args {
	struct trb_bpf buf;
	__u32 payload;
};

static long trb_write_one(__u64 index, void *p)
{
	struct bp_trb_args *a = p;
	struct trb_bpf_slot s;
	__u32 size = a->payload;

	if (size > BP_MAX_PAYLOAD || trb_bpf_reserve(&a->buf, &s, 1, size)) {
		__sync_fetch_and_add(&bp_loop_failed, 1);
		return 0;
	}
	bpf_probe_read_kernel(s.record + 1, size, bp_payload_src);
	trb_bpf_commit(&a->buf, &s);
	return 0;
}

SEC("raw_tp")
int bp_tracer_loop(struct bpf_raw_tracepoint_args *ctx)
{
	struct bp_trb_args a = { .payload = ctx->args[1] };

	if (!trb_bpf_this_cpu(&a.buf, 0))
		return 1;
	bpf_loop(ctx->args[0], trb_write_one, &a, 0);
	return 0;
}

static long nothing(__u64 index, void *p)
{
	return 0;
}

SEC("raw_tp")
int bp_empty_loop(struct bpf_raw_tracepoint_args *ctx)
{
	bpf_loop(ctx->args[0], nothing, NULL, 0);
	return 0;
}

static long clock_only(__u64 index, void *p)
{
	*(__u64 *)p += bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp")
int bp_clock_loop(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 sum = 0;

	bpf_loop(ctx->args[0], clock_only, &sum, 0);
	bp_sink = sum;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
