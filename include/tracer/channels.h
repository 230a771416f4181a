/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Channels by name: what record --channel and -e EVENT@NAME take, and
 * what a trace directory's .tracer/channels and stream files
 * (CHANNEL_CPU) are named by.
 */
#ifndef TRACER_CHANNELS_H
#define TRACER_CHANNELS_H

#include <stddef.h>
#include <string.h>

/* Channel names: 1 to TR_CHANNEL_NAME_MAX - 1 letters, digits, '-' or '_'. */
#define TR_CHANNEL_NAME_MAX	32
/* The channel of every event no -e EVENT@NAME sends elsewhere, and of older traces. */
#define TR_DEFAULT_CHANNEL	"channel0"
/* The channel of user-space events (record/ust_buffers.c): never a kernel event's. */
#define TR_UST_CHANNEL		"ust"

/* Whether the len bytes at name are a channel name (above). */
static inline int tr_trace_dir_channel_name_ok(const char *name, size_t len)
{
	return len && len < TR_CHANNEL_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") >= len;
}

#endif /* TRACER_CHANNELS_H */
