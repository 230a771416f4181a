/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The call stacks a -g trace's records carry, named: each record's frames
 * under its line in report's text (perf script's layout), and folded
 * ("comm;outermost;...;innermost COUNT", what FlameGraph's flamegraph.pl
 * reads; the user's frames, then the kernel's), counted by record
 * (report --folded, sinks/folded.c) or weighted by time (analyze offcpu).
 */
#ifndef TRACER_STACKS_H
#define TRACER_STACKS_H

#include <stdio.h>

#include "reader/symbols.h"
#include "reader/trace.h"

/* Frame i of a record's stacks, named: the kernel's come first in the record. */
struct tr_frame_name tr_stack_frame_name(struct tr_symbols *symbols, const struct tr_item *it,
					 unsigned int i);

/* A record's frames, one line each, then an empty line if it has any. */
void tr_stacks_print(FILE *out, struct tr_symbols *symbols, const struct tr_item *it);

/* The distinct stacks folded, each with its count or weight. */
struct tr_folded_stacks;

/* An empty table, or NULL without memory. */
struct tr_folded_stacks *tr_folded_new(void);
/* it's stacks folded under comm (';' in it made '_'): a string to free, or NULL without memory. */
char *tr_folded_text(struct tr_symbols *symbols, const char *comm, const struct tr_item *it);
/* weight added to text's stack (text taken, freed on failure): 0 or -ENOMEM. */
int tr_folded_add_text(struct tr_folded_stacks *f, char *text, __u64 weight);
/* weight added to it's stacks folded under comm: 0 or -ENOMEM. */
int tr_folded_add(struct tr_folded_stacks *f, struct tr_symbols *symbols, const char *comm,
		  const struct tr_item *it, __u64 weight);
/* The stacks in the order of their text, a line each with its count; then f may only be freed. */
void tr_folded_print(struct tr_folded_stacks *f, FILE *out);
void tr_folded_free(struct tr_folded_stacks *f);

#endif /* TRACER_STACKS_H */
