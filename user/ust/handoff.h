/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How tracer record finds libtracer-ust's memory: what the library
 * (ust.c, ust_meta.c, ust_handoff.c) and the recorder (user/record_ust.c)
 * agree on.
 */
#ifndef TRACER_UST_HANDOFF_H
#define TRACER_UST_HANDOFF_H

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/* memfd names, seen in /proc/PID/fd as "/memfd:NAME (deleted)". */
#define UST_BUFFER_MEMFD	"tracer-ust"		/* a buffer (layout.h's region) */
#define UST_META_MEMFD		"tracer-ust-meta"	/* .tracer/events's text, the process's ids */

/* The recorder's datagram socket a command it starts inherits, by number. */
#define UST_HANDOFF_ENV		"TRACER_UST_FD"

/*
 * ... and its eventfd, by number: a writer that ends a sub-buffer adds 1
 * to it, so that the recorder reads the sub-buffer at once rather than at
 * its next flush period (a full buffer in discard mode loses events).
 */
#define UST_WAKE_ENV		"TRACER_UST_WAKE_FD"
#define UST_WAKE_LINK		"anon_inode:[eventfd]"

/*
 * Where a program that no recorder started hands its memory: a recorder
 * of -a or -p binds this abstract datagram address, so that programs
 * started while it records are read from their first event, however
 * short they live.  Programs started before it are found through /proc.
 */
#define UST_REGISTRY_NAME	"tracer-ust-registry"

/* Its address (abstract: a NUL, then the name), and the address's length. */
static inline socklen_t ust_registry_address(struct sockaddr_un *addr)
{
	*addr = (struct sockaddr_un) { .sun_family = AF_UNIX };
	memcpy(addr->sun_path + 1, UST_REGISTRY_NAME, sizeof(UST_REGISTRY_NAME) - 1);
	return offsetof(struct sockaddr_un, sun_path) + sizeof(UST_REGISTRY_NAME);
}

/* Each datagram: one of these bytes, and the memfd (SCM_RIGHTS). */
#define UST_HANDOFF_META	'm'
#define UST_HANDOFF_BUFFER	'b'

#endif /* TRACER_UST_HANDOFF_H */
