// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --filter: a recursive-descent parser that emits the postfix
 * program as it goes (events/filter.h).  Hand-written rather than libtraceevent's
 * filter parser because the semantics are the kernel's: '~' is a glob
 * there (a regular expression in libtraceevent) and '&' a bit test.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "events/filter.h"
#include "common/suggest.h"

/*
 * '(' and '!' one inside another, at most: twice what a program of
 * TR_FILTER_MAX_INSNS can use, and a bound on the parser's recursion.
 */
#define MAX_NESTING	(2 * TR_FILTER_MAX_INSNS)

struct parser {
	const char *text;
	const char *at;			/* next character to read */
	struct tep_event *event;
	struct tr_filter *prog;
	char *why;
	size_t whylen;
	int failed;
	unsigned int nesting;		/* '(' and '!' open around the next character */
};

/* A field as a comparison reads it. */
struct operand {
	struct tr_filter_insn insn;	/* src, size or chars, offset, is_signed */
	int is_string;
};

static int fail(struct parser *p, const char *where, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return -EINVAL;
	p->failed = 1;
	n = snprintf(p->why, p->whylen, "column %d: ", (int)(where - p->text) + 1);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < p->whylen)
		vsnprintf(p->why + n, p->whylen - n, fmt, ap);
	va_end(ap);
	/* What it quotes of the expression stays on the one line. */
	for (n = 0; p->whylen && p->why[n]; n++)
		if (iscntrl((unsigned char)p->why[n]))
			p->why[n] = '?';
	return -EINVAL;
}

static void skip_space(struct parser *p)
{
	while (isspace((unsigned char)*p->at))
		p->at++;
}

/* Consume tok if it comes next. */
static int accept(struct parser *p, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(p);
	if (strncmp(p->at, tok, n))
		return 0;
	p->at += n;
	return 1;
}

static int emit(struct parser *p, const struct tr_filter_insn *insn, const char *where)
{
	if (p->prog->ninsn >= TR_FILTER_MAX_INSNS)
		return fail(p, where, "the filter is too long: at most %d comparisons and operators",
			    TR_FILTER_MAX_INSNS);
	p->prog->insn[p->prog->ninsn++] = *insn;
	return 0;
}

static int emit_op(struct parser *p, enum tr_filter_op op, const char *where)
{
	struct tr_filter_insn insn = { .op = op };

	return emit(p, &insn, where);
}

/* --- Fields ---------------------------------------------------------------- */

static struct tep_format_field *closest_field(struct tep_event *event, const char *name)
{
	struct tep_format_field *lists[2] = { event->format.common_fields, event->format.fields };
	struct tep_format_field *f, *best = NULL;
	unsigned int d, best_d = strlen(name) / 3 + 2;
	int i;

	for (i = 0; i < 2; i++)
		for (f = lists[i]; f; f = f->next) {
			d = tr_edit_distance(name, f->name);
			if (d <= best_d) {
				best = f;
				best_d = d;
			}
		}
	return best;
}

static int unknown_field(struct parser *p, const char *where, const char *name)
{
	struct tep_format_field *near = closest_field(p->event, name);

	if (near)
		return fail(p, where, "%s:%s has no field '%s'; did you mean %s?",
			    p->event->system, p->event->name, name, near->name);
	return fail(p, where, "%s:%s has no field '%s' (tracer list shows the events; their fields are in tracefs events/%s/%s/format)",
		    p->event->system, p->event->name, name, p->event->system, p->event->name);
}

static int string_field(struct parser *p, const char *where, const struct tep_format_field *f,
			struct operand *o)
{
	o->is_string = 1;
	o->insn.offset = f->offset;
	if (f->offset < 0 || f->offset > 0xffff || f->size < 0 || f->size > TR_FILTER_FIELD_MAX)
		return fail(p, where, "'%s' (%s) lies beyond the first %d bytes of the record, which filters read",
			    f->name, f->type, TR_FILTER_FIELD_MAX + 1);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		o->insn.src = f->flags & TEP_FIELD_IS_RELATIVE ? TR_FSRC_REL_LOC : TR_FSRC_DATA_LOC;
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		o->insn.src = TR_FSRC_CHARS;
		o->insn.chars = f->size;
		return 0;
	}
	return fail(p, where, "'%s' (%s) points to a string outside the record, which filters cannot read",
		    f->name, f->type);
}

static int field_operand(struct parser *p, const char *where, const char *name,
			 struct operand *o)
{
	struct tep_format_field *f = tep_find_any_field(p->event, name);

	memset(o, 0, sizeof(*o));
	if (!f && (!strcmp(name, "CPU") || !strcmp(name, "cpu"))) {
		o->insn.src = TR_FSRC_CPU;
		return 0;
	}
	if (!f && (!strcmp(name, "COMM") || !strcmp(name, "comm"))) {
		o->insn.src = TR_FSRC_COMM;
		o->is_string = 1;
		return 0;
	}
	if (!f)
		return unknown_field(p, where, name);
	if (strstr(f->type, "char") &&
	    (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) || strchr(f->type, '*')))
		return string_field(p, where, f, o);
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
		return fail(p, where, "'%s' is an array (%s), which filters cannot compare",
			    name, f->type);
	if (f->offset < 0 || f->offset > 0xffff ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return fail(p, where, "'%s' (%s) is not an integer of 1, 2, 4 or 8 bytes",
			    name, f->type);
	o->insn.src = TR_FSRC_INT;
	o->insn.offset = f->offset;
	o->insn.size = f->size;
	o->insn.is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED);
	return 0;
}

/* --- Values ---------------------------------------------------------------- */

/* A bare word: up to a space, a parenthesis or an operator character. */
static size_t word_length(const char *s)
{
	size_t n = 0;

	while (s[n] && !isspace((unsigned char)s[n]) && !strchr("()&|!=<>~\"'", s[n]))
		n++;
	return n;
}

static int integer_value(struct parser *p, const struct operand *o, __u64 *value)
{
	const char *start = p->at;
	size_t n = word_length(start);
	char *text = strndup(start, n), *end;
	int bad;

	if (!text)
		return fail(p, start, "out of memory");
	errno = 0;
	if (o->insn.is_signed)
		*value = strtoll(text, &end, 0);
	else
		*value = strtoull(text, &end, 0);
	bad = !n || *end || errno || (!o->insn.is_signed && strchr(text, '-'));
	free(text);
	if (bad)
		return fail(p, start, n ? "'%.*s' is not %s integer" : "a value is missing here",
			    (int)n, start, o->insn.is_signed ? "an" : "an unsigned");
	p->at += n;
	/* As the kernel's filters do: the value in the field's type. */
	if (o->insn.src == TR_FSRC_INT && o->insn.size < 8) {
		unsigned int shift = 64 - 8 * o->insn.size;

		*value <<= shift;
		*value = o->insn.is_signed ? (__u64)((__s64)*value >> shift) : *value >> shift;
	}
	return 0;
}

static int string_value(struct parser *p, enum tr_filter_op op, __u64 *value)
{
	const char *start = p->at, *s = start;
	size_t n;
	char *pool = p->prog->strings + p->prog->strings_used;

	if (*s == '"' || *s == '\'') {
		const char *close = strchr(s + 1, *s);

		if (!close)
			return fail(p, start, "the string has no closing %c", *s);
		n = close - s - 1;
		s++;
		p->at = close + 1;
	} else {
		n = word_length(s);
		return fail(p, start, n ? "a string is quoted, as in \"%.*s\"" :
			    "a value is missing here", (int)n, s);
	}
	if (n >= TR_FILTER_STR)
		return fail(p, start, "the string is longer than %d characters", TR_FILTER_STR - 1);
	if (op == TR_FOP_GLOB && memchr(s, '[', n))
		return fail(p, start, "character classes ([...]) are not supported in globs; use * and ?");
	if (p->prog->strings_used + n + 1 > TR_FILTER_STRINGS)
		return fail(p, start, "the strings of the filter take more than %d bytes",
			    TR_FILTER_STRINGS);
	memcpy(pool, s, n);
	pool[n] = 0;
	*value = p->prog->strings_used;
	p->prog->strings_used += n + 1;
	return 0;
}

/* --- Grammar --------------------------------------------------------------- */

static const struct {
	const char *text;
	enum tr_filter_op int_op;	/* for integers, or -1 */
	enum tr_filter_op str_op;	/* for strings, or -1 */
} operators[] = {			/* longest first */
	{ "==", TR_FOP_EQ, TR_FOP_STR_EQ }, { "!=", TR_FOP_NE, TR_FOP_STR_NE },
	{ "<=", TR_FOP_LE, -1 }, { ">=", TR_FOP_GE, -1 },
	{ "<", TR_FOP_LT, -1 }, { ">", TR_FOP_GT, -1 },
	{ "&", TR_FOP_BAND, -1 }, { "~", -1, TR_FOP_GLOB },
};

static int comparison_op(struct parser *p, const char *field, const struct operand *o,
			 enum tr_filter_op *op)
{
	const char *where;
	size_t i;

	skip_space(p);
	where = p->at;
	for (i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		if (!accept(p, operators[i].text))
			continue;
		if (p->at[-1] == '&' && *p->at == '&')
			break;
		*op = o->is_string ? operators[i].str_op : operators[i].int_op;
		if ((int)*op >= 0)
			return 0;
		return fail(p, where, "'%s' is %s: it takes %s", field,
			    o->is_string ? "a string" : "an integer",
			    o->is_string ? "==, != or ~" : "==, !=, <, <=, >, >= or &");
	}
	return fail(p, where, "an operator (==, !=, <, <=, >, >=, &, ~) should follow '%s'",
		    field);
}

static int parse_comparison(struct parser *p)
{
	const char *where;
	struct operand o;
	enum tr_filter_op op = TR_FOP_EQ;
	size_t n;
	char *name;
	int err;

	skip_space(p);
	where = p->at;
	n = isalpha((unsigned char)*where) || *where == '_' ? word_length(where) : 0;
	if (!n)
		return fail(p, where, *where ? "a field name should come here" :
			    "the filter ends where a field name should come");
	name = strndup(where, n);
	if (!name)
		return fail(p, where, "out of memory");
	p->at += n;
	err = field_operand(p, where, name, &o);
	if (!err)
		err = comparison_op(p, name, &o, &op);
	free(name);
	if (err)
		return err;
	skip_space(p);
	o.insn.op = op;
	err = o.is_string ? string_value(p, op, &o.insn.value) : integer_value(p, &o, &o.insn.value);
	return err ? err : emit(p, &o.insn, where);
}

static int parse_or(struct parser *p);

static int parse_unary(struct parser *p);

/* '!' at where, then what it negates. */
static int parse_not(struct parser *p, const char *where)
{
	int err;

	p->at++;
	err = parse_unary(p);
	return err ? err : emit_op(p, TR_FOP_NOT, where);
}

/* '(' at where, an expression, ')'. */
static int parse_parens(struct parser *p, const char *where)
{
	int err;

	p->at++;
	err = parse_or(p);
	if (!err && !accept(p, ")"))
		return fail(p, p->at, "')' expected, to close the '(' at column %d",
			    (int)(where - p->text) + 1);
	return err;
}

static int parse_unary(struct parser *p)
{
	const char *where;
	int err;

	skip_space(p);
	where = p->at;
	if ((*where != '!' || where[1] == '=') && *where != '(')
		return parse_comparison(p);
	if (p->nesting == MAX_NESTING)
		return fail(p, where, "more than %d '(' and '!' one inside another", MAX_NESTING);
	p->nesting++;
	err = *where == '!' ? parse_not(p, where) : parse_parens(p, where);
	p->nesting--;
	return err;
}

/* operand (OP operand)*, each OP emitted after its right operand */
static int parse_chain(struct parser *p, const char *op_text, enum tr_filter_op op,
		       int (*operand)(struct parser *p))
{
	const char *where;
	int err = operand(p);

	while (!err) {
		skip_space(p);
		where = p->at;
		if (!accept(p, op_text))
			break;
		err = operand(p);
		if (!err)
			err = emit_op(p, op, where);
	}
	return err;
}

static int parse_and(struct parser *p)
{
	return parse_chain(p, "&&", TR_FOP_AND, parse_unary);
}

static int parse_or(struct parser *p)
{
	return parse_chain(p, "||", TR_FOP_OR, parse_and);
}

int tr_filter_compile(struct tep_event *event, const char *expr, struct tr_filter *prog,
		      char *why, size_t whylen)
{
	struct parser p = {
		.text = expr, .at = expr, .event = event, .prog = prog,
		.why = why, .whylen = whylen,
	};
	int err;

	memset(prog, 0, sizeof(*prog));
	err = parse_or(&p);
	skip_space(&p);
	if (!err && *p.at)
		err = fail(&p, p.at, "unexpected '%.16s' after a complete expression", p.at);
	return err;
}

static int is_string_op(enum tr_filter_op op)
{
	return op >= TR_FOP_STR_EQ && op <= TR_FOP_GLOB;
}

int tr_filter_or(struct tr_filter *prog, const struct tr_filter *other)
{
	struct tr_filter_insn or = { .op = TR_FOP_OR };
	unsigned int base = prog->strings_used, i;

	if (prog->ninsn + other->ninsn + 1 > TR_FILTER_MAX_INSNS ||
	    base + other->strings_used > TR_FILTER_STRINGS)
		return -E2BIG;
	memcpy(prog->strings + base, other->strings, other->strings_used);
	for (i = 0; i < other->ninsn; i++) {
		prog->insn[prog->ninsn] = other->insn[i];
		if (is_string_op(other->insn[i].op))
			prog->insn[prog->ninsn].value += base;
		prog->ninsn++;
	}
	prog->insn[prog->ninsn++] = or;
	prog->strings_used += other->strings_used;
	return 0;
}
