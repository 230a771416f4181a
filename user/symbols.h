/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for the frames of a trace's call stacks (record -g): kernel
 * addresses through the kernel's symbols saved with the trace
 * (.tracer/kallsyms), user addresses through the process's mappings saved
 * with it (.tracer/maps) and the symbol tables of the files mapped, read
 * with libelf as they are now (a file rebuilt since names wrongly, as
 * with perf without its build-id cache).  What the trace holds is not
 * trusted: mapped paths are opened only as regular files.
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

/* Loads the trace's symbols and mappings; NULL without memory. */
struct tr_symbols *tr_symbols_open(const struct tr_trace *trace);

struct tr_frame_name tr_symbols_kernel(struct tr_symbols *s, __u64 address);
struct tr_frame_name tr_symbols_user(struct tr_symbols *s, __u32 pid, __u64 address);

void tr_symbols_close(struct tr_symbols *s);

#endif /* TRACER_SYMBOLS_H */
