/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Event filters (record --filter, ftrace's filter syntax) as the BPF
 * program runs them: compiled by user/events/filter.c into a short postfix
 * program per event, and interpreted by bpf/filter.bpf.h on the raw
 * record before any buffer space is reserved.
 *
 * A program is a sequence of instructions over a stack of booleans:
 * a comparison pushes its outcome, TR_FOP_AND and TR_FOP_OR pop two and
 * push one, TR_FOP_NOT flips the top.  A well-formed program leaves one
 * boolean, the verdict.  The compiler guarantees the form; the
 * interpreter stays within its bounds whatever a program holds.
 */
#ifndef TRACER_FILTER_H
#define TRACER_FILTER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Instructions of one event's program; its stack is as deep at most. */
#define TR_FILTER_MAX_INSNS	32
/*
 * String operands: at most TR_FILTER_STR - 1 bytes, and a NUL.  The
 * fields they are compared with are compared whole, as ftrace does,
 * whatever their length (at most TR_FILTER_FIELD_MAX bytes: a
 * __data_loc's length is 16 bits), TR_FILTER_STR bytes at a time.
 */
#define TR_FILTER_STR		64
#define TR_FILTER_FIELD_MAX	65535
/* Bytes of the string operands of one program, each NUL-terminated. */
#define TR_FILTER_STRINGS	512

enum tr_filter_op {
	/* integer comparisons of a field with value */
	TR_FOP_EQ, TR_FOP_NE, TR_FOP_LT, TR_FOP_LE, TR_FOP_GT, TR_FOP_GE,
	TR_FOP_BAND,		/* (field & value) != 0 */
	/* string comparisons of a field with the operand at value */
	TR_FOP_STR_EQ, TR_FOP_STR_NE,
	TR_FOP_GLOB,		/* ~: '*' any run, '?' any one character */
	/* on the boolean stack */
	TR_FOP_AND, TR_FOP_OR, TR_FOP_NOT,
};

/* Where a comparison's field comes from. */
enum tr_filter_src {
	TR_FSRC_INT,		/* integer of size bytes at offset */
	TR_FSRC_CHARS,		/* char array of chars bytes at offset, up to a NUL */
	TR_FSRC_DATA_LOC,	/* __data_loc char[]: u32 locator at offset */
	TR_FSRC_REL_LOC,	/* __rel_loc char[]: the same, from the locator's end */
	TR_FSRC_CPU,		/* ftrace's CPU: the CPU the event happened on */
	TR_FSRC_COMM,		/* ftrace's COMM: the current task's name */
};

struct tr_filter_insn {
	__u8 op;		/* enum tr_filter_op */
	__u8 src;		/* enum tr_filter_src */
	__u8 is_signed;		/* TR_FSRC_INT: compare as signed */
	__u8 size;		/* TR_FSRC_INT: 1, 2, 4 or 8 */
	__u16 offset;		/* of the field (or its locator) in the record */
	__u16 chars;		/* TR_FSRC_CHARS: the array's bytes */
	__u64 value;		/* integer operand, or string operand's offset in strings */
};

/* One event's filter: the value of tr_filters[event id]; ninsn 0 passes all. */
struct tr_filter {
	__u32 ninsn;
	__u32 strings_used;		/* bytes of strings taken (the compiler's count) */
	struct tr_filter_insn insn[TR_FILTER_MAX_INSNS];
	char strings[TR_FILTER_STRINGS];
};

#endif /* TRACER_FILTER_H */
