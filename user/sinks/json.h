/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON written, for the sinks that write it (sinks/jsonl.c, sinks/chrome.c)
 * and tracer top's --batch JSON lines: a record's fields as one object, in
 * the format's order: integers as numbers, text as strings, other arrays
 * as arrays of numbers.
 */
#ifndef TRACER_EXPORT_JSON_H
#define TRACER_EXPORT_JSON_H

#include <stdio.h>

struct tr_item;

/* A record's fields as one JSON object. */
void tr_json_fields(FILE *out, const struct tr_item *it);
/*
 * Text as a JSON string: up to len bytes or the first NUL.  Control bytes
 * and bytes outside ASCII are escaped one by one (\u00XX, as Latin-1).
 */
void tr_json_string(FILE *out, const char *text, size_t len);
/* An integer of size bytes at data, little-endian, as the format says it is signed or not. */
void tr_json_integer(FILE *out, const unsigned char *data, unsigned int size, int is_signed);

#endif /* TRACER_EXPORT_JSON_H */
