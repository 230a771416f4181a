/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer top's counts, private to top/model.c (which counts the items)
 * and top/snapshot.c (which makes an interval's counts a snapshot).
 */
#ifndef TRACER_TOP_COUNTS_H
#define TRACER_TOP_COUNTS_H

#include <event-parse.h>

#include "top/model.h"
#include "sinks/tasks.h"

#define MAX_SYSCALL	1024
/* Latency histograms: 2^SUB_BITS buckets per power of two (3% wide). */
#define SUB_BITS	5
#define HIST_BUCKETS	(64 << SUB_BITS)

/* A count's sampling error: sum(n_i^2) over the packets read, the last of each CPU still open. */
struct sample_error {
	__u64 sumsq;
	struct {
		__u64 packet;		/* packet_seq_num + 1; 0: none yet */
		__u64 n;
	} cpu[];
};

/* A row's count: since the start, this interval, and (--sample) its error. */
struct tally {
	__u64 count;
	__u64 interval;
	struct sample_error *error;
};

struct syscall_row {
	struct tally calls;
	__u64 errors;			/* since the start */
	__u64 lat_count, lat_ns, lat_max;
	__u32 hist[HIST_BUCKETS];
	int entries_traced;		/* calls are counted at entry */
};

enum class_kind { OTHER, SWITCH, WAKING, SYS_ENTER, SYS_EXIT, TASK_STATE };

/* Where a field top reads lies in the payload. */
struct field_at {
	__u32 offset, size;
};

/* What an event class is to top, and where its fields are: resolved once. */
struct class_info {
	int resolved;
	enum class_kind kind;
	struct field_at f[4];
	char *name;			/* "system:name" */
	struct tally records;
};

struct cpu_state {
	__u32 running;			/* the task on it since `since` */
	__u64 since;			/* 0: unknown until its first switch */
	__u64 busy_ns, switches, events;	/* this interval */
	__u64 lost;			/* since the start */
	__u64 packet;			/* packet_seq_num + 1 of its latest record */
};

struct top_model {
	__u64 interval_ns;
	double sample;			/* the share of packets read: 1, or --sample's */
	int sampling;			/* below 1 */
	__u64 start, end;		/* the interval being counted; end 0: none yet */
	__u64 seq;
	unsigned int ncpu;
	struct cpu_state *cpus;
	struct class_info *classes;
	unsigned int nclasses;
	struct syscall_row *syscalls[MAX_SYSCALL];
	struct tr_tasks tasks;
	struct tr_task *last_task;	/* task_of()'s last, in last_slots */
	const struct tr_task *last_slots;
	__u64 lost_reported;
	int reset_asked;
	struct tr_live_status status;	/* as the last round left it */
	void (*publish)(void *data, struct top_snapshot *snap);
	void *data;
};

static inline int top_sampling(const struct top_model *m)
{
	return m->sampling;
}

static inline unsigned int top_bucket(__u64 ns)
{
	unsigned int shift;

	if (ns < (1u << SUB_BITS))
		return ns;
	shift = 63 - __builtin_clzll(ns) - SUB_BITS;
	return ((shift + 1) << SUB_BITS) | ((ns >> shift) & ((1u << SUB_BITS) - 1));
}

/* The largest latency bucket i holds. */
static inline __u64 top_bucket_top(unsigned int i)
{
	unsigned int shift;

	if (i < (1u << SUB_BITS))
		return i;
	shift = (i >> SUB_BITS) - 1;
	return ((((__u64)1 << SUB_BITS) + (i & ((1u << SUB_BITS) - 1)) + 1) << shift) - 1;
}

/* The snapshot of the interval just counted; NULL without memory. */
struct top_snapshot *top_snapshot_make(const struct top_model *m);

#endif /* TRACER_TOP_COUNTS_H */
