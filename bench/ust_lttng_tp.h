/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Workload 6's lttng-ust events: those of ../shared/notes/ust-baselines.md. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ust_lttng_tp.h"
#if !defined(UST_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define UST_LTTNG_TP_H
#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(bench, ev2,
	LTTNG_UST_TP_ARGS(long, a, uintptr_t, p),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(long, a, a)
		lttng_ust_field_integer_hex(uintptr_t, p, p)))

LTTNG_UST_TRACEPOINT_EVENT(bench, ev2str,
	LTTNG_UST_TP_ARGS(long, a, uintptr_t, p, const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(long, a, a)
		lttng_ust_field_integer_hex(uintptr_t, p, p)
		lttng_ust_field_string(s, s)))
#endif
#include <lttng/tracepoint-event.h>
