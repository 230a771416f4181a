/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How tracer record finds libtracer-ust's memory: what the library
 * (ust.c, ust_meta.c, ust_handoff.c) and the recorder (user/record/ust_buffers.c)
 * agree on.
 */
#ifndef TRACER_UST_HANDOFF_H
#define TRACER_UST_HANDOFF_H

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/* memfd names, seen in /proc/PID/fd as "/memfd:NAME (deleted)". */
#define UST_BUFFER_MEMFD	"tracer-ust"		/* a buffer (layout.h's region) */
#define UST_META_MEMFD		"tracer-ust-meta"	/* .tracer/events's text, the process's ids */

/*
 * Each memfd is sealed at its size before it is handed over: a recorder
 * maps it, and a file that shrank under a mapping would kill the
 * recorder with SIGBUS at its next read.  A recorder takes no memfd
 * without UST_SEALS_NEEDED; the descriptions are sealed against writes
 * too, being written once.
 */
#define UST_SEALS_NEEDED	(F_SEAL_SHRINK | F_SEAL_GROW)
#define UST_BUFFER_SEALS	(UST_SEALS_NEEDED | F_SEAL_SEAL)
#define UST_META_SEALS		(UST_SEALS_NEEDED | F_SEAL_WRITE | F_SEAL_SEAL)

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
 * of -a or -p listens on this abstract address, a sequenced-packet
 * socket, so that programs started while it records are read from their
 * first event, however short they live.  Programs started before it are
 * found through /proc.  Any user may take an abstract address first, so
 * a program connects, and hands its memory over only if the listener's
 * credentials (SO_PEERCRED, which a datagram socket has not) are root's
 * or its own effective user's; the same holds for the socket a recorder
 * gives its command.
 */
#define UST_REGISTRY_NAME	"tracer-ust-registry"

/* Its address (abstract: a NUL, then the name), and the address's length. */
static inline socklen_t ust_registry_address(struct sockaddr_un *addr)
{
	*addr = (struct sockaddr_un) { .sun_family = AF_UNIX };
	memcpy(addr->sun_path + 1, UST_REGISTRY_NAME, sizeof(UST_REGISTRY_NAME) - 1);
	return offsetof(struct sockaddr_un, sun_path) + sizeof(UST_REGISTRY_NAME);
}

/* Each message: one of these bytes, and the memfd (SCM_RIGHTS). */
#define UST_HANDOFF_META	'm'
#define UST_HANDOFF_BUFFER	'b'

#endif /* TRACER_UST_HANDOFF_H */
