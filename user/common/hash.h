/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* FNV-1a, the hash of the library's tables (record/ust_buffers.c, sinks/stacks.c). */
#ifndef TRACER_HASH_H
#define TRACER_HASH_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* FNV-1a of the len bytes at bytes. */
static inline __u64 tr_hash_bytes(const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	__u64 h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* FNV-1a of a string's bytes, without its NUL. */
static inline __u64 tr_hash_string(const char *s)
{
	return tr_hash_bytes(s, strlen(s));
}

#endif
