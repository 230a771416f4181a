/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tracepoint formats read back from a trace (.tracer/events), checked
 * before libtraceevent sees them.  libtraceevent's parser trusts its input
 * (a format cut off in a string loops or crashes inside it), so a format
 * is accepted only in the shape tracefs writes, and rewritten so that the
 * parser gets nothing it could misread: the field lines as they are, and a
 * print format reduced to what printing a field uses (see reader/format_check.c).
 */
#ifndef TRACER_FORMAT_CHECK_H
#define TRACER_FORMAT_CHECK_H

#include <stddef.h>

/* The largest format accepted, in bytes (tracefs's are a few KiB). */
#define TR_FORMAT_MAX		65536

/*
 * The format text (len bytes, not NUL-terminated) rewritten for
 * tep_parse_format() with id as its ID: a NUL-terminated string to free(),
 * or NULL with *why saying what is wrong with the text.
 */
char *tr_format_sanitize(const char *text, size_t len, unsigned int id, const char **why);

/*
 * The same, but with the print fmt whole (report's default text evaluates
 * it: print/print_fmt.c), or NULL where it holds what tracer does not evaluate
 * or libtraceevent might misparse: enum names left unresolved, sizeof,
 * kernel functions, unbalanced brackets (see arg_whole() in reader/format_check.c).
 */
char *tr_format_whole(const char *text, size_t len, unsigned int id, const char **why);

#endif /* TRACER_FORMAT_CHECK_H */
