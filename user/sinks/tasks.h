/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tasks a report meets, by thread id: their names (from the records
 * that name tasks, record/statedump.h), their process, and what the sinks keep per
 * task.  Open addressing in a table that doubles to stay at most half
 * full.  The names are learnt from the kernel's records (tr_tasks_learn()).
 */
#ifndef TRACER_REPORT_TASKS_H
#define TRACER_REPORT_TASKS_H

#include <stdbool.h>
#include <linux/types.h>

struct tr_by_class;
struct tr_item;
struct tr_trace;

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

/*
 * The name a record's task goes by in the report: its thread's, "" if
 * not named yet; thread 0 is each CPU's idle task, never named by its
 * records: "swapper".
 */
const char *tr_tasks_comm(const struct tr_tasks *t, const struct tr_item *it);

/*
 * Learns the names a record of the kernel's (trace's) gives tasks, in its
 * comm and pid pairs (prev_comm and prev_pid, next_, comm and pid,
 * newcomm); a name a task has already stays unless replace.  A user-space
 * event names none, whatever fields its program gave it.  names_tasks
 * keeps, by class, whether its records have such a pair (an array of
 * __s8 filled with -1: not worked out yet).
 */
void tr_tasks_learn(struct tr_tasks *t, struct tr_by_class *names_tasks,
		    const struct tr_trace *trace, const struct tr_item *it, bool replace);

/*
 * Learns the process of the thread that wrote record it, and of the
 * thread a tracer:task_state record names (for the sinks that keep the
 * processes: task->pid).
 */
void tr_tasks_learn_pid(struct tr_tasks *t, const struct tr_item *it);

#endif /* TRACER_REPORT_TASKS_H */
