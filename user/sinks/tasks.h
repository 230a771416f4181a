/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tasks a report meets, by thread id: their names (from the records
 * that name tasks, record/statedump.h), their process, and what the sinks keep per
 * task.  Open addressing in a table that doubles to stay at most half
 * full.
 */
#ifndef TRACER_REPORT_TASKS_H
#define TRACER_REPORT_TASKS_H

#include <linux/types.h>

/* What tracer top keeps per task (top/model.c). */
struct tr_task_top {
	__u64 cpu_ns;			/* on a CPU, this interval */
	__u64 syscalls;			/* entered, this interval */
	__u64 waits, wait_ns, wait_max_ns;	/* run-queue latencies, since the start */
	__u64 runnable_since;		/* woken or preempted then, not yet run again; 0: not */
	__u64 syscall_since;		/* in system call syscall_nr since then (sys_enter); 0: not */
	__u64 syscall_packet;		/* ... entered in this packet (--sample) */
	__u32 syscall_cpu;		/* ... of this CPU */
	int syscall_nr;
};

struct tr_task {
	__u32 key;			/* tid + 1; 0: a free slot */
	__u32 pid;			/* its process, from its records; 0 until one is seen */
	char comm[16];			/* "" until named */
	__u64 events;			/* its records counted (report --stats, top) */
	int cpu;			/* the CPU it runs on (export's slices), or -1 */
	int track;			/* its track is described (export's perfetto) */
	struct tr_task_top top;
};

struct tr_tasks {
	struct tr_task *slot;
	unsigned int size;		/* a power of two, or 0 */
	unsigned int used;
};

/* tid's entry, added if new; NULL without memory. */
struct tr_task *tr_tasks_get(struct tr_tasks *t, __u32 tid);
/* tid's entry, or NULL. */
const struct tr_task *tr_tasks_find(const struct tr_tasks *t, __u32 tid);
static inline __u32 tr_task_tid(const struct tr_task *task)
{
	return task->key - 1;
}
void tr_tasks_free(struct tr_tasks *t);

#endif /* TRACER_REPORT_TASKS_H */
