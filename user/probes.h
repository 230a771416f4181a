/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Uprobes as events: "-e uprobe:PATH:FUNCTION" records the function's
 * entry with its first six argument registers (arg1..arg6, raw: no
 * debug information is read yet), "-e uretprobe:PATH:FUNCTION" its return
 * with the return value (ret).  Each is an event class like a tracepoint,
 * named uprobe:FUNCTION or uretprobe:FUNCTION, with a format of its own
 * written beside the trace, so report and babeltrace2 print its fields by
 * name.  bpf/record.bpf.c's tr_uprobe and tr_uretprobe write the records.
 */
#ifndef TRACER_PROBES_H
#define TRACER_PROBES_H

#include <stddef.h>

struct tr_event_set;

/* Whether spec names a uprobe or uretprobe (the rest may still be wrong). */
int tr_probe_spec(const char *spec);

/*
 * The event of probe spec, added to set: 0, or -errno with one line in
 * why (a malformed spec, a file that is not there, a function the file
 * does not have, with the closest it has, the same function twice).
 */
int tr_probe_add(struct tr_event_set *set, const char *spec, char *why, size_t whylen);

#endif /* TRACER_PROBES_H */
