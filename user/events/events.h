/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which tracepoints a recording enables: event specs such as "sched:*" or
 * "syscalls:sys_enter_openat" resolved against tracefs, with each event's
 * format (libtraceevent) and the shape the BPF program needs to copy it.
 */
#ifndef TRACER_EVENTS_EVENTS_H
#define TRACER_EVENTS_EVENTS_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <tracer/events.h>
#include <tracer/record.h>

struct tr_filter;
struct tr_probe;

struct tep_event;

struct tr_event {
	__u32 id;			/* ours: index in the set, tr_event_header.id */
	char *system;
	char *name;
	char *format;			/* tracefs format text */
	struct tep_event *tep;		/* parsed format (owned by the set's tep) */
	struct tr_event_shape shape;
	int not_a_tracepoint;		/* written by the module itself: not attached */
	int syscall_nr;			/* syscalls:sys_{enter,exit}_NAME: NAME's number, or -1 */
	int syscall_exit;		/* ... and which of the two */
	struct tr_filter *filter;	/* --filter compiled, or NULL: record all */
	int unfiltered;			/* some -e selected it without a filter */
	struct tr_probe *probe;		/* a probe's (events/probes.h), or NULL */
};

struct tr_event_set {
	struct tr_event *events;
	unsigned int count;
	struct tep_handle *tep;
};

/*
 * Resolve specs ("system:event", globs allowed in both parts, or a probe:
 * events/probes.h) into a set
 * of distinct events, each with the filter of filters[i] (NULL, or NULL
 * entries: none) compiled for it; an event that several specs select
 * passes what any of their filters passes, and each in the channel
 * channels[i] (NULL: all in channel 0; shape.channel), one per event.  On
 * failure returns -errno and writes one line saying why into why (unknown
 * event with close names, glob matching nothing, tracefs unreadable, a bad
 * filter, an event sent to two channels).
 */
int tr_events_resolve(struct tr_event_set *set, const char *const *specs,
		      const char *const *filters, const unsigned int *channels,
		      unsigned int nspecs, char *why, size_t whylen);
void tr_events_free(struct tr_event_set *set);

/*
 * --snapshot-on SPEC: "system:event" (no glob) then, after another ':',
 * an optional filter.  Its event joins the set if no spec selected it;
 * *id is its id, *recorded whether a spec selected it, trigger its filter
 * (empty: every instance fires).  0, or -errno with one line in why.
 */
int tr_events_add_trigger(struct tr_event_set *set, const char *spec, __u32 *id,
			  int *recorded, struct tr_filter *trigger, char *why, size_t whylen);

/*
 * Whether spec names libtracer-ust events, "ust:PROVIDER:EVENT" (globs
 * allowed): record/ust_buffers.c records those, not tr_events_resolve().
 */
static inline int tr_ust_spec(const char *spec)
{
	return !strncmp(spec, "ust:", 4);
}

/* The event "system:name" of set, or NULL. */
struct tr_event *tr_events_find(struct tr_event_set *set, const char *full);

/*
 * Add an event that is not a tracepoint but is described in tracefs's
 * format syntax (the module's own records); its id is set->count before
 * the call.  0 or -errno.
 */
int tr_events_add_format(struct tr_event_set *set, const char *system,
			 const char *name, const char *format);

#endif /* TRACER_EVENTS_EVENTS_H */
