/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How the size of a raw tracepoint record is found: shared by the generic
 * tracepoint program (bpf/record.bpf.c), its loader (user/events/events.c) and,
 * on kernels where tracepoint programs cannot call its kfuncs, the module
 * (kmod/tracepoints.c).
 */
#ifndef TRACER_RECORD_H
#define TRACER_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Tracepoints one recording can enable; an event's id indexes tr_events. */
#define TR_MAX_EVENTS		4096
/* Dynamic (__data_loc / __rel_loc) fields per event the size walk visits. */
#define TR_MAX_DYN		8
/* dyn_offset flag: a __rel_loc field, offset counted from the field's end. */
#define TR_DYN_RELATIVE		0x8000

/*
 * A raw record is its fixed part, then the data of its dynamic fields,
 * each located by a u32 (length << 16 | offset) in the fixed part.
 */
struct tr_event_shape {
	__u32 kernel_id;		/* tracefs id, for common_type */
	__u32 fixed_size;
	__u32 ndyn;
	__u16 dyn_offset[TR_MAX_DYN];	/* of each locator, | TR_DYN_RELATIVE */
	__u32 channel;			/* whose buffers take its records */
	__u32 probe_strings;		/* a probe's: bit i, values[i] points to a string */
};

/*
 * System call events (syscalls:sys_enter_NAME, sys_exit_NAME) are taken
 * from the raw sys_enter/sys_exit tracepoints by system call number:
 * tr_syscalls[nr] holds the ids of nr's events, plus one (0: not recorded).
 * The record is the one the kernel would have written: the common
 * header, __syscall_nr, then the arguments or the return value.
 */
#define TR_MAX_SYSCALLS		1024
#define TR_SYSCALL_ARGS		6

struct tr_syscall_events {
	__u32 enter;
	__u32 exit;
};

/*
 * A probe's record (user/events/probes.h): the address probed and the six
 * argument registers (uprobes, kprobes), or the return address and the
 * return value in values[0], or a USDT probe's arguments.  A string
 * argument's value becomes the locator (length << 16 | offset) of its
 * bytes (with the NUL, at most TR_PROBE_STRING_MAX), which follow the
 * record's fixed part.  The event's format describes
 * the values it records, in slot order; the fixed part ends with the last.
 */
#define TR_PROBE_VALUES		12	/* USDT's most */
/*
 * Integer and pointer arguments in registers at a function's entry
 * (x86-64): values[0..5]; an fexit's return value follows them.
 */
#define TR_PROBE_ARG_REGISTERS	6
/* In a shape's probe_strings: the strings may be kernel memory (kprobes). */
#define TR_PROBE_STRINGS_KERNEL	(1u << 31)
#define TR_PROBE_STRING_MAX	256

struct tr_probe_record {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__u64 ip;
	__u64 values[TR_PROBE_VALUES];
};

/*
 * tracer:task_state names a task: written for every task by the state
 * dump at the start of a recording and of each snapshot, and as tasks
 * appear (task:task_newtask) and change their command name (exec, prctl:
 * task:task_rename).  Laid out as a tracepoint record, common header first.
 */
#define TR_TASK_STATE_TYPE	65533	/* its common_type */

enum tr_task_reason {
	TR_TASK_DUMP = 0,		/* the state dump */
	TR_TASK_NEW = 1,		/* a new process or thread */
	TR_TASK_COMM = 2,		/* a new command name */
};

struct tr_task_state {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;		/* the task that wrote the record */
	__s32 pid;			/* thread id of the task named */
	__s32 tgid;			/* its process */
	__s32 ppid;			/* its parent process */
	__u32 reason;			/* enum tr_task_reason */
	char comm[16];
};

/*
 * tracer:vm_map places a process's code for naming user stack frames
 * (record -g user): one record per executable file mapping, written by
 * the state dump for every process, at exec for the new image and its
 * interpreter, and after each mmap() that maps code.  A process's
 * mappings hold from their record (from the trace's start for the state
 * dump's) until the process's next exec record.  The path, as
 * __data_loc, is cut at TR_VM_PATH_MAX - 1 bytes.
 */
#define TR_VM_MAP_TYPE		65532	/* its common_type */
#define TR_VM_PATH_MAX		512

enum tr_vm_reason {
	TR_VM_DUMP = 0,			/* the state dump */
	TR_VM_EXEC = 1,			/* a new image: earlier mappings are gone */
	TR_VM_MMAP = 2,			/* mmap(), or exec's interpreter */
};

struct tr_vm_map {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;		/* the task that wrote the record */
	__s32 pid;			/* the process mapped into */
	__u32 reason;			/* enum tr_vm_reason */
	__u64 start;
	__u64 end;
	__u64 offset;			/* in the file, of start */
	__u32 path;			/* __data_loc: length << 16 | offset */
	char path_data[];		/* the path, with its NUL */
};

/*
 * Call stacks (record -g): every tracepoint record of the recording (not
 * tracer's own events) carries them after the raw record's last byte (its
 * fixed part and dynamic data) and its context fields, at no alignment: the frame counts, then the kernel's return addresses,
 * innermost first, then the user's.  The counts are 0 where a stack was
 * not asked for or could not be taken, or where the record with its
 * stacks would not fit in TR_BPF_MAX_RECORD.
 */
#define TR_STACK_KERNEL		1
#define TR_STACK_USER		2
#define TR_MAX_FRAMES		127	/* the kernel's default perf_event_max_stack */

struct tr_stack_counts {
	__u16 kernel;
	__u16 user;
};

/*
 * Context (record --context, as lttng add-context): every tracepoint
 * record of the recording (not tracer's own events) carries the chosen
 * fields after the raw record's last byte and before its stacks: 8 bytes
 * each, at no alignment, in this order.  .tracer/context names them.
 */
enum tr_context_field {
	TR_CONTEXT_CGROUP,		/* the task's cgroup v2 id (its directory's inode) */
	TR_CONTEXT_UID,			/* real user and group ids, initial namespace */
	TR_CONTEXT_GID,
	TR_CONTEXT_PRIO,		/* scheduling priority, as the kernel counts it */
	TR_CONTEXT_NICE,
	TR_CONTEXT_FIELDS
};

/* tr_trigger_id when there is no --snapshot-on. */
#define TR_NO_TRIGGER		0xffffffffu

/* Where the data of the dynamic field located by the u32 loc ends. */
static inline __u32 tr_dyn_end(__u32 loc, __u16 dyn_offset)
{
	__u32 end = (loc & 0xffff) + (loc >> 16);

	if (dyn_offset & TR_DYN_RELATIVE)
		end += (dyn_offset & ~TR_DYN_RELATIVE) + sizeof(loc);
	return end;
}

/*
 * The common fields a tracefs format starts with, for the formats of
 * records that are not a tracepoint's (struct trace_entry's layout).
 */
#define TR_FORMAT_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

#endif /* TRACER_RECORD_H */
