/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report's view of the call stacks a -g trace's records carry: each
 * record's frames under its line, named (perf script's layout), or all of
 * them folded, one line per distinct stack with its count
 * ("comm;outermost;...;innermost COUNT", what FlameGraph's flamegraph.pl
 * reads; the user's frames, then the kernel's).
 */
#ifndef TRACER_STACKS_H
#define TRACER_STACKS_H

#include <stdio.h>

#include "reader/symbols.h"
#include "reader/trace.h"

/* A record's frames, one line each, then an empty line if it has any. */
void tr_stacks_print(FILE *out, struct tr_symbols *symbols, const struct tr_item *it);

struct tr_folded;

struct tr_folded *tr_folded_new(void);
/* Counts a record's stacks under its command name comm; 0 or -ENOMEM. */
int tr_folded_add(struct tr_folded *f, struct tr_symbols *symbols, const char *comm,
		  const struct tr_item *it);
/* The distinct stacks in the order of their text, with their counts. */
void tr_folded_print(struct tr_folded *f, FILE *out);
void tr_folded_free(struct tr_folded *f);

#endif /* TRACER_STACKS_H */
