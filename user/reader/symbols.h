/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for the frames of a trace's call stacks (record -g): kernel
 * addresses through the kernel's symbols saved with the trace
 * (.tracer/kallsyms), user addresses through the process's mappings at
 * the time, from the trace's tracer:vm_map records (tracer/record.h),
 * and the symbol tables of the files mapped, read with libelf as they
 * are now (a file rebuilt since names wrongly, as with perf without its
 * build-id cache).  A process that forked without exec'ing runs its
 * parent's code, as the tracer:task_state records say.  What the trace
 * holds is not trusted: mapped paths are opened only as regular files.
 */
#ifndef TRACER_SYMBOLS_H
#define TRACER_SYMBOLS_H

#include <linux/types.h>

struct tr_trace;
struct tr_symbols;

/* A frame's name: function, offset into it, and the file it is in. */
struct tr_frame_name {
	const char *function;		/* NULL: unknown */
	__u64 offset;
	const char *file;		/* "[kernel.kallsyms]", a path, or NULL */
};

struct tr_item;

/*
 * The names of trace's frames, or NULL without memory.  Its kernel
 * symbols are read at the first kernel lookup: trace stays open while
 * they may be looked up.
 */
struct tr_symbols *tr_symbols_open(const struct tr_trace *trace);
/* Learns the mappings and parents from the trace's items: all of them, before any lookup. */
void tr_symbols_learn(struct tr_symbols *s, const struct tr_item *it);

struct tr_frame_name tr_symbols_kernel(struct tr_symbols *s, __u64 address);
/* A user frame of process pid in a record of time ts. */
struct tr_frame_name tr_symbols_user(struct tr_symbols *s, __u32 pid, __u64 ts, __u64 address);

void tr_symbols_close(struct tr_symbols *s);

#endif /* TRACER_SYMBOLS_H */
