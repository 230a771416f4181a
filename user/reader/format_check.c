// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A tracefs format, as .tracer/events holds it:
 *
 *	name: NAME
 *	ID: NUMBER
 *	format:
 *		field:TYPE NAME;	offset:N;	size:N;	signed:N;	(common fields)
 *		...
 *
 *		field:...						(the event's own)
 *
 *	print fmt: "FORMAT", ARG, ...
 *
 * Field lines are accepted in exactly that shape, with plain C
 * declarations, and passed on unchanged.  Of the print format, a report
 * uses what tep_print_fields() uses: the conversion that prints a field
 * which is an argument by itself (REC->x, perhaps in casts).  So the
 * string keeps its text and its plain integer, string and pointer
 * conversions; other conversions are dropped with their arguments, and an
 * argument that is not a field by itself becomes 0.  libtraceevent's
 * expression parser and evaluator then see at most a cast field, and a
 * print format that cannot be split this way becomes "" (fields print raw).
 *
 * report's default text needs the print format whole.  tr_format_whole()
 * passes it so only where every argument is made of the tokens the
 * kernel's formats use and print/print_fmt.c evaluates (arg_whole()); the
 * parser still gets no truncated string, no unbalanced bracket, no name
 * it would look up, and libtraceevent never evaluates it: print/print_fmt.c
 * does, within the record.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/format_check.h"

#define MAX_FIELDS	256
#define MAX_ARGS	256
#define MAX_PARENS	8

struct span {
	const char *at;
	size_t len;
};

struct fields {
	struct span name[MAX_FIELDS];
	unsigned int count;
};

static int ident_char(char c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static size_t ident_len(struct span s)
{
	size_t i = 0;

	while (i < s.len && ident_char(s.at[i], i == 0))
		i++;
	return i;
}

static size_t digits_len(struct span s)
{
	size_t i = 0;

	while (i < s.len && s.at[i] >= '0' && s.at[i] <= '9')
		i++;
	return i;
}

static void skip(struct span *s, size_t n)
{
	s->at += n;
	s->len -= n;
}

/* Consumes prefix if s starts with it. */
static int take(struct span *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (s->len < n || memcmp(s->at, prefix, n))
		return 0;
	skip(s, n);
	return 1;
}

static void skip_spaces(struct span *s)
{
	while (s->len && s->at[0] == ' ')
		skip(s, 1);
}

/* A decimal number as the kernel prints it: 1 to 5 digits, no leading 0. */
static int take_number(struct span *s)
{
	size_t n = digits_len(*s);

	if (!n || n > 5 || (n > 1 && s->at[0] == '0'))
		return 0;
	skip(s, n);
	return 1;
}

static int next_line(struct span *text, struct span *line)
{
	const char *nl;

	if (!text->len)
		return 0;
	nl = memchr(text->at, '\n', text->len);
	*line = (struct span) { text->at, nl ? (size_t)(nl - text->at) : text->len };
	skip(text, line->len + (nl != NULL));
	return 1;
}

static int printable(struct span s)
{
	size_t i;

	for (i = 0; i < s.len; i++) {
		unsigned char c = s.at[i];

		if ((c < 0x20 && c != '\t' && c != '\n') || c > 0x7e)
			return 0;
	}
	return 1;
}

/*
 * A declaration as tracefs writes one: words separated by one space, the
 * first an identifier, the others an identifier with stars before or
 * after it ("*const", "void*"), or only stars.  The last word names the
 * field, with an optional "[N]"; *name is set to its identifier.  The
 * word before it may be an identifier with "[N]" or "[]" ("__data_loc
 * char[] name"), which libtraceevent then takes as part of the type.
 */
static int declaration_ok(struct span d, struct span *name)
{
	unsigned int words;
	int after_brackets = 0;

	for (words = 1;; words++) {
		size_t stars = 0, trailing = 0, n;
		int brackets = 0, unsized = 0;

		while (take(&d, "*"))
			stars++;
		n = ident_len(d);
		if ((!stars && !n) || (words == 1 && stars))
			return 0;
		*name = (struct span) { d.at, n };
		skip(&d, n);
		if (n && !stars && words > 1 && take(&d, "[")) {
			brackets = 1;
			unsized = !take_number(&d);
			if (!take(&d, "]"))
				return 0;
		} else {
			while (n && take(&d, "*"))
				trailing++;
		}
		if (!d.len)
			return words >= 2 && n && !unsized && !trailing &&
			       !(after_brackets && (stars || brackets));
		if (after_brackets || !take(&d, " "))
			return 0;
		after_brackets = brackets;
	}
}

/* "\tfield:DECLARATION;\toffset:N;\tsize:N;\tsigned:0|1;" */
static int field_line_ok(struct span l, struct span *name)
{
	const char *semicolon;
	struct span decl;

	if (!take(&l, "\tfield:"))
		return 0;
	semicolon = memchr(l.at, ';', l.len);
	if (!semicolon)
		return 0;
	decl = (struct span) { l.at, semicolon - l.at };
	skip(&l, decl.len);
	return declaration_ok(decl, name) &&
	       take(&l, ";\toffset:") && take_number(&l) &&
	       take(&l, ";\tsize:") && take_number(&l) &&
	       take(&l, ";\tsigned:") && (take(&l, "0") || take(&l, "1")) &&
	       take(&l, ";") && !l.len;
}

/* One block of field lines, up to an empty line or the end, copied to out. */
static const char *copy_fields(FILE *out, struct span *text, struct fields *f)
{
	struct span line, name;

	while (next_line(text, &line) && line.len) {
		if (!field_line_ok(line, &name))
			return "a field line is not \"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:N;\"";
		if (f->count == MAX_FIELDS)
			return "more than 256 fields";
		f->name[f->count++] = name;
		fprintf(out, "%.*s\n", (int)line.len, line.at);
	}
	fputc('\n', out);
	return NULL;
}

/*
 * The string literal that s starts with, consumed; *inside is its text.
 * libtraceevent ends a string at a tab, so a tab ends nothing here.
 */
static int take_literal(struct span *s, struct span *inside)
{
	size_t i;

	if (!s->len || s->at[0] != '"')
		return 0;
	for (i = 1; i < s->len && s->at[i] != '"' && s->at[i] != '\t'; i++)
		if (s->at[i] == '\\')
			i++;
	if (i >= s->len || s->at[i] != '"')
		return 0;
	*inside = (struct span) { s->at + 1, i - 1 };
	skip(s, i + 1);
	return 1;
}

static int add_arg(struct span arg, struct span *args, unsigned int *nargs)
{
	if (*nargs == MAX_ARGS)
		return 0;
	skip_spaces(&arg);
	while (arg.len && arg.at[arg.len - 1] == ' ')
		arg.len--;
	args[(*nargs)++] = arg;
	return 1;
}

/* ", ARG, ARG..." split at the commas outside brackets and quotes. */
static int split_args(struct span s, struct span *args, unsigned int *nargs)
{
	size_t i, start = 0;
	char quote = 0;
	int depth = 0;

	*nargs = 0;
	skip_spaces(&s);
	if (!s.len)
		return 1;
	if (!take(&s, ","))
		return 0;
	for (i = 0; i < s.len; i++) {
		char c = s.at[i];

		if (quote) {
			if (c == '\\')
				i++;
			else if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (--depth < 0)
				return 0;
		} else if (c == ',' && !depth) {
			if (!add_arg((struct span) { s.at + start, i - start }, args, nargs))
				return 0;
			start = i + 1;
		}
	}
	return !quote && !depth &&
	       add_arg((struct span) { s.at + start, s.len - start }, args, nargs);
}

/* After "(": a type, words and then stars, and ")", as in "(unsigned long *)"; consumed. */
static int take_cast(struct span *a)
{
	struct span type = *a;
	unsigned int words = 0;

	for (;;) {
		size_t n;

		skip_spaces(&type);
		n = ident_len(type);
		if (!n)
			break;
		/* libtraceevent reads REC as the record wherever it stands */
		if (n == 3 && !memcmp(type.at, "REC", 3))
			return 0;
		skip(&type, n);
		words++;
	}
	while (take(&type, "*"))
		skip_spaces(&type);
	if (!words || !take(&type, ")"))
		return 0;
	*a = type;
	return 1;
}

static int is_field(const struct fields *f, struct span name)
{
	unsigned int i;

	for (i = 0; i < f->count; i++)
		if (f->name[i].len == name.len && !memcmp(f->name[i].at, name.at, name.len))
			return 1;
	return 0;
}

/* Whether an argument is a field by itself: REC->name, in parentheses or casts. */
static int field_arg(struct span a, const struct fields *f)
{
	unsigned int open = 0, casts = 0;
	struct span name;

	for (;;) {
		skip_spaces(&a);
		if (take(&a, "REC->"))
			break;
		if (!take(&a, "(") || open + casts == MAX_PARENS)
			return 0;
		if (take_cast(&a))
			casts++;
		else
			open++;
	}
	name = (struct span) { a.at, ident_len(a) };
	skip(&a, name.len);
	for (; open; open--) {
		skip_spaces(&a);
		if (!take(&a, ")"))
			return 0;
	}
	skip_spaces(&a);
	return name.len && !a.len && is_field(f, name);
}

struct conversion {
	size_t len;			/* of the whole "%..." */
	unsigned int args;		/* what the kernel's printf takes for it */
	int plain;			/* one tep_print_fields() may print a field with */
};

/* Length modifiers libtraceevent reads as the kernel does. */
static int plain_length(struct span l)
{
	return !l.len || (l.len == 1 && memchr("hlz", l.at[0], 3)) ||
	       (l.len == 2 && (!memcmp(l.at, "hh", 2) || !memcmp(l.at, "ll", 2)));
}

/* The printf conversion at s ("%..."), parsed as the kernel's printf does. */
static struct conversion conversion_at(struct span s)
{
	struct conversion c = { .args = 1, .plain = 1 };
	struct span at = s, length;
	int pass;

	skip(&at, 1);
	while (at.len && memchr("-+ #0", at.at[0], 5)) {
		c.plain &= at.at[0] != '+' && at.at[0] != ' ';
		skip(&at, 1);
	}
	for (pass = 0; pass < 2; pass++) {	/* width, then precision */
		if (pass && !take(&at, "."))
			break;
		if (take(&at, "*")) {
			c.args++;
		} else {
			c.plain &= digits_len(at) <= 2;
			skip(&at, digits_len(at));
		}
	}
	length = (struct span) { at.at, 0 };
	while (length.len < 2 && length.len < at.len && memchr("hlLqjzZt", at.at[length.len], 8))
		length.len++;
	skip(&at, length.len);
	c.plain &= plain_length(length);
	if (!at.len || (!ident_char(at.at[0], 0) && at.at[0] != '%')) {
		/* no conversion character: none is taken, an escape stays whole */
		c.plain = 0;
	} else if (take(&at, "p")) {
		size_t ext = 0;

		while (ext < at.len && ident_char(at.at[ext], 0))
			ext++;
		/* %p, and %pS and the like: the others print arrays, never raw fields */
		c.plain &= !length.len && (!ext || (ext == 1 && memchr("SsFf", at.at[0], 4)));
		skip(&at, ext);
	} else {
		/* %ls would read a wide string */
		c.plain &= at.at[0] == 's' ? !length.len : memchr("diuxXo", at.at[0], 6) != NULL;
		c.args -= at.at[0] == '%';
		skip(&at, 1);
	}
	c.len = at.at - s.at;
	c.plain &= c.len < 16;		/* libtraceevent copies at most 31 bytes */
	c.plain &= c.args <= 2;		/* and fails a second '*' ("%*.*s") */
	return c;
}

/* The escaped backslashes held back so far, now that text follows them. */
static void put_held(FILE *out, unsigned int *held)
{
	for (; *held; (*held)--)
		fputs("\\\\", out);
}

/*
 * What follows "print fmt: ", reduced as the comment at the top says.
 * libtraceevent ends a string at a quote that no backslash precedes, even
 * an escaped one ("\\" runs on), so escaped backslashes are held back
 * until more of the string follows, and dropped where it would end.
 */
static void copy_print_fmt(FILE *out, struct span s, const struct fields *f)
{
	struct span lit, args[MAX_ARGS], kept[MAX_ARGS];
	unsigned int nargs, nkept = 0, next = 0, k, held = 0;

	if (!take_literal(&s, &lit) || !split_args(s, args, &nargs)) {
		fputs("print fmt: \"\"\n", out);
		return;
	}
	fputs("print fmt: \"", out);
	while (lit.len) {
		struct conversion c;

		if (take(&lit, "%%")) {
			put_held(out, &held);
			fputs("%%", out);
			continue;
		}
		if (take(&lit, "\\\\")) {
			held++;
			continue;
		}
		if (lit.at[0] != '%') {
			/* take_literal() left escapes whole: a backslash and one more */
			size_t n = lit.at[0] == '\\' ? 2 : 1;

			put_held(out, &held);
			fwrite(lit.at, 1, n, out);
			skip(&lit, n);
			continue;
		}
		c = conversion_at(lit);
		if (c.plain && next + c.args <= nargs) {
			put_held(out, &held);
			fwrite(lit.at, 1, c.len, out);
			for (k = 0; k < c.args; k++)
				kept[nkept++] = args[next + k];
		}
		next += c.args;
		skip(&lit, c.len);
	}
	fputc('"', out);
	for (k = 0; k < nkept; k++) {
		if (field_arg(kept[k], f))
			fprintf(out, ", %.*s", (int)kept[k].len, kept[k].at);
		else
			fputs(", 0", out);
	}
	fputc('\n', out);
}

/* --- A print fmt passed whole --------------------------------------------- */

static int word_in(struct span w, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == w.len && !memcmp(*words, w.at, w.len))
			return 1;
	return 0;
}

/* The helpers print/print_fmt.c evaluates, and those whose argument is a field's name. */
static const char *const helpers[] = {
	"__print_flags", "__print_symbolic", "__print_hex", "__print_hex_str", "__print_array", NULL
};
static const char *const field_helpers[] = {
	"__get_str", "__get_dynamic_array", "__get_dynamic_array_len", NULL
};

/* Operators and punctuation, longest first: what libtraceevent's tokenizer reads as one. */
static const char *const operators[] = {
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"(", ")", "[", "]", "{", "}", ",", "?", ":", "+", "-", "*", "/", "%",
	"<", ">", "&", "|", "^", "~", "!", NULL
};

/* A number: a digit, then digits, hex digits, x and integer suffixes. */
static int take_integer(struct span *a)
{
	size_t i = 0;

	if (!a->len || a->at[0] < '0' || a->at[0] > '9')
		return 0;
	while (i < a->len && (isxdigit((unsigned char)a->at[i]) || memchr("xXuUlL", a->at[i], 6)))
		i++;
	skip(a, i);
	return 1;
}

/* One identifier in one of the places the comment of args_whole() allows; consumed. */
static int take_word(struct span *a, const struct fields *f)
{
	struct span w = { a->at, ident_len(*a) }, after, name;

	skip(a, w.len);
	after = *a;
	skip_spaces(&after);
	if (w.len == 3 && !memcmp(w.at, "REC", 3)) {
		if (!take(&after, "->"))
			return 0;
		name = (struct span) { after.at, ident_len(after) };
		skip(&after, name.len);
		*a = after;
		return is_field(f, name);
	}
	if (word_in(w, field_helpers)) {
		if (!take(&after, "("))
			return 0;
		skip_spaces(&after);
		name = (struct span) { after.at, ident_len(after) };
		skip(&after, name.len);
		skip_spaces(&after);
		*a = after;
		return is_field(f, name) && take(a, ")");
	}
	if (word_in(w, helpers))
		return after.len && after.at[0] == '(';
	return 0;
}

/*
 * After "/" or "%": a number other than 0 that nothing else binds to (the
 * end, ")", "," or "}" follows), consumed.  libtraceevent folds constant
 * expressions as it parses, and a divisor it folds to 0 kills it.
 */
static int divisor_ok(struct span *a)
{
	const char *nonzero = "123456789";
	struct span number;
	size_t i = 0;

	skip_spaces(a);
	number = *a;
	if (!take_integer(a))
		return 0;
	number.len = a->at - number.at;
	/* its value as strtoull() reads it: after any 0s, a digit of its base other than 0 */
	if (number.len > 2 && number.at[0] == '0' && (number.at[1] == 'x' || number.at[1] == 'X')) {
		nonzero = "123456789abcdefABCDEF";
		i = 2;
	} else if (number.at[0] == '0') {
		nonzero = "1234567";
	}
	while (i < number.len && number.at[i] == '0')
		i++;
	if (i == number.len || !strchr(nonzero, number.at[i]))
		return 0;
	skip_spaces(a);
	return !a->len || strchr("),}", a->at[0]);
}

/*
 * Whether a print fmt argument is one libtraceevent may parse: balanced
 * brackets at most MAX_PARENS deep, and tokens of C expressions that are
 * numbers, string literals, operators, casts to words and stars, REC->FIELD,
 * FIELD-taking helpers (__get_str(FIELD)) and the helpers print/print_fmt.c
 * evaluates; a divisor only as divisor_ok() says.  Every other identifier (an enum name the kernel left in,
 * sizeof, a kernel function) and every other character refuse it.
 */
static int arg_whole(struct span a, const struct fields *f)
{
	char open[MAX_PARENS];
	int depth = 0;

	for (skip_spaces(&a); a.len; skip_spaces(&a)) {
		struct span lit, cast = a;
		const char *const *op;

		if (take(&cast, "(") && take_cast(&cast)) {
			a = cast;
			continue;
		}
		if (take_integer(&a) || take_literal(&a, &lit))
			continue;
		if (ident_len(a)) {
			if (!take_word(&a, f))
				return 0;
			continue;
		}
		for (op = operators; *op && !take(&a, *op); op++)
			;
		if (!*op || (((*op)[0] == '/' || (*op)[0] == '%') && !divisor_ok(&a)))
			return 0;
		if (strchr("([{", (*op)[0]) && !(*op)[1]) {
			if (depth == MAX_PARENS)
				return 0;
			open[depth++] = (*op)[0];
		} else if (strchr(")]}", (*op)[0]) && !(*op)[1]) {
			if (!depth || open[--depth] != ((*op)[0] == ')' ? '(' : (*op)[0] - 2))
				return 0;
		}
	}
	return !depth;
}

/*
 * What follows "print fmt: " passed whole, or "" where an argument is not
 * one arg_whole() accepts, the string holds an escaped backslash (see
 * copy_print_fmt()), or its conversions do not take exactly the arguments.
 * Returns 0 where it wrote "".
 */
static int copy_print_fmt_whole(FILE *out, struct span s, const struct fields *f)
{
	struct span lit, rest = s, args[MAX_ARGS];
	unsigned int nargs, need = 0, k;

	if (!take_literal(&rest, &lit) || !split_args(rest, args, &nargs) ||
	    memmem(lit.at, lit.len, "\\\\", 2))
		goto refuse;
	while (lit.len) {
		struct conversion c;

		if (take(&lit, "%%"))
			continue;
		if (lit.at[0] != '%') {
			skip(&lit, lit.at[0] == '\\' ? 2 : 1);
			continue;
		}
		c = conversion_at(lit);
		need += c.args;
		skip(&lit, c.len);
	}
	if (need != nargs)
		goto refuse;
	for (k = 0; k < nargs; k++)
		if (!args[k].len || !arg_whole(args[k], f))
			goto refuse;
	fprintf(out, "print fmt: %.*s\n", (int)s.len, s.at);
	return 1;
refuse:
	fputs("print fmt: \"\"\n", out);
	return 0;
}

/*
 * What follows the field blocks: empty lines and at most a print fmt,
 * which runs to the end (its string may hold a newline).
 */
static const char *copy_print(FILE *out, struct span *text, const struct fields *f, int whole)
{
	struct span fmt;

	while (text->len && text->at[0] == '\n')
		skip(text, 1);
	while (text->len && text->at[text->len - 1] == '\n')
		text->len--;
	fmt = *text;
	if (fmt.len && !take(&fmt, "print fmt: "))
		return "unexpected text after the fields";
	if (fmt.len && whole)
		return copy_print_fmt_whole(out, fmt, f) ? NULL :
		       "its print fmt holds what tracer does not evaluate";
	if (fmt.len)
		copy_print_fmt(out, fmt, f);
	else
		fputs("print fmt: \"\"\n", out);
	return NULL;
}

/* "name: NAME\nID: N\nformat:\n", the name an identifier: *name is set to it. */
static const char *header_problem(struct span *text, struct span *name)
{
	struct span line[3];
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!next_line(text, &line[i]))
			return "no name, ID and format lines";
	*name = line[0];
	if (!take(name, "name: ") || !name->len || ident_len(*name) != name->len ||
	    !take(&line[1], "ID: ") || digits_len(line[1]) != line[1].len ||
	    line[2].len != 7 || memcmp(line[2].at, "format:", 7))
		return "no name, ID and format lines";
	return NULL;
}

static char *sanitize(const char *text, size_t len, unsigned int id, int whole, const char **why)
{
	struct span rest = { text, len }, name;
	struct fields fields = { .count = 0 };
	char *sane = NULL;
	size_t sane_len;
	FILE *out;
	int block;

	/* libtraceevent replaces LOCAL_PR_FMT, STA_PR_FMT and VIF_PR_FMT wherever they appear */
	*why = len > TR_FORMAT_MAX ? "format longer than 64 KiB" :
	       !printable(rest) ? "format is not printable text" :
	       memmem(text, len, "_PR_FMT", 7) ? "format names a macro libtraceevent expands" :
	       header_problem(&rest, &name);
	if (*why)
		return NULL;
	out = open_memstream(&sane, &sane_len);
	if (!out) {
		*why = "out of memory";
		return NULL;
	}
	fprintf(out, "name: %.*s\nID: %u\nformat:\n", (int)name.len, name.at, id);
	for (block = 0; block < 2 && !*why; block++)
		*why = copy_fields(out, &rest, &fields);
	if (!*why)
		*why = copy_print(out, &rest, &fields, whole);
	if (fclose(out) && !*why)
		*why = "out of memory";
	if (*why) {
		free(sane);
		return NULL;
	}
	return sane;
}

char *tr_format_sanitize(const char *text, size_t len, unsigned int id, const char **why)
{
	return sanitize(text, len, id, 0, why);
}

char *tr_format_whole(const char *text, size_t len, unsigned int id, const char **why)
{
	return sanitize(text, len, id, 1, why);
}
