/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The context fields record --context adds to every tracepoint record
 * (tracer/record.h): their names, as the command line, .tracer/context
 * and the CTF metadata give them.
 */
#ifndef TRACER_CONTEXT_H
#define TRACER_CONTEXT_H

#include <stddef.h>
#include <linux/types.h>

/* Field i's name (enum tr_context_field), or NULL past the last. */
const char *tr_context_name(unsigned int i);
/* Whether field name holds a signed value (prio, nice). */
int tr_context_signed(const char *name);
/* A list such as "cgroup,uid" as 1 << TR_CONTEXT_* flags; on failure -EINVAL and one line in why. */
int tr_context_parse(const char *list, __u32 *flags, char *why, size_t whylen);

#endif /* TRACER_CONTEXT_H */
