/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The context fields record --context adds to every tracepoint record
 * (tracer/record.h): their names, as the command line, .tracer/context
 * and the CTF metadata give them (tr_context_parse(): tracer/context.h).
 */
#ifndef TRACER_COMMON_CONTEXT_H
#define TRACER_COMMON_CONTEXT_H

#include <stddef.h>
#include <linux/types.h>
#include <tracer/context.h>

/* Field i's name (enum tr_context_field), or NULL past the last. */
const char *tr_context_name(unsigned int i);
/* Whether field name holds a signed value (prio, nice). */
int tr_context_signed(const char *name);

#endif /* TRACER_COMMON_CONTEXT_H */
