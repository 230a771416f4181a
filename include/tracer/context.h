/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --context: the context fields (tracer/record.h's enum
 * tr_context_field) by name, as the command line gives them.
 */
#ifndef TRACER_CONTEXT_H
#define TRACER_CONTEXT_H

#include <stddef.h>
#include <linux/types.h>

/* A list such as "cgroup,uid" as 1 << TR_CONTEXT_* flags; on failure -EINVAL and one line in why. */
int tr_context_parse(const char *list, __u32 *flags, char *why, size_t whylen);

#endif /* TRACER_CONTEXT_H */
