/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The call stacks a -g trace's records carry, named: each record's frames
 * under its line in report's text (perf script's layout), and for the
 * folded stacks (sinks/folded.c).
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

#endif /* TRACER_STACKS_H */
