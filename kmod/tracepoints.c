// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Tracepoint records for kernels whose tracepoint programs cannot call
 * module kfuncs (Linux 6.1 allows them only in tp_btf/fentry programs).
 * For each tracepoint the module opens an in-kernel perf event per online
 * CPU that samples every hit with its raw record; the overflow handler
 * writes the record into the active session like tr_kmod_write() would.
 *
 * The tracepoint's BPF program (bpf/record.bpf.c, tr_kmod_via_perf) still
 * runs first and filters: the kernel hands the record to the tracepoint's
 * perf events only when the program returns non-zero.  The handler runs
 * where the tracepoint fires, interrupts or NMI included, so it only
 * measures the record and calls the writers' path.
 */
#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/trace_events.h>
#include <linux/slab.h>

#include "buffers.h"
#include "tracepoints.h"

struct tr_feed {
	struct list_head node;
	u32 event_id;
	struct tr_event_shape shape;
	struct perf_event *cpu_event[];	/* [nr_cpu_ids], NULL if not opened */
};

/* Bytes of the raw record: its fixed part and its dynamic data, within avail. */
static notrace u32 tr_feed_record_size(const struct tr_feed *f, const u8 *raw, u32 avail)
{
	u32 size = f->shape.fixed_size, i, loc, end;

	for (i = 0; i < f->shape.ndyn && i < TR_MAX_DYN; i++) {
		u16 at = f->shape.dyn_offset[i] & ~TR_DYN_RELATIVE;

		if (at + sizeof(loc) > avail)
			continue;
		memcpy(&loc, raw + at, sizeof(loc));
		end = tr_dyn_end(loc, f->shape.dyn_offset[i]);
		if (end > size)
			size = end;
	}
	return min(size, avail);
}

/*
 * The record as the kernel wrote it for perf, common_flags included; its
 * preempt count also counts the tracepoint's own preempt_disable(), which
 * ftrace and the BPF programs leave out, so it is taken off here.
 */
static notrace void tr_feed_overflow(struct perf_event *event,
				     struct perf_sample_data *data,
				     struct pt_regs *regs)
{
	const struct tr_feed *f = event->overflow_handler_context;
	const struct perf_raw_record *raw = data->raw;
	struct trace_entry common;
	u32 size;

	if (!raw || !raw->frag.data || raw->frag.size < sizeof(common))
		return;
	size = tr_feed_record_size(f, raw->frag.data, raw->frag.size);
	memcpy(&common, raw->frag.data, sizeof(common));
	if (common.preempt_count & 0xf)
		common.preempt_count--;
	tr_active_write_split(f->event_id, &common, sizeof(common),
			      (const u8 *)raw->frag.data + sizeof(common), size - sizeof(common));
}
NOKPROBE_SYMBOL(tr_feed_overflow);

static void tr_feed_release(struct tr_feed *f)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (f->cpu_event[cpu])
			perf_event_release_kernel(f->cpu_event[cpu]);
	kfree(f);
}

/*
 * One sample per hit.  Some tracepoints count more than 1 per hit (the
 * sched_stat_* ones count their runtime or delay in ns): with only a
 * sample_period of 1, perf would call the handler once per ns, the same
 * record again and again until it throttles the event for the rest of the
 * tick (losing the next hits).  With PERF_SAMPLE_PERIOD, perf samples each
 * hit once, its count as the period, and never throttles.
 */
static int tr_feed_open(struct tr_feed *f)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = f->shape.kernel_id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct perf_event *event;
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		event = perf_event_create_kernel_counter(&attr, cpu, NULL,
							 tr_feed_overflow, f);
		if (IS_ERR(event)) {
			cpus_read_unlock();
			return PTR_ERR(event);
		}
		f->cpu_event[cpu] = event;
	}
	cpus_read_unlock();
	return 0;
}

void tr_tracepoints_init(struct tr_tracepoints *tps)
{
	INIT_LIST_HEAD(&tps->feeds);
	mutex_init(&tps->lock);
}

int tr_tracepoints_add(struct tr_tracepoints *tps, const struct tr_kmod_tracepoint *tp)
{
	struct tr_feed *f = kzalloc(struct_size(f, cpu_event, nr_cpu_ids), GFP_KERNEL);
	int err;

	if (!f)
		return -ENOMEM;
	f->event_id = tp->event_id;
	f->shape = tp->shape;
	err = tr_feed_open(f);
	if (err) {
		tr_feed_release(f);
		return err;
	}
	mutex_lock(&tps->lock);
	list_add(&f->node, &tps->feeds);
	mutex_unlock(&tps->lock);
	return 0;
}

void tr_tracepoints_release(struct tr_tracepoints *tps)
{
	struct tr_feed *f, *next;

	mutex_lock(&tps->lock);
	list_for_each_entry_safe(f, next, &tps->feeds, node) {
		list_del(&f->node);
		tr_feed_release(f);
	}
	mutex_unlock(&tps->lock);
}
