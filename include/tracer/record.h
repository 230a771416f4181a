/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How the size of a raw tracepoint record is found: shared by the generic
 * tracepoint program (bpf/record.bpf.c), its loader (user/events.c) and,
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

#endif /* TRACER_RECORD_H */
