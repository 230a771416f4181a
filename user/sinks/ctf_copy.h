/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer export --format ctf -o DIR: a copy of the trace holding only the
 * records report's filters select (a time window, some events, a process),
 * readable by report and babeltrace2.  The metadata and .tracer/ are the
 * trace's own; each stream's records are packed into new packets of
 * COPY_PACKET bytes, in order, and a loss keeps its place: the packet
 * before it ends there and carries its counts (overwritten sub-buffers as
 * a gap in packet_seq_num), as the recorder would have written them.
 */
#ifndef TRACER_EXPORT_CTF_H
#define TRACER_EXPORT_CTF_H

#include <stddef.h>

struct tr_item;
struct tr_trace;
struct tr_ctf_copy;

/* Creates DIR (as record creates its trace: exclusive, private); -errno and why. */
int tr_ctf_copy_open(struct tr_ctf_copy **c, const struct tr_trace *trace, const char *dir,
		     char *why, size_t whylen);
void tr_ctf_copy_record(struct tr_ctf_copy *c, const struct tr_item *it);
void tr_ctf_copy_lost(struct tr_ctf_copy *c, const struct tr_item *it);
/*
 * Writes what is left, closes DIR, frees c: 0, or the first write's
 * -errno, and then DIR is removed (a copy cut short is no copy).
 */
int tr_ctf_copy_close(struct tr_ctf_copy *c);

#endif /* TRACER_EXPORT_CTF_H */
