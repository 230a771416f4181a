/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer export --format jsonl: one JSON object per line for each record
 * and each loss, for scripts and log pipelines.  A record:
 *	{"ts":NS,"cpu":N,"pid":P,"tid":T,"comm":"...","event":"system:name",
 *	 "fields":{...}[,"context":{...}][,"kernel_stack":[...],"user_stack":[...]]}
 * fields in the format's order: integers as numbers, text as strings,
 * other arrays as arrays of numbers; stack frames as "0x..." strings.
 * A loss: {"ts":NS,"cpu":N,"lost":{...}[,"channel":"..."]}.
 */
#ifndef TRACER_EXPORT_JSON_H
#define TRACER_EXPORT_JSON_H

#include <stdio.h>

struct tr_item;

/* A record, with its context fields' names (record --context). */
void tr_json_record(FILE *out, const struct tr_item *it, const char *comm,
		    const char *const *context, unsigned int ncontext);
void tr_json_lost(FILE *out, const struct tr_item *it);
/* A record's fields as one JSON object, as in its line. */
void tr_json_fields(FILE *out, const struct tr_item *it);
/*
 * Text as a JSON string: up to len bytes or the first NUL.  Control bytes
 * and bytes outside ASCII are escaped one by one (\u00XX, as Latin-1).
 */
void tr_json_string(FILE *out, const char *text, size_t len);

#endif /* TRACER_EXPORT_JSON_H */
