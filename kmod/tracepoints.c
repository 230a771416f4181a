// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Tracepoint records for kernels whose tracepoint programs cannot call
 * module kfuncs (Linux 6.1 allows them only in tp_btf/fentry programs).
 * For each tracepoint the module opens an in-kernel perf event per online
 * CPU that samples every hit with its raw record; the overflow handler
 * writes the record into the active session like tr_kmod_write() would.
 * Perf removes a CPU's events when the CPU goes offline, so each feed
 * follows CPU hotplug: its events are opened on a CPU that comes online
 * and released on one that goes offline.
 *
 * The tracepoint's BPF program (bpf/record.bpf.c, tr_kmod_via_perf) still
 * runs first and filters: the kernel hands the record to the tracepoint's
 * perf events only when the program returns non-zero.  The handler runs
 * where the tracepoint fires, interrupts or NMI included, so it only
 * measures the record and calls the writers' path.  It reads its feed
 * under RCU (perf calls it so), hence feeds are freed after a grace
 * period.
 *
 * The feed's shape comes from user space: it is checked when the feed is
 * added, and the record's size is kept within the raw sample where it is
 * used.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/trace_events.h>
#include <linux/slab.h>

#include "buffers.h"
#include "tracepoints.h"

struct tr_feed {
	struct list_head node;
	struct hlist_node cpuhp;
	struct rcu_head rcu;
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
	return clamp_t(u32, size, sizeof(struct trace_entry), avail);
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

/* --- CPU hotplug: each online CPU has the feed's perf event -------------- */

static int tr_feeds_cpuhp_state;

/*
 * One sample per hit.  Some tracepoints count more than 1 per hit (the
 * sched_stat_* ones count their runtime or delay in ns): with only a
 * sample_period of 1, perf would call the handler once per ns, the same
 * record again and again until it throttles the event for the rest of the
 * tick (losing the next hits).  With PERF_SAMPLE_PERIOD, perf samples each
 * hit once, its count as the period, and never throttles.
 */
static int tr_feed_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct tr_feed *f = hlist_entry(node, struct tr_feed, cpuhp);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = f->shape.kernel_id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, NULL, tr_feed_overflow, f);
	if (IS_ERR(event))
		return PTR_ERR(event);
	f->cpu_event[cpu] = event;
	return 0;
}

static int tr_feed_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct tr_feed *f = hlist_entry(node, struct tr_feed, cpuhp);

	if (f->cpu_event[cpu])
		perf_event_release_kernel(f->cpu_event[cpu]);
	f->cpu_event[cpu] = NULL;
	return 0;
}

int tr_tracepoints_module_init(void)
{
	int state = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "tracer/feeds:online",
					    tr_feed_cpu_online, tr_feed_cpu_offline);

	if (state < 0)
		return state;
	tr_feeds_cpuhp_state = state;
	return 0;
}

void tr_tracepoints_module_exit(void)
{
	cpuhp_remove_multi_state(tr_feeds_cpuhp_state);
}

/* --- A session's feeds ------------------------------------------------------ */

/* A shape a tracepoint's record can have, that the size walk can follow. */
static bool tr_shape_valid(const struct tr_event_shape *shape)
{
	u32 i;

	if (shape->fixed_size < sizeof(struct trace_entry) || shape->fixed_size > U16_MAX ||
	    shape->ndyn > TR_MAX_DYN)
		return false;
	for (i = 0; i < shape->ndyn; i++) {
		u32 at = shape->dyn_offset[i] & ~TR_DYN_RELATIVE;

		if (at < sizeof(struct trace_entry) || at + sizeof(u32) > shape->fixed_size)
			return false;
	}
	return true;
}

static bool tr_tracepoints_has_feed(const struct tr_tracepoints *tps, u32 event_id)
{
	const struct tr_feed *f;

	list_for_each_entry(f, &tps->feeds, node)
		if (f->event_id == event_id)
			return true;
	return false;
}

/* Its perf events are released (tr_feed_cpu_offline()): free it once handlers are done. */
static void tr_feed_release(struct tr_feed *f)
{
	cpuhp_state_remove_instance(tr_feeds_cpuhp_state, &f->cpuhp);
	kfree_rcu(f, rcu);
}

void tr_tracepoints_init(struct tr_tracepoints *tps)
{
	INIT_LIST_HEAD(&tps->feeds);
	mutex_init(&tps->lock);
}

int tr_tracepoints_add(struct tr_tracepoints *tps, const struct tr_kmod_tracepoint *tp)
{
	struct tr_feed *f;
	int err;

	if (!tr_shape_valid(&tp->shape))
		return -EINVAL;
	f = kzalloc(struct_size(f, cpu_event, nr_cpu_ids), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	f->event_id = tp->event_id;
	f->shape = tp->shape;
	mutex_lock(&tps->lock);
	err = tps->closed ? -ESHUTDOWN : tr_tracepoints_has_feed(tps, f->event_id) ? -EINVAL : 0;
	if (!err)
		err = cpuhp_state_add_instance(tr_feeds_cpuhp_state, &f->cpuhp);
	if (!err)
		list_add(&f->node, &tps->feeds);
	mutex_unlock(&tps->lock);
	if (err)
		kfree_rcu(f, rcu);	/* a failed add may have opened and released events */
	return err;
}

void tr_tracepoints_release(struct tr_tracepoints *tps)
{
	struct tr_feed *f, *next;

	mutex_lock(&tps->lock);
	tps->closed = true;
	list_for_each_entry_safe(f, next, &tps->feeds, node) {
		list_del(&f->node);
		tr_feed_release(f);
	}
	mutex_unlock(&tps->lock);
}
