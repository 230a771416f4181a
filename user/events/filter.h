/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --filter: ftrace's event filter syntax compiled, against one
 * event's format, into the program the BPF side interprets
 * (include/tracer/filter.h).
 *
 *	expr  := and ('||' and)*
 *	and   := unary ('&&' unary)*
 *	unary := '!' unary | '(' expr ')' | field OP value
 *
 * Integer fields take == != < <= > >= and & (a bit test), with decimal,
 * hexadecimal (0x) or octal (0) values, taken in the field's type as the
 * kernel takes them (so "u8_field < 256" is "< 0").  Char array fields,
 * __data_loc strings and COMM take == != and ~ (a glob of * and ?), with a
 * string in double or single quotes.  A string field compares as the
 * string it holds, up to its NUL: ftrace's '~ "*end"' on a char array
 * compares the whole array instead, NULs included, and so matches nothing
 * shorter.  CPU and COMM (or cpu and comm, where the event has no
 * such field) are the event's CPU and the current task's name, as in
 * ftrace.
 */
#ifndef TRACER_FILTER_COMPILE_H
#define TRACER_FILTER_COMPILE_H

#include <stddef.h>
#include <tracer/filter.h>

struct tep_event;

/*
 * Compile expr for event into prog.  0, or -EINVAL with one line in why:
 * "column N: what is wrong".
 */
int tr_filter_compile(struct tep_event *event, const char *expr, struct tr_filter *prog,
		      char *why, size_t whylen);

/*
 * prog := prog || other, for an event two -e options select with their
 * own filters.  0, or -E2BIG when the two do not fit one program.
 */
int tr_filter_or(struct tr_filter *prog, const struct tr_filter *other);

#endif /* TRACER_FILTER_COMPILE_H */
