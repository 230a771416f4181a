/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The names lttng-modules gives the tracepoints it records with the kernel's own fields (lttng_names.c). */
#ifndef TRACER_LTTNG_NAMES_H
#define TRACER_LTTNG_NAMES_H

/* LTTng's name for tracepoint system:name, if lttng-modules records it with the tracefs format's fields; else NULL. */
const char *lt_lttng_name(const char *system, const char *name);

#endif /* TRACER_LTTNG_NAMES_H */
