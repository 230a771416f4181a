/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The directory a recording writes, safe against other local users:
 * created exclusively and private (0700, files 0600, as perf writes its
 * data), then every file created relative to the directory's descriptor
 * with O_CREAT | O_EXCL | O_NOFOLLOW, so that nothing planted in it or
 * swapped for it redirects the writes of a recorder running as root.
 * Under sudo everything belongs to the user who ran sudo.  The directory
 * stays locked (flock) while open: a second recorder cannot replace it.
 */
#ifndef TRACER_TRACE_DIR_H
#define TRACER_TRACE_DIR_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <tracer/channels.h>

struct tr_event_set;

struct tr_trace_dir {
	int fd;			/* the directory, locked; -1 when not open */
	int meta_fd;		/* its .tracer/, for tracer's own files */
	uid_t uid;		/* owner given to everything created */
	gid_t gid;
	int give_away;		/* uid:gid differ from ours (sudo) */
};

#define TR_TRACE_DIR_CLOSED	{ .fd = -1, .meta_fd = -1 }

/*
 * Who what tracer writes belongs to, in *uid and *gid: root run through
 * sudo writes for the user who ran sudo (SUDO_UID, SUDO_GID), whose it is
 * to read and remove, as with perf under sudo; else we.  1 when that is
 * not us, else 0.
 */
int tr_sudo_owner(uid_t *uid, gid_t *gid);

/*
 * Create the trace directory path.  If it exists, replace it only when
 * replace is set and it is a trace no recorder is writing: it becomes
 * path.old (an older path.old goes, if it holds nothing but a trace).
 * 0, or -errno with one line in why: -EEXIST for a directory that must
 * not be replaced, -EBUSY when another recorder holds it.
 */
int tr_trace_dir_create(struct tr_trace_dir *d, const char *path, int replace,
			char *why, size_t whylen);

/*
 * Remove the trace directory d created at path, and all it holds, if it
 * holds only what a trace does and path is still it: 0, or -errno
 * (-ENOTEMPTY: something else is in it, -ESTALE: path is another now).
 */
int tr_trace_dir_remove(const struct tr_trace_dir *d, const char *path);

/* The CTF metadata file, created for writing. */
FILE *tr_trace_dir_metadata(const struct tr_trace_dir *d);

/* The stream file CHANNEL_CPU, created for writing: a descriptor, or -errno. */
int tr_trace_dir_stream_file(const struct tr_trace_dir *d, const char *channel, unsigned int cpu);

/*
 * A stream file CHANNEL_CPU for every channel and CPU, into
 * fd[channel * ncpu + cpu].  0 or -errno.
 */
int tr_trace_dir_open_streams(const struct tr_trace_dir *d, const char *const *channels,
			      unsigned int nchannels, unsigned int ncpu, int *fd);

/* .tracer/channels: "channel ID NAME" for each channel, by stream class id. */
int tr_trace_dir_write_channels(const struct tr_trace_dir *d, const char *const *channels,
				unsigned int nchannels);

/* What .tracer/ holds for report. */
#define TR_TRACE_FORMATS	"events"	/* the formats as tracefs gave them */
#define TR_TRACE_STACKS		"stacks"	/* there: the records carry stacks */
#define TR_TRACE_KALLSYMS	"kallsyms"	/* /proc/kallsyms at record time (-g, %pS) */
#define TR_TRACE_CHANNELS	"channels"	/* the channels: which files are streams */
#define TR_TRACE_CONTEXT	"context"	/* --context's fields, in record order */
#define TR_TRACE_PRINTK		"printk_formats"	/* tracefs's: the strings fields point to */

/* One of those, created for writing. */
FILE *tr_trace_dir_meta_file(const struct tr_trace_dir *d, const char *name);

/*
 * The recording's control socket, .tracer/control: a listening Unix
 * socket (SOCK_SEQPACKET, non-blocking) only its owner can reach.  The
 * descriptor, or -errno (-EADDRINUSE: something is there already).
 */
int tr_trace_dir_listen(const struct tr_trace_dir *d);

/* Close the control socket and remove it. */
void tr_trace_dir_unlisten(const struct tr_trace_dir *d, int fd);

/*
 * Connect to the control socket of the recording writing into path, the
 * socket itself, never through a symbolic link in its place: a
 * descriptor, or -errno (-ENOTSOCK: something else is there).
 */
int tr_trace_dir_connect(const char *path);

/* Close (and unlock) the directory; closed or never opened is fine. */
void tr_trace_dir_close(struct tr_trace_dir *d);

#endif /* TRACER_TRACE_DIR_H */
