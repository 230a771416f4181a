// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A record printed with its tracepoint's print format as libtraceevent 1.7
 * prints it (pretty_print()), from what its parser made of the format:
 *
 *  - the format string in pieces, split as parse_args() splits it: text,
 *    and conversions, each with the printf format it hands to
 *    trace_seq_printf() (a conversion libtraceevent does not know, %c,
 *    prints as ">c<" and takes no argument);
 *  - each conversion's argument evaluated as eval_num_arg() and
 *    print_str_arg() evaluate it: unsigned 64-bit arithmetic, fields read
 *    unsigned, casts that only mask, a flag or symbol table scanned in order.
 *
 * Where libtraceevent would read outside the record (a __print_hex
 * length, an index, a char array cut short) or stop (a division by zero),
 * this reads only what the record holds.  The plan refuses, once per
 * class, what it does not follow: %pI6, %pISpc, %pM, bitmasks, function
 * calls, names in a table (eval_flag() knows a few the plan does not).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <event-parse.h>

#include "print/print_fmt.h"
#include "reader/trace.h"

#define MAX_PIECES	256
#define MAX_DEPTH	32		/* of an argument's tree */
#define NO_LEN_ARG	INT_MIN		/* a conversion without a '*' */
#define MAX_STAR	65536		/* the widest '*' width or precision taken */
#define SCRATCH_MAX	65536		/* a char array's longest copy: as far as fields reach */

enum piece_kind {
	PIECE_TEXT,
	PIECE_NUMBER,			/* %d %u %i %x %X %o, with their length */
	PIECE_POINTER,			/* %p, %pS and the like */
	PIECE_STRING,			/* %s */
};

struct piece {
	enum piece_kind kind;
	char *format;			/* the text, or the conversion's printf format */
	size_t len;			/* PIECE_TEXT: the text's */
	struct tep_print_arg *arg;
	struct tep_print_arg *len_arg;	/* a '*' width's or precision's argument */
	int ls;				/* PIECE_NUMBER: -2 char .. 2 long long */
	char ext;			/* PIECE_POINTER: the letter after p (4: I4, i: i4), or 0 */
	char variant;			/* and what follows it: U's L l B b, I4's h n l b */
	struct tr_conversion fast;	/* a number's conversion without printf, if fast.conv */
};

/* A number in the format, read once: an atom's (by its arg), a table entry's (by its entry). */
struct constant {
	const void *key;
	__u64 value;
};

struct tr_print_plan {
	const struct tr_trace *trace;
	char *scratch;			/* a char array, NUL-terminated for printf */
	unsigned int scratch_len;	/* the longest array it holds */
	struct constant *constants;	/* sorted by key */
	unsigned int nconstants, room;
	unsigned int npieces;
	struct piece pieces[];
};

/* A plan being made, for the ev it is made from. */
struct planning {
	struct tep_event *ev;
	struct tr_print_plan *plan;
};

/* One record being printed. */
struct ctx {
	struct tr_print_plan *plan;
	const unsigned char *data;
	unsigned int size;
	struct tr_line *line;
	int err;
	int short_record;		/* it held less than the format reads */
};

/* --- Output ------------------------------------------------------------------- */

static void put_vformat(struct ctx *c, const char *fmt, va_list ap)
{
	struct tr_line *line = c->line;
	size_t room = 256;
	int n;

	for (;;) {
		va_list copy;

		if (tr_line_reserve(line, room)) {
			c->err = -1;
			return;
		}
		va_copy(copy, ap);
		n = vsnprintf(line->buf + line->len, line->cap - line->len, fmt, copy);
		va_end(copy);
		if (n < 0)
			return;
		if ((size_t)n < line->cap - line->len) {
			line->len += n;
			return;
		}
		room = n + 1;
	}
}

static void __attribute__((format(printf, 2, 3))) put_format(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_vformat(c, fmt, ap);
	va_end(ap);
}

static void put_bytes(struct ctx *c, const char *s, size_t n)
{
	if (tr_line_reserve(c->line, n)) {
		c->err = -1;
		return;
	}
	memcpy(c->line->buf + c->line->len, s, n);
	c->line->len += n;
}

static void put_text(struct ctx *c, const char *s)
{
	put_bytes(c, s, strlen(s));
}

/* A string through a %s conversion's format, as print_str_to_seq() prints it. */
static void put_string(struct ctx *c, const char *format, int len_arg, const char *s)
{
	if (format[1] == 's' && !format[2]) {
		put_text(c, s);
		return;
	}
	/* the format is one conversion, parsed by the plan: a string's */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (len_arg != NO_LEN_ARG)
		put_format(c, format, len_arg, s);
	else
		put_format(c, format, s);
#pragma GCC diagnostic pop
}

/* --- Reading the record -------------------------------------------------------- */

/* tep_read_number(): a 1, 2, 4 or 8-byte number in the record, else 0. */
static __u64 read_number(struct ctx *c, unsigned long long offset, int size)
{
	if (offset + size > c->size) {
		c->short_record = 1;
		return 0;
	}
	return tr_read_number(c->data + offset, size);
}

/*
 * The bytes of the field a %pU or %pI4 prints, which must be size long
 * (else invalid is said, as libtraceevent says it), or NULL.
 */
static const unsigned char *address_bytes(struct ctx *c, const struct piece *p, int size,
					  const char *invalid)
{
	const struct tep_print_arg *arg = p->arg;
	const struct tep_format_field *f;

	/* the plan has made sure it is a field, through casts */
	while (arg->type == TEP_PRINT_TYPE)
		arg = arg->typecast.item;
	f = arg->field.field;
	if (f->size != size) {
		put_text(c, invalid);
		return NULL;
	}
	if ((__u64)f->offset + size > c->size) {
		c->short_record = 1;
		return NULL;
	}
	return c->data + f->offset;
}

/* dynamic_offset_field(): where a __data_loc field's data lies; 0, 0 outside the record. */
static void dynamic_data(struct ctx *c, const struct tep_format_field *f,
			 unsigned int *offset, unsigned int *len)
{
	__u32 loc = read_number(c, f->offset, 4);
	unsigned int o = loc & 0xffff, l = loc >> 16;

	*offset = o > c->size ? 0 : o;
	*len = o + l > c->size ? 0 : l;
	c->short_record |= o + l > c->size;
}

static int by_key(const void *a, const void *b)
{
	const struct constant *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The value read for key when the plan was made (an atom, a table entry). */
static __u64 constant(const struct ctx *c, const void *key)
{
	struct constant k = { key, 0 };
	const struct constant *found = bsearch(&k, c->plan->constants, c->plan->nconstants,
					       sizeof(k), by_key);

	return found ? found->value : 0;
}

/* --- Numbers: eval_num_arg() ------------------------------------------------------ */

static __u64 eval_num(struct ctx *c, const struct tep_print_arg *arg);

/*
 * REC->array[index], and __get_dynamic_array(f)[index], which
 * libtraceevent reads index bytes in, whatever the element's size.
 */
static __u64 eval_index(struct ctx *c, const struct tep_print_arg *arg)
{
	const struct tep_print_arg *array = arg->op.left;
	const struct tep_format_field *f;
	__u64 index = eval_num(c, arg->op.right);
	unsigned int offset, len;
	int size;

	if (index > c->size) {
		c->short_record = 1;
		return 0;
	}
	if (array->type == TEP_PRINT_DYNAMIC_ARRAY) {
		f = array->dynarray.field;
		dynamic_data(c, f, &offset, &len);
		size = f->elementsize ? f->elementsize : 8;
		return read_number(c, offset + index, size);
	}
	f = array->field.field;
	return read_number(c, f->offset + index * f->elementsize, f->elementsize);
}

static __u64 eval_op(struct ctx *c, const struct tep_print_arg *arg)
{
	const char *op = arg->op.op;
	__u64 left, right;

	if (!strcmp(op, "["))
		return eval_index(c, arg);
	if (!strcmp(op, "?"))
		return eval_num(c, eval_num(c, arg->op.left) ? arg->op.right->op.left :
						       arg->op.right->op.right);
	left = eval_num(c, arg->op.left);
	right = eval_num(c, arg->op.right);
	switch (op[0]) {
	case '!':
		return op[1] ? left != right : !right;
	case '~':
		return ~right;
	case '|':
		return op[1] ? left || right : left | right;
	case '&':
		return op[1] ? left && right : left & right;
	case '<':
		return op[1] == '<' ? left << (right & 63) : op[1] ? left <= right : left < right;
	case '>':
		return op[1] == '>' ? left >> (right & 63) : op[1] ? left >= right : left > right;
	case '=':
		return left == right;
	case '-':
		return left - right;
	case '+':
		return left + right;
	case '*':
		return left * right;
	case '/':
	default:			/* '%' */
		if (!right) {
			/* where libtraceevent dies: the record holds nothing to print */
			c->short_record = 1;
			return 0;
		}
		return op[0] == '/' ? left / right : left % right;
	}
}

static __u64 eval_num(struct ctx *c, const struct tep_print_arg *arg)
{
	unsigned int offset, len;

	if (!arg)
		return 0;
	switch (arg->type) {
	case TEP_PRINT_ATOM:
		return constant(c, arg);
	case TEP_PRINT_FIELD:
		return read_number(c, arg->field.field->offset, arg->field.field->size);
	case TEP_PRINT_TYPE:
		return eval_num(c, arg->typecast.item) & tr_cast_mask(arg->typecast.type);
	case TEP_PRINT_OP:
		return eval_op(c, arg);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		dynamic_data(c, arg->dynarray.field, &offset, &len);
		return len;
	default:			/* tables, strings and buffers have no number */
		return 0;
	}
}

/* --- Strings: print_str_arg() ------------------------------------------------------ */

static void put_flags(struct ctx *c, const char *format, int len_arg,
		      const struct tep_print_arg *arg)
{
	long long val = eval_num(c, arg->flags.field);
	const struct tep_print_flag_sym *flag;
	int printed = 0;

	for (flag = arg->flags.flags; flag; flag = flag->next) {
		long long fval = constant(c, flag);

		if (!val && fval < 0) {
			put_string(c, format, len_arg, flag->str);
			break;
		}
		if (fval > 0 && (val & fval) == fval) {
			if (printed && arg->flags.delim)
				put_text(c, arg->flags.delim);
			put_string(c, format, len_arg, flag->str);
			printed = 1;
			val &= ~fval;
		}
	}
	if (val) {
		if (printed && arg->flags.delim)
			put_text(c, arg->flags.delim);
		put_format(c, "0x%llx", (unsigned long long)val);
	}
}

static void put_symbol(struct ctx *c, const char *format, int len_arg,
		       const struct tep_print_arg *arg)
{
	long long val = eval_num(c, arg->symbol.field);
	const struct tep_print_flag_sym *sym;

	for (sym = arg->symbol.symbols; sym; sym = sym->next)
		if (val == (long long)constant(c, sym)) {
			put_string(c, format, len_arg, sym->str);
			return;
		}
	put_format(c, "0x%llx", (unsigned long long)val);
}

/* Where __print_hex()'s or __print_array()'s buffer starts in the record. */
static unsigned int buffer_offset(struct ctx *c, const struct tep_print_arg *buf)
{
	unsigned int offset, len;

	if (buf->type != TEP_PRINT_DYNAMIC_ARRAY)
		return buf->field.field->offset;
	dynamic_data(c, buf->dynarray.field, &offset, &len);
	return offset;
}

static void put_hex(struct ctx *c, const struct tep_print_arg *arg)
{
	unsigned int at = buffer_offset(c, arg->hex.field);
	unsigned int len = eval_num(c, arg->hex.size), i;

	c->short_record |= (__u64)at + len > c->size;
	for (i = 0; i < len && at + i < c->size; i++) {
		if (i && arg->type == TEP_PRINT_HEX)
			put_text(c, " ");
		put_format(c, "%02x", c->data[at + i]);
	}
}

static void put_int_array(struct ctx *c, const struct tep_print_arg *arg)
{
	unsigned int at = buffer_offset(c, arg->int_array.field);
	unsigned int len = eval_num(c, arg->int_array.count), i;
	int el_size = eval_num(c, arg->int_array.el_size);

	c->short_record |= (__u64)at + (__u64)len * (el_size == 2 || el_size == 4 || el_size == 8 ?
						      el_size : 1) > c->size;
	for (i = 0; i < len && at < c->size; i++) {
		if (i)
			put_text(c, " ");
		if (el_size == 1 || el_size == 2 || el_size == 4 || el_size == 8) {
			if (at + el_size > c->size) {
				c->short_record = 1;
				break;
			}
			put_format(c, "%llu", (unsigned long long)read_number(c, at, el_size));
		} else {
			put_format(c, "BAD SIZE:%d 0x%x", el_size, c->data[at]);
			el_size = 1;
		}
		at += el_size;
	}
}

/* A field through %s: a pointer by its string (printk_formats) or in hex, else its chars. */
static void put_field_string(struct ctx *c, const char *format, int len_arg,
			     const struct tep_format_field *f)
{
	unsigned int len = f->size, room = c->size > (unsigned int)f->offset ? c->size - f->offset : 0;
	const char *s;

	if (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == 8) {
		__u64 addr = read_number(c, f->offset, 8);

		s = c->plan->trace ? tr_trace_printk(c->plan->trace, addr) : NULL;
		if (s)
			put_text(c, s);
		else
			put_format(c, "%llx", (unsigned long long)addr);
		return;
	}
	/* a field of size 0 is the rest of the record */
	c->short_record |= len > room;
	if (!len || len > room)
		len = room;
	if (len > c->plan->scratch_len)
		len = c->plan->scratch_len;
	memcpy(c->plan->scratch, c->data + f->offset, len);
	c->plan->scratch[len] = 0;
	put_string(c, format, len_arg, c->plan->scratch);
}

static void put_str_arg(struct ctx *c, const char *format, int len_arg,
			const struct tep_print_arg *arg)
{
	unsigned int offset, len;

	switch (arg->type) {
	case TEP_PRINT_ATOM:
		put_string(c, format, len_arg, arg->atom.atom);
		break;
	case TEP_PRINT_FIELD:
		put_field_string(c, format, len_arg, arg->field.field);
		break;
	case TEP_PRINT_FLAGS:
		put_flags(c, format, len_arg, arg);
		break;
	case TEP_PRINT_SYMBOL:
		put_symbol(c, format, len_arg, arg);
		break;
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		put_hex(c, arg);
		break;
	case TEP_PRINT_INT_ARRAY:
		put_int_array(c, arg);
		break;
	case TEP_PRINT_STRING:
		dynamic_data(c, arg->string.field, &offset, &len);
		/* the string ends by the NUL after the record at the latest */
		if (len)
			put_string(c, format, len_arg, (const char *)c->data + offset);
		break;
	case TEP_PRINT_BSTRING:
		put_string(c, format, len_arg, arg->string.string);
		break;
	case TEP_PRINT_OP:
		if (arg->op.op[0] == '?')
			put_str_arg(c, format, len_arg,
				    eval_num(c, arg->op.left) ? arg->op.right->op.left :
								arg->op.right->op.right);
		break;
	default:			/* a cast, a number: nothing */
		break;
	}
}

/* --- Pieces ------------------------------------------------------------------------- */

/* print_function(): a function's name (+0x offset for %pS and %pF), else the address. */
static void put_function(struct ctx *c, char ext, __u64 addr)
{
	__u64 start = addr;
	const char *name = c->plan->trace ? tr_trace_function(c->plan->trace, addr, &start) : NULL;

	if (!name) {
		put_format(c, "0x%llx", (unsigned long long)addr);
		return;
	}
	put_text(c, name);
	if (ext == 'F' || ext == 'S')
		put_format(c, "+0x%llx", (unsigned long long)(addr - start));
}

/* print_uuid_arg(): 16 bytes as a UUID (%pU, %pUb; %pUB in capitals), or a GUID (%pUl, %pUL). */
static void put_uuid(struct ctx *c, const struct piece *p)
{
	static const unsigned char guid_index[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
						       8, 9, 10, 11, 12, 13, 14, 15 };
	const unsigned char *b = address_bytes(c, p, 16, "INVALIDUUID");
	int upper = p->variant == 'L' || p->variant == 'B';
	int guid = p->variant == 'L' || p->variant == 'l';
	char text[40], *t = text;
	unsigned int i;

	if (!b)
		return;
	for (i = 0; i < 16; i++) {
		unsigned char byte = b[guid ? guid_index[i] : i];

		*t++ = (upper ? "0123456789ABCDEF" : "0123456789abcdef")[byte >> 4];
		*t++ = (upper ? "0123456789ABCDEF" : "0123456789abcdef")[byte & 15];
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*t++ = '-';
	}
	put_bytes(c, text, t - text);
}

/*
 * print_ipv4_arg(): 4 bytes as an IPv4 address (%pi4: three digits each);
 * h (the file is little-endian, as the recorder's x86-64 is) and l reverse
 * them.
 */
static void put_ipv4(struct ctx *c, const struct piece *p)
{
	const unsigned char *b = address_bytes(c, p, 4, "INVALIDIPv4");
	int reverse = p->variant == 'h' || p->variant == 'l';

	if (!b)
		return;
	put_format(c, p->ext == 'i' ? "%03d.%03d.%03d.%03d" : "%d.%d.%d.%d",
		   b[reverse ? 3 : 0], b[reverse ? 2 : 1], b[reverse ? 1 : 2], b[reverse ? 0 : 3]);
}

static void put_number(struct ctx *c, const struct piece *p, int len_arg, __u64 val)
{
	if (p->fast.conv) {
		if (tr_line_reserve(c->line, 99 + 24)) {
			c->err = -1;
			return;
		}
		c->line->len = tr_put_conversion(c->line->buf + c->line->len, &p->fast, val) -
			       c->line->buf;
		return;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	/* print_arg_number(): the value as the length says, as printf promotes it */
	long long v = p->ls == -2 ? (char)val : p->ls == -1 ? (short)val :
		      p->ls == 0 ? (int)val : (long long)val;

	if (p->ls <= 0 && len_arg != NO_LEN_ARG)
		put_format(c, p->format, len_arg, (int)v);
	else if (p->ls <= 0)
		put_format(c, p->format, (int)v);
	else if (len_arg != NO_LEN_ARG)
		put_format(c, p->format, len_arg, v);
	else
		put_format(c, p->format, v);
#pragma GCC diagnostic pop
}

static void put_piece(struct ctx *c, const struct piece *p)
{
	int len_arg = p->len_arg ? (int)eval_num(c, p->len_arg) : NO_LEN_ARG;

	/*
	 * libtraceevent hands printf a negative one's format without it;
	 * printf takes it as the C standard says (no precision, or '-').
	 */
	c->short_record |= p->len_arg && len_arg < 0;
	/* a width no record's text needs: a damaged one's would cost gigabytes */
	if (p->len_arg && (len_arg > MAX_STAR || len_arg < -MAX_STAR)) {
		len_arg = len_arg < 0 ? -MAX_STAR : MAX_STAR;
		c->short_record = 1;
	}

	switch (p->kind) {
	case PIECE_TEXT:
		put_bytes(c, p->format, p->len);
		break;
	case PIECE_NUMBER:
		put_number(c, p, len_arg, eval_num(c, p->arg));
		break;
	case PIECE_STRING:
		put_str_arg(c, p->format, len_arg, p->arg);
		break;
	case PIECE_POINTER:
		if (p->arg->type == TEP_PRINT_BSTRING)
			put_text(c, p->arg->string.string);
		else if (p->ext == 'U')
			put_uuid(c, p);
		else if (p->ext == '4' || p->ext == 'i')
			put_ipv4(c, p);
		else if (p->ext)
			put_function(c, p->ext, eval_num(c, p->arg));
		else
			put_number(c, p, NO_LEN_ARG, eval_num(c, p->arg));
		break;
	}
}

int tr_print_plan_print(struct tr_print_plan *plan, const void *data, unsigned int size,
			struct tr_line *line)
{
	struct ctx c = { .plan = plan, .data = data, .size = size, .line = line };
	unsigned int i;

	for (i = 0; i < plan->npieces && !c.err; i++)
		put_piece(&c, &plan->pieces[i]);
	return c.err ? c.err : c.short_record;
}

/* --- The plan ------------------------------------------------------------------------ */

/* A field the plan reads: no __rel_loc, and no two-byte locator libtraceevent sizes oddly. */
static int field_ok(const struct tep_format_field *f)
{
	return f && !(f->flags & TEP_FIELD_IS_RELATIVE) &&
	       (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size == 4);
}

/* A field named in an argument, found as libtraceevent finds it on first use. */
static int resolve_field(struct tep_event *ev, struct tep_format_field **field, const char *name)
{
	if (!*field && name)
		*field = tep_find_any_field(ev, name);
	return field_ok(*field);
}

/* A value read once for the plan: an atom's, a table entry's. */
static int add_constant(struct planning *pl, const void *key, const char *text)
{
	struct tr_print_plan *plan = pl->plan;
	struct constant *more;

	if (plan->nconstants == plan->room) {
		plan->room = plan->room ? 2 * plan->room : 16;
		more = realloc(plan->constants, plan->room * sizeof(*more));
		if (!more)
			return 0;
		plan->constants = more;
	}
	plan->constants[plan->nconstants++] = (struct constant) { key, strtoull(text, NULL, 0) };
	return 1;
}

/*
 * A table's values as eval_flag() reads them: a number where it starts
 * with a digit, -1 where it starts with neither a digit nor a name (-6ULL,
 * (-1)), and a name from libtraceevent's own list, which the plan refuses.
 */
static int table_ok(struct planning *pl, const struct tep_print_flag_sym *t)
{
	for (; t; t = t->next) {
		const char *v = t->value;

		if (!v || !t->str || isalpha((unsigned char)v[0]) || v[0] == '_' ||
		    !add_constant(pl, t, isdigit((unsigned char)v[0]) ? v : "-1"))
			return 0;
	}
	return 1;
}

static int arg_ok(struct planning *pl, struct tep_print_arg *arg, int depth);

/* __print_hex()'s and __print_array()'s buffer: a field or __get_dynamic_array(). */
static int buffer_ok(struct planning *pl, struct tep_print_arg *buf)
{
	if (buf->type == TEP_PRINT_DYNAMIC_ARRAY)
		return field_ok(buf->dynarray.field);
	return buf->type == TEP_PRINT_FIELD &&
	       resolve_field(pl->ev, &buf->field.field, buf->field.name);
}

static int op_ok(struct planning *pl, struct tep_print_arg *arg, int depth)
{
	static const char *const ops[] = {
		"!", "!=", "~", "|", "||", "&", "&&", "<", "<<", "<=", ">", ">>", ">=", "==",
		"-", "+", "*", "/", "%", NULL
	};
	struct tep_print_arg *l = arg->op.left, *r = arg->op.right;
	const char *const *op;

	if (!strcmp(arg->op.op, "["))
		return l && r && arg_ok(pl, r, depth) && buffer_ok(pl, l);
	if (!strcmp(arg->op.op, "?"))
		return l && r && r->type == TEP_PRINT_OP && !strcmp(r->op.op, ":") &&
		       arg_ok(pl, l, depth) && r->op.left && r->op.right &&
		       arg_ok(pl, r->op.left, depth) && arg_ok(pl, r->op.right, depth);
	for (op = ops; *op && strcmp(*op, arg->op.op); op++)
		;
	return *op && (!l || arg_ok(pl, l, depth)) && (!r || arg_ok(pl, r, depth));
}

/* Whether the plan follows arg as a number exactly; fields named in it are resolved. */
static int arg_ok(struct planning *pl, struct tep_print_arg *arg, int depth)
{
	if (++depth > MAX_DEPTH)
		return 0;
	switch (arg->type) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_BSTRING:
		return 1;
	case TEP_PRINT_ATOM:
		/* a name libtraceevent would look up among the kernel's functions */
		return arg->atom.atom && arg->atom.atom[0] >= '0' && arg->atom.atom[0] <= '9' &&
		       add_constant(pl, arg, arg->atom.atom);
	case TEP_PRINT_FIELD:
		return resolve_field(pl->ev, &arg->field.field, arg->field.name);
	case TEP_PRINT_TYPE:
		return arg->typecast.type && arg->typecast.item &&
		       arg_ok(pl, arg->typecast.item, depth);
	case TEP_PRINT_OP:
		return op_ok(pl, arg, depth);
	case TEP_PRINT_FLAGS:
		return arg->flags.field && table_ok(pl, arg->flags.flags) &&
		       arg_ok(pl, arg->flags.field, depth);
	case TEP_PRINT_SYMBOL:
		return arg->symbol.field && table_ok(pl, arg->symbol.symbols) &&
		       arg_ok(pl, arg->symbol.field, depth);
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return buffer_ok(pl, arg->hex.field) && arg_ok(pl, arg->hex.size, depth);
	case TEP_PRINT_INT_ARRAY:
		return buffer_ok(pl, arg->int_array.field) &&
		       arg_ok(pl, arg->int_array.count, depth) &&
		       arg_ok(pl, arg->int_array.el_size, depth);
	case TEP_PRINT_STRING:
		return resolve_field(pl->ev, &arg->string.field, arg->string.string);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return field_ok(arg->dynarray.field);
	default:	/* a buffer's address, bitmasks, function calls */
		return 0;
	}
}

/* The same for arg as a %s conversion's (print_str_arg() prints no cast, no operator but ?:). */
static int str_arg_ok(struct planning *pl, struct tep_print_arg *arg, int depth)
{
	struct tep_print_arg *l = arg->op.left, *r = arg->op.right;

	if (++depth > MAX_DEPTH)
		return 0;
	switch (arg->type) {
	case TEP_PRINT_ATOM:
		return arg->atom.atom != NULL;
	case TEP_PRINT_OP:
		if (arg->op.op[0] != '?')
			return 1;
		return l && r && r->type == TEP_PRINT_OP && !strcmp(r->op.op, ":") &&
		       arg_ok(pl, l, depth) && r->op.left && r->op.right &&
		       str_arg_ok(pl, r->op.left, depth) && str_arg_ok(pl, r->op.right, depth);
	case TEP_PRINT_TYPE:
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return 1;
	default:
		return arg_ok(pl, arg, depth);
	}
}

/* Text up to the next conversion as a new piece: the format bytes it takes, or 0. */
static size_t take_text(const char *fmt, struct piece *p)
{
	char *text = malloc(strlen(fmt) + 1);
	size_t used = text ? tr_print_text(fmt, text) : 0;

	if (!used) {
		free(text);
		return 0;
	}
	*p = (struct piece) { .kind = PIECE_TEXT, .format = text, .len = strlen(text) };
	return used;
}

/*
 * After %p, the letters parse_arg_format_pointer() takes for what the plan
 * prints: S s F f (a function), U and its variant, I4 or i4 and theirs.
 * Sets p->ext and p->variant; how many letters, or 0 (a plain %p, or one
 * the plan does not print).
 */
static size_t pointer_letters(const char *f, struct piece *p)
{
	if (f[0] && strchr("FfSs", f[0])) {
		p->ext = f[0];
		return 1;
	}
	if (f[0] == 'U') {
		p->ext = 'U';
		p->variant = f[1] && strchr("LlBb", f[1]) ? f[1] : 0;
		return 1 + !!p->variant;
	}
	if ((f[0] == 'I' || f[0] == 'i') && f[1] == '4') {
		p->ext = f[0] == 'i' ? 'i' : '4';
		p->variant = f[2] && strchr("hnlb", f[2]) ? f[2] : 0;
		return 2 + !!p->variant;
	}
	return 0;
}

/*
 * A conversion, read as parse_arg_format() reads it, taking its argument
 * from *args, into a piece: the format bytes it takes, or 0 where
 * libtraceevent fails the event or the plan does not follow it.  *added
 * is 0 for a conversion cut off by the format's end, which adds no piece.
 */
static size_t take_conversion(const char *fmt, struct tep_print_arg **args, struct piece *p,
			      int *added)
{
	struct tr_conversion fast = { .conv = 0 };
	unsigned int digits = 0, in_flags = 1, plain = 1;
	char letter[4] = ">c<";
	size_t i;

	*p = (struct piece) { .kind = PIECE_NUMBER };
	*added = 1;
	for (i = 1; fmt[i]; i++) {
		char ch = fmt[i];

		/* a width or precision of 10000 or more: the format is damaged */
		digits = ch >= '0' && ch <= '9' ? digits + 1 : 0;
		if (digits > 4)
			return 0;
		/* what printf makes of flags and width, for printing without it */
		if (in_flags && (ch == '#' || ch == '0' || ch == '-'))
			fast.flags |= ch == '#' ? TR_CONV_ALT : ch == '0' ? TR_CONV_ZERO : TR_CONV_LEFT;
		else if (ch >= '0' && ch <= '9')
			fast.width = fast.width * 10 + ch - '0';
		else if (ch == '.' || ch == '*')
			plain = 0;
		in_flags &= ch == '#' || ch == '0' || ch == '-';
		if (ch == 'h' || ch == 'l') {
			p->ls += ch == 'l' ? 1 : -1;
		} else if (ch == 'L') {
			p->ls = 2;
		} else if (ch == 'z' || ch == 'Z') {
			p->ls = 1;
		} else if (ch == '*') {
			if (!*args || p->len_arg)
				return 0;
			p->len_arg = *args;
			*args = (*args)->next;
		} else if (ch == 'p' || ch == 's' || strchr("duixXo", ch)) {
			if (!*args)
				return 0;
			if (ch == 'p') {
				p->kind = PIECE_POINTER;
				i += pointer_letters(fmt + i + 1, p);
				if (!p->ext && fmt[i + 1] && strchr("MmIiUh", fmt[i + 1]))
					return 0;	/* MACs, IPv6, raw buffers: not followed */
			} else if (ch == 's') {
				/* %ls would read a wide string */
				if (p->ls)
					return 0;
				p->kind = PIECE_STRING;
			}
			if (i + 1 > 30 || p->ls < -2 || p->ls > 2)
				return 0;
			/* %p prints as "%p", whatever its flags */
			if (ch == 'p' && !p->ext)
				p->fast = (struct tr_conversion) { .conv = 'p', .bits = 64 };
			else if (ch != 'p' && ch != 's' && plain && fast.width < 100)
				p->fast = (struct tr_conversion) {
					.conv = ch == 'i' ? 'd' : ch, .bits = tr_conversion_bits(p->ls),
					.flags = fast.flags, .width = fast.width,
				};
			p->format = strndup(fmt, i + 1);
			p->arg = *args;
			*args = (*args)->next;
			return p->format ? i + 1 : 0;
		} else if (!strchr("#.-0123456789", ch)) {
			/* libtraceevent keeps ">c<" as text and takes no argument */
			letter[1] = ch;
			*p = (struct piece) { .kind = PIECE_TEXT, .format = strdup(letter), .len = 3 };
			return p->format ? i + 1 : 0;
		}
	}
	*added = 0;
	return i;
}

/* %pU and %pI4 print a field (through casts), or a string; anything else libtraceevent names. */
static int address_ok(const struct piece *p)
{
	const struct tep_print_arg *arg = p->arg;

	if (p->kind != PIECE_POINTER || !p->ext || strchr("FfSs", p->ext) ||
	    arg->type == TEP_PRINT_BSTRING)
		return 1;
	while (arg->type == TEP_PRINT_TYPE)
		arg = arg->typecast.item;
	return arg->type == TEP_PRINT_FIELD;
}

/* ev's print format in pieces into plan: 0, or -1 if the plan cannot follow it. */
static int split_format(struct tep_event *ev, struct tr_print_plan *plan)
{
	const char *fmt = ev->print_fmt.format;
	struct tep_print_arg *args = ev->print_fmt.args;
	struct planning pl = { ev, plan };

	while (fmt && *fmt) {
		struct piece *p = &plan->pieces[plan->npieces];
		int added = 1;
		size_t used;

		if (plan->npieces == MAX_PIECES)
			return -1;
		if (fmt[0] == '%' && fmt[1] != '%')
			used = take_conversion(fmt, &args, p, &added);
		else
			used = take_text(fmt, p);
		if (!used)
			return -1;
		plan->npieces += added;
		if (p->kind != PIECE_TEXT && added &&
		    (!(p->kind == PIECE_STRING ? str_arg_ok : arg_ok)(&pl, p->arg, 0) ||
		     (p->len_arg && !arg_ok(&pl, p->len_arg, 0)) || !address_ok(p)))
			return -1;
		fmt += used;
	}
	return 0;
}

/* The longest copy of a field %s may make: its size, or the rest of the record for size 0. */
static unsigned int longest_field(const struct tep_event *ev)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	const struct tep_format_field *f;
	unsigned int longest = 0, l;

	for (l = 0; l < 2; l++)
		for (f = lists[l]; f; f = f->next)
			if (!f->size || (unsigned int)f->size > longest)
				longest = f->size ? (unsigned int)f->size : SCRATCH_MAX;
	return longest < SCRATCH_MAX ? longest : SCRATCH_MAX;
}

struct tr_print_plan *tr_print_plan_new(struct tep_event *ev, const struct tr_trace *trace)
{
	struct tr_print_plan *plan;

	/* ftrace's own events, and events a plugin prints */
	if (!ev || (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISFTRACE |
				 TEP_EVENT_FL_PRINTRAW)) || ev->handler)
		return NULL;
	plan = calloc(1, sizeof(*plan) + MAX_PIECES * sizeof(plan->pieces[0]));
	if (!plan)
		return NULL;
	plan->trace = trace;
	plan->scratch_len = longest_field(ev);
	plan->scratch = malloc(plan->scratch_len + 1);
	if (!plan->scratch || split_format(ev, plan)) {
		tr_print_plan_free(plan);
		return NULL;
	}
	if (plan->nconstants)
		qsort(plan->constants, plan->nconstants, sizeof(plan->constants[0]), by_key);
	return plan;
}

void tr_print_plan_free(struct tr_print_plan *plan)
{
	unsigned int i;

	if (!plan)
		return;
	for (i = 0; i <= plan->npieces && i < MAX_PIECES; i++)
		free(plan->pieces[i].format);
	free(plan->constants);
	free(plan->scratch);
	free(plan);
}
