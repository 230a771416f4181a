// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What tep_print_fields() (libtraceevent 1.7) prints for each of an
 * event's own fields, " name=" and then:
 *
 *  - an array: its text while it is a string of printable bytes, else
 *    "ARRAY[xx, xx]" (and the field is no string from then on); a u8 or
 *    s8 array always so (tr_fields_bytes_as_bytes());
 *  - any other field: the print format's conversion whose argument is that
 *    field (through casts), "0x" first where the text before it ends so;
 *    without one, by its type (print_field_raw()).
 *
 * Which conversion prints a field depends on the format alone: the search
 * starts after the conversion that printed the previous field and wraps
 * around, and once the last conversion has printed one, the fields after
 * it print by type.  The plan is that walk, done once per class; what is
 * left per record is reading numbers and writing digits.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <event-parse.h>

#include "print/fields.h"

#define MAX_PIECES	256

/* A piece of the print format, as libtraceevent's parse_args() splits it. */
struct piece {
	struct tep_print_arg *arg;	/* a conversion's; NULL for text */
	int ends_0x;			/* text: ends in "0x" */
	struct tr_conversion c;		/* c.conv 0: one the plan cannot print */
};

enum step_kind {
	STEP_CONVERSION,		/* the format's conversion prints it */
	STEP_BY_TYPE,			/* a number without one */
	STEP_ARRAY,
};

struct step {
	struct tep_format_field *field;
	enum step_kind kind;
	struct tr_conversion c;
	int prefix_0x;
	unsigned long long mask;	/* what the argument's casts keep */
};

struct tr_field_plan {
	unsigned int nsteps;
	struct step steps[];
};

int tr_line_reserve(struct tr_line *line, size_t n)
{
	size_t cap = line->cap ? line->cap : 4096;
	char *buf;

	if (line->cap - line->len >= n)
		return 0;
	while (cap - line->len < n)
		cap *= 2;
	buf = realloc(line->buf, cap);
	if (!buf)
		return -1;
	line->buf = buf;
	line->cap = cap;
	return 0;
}

/* --- The plan ----------------------------------------------------------------- */

size_t tr_print_text(const char *fmt, char *text)
{
	size_t i = 0, n = 0;

	for (; fmt[i] && !(fmt[i] == '%' && fmt[i + 1] != '%'); i++) {
		char c = fmt[i];

		if (c == '\\') {
			c = fmt[++i];
			if (!c)
				return 0;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
		} else if (c == '%') {
			i++;
		}
		text[n++] = c;
	}
	text[n] = 0;
	return i;
}

/* Text up to the next conversion as a piece: the format bytes it takes, or 0. */
static size_t take_text(const char *fmt, struct piece *p)
{
	char *text = malloc(strlen(fmt) + 1);
	size_t used = text ? tr_print_text(fmt, text) : 0, n = used ? strlen(text) : 0;

	*p = (struct piece) { .ends_0x = n >= 2 && !strcmp(text + n - 2, "0x") };
	free(text);
	return used;
}

/*
 * A conversion, read as parse_arg_format() reads it, taking its argument
 * from *args: the number of format bytes it takes, or 0 where
 * libtraceevent would fail the event or warn.  *added is 0 for a
 * conversion cut off by the format's end, which adds no piece.
 */
static size_t take_conversion(const char *fmt, struct tep_print_arg **args, struct piece *p,
			      int *added)
{
	int ls = 0, plain = 1, in_flags = 1;
	size_t i;

	*p = (struct piece) { .arg = NULL };
	*added = 1;
	for (i = 1; fmt[i]; i++) {
		char c = fmt[i];

		if (c == 'h' || c == 'l') {
			ls += c == 'l' ? 1 : -1;
			in_flags = 0;
		} else if (c == 'z') {
			ls = 1;
			in_flags = 0;
		} else if (in_flags && strchr("#0-", c)) {
			p->c.flags |= c == '#' ? TR_CONV_ALT : c == '0' ? TR_CONV_ZERO : TR_CONV_LEFT;
		} else if (c >= '0' && c <= '9') {
			p->c.width = p->c.width * 10 + c - '0';
			in_flags = 0;
			plain &= p->c.width < 100;
		} else if (strchr("#.-LZ*", c)) {
			plain = 0;
			if (c == '*' && !*args)
				return 0;
			if (c == '*')
				*args = (*args)->next;
		} else if (strchr("duixXops", c)) {
			if (!*args || i + 1 > 30 || ls < -2 || ls > 2)
				return 0;
			/* %pS and the like print symbols, addresses and buffers */
			if (c == 'p' && fmt[i + 1] && strchr("FSfsMmIiUh", fmt[i + 1]))
				return 0;
			/* %p and %s print as they are only plain */
			plain &= !strchr("ps", c) || (!p->c.flags && !p->c.width);
			p->arg = *args;
			*args = (*args)->next;
			p->c.conv = !plain || c == 's' ? 0 : c == 'i' ? 'd' : c;
			p->c.bits = c == 'p' ? 64 : tr_conversion_bits(ls);
			return i + 1;
		} else {
			/* libtraceevent keeps ">c<" as text */
			*p = (struct piece) { .arg = NULL };
			return i + 1;
		}
	}
	*added = 0;
	return i;
}

/* ev's print format in pieces: how many, or -1 if the plan cannot follow it. */
static int split_format(struct tep_event *ev, struct piece *pieces)
{
	const char *fmt = ev->print_fmt.format;
	struct tep_print_arg *args = ev->print_fmt.args;
	int n = 0;

	while (fmt && *fmt) {
		int added = 1;
		size_t used;

		if (n == MAX_PIECES)
			return -1;
		if (fmt[0] == '%' && fmt[1] != '%')
			used = take_conversion(fmt, &args, &pieces[n], &added);
		else
			used = take_text(fmt, &pieces[n]);
		if (!used)
			return -1;
		n += added;
		fmt += used;
	}
	return n;
}

unsigned long long tr_cast_mask(const char *type)
{
	size_t n = strlen(type);

	if (n < 2 || type[n - 1] == '*' || !strncmp(type, "struct", 6))
		return ~0ull;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	return !strcmp(type, "char") ? 0xff : !strcmp(type, "short") ? 0xffff :
	       !strcmp(type, "int") ? 0xffffffff : ~0ull;
}

/* The field a conversion's argument reads, through casts (*mask: what they keep), or NULL. */
static struct tep_format_field *argument_field(struct tep_print_arg *arg, unsigned long long *mask)
{
	*mask = ~0ull;
	while (arg && arg->type == TEP_PRINT_TYPE) {
		/* a type this short makes libtraceevent warn */
		if (!arg->typecast.type || strlen(arg->typecast.type) < 2)
			return NULL;
		*mask &= tr_cast_mask(arg->typecast.type);
		arg = arg->typecast.item;
	}
	return arg && arg->type == TEP_PRINT_FIELD ? arg->field.field : NULL;
}

/*
 * The piece that prints field, searched from *at as print_field() does:
 * its index, with *at moved past it (-1: past the last), or -1.
 */
static int find_conversion(const struct piece *pieces, int n, int *at,
			   const struct tep_format_field *field, int *prefix_0x)
{
	int i = *at, has_0x = 0;
	unsigned long long mask;

	do {
		if (!pieces[i].arg) {
			has_0x = pieces[i].ends_0x;
		} else if (argument_field(pieces[i].arg, &mask) == field) {
			*prefix_0x = has_0x;
			*at = i + 1 < n ? i + 1 : -1;
			return i;
		} else {
			has_0x = 0;
		}
		i = (i + 1) % n;
	} while (i != *at);
	return -1;
}

/* Every cast's type must be one eval_type_str() reads without a warning. */
static int casts_ok(const struct piece *pieces, int n)
{
	unsigned long long mask;
	int i;

	for (i = 0; i < n; i++) {
		struct tep_print_arg *arg = pieces[i].arg;

		if (arg && arg->type == TEP_PRINT_TYPE && !argument_field(arg, &mask)) {
			while (arg && arg->type == TEP_PRINT_TYPE)
				arg = arg->typecast.item;
			if (arg && arg->type == TEP_PRINT_FIELD)
				return 0;
		}
	}
	return 1;
}

/* How field prints when no conversion does, or -1 if the plan cannot. */
static int step_by_type(struct tep_format_field *field, struct step *s)
{
	/* __rel_loc, and a two-byte __data_loc (libtraceevent sizes it oddly) */
	if ((field->flags & TEP_FIELD_IS_RELATIVE) ||
	    ((field->flags & TEP_FIELD_IS_DYNAMIC) && field->size != 4))
		return -1;
	*s = (struct step) { .field = field, .kind = STEP_BY_TYPE };
	if (field->flags & TEP_FIELD_IS_ARRAY)
		s->kind = STEP_ARRAY;
	return 0;
}

static int plan_field(struct tep_event *ev, struct tep_format_field *field,
		      const struct piece *pieces, int n, int *at, struct step *s)
{
	int i, prefix_0x = 0;

	if ((ev->flags & TEP_EVENT_FL_FAILED) || !n || *at < 0 ||
	    (field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)))
		return step_by_type(field, s);
	i = find_conversion(pieces, n, at, field, &prefix_0x);
	if (i < 0)
		return step_by_type(field, s);
	if (!pieces[i].c.conv)
		return -1;
	*s = (struct step) {
		.field = field, .kind = STEP_CONVERSION, .c = pieces[i].c, .prefix_0x = prefix_0x,
	};
	argument_field(pieces[i].arg, &s->mask);
	return 0;
}

void tr_fields_bytes_as_bytes(struct tep_event *ev)
{
	struct tep_format_field *field;

	for (field = ev->format.fields; field; field = field->next)
		if ((field->flags & TEP_FIELD_IS_ARRAY) && !strstr(field->type, "char"))
			field->flags &= ~TEP_FIELD_IS_STRING;
}

struct tr_field_plan *tr_field_plan_new(struct tep_event *ev)
{
	struct piece *pieces = calloc(MAX_PIECES, sizeof(*pieces));
	struct tep_format_field *field;
	struct tr_field_plan *plan = NULL;
	unsigned int nfields = 0;
	int n, at = 0;

	tr_fields_bytes_as_bytes(ev);
	n = pieces ? split_format(ev, pieces) : -1;
	if (n < 0 || !casts_ok(pieces, n))
		goto out;
	for (field = ev->format.fields; field; field = field->next)
		nfields++;
	plan = malloc(sizeof(*plan) + nfields * sizeof(plan->steps[0]));
	if (!plan)
		goto out;
	plan->nsteps = 0;
	for (field = ev->format.fields; field; field = field->next) {
		if (plan_field(ev, field, pieces, n, &at, &plan->steps[plan->nsteps++])) {
			free(plan);
			plan = NULL;
			break;
		}
	}
out:
	free(pieces);
	return plan;
}

void tr_field_plan_free(struct tr_field_plan *plan)
{
	free(plan);
}

/* --- Printing a record -------------------------------------------------------- */

unsigned long long tr_read_number(const unsigned char *p, int size)
{
	__u16 v16;
	__u32 v32;
	__u64 v64;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return le16toh(v16);
	case 4:
		memcpy(&v32, p, 4);
		return le32toh(v32);
	case 8:
		memcpy(&v64, p, 8);
		return le64toh(v64);
	}
	return 0;
}

/* Writes v in base (8, 10, 16) at p: the end.  Each base is its own loop: a constant divides fast. */
static char *put_digits(char *p, unsigned long long v, unsigned int base, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	if (base == 10) {
		do {
			tmp[n++] = '0' + v % 10;
			v /= 10;
		} while (v);
	} else {
		unsigned int shift = base == 16 ? 4 : 3;

		do {
			tmp[n++] = digits[v & (base - 1)];
			v >>= shift;
		} while (v);
	}
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_signed(char *p, long long v)
{
	if (v < 0) {
		*p++ = '-';
		return put_digits(p, -(unsigned long long)v, 10, 0);
	}
	return put_digits(p, v, 10, 0);
}

static char *put_text(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* digits, after sign or prefix, padded to width as printf pads them: the end. */
static char *put_padded(char *p, const struct tr_conversion *c, const char *prefix,
			const char *digits, size_t ndigits)
{
	size_t nprefix = strlen(prefix), n = nprefix + ndigits;
	size_t pad = c->width > n ? c->width - n : 0;

	if (!(c->flags & (TR_CONV_LEFT | TR_CONV_ZERO))) {
		memset(p, ' ', pad);
		p += pad;
	}
	p = put_text(p, prefix);
	if ((c->flags & (TR_CONV_LEFT | TR_CONV_ZERO)) == TR_CONV_ZERO) {
		memset(p, '0', pad);
		p += pad;
	}
	memcpy(p, digits, ndigits);
	p += ndigits;
	if (c->flags & TR_CONV_LEFT) {
		memset(p, ' ', pad);
		p += pad;
	}
	return p;
}

unsigned int tr_conversion_bits(int ls)
{
	return ls == -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
}

char *tr_put_conversion(char *p, const struct tr_conversion *c, unsigned long long v)
{
	unsigned long long keep = c->bits == 64 ? ~0ull : (1ull << c->bits) - 1;
	const char *prefix = "";
	char digits[24];
	size_t n;

	if (c->conv == 'p')
		return v ? put_digits(put_text(p, "0x"), v, 16, 0) : put_text(p, "(nil)");
	v &= keep;
	if (c->conv == 'd') {
		unsigned long long sign = 1ull << (c->bits - 1);
		long long value = (long long)((v ^ sign) - sign);	/* sign-extended */

		if (value < 0)
			prefix = "-";
		v = value < 0 ? -(unsigned long long)value : (unsigned long long)value;
		n = put_digits(digits, v, 10, 0) - digits;
	} else {
		n = put_digits(digits, v, c->conv == 'u' ? 10 : c->conv == 'o' ? 8 : 16,
			       c->conv == 'X') - digits;
		if ((c->flags & TR_CONV_ALT) && v)
			prefix = c->conv == 'x' ? "0x" : c->conv == 'X' ? "0X" : c->conv == 'o' ? "0" : "";
	}
	return put_padded(p, c, prefix, digits, n);
}

/* A field's value through the format's conversion: "0x" first where the text ends so. */
static char *put_conversion(char *p, const struct step *s, unsigned long long v)
{
	if (s->prefix_0x)
		p = put_text(p, "0x");
	return tr_put_conversion(p, &s->c, v & s->mask);
}

/* A number without a conversion, as print_field_raw() prints it. */
static char *put_by_type(char *p, const struct tep_format_field *f, unsigned long long v)
{
	if (f->flags & TEP_FIELD_IS_POINTER)
		return put_digits(put_text(p, "0x"), v, 16, 0);
	if (!(f->flags & TEP_FIELD_IS_SIGNED)) {
		if (f->flags & TEP_FIELD_IS_LONG)
			return put_digits(put_text(p, "0x"), v, 16, 0);
		return put_digits(p, v, 10, 0);
	}
	switch (f->size) {
	case 4:
		if (f->flags & TEP_FIELD_IS_LONG)
			return put_digits(put_text(p, "0x"), (__u32)v, 16, 0);
		return put_signed(p, (__s32)v);
	case 2:		/* "%2d" */
		if ((__s16)v >= 0 && (__s16)v < 10)
			*p++ = ' ';
		return put_signed(p, (__s16)v);
	case 1:
		return put_signed(p, (__s8)v);
	}
	return put_signed(p, (long long)v);
}

/* Where an array's bytes are, as dynamic_offset_field() finds them. */
static void array_at(const struct tep_format_field *f, const unsigned char *data,
		     unsigned int size, unsigned int *offset, unsigned int *len)
{
	unsigned long long loc;
	unsigned int o, l;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		*offset = f->offset;
		*len = f->size;
		return;
	}
	loc = tr_read_number(data + f->offset, f->size);
	o = loc & 0xffff;
	l = (loc >> 16) & 0xffff;
	*offset = o > size ? 0 : o;
	*len = o + l > size ? 0 : l;
}

static int printable(const char *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len && p[i]; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return 0;
	return 1;
}

static int put_array(struct tr_line *line, struct tep_format_field *f,
		     const unsigned char *data, unsigned int size)
{
	unsigned int offset, len, i;
	char *p;

	array_at(f, data, size, &offset, &len);
	if ((f->flags & TEP_FIELD_IS_STRING) && printable((const char *)data + offset, len)) {
		/* the text runs to its NUL, which the record's end has */
		size_t n = strlen((const char *)data + offset);

		if (tr_line_reserve(line, n))
			return -1;
		memcpy(line->buf + line->len, data + offset, n);
		line->len += n;
		return 0;
	}
	f->flags &= ~TEP_FIELD_IS_STRING;
	if (tr_line_reserve(line, 8 + 4 * (size_t)len))
		return -1;
	p = put_text(line->buf + line->len, "ARRAY[");
	for (i = 0; i < len; i++) {
		if (i)
			p = put_text(p, ", ");
		*p++ = "0123456789abcdef"[data[offset + i] >> 4];
		*p++ = "0123456789abcdef"[data[offset + i] & 15];
	}
	*p++ = ']';
	line->len = p - line->buf;
	return 0;
}

int tr_field_plan_print(const struct tr_field_plan *plan, const void *data, unsigned int size,
			struct tr_line *line)
{
	const unsigned char *bytes = data;
	unsigned int i;

	for (i = 0; i < plan->nsteps; i++) {
		const struct step *s = &plan->steps[i];
		struct tep_format_field *f = s->field;
		unsigned long long v;
		char *p;

		/* " name=" and a number: "0x", 99 wide */
		if (tr_line_reserve(line, strlen(f->name) + 2 + 2 + 99))
			return -1;
		p = line->buf + line->len;
		*p++ = ' ';
		p = put_text(p, f->name);
		*p++ = '=';
		line->len = p - line->buf;
		if (s->kind == STEP_ARRAY) {
			if (put_array(line, f, bytes, size))
				return -1;
			continue;
		}
		v = tr_read_number(bytes + f->offset, f->size);
		p = s->kind == STEP_CONVERSION ? put_conversion(p, s, v) : put_by_type(p, f, v);
		line->len = p - line->buf;
	}
	return 0;
}
