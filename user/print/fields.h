/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report --raw's text, and that of the classes print/print_fmt.h has no plan
 * for: a record's fields printed exactly as libtraceevent's
 * tep_print_fields() prints them (" name=value" each), from a plan made
 * once per event class, with no allocation and no printf per record.
 * A class the plan cannot reproduce byte for byte (a conversion with a
 * width or flags, %s of a pointer, %pS and the like, __rel_loc data) gets
 * no plan, and libtraceevent prints its records; tests/format/print_test.c
 * compares the two over every tracepoint format of the running kernel.
 */
#ifndef TRACER_PRINT_FIELDS_H
#define TRACER_PRINT_FIELDS_H

#include <stddef.h>

struct tep_event;
struct tr_field_plan;

/* Text being built: len bytes in buf, room for cap. */
struct tr_line {
	char *buf;
	size_t len, cap;
};

/* Room for n more bytes in line: 0, or -1 (out of memory). */
int tr_line_reserve(struct tr_line *line, size_t n);

/*
 * The text of a print format up to its next conversion, escapes read as
 * libtraceevent's parse_arg_string() reads them, into text (room for
 * strlen(fmt) + 1 bytes): the format bytes it takes, or 0 (an escape that
 * ends the format, which libtraceevent reads past).
 */
size_t tr_print_text(const char *fmt, char *text);

/* The little-endian number at p, as tep_read_number() reads it (0: a size it does not). */
unsigned long long tr_read_number(const unsigned char *p, int size);

/*
 * What libtraceevent's eval_type_str() keeps of a value cast to type: a
 * mask (its "unsigned" test is moot: it never sign-extends).
 */
unsigned long long tr_cast_mask(const char *type);

/* An integer conversion of a print format that is printed without printf. */
struct tr_conversion {
	char conv;			/* 'd' 'u' 'x' 'X' 'o' 'p', or 0: none */
	unsigned int bits;		/* the width of the value printf gets: 8 to 64 */
	unsigned int flags;		/* TR_CONV_*, as printf reads them */
	unsigned int width;		/* at most 99 */
};

enum {
	TR_CONV_ALT = 1,		/* '#': 0x before hex, 0 before octal */
	TR_CONV_ZERO = 2,		/* '0': pad with zeros */
	TR_CONV_LEFT = 4,		/* '-': pad on the right */
};

/* The bits of a conversion's value for libtraceevent's length count (-2 hh .. 2 ll). */
unsigned int tr_conversion_bits(int ls);

/* v written at p as printf writes it through c (room for 99 + 24 bytes): the end. */
char *tr_put_conversion(char *p, const struct tr_conversion *c, unsigned long long v);

/*
 * libtraceevent takes a u8 or s8 array for a string, as it does a char
 * array, and prints it up to its first zero byte: an address that starts
 * with one (::ffff:127.0.0.1) prints as nothing.  Such arrays hold bytes
 * (addresses, ids), so this marks ev's as no strings: they print as
 * "ARRAY[xx, xx]" (the numbers babeltrace2 shows), by the plan and by
 * tep_print_fields() alike.
 */
void tr_fields_bytes_as_bytes(struct tep_event *ev);

/*
 * The plan for ev's records (after tr_fields_bytes_as_bytes(ev)), or
 * NULL: libtraceevent prints them.
 */
struct tr_field_plan *tr_field_plan_new(struct tep_event *ev);
void tr_field_plan_free(struct tr_field_plan *plan);

/*
 * Appends the fields of a record of the plan's class (size bytes at data,
 * every field inside them, a NUL byte after them) to line: 0, or -1 (out
 * of memory).  Like libtraceevent, it marks a char array that held
 * unprintable bytes as no string, for this record and every later one.
 */
int tr_field_plan_print(const struct tr_field_plan *plan, const void *data, unsigned int size,
			struct tr_line *line);

#endif /* TRACER_PRINT_FIELDS_H */
