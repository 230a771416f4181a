// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Formats read back from a trace go through tr_format_sanitize() before
 * libtraceevent: every format of this kernel's tracefs comes out with the
 * same fields and prints every field of a record exactly as the original
 * does; damaged or hostile formats are refused or reduced to conversions
 * of plain fields.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <event-parse.h>

#include "tap.h"
#include "reader/format_check.h"
#include "records.h"

/* Fields alike; libtraceevent only notes, never uses, that __print_flags() names one. */
static int same_fields(const struct tep_format_field *a, const struct tep_format_field *b)
{
	const unsigned long noted = TEP_FIELD_IS_FLAG | TEP_FIELD_IS_SYMBOLIC;

	for (; a && b; a = a->next, b = b->next)
		if (strcmp(a->name, b->name) || strcmp(a->type, b->type) ||
		    a->offset != b->offset || a->size != b->size ||
		    (a->flags & ~noted) != (b->flags & ~noted))
			return 0;
	return !a && !b;
}

static void print_fields(struct trace_seq *seq, struct tep_event *ev, unsigned char *data,
			 unsigned int size)
{
	trace_seq_reset(seq);
	tep_print_fields(seq, data, size, ev);
	trace_seq_terminate(seq);
}

/* One tracefs event: the same fields, and the same text for random records. */
static void compare_event(const char *system, const char *name, unsigned int *compared)
{
	struct tep_handle *orig_tep = tep_alloc(), *sane_tep = tep_alloc();
	static unsigned char data[65536 + 512];
	struct trace_seq a, b;
	struct tep_event *orig, *sane_ev;
	const char *why = NULL;
	char *format, *sane;
	int size = 0, r;

	format = tracefs_event_file_read(NULL, system, name, "format", &size);
	orig = format ? parse(orig_tep, format, system) : NULL;
	if (!orig)
		goto out;	/* libtraceevent cannot read it either */
	sane = tr_format_sanitize(format, size, 7, &why);
	sane_ev = sane ? parse(sane_tep, sane, "tracer") : NULL;
	if (!sane_ev) {
		tap_fail(__FILE__, __LINE__, "a sanitized tracefs format that parses");
		tap_diag("  %s:%s: %s", system, name, why ? why : "libtraceevent refused it");
		free(sane);
		goto out;
	}
	EXPECT(same_fields(orig->format.common_fields, sane_ev->format.common_fields));
	EXPECT(same_fields(orig->format.fields, sane_ev->format.fields));
	trace_seq_init(&a);
	trace_seq_init(&b);
	for (r = 0; r < 20; r++) {
		unsigned int len = random_record(orig, data, sizeof(data) - 1);

		print_fields(&a, orig, data, len);
		print_fields(&b, sane_ev, data, len);
		if (strcmp(a.buffer, b.buffer)) {
			tap_fail(__FILE__, __LINE__, "the same fields printed");
			tap_diag("  %s:%s\n#   original:  %s\n#   sanitized: %s", system, name,
				 a.buffer, b.buffer);
			break;
		}
	}
	trace_seq_destroy(&a);
	trace_seq_destroy(&b);
	free(sane);
	(*compared)++;
out:
	free(format);
	tep_free(orig_tep);
	tep_free(sane_tep);
}

static void every_tracefs_format_prints_as_the_original(void)
{
	char **systems = tracefs_event_systems(NULL);
	unsigned int compared = 0;
	int i, j;

	for (i = 0; systems && systems[i] && !tap_current_failed; i++) {
		char **events = tracefs_system_events(NULL, systems[i]);

		/* ftrace's own formats are not tracepoints: record never stores them */
		for (j = 0; events && events[j] && strcmp(systems[i], "ftrace"); j++)
			compare_event(systems[i], events[j], &compared);
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	tap_diag("%u formats compared", compared);
	EXPECT(compared > 100);
}

static const char fields[] =
	"name: hostile\nID: 9\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long b;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:0;\n\n";

/* The print fmt line that a format's print fmt becomes, or NULL if refused. */
static char *sanitized_print(const char *print)
{
	char text[4096], *sane, *line;
	const char *why;

	snprintf(text, sizeof(text), "%sprint fmt: %s\n", fields, print);
	sane = tr_format_sanitize(text, strlen(text), 9, &why);
	line = sane ? strdup(strstr(sane, "print fmt: ") + 11) : NULL;
	free(sane);
	if (line)
		line[strcspn(line, "\n")] = 0;
	return line;
}

#define EXPECT_PRINT(print, expected) \
	do { \
		char *got_ = sanitized_print(print); \
		if (!got_ || strcmp(got_, expected)) { \
			tap_fail(__FILE__, __LINE__, "print fmt " #print " becomes " #expected); \
			tap_diag("  got %s", got_ ? got_ : "(refused)"); \
		} \
		free(got_); \
	} while (0)

static void print_formats_keep_only_conversions_of_plain_fields(void)
{
	EXPECT_PRINT("\"a=%d b=0x%08lx\", REC->a, ((unsigned long)(REC->b))",
		     "\"a=%d b=0x%08lx\", REC->a, ((unsigned long)(REC->b))");
	/* what the kernel's printf and libtraceevent would read differently */
	EXPECT_PRINT("\"%ls %n %+d %c %pI4 %d\", REC->s, REC->a, REC->a, REC->a, REC->b, REC->a",
		     "\"     %d\", REC->a");
	/* expressions, functions and unknown names become 0 */
	EXPECT_PRINT("\"%d %s %lu %d\", REC->a / REC->a, __get_str(s), "
		     "__print_symbolic(REC->b, { 0, \"zero\" }), REC->nosuch",
		     "\"%d %s %lu %d\", 0, 0, 0, 0");
	EXPECT_PRINT("\"%.*s|%*d\", REC->a, __get_str(s), 3, REC->a",
		     "\"%.*s|%*d\", REC->a, 0, 0, REC->a");
	/* a width libtraceevent would print megabytes of */
	EXPECT_PRINT("\"%999999d\", REC->a", "\"\"");
	/* a string cut off, or brackets that do not close, leave nothing */
	EXPECT_PRINT("\"a=%d, REC->a", "\"\"");
	EXPECT_PRINT("\"a=%d\", ((REC->a)", "\"\"");
	EXPECT_PRINT("\"%d\", ((((((((((REC->a))))))))))", "\"%d\", 0");
	EXPECT_PRINT("\"%x\", ((REC)(REC->a))", "\"%x\", 0");
	EXPECT_PRINT("\"%%d \\\"%d\\\"\", REC->a", "\"%%d \\\"%d\\\"\", REC->a");
	/* a conversion cut by an escape keeps the escape: the string stays one */
	EXPECT_PRINT("\"%-\\\"%d\", REC->a, REC->a", "\"\\\"%d\", REC->a");
	EXPECT_PRINT("\"%d\", \"a\\\", REC->a\"", "\"%d\", 0");
	/* libtraceevent reads on past a quote after an escaped backslash */
	EXPECT_PRINT("\"\\\\\"", "\"\"");
	EXPECT_PRINT("\"a\\\\%f\\\\%d\\\\\\\\%5.2f\", 1.0, REC->a, 2.0",
		     "\"a\\\\\\\\%d\", REC->a");
}

#define EXPECT_REFUSED(text) \
	do { \
		const char *why_ = NULL; \
		char *sane_ = tr_format_sanitize(text, strlen(text), 1, &why_); \
		EXPECT(!sane_ && why_); \
		free(sane_); \
	} while (0)

static void damaged_formats_are_refused(void)
{
	char text[4096];
	const char *why;
	char *sane;

	/* the format of the trace getppid_n makes, cut off in a field line */
	snprintf(text, sizeof(text), "%s", fields);
	text[strstr(text, "offset:16") - text + 4] = 0;
	EXPECT_REFUSED(text);
	EXPECT_REFUSED("");
	EXPECT_REFUSED("name: x\nID: 1\nformat:\n\tfield:int;\toffset:0;\tsize:4;\tsigned:1;\n");
	EXPECT_REFUSED("name: x\nID: 1\nformat:\n\tfield:int x;\toffset:-4;\tsize:4;\tsigned:1;\n");
	EXPECT_REFUSED("name: x\nID: 1\nformat:\n\tfield:int x;\toffset:0x10;\tsize:4;\tsigned:1;\n");
	EXPECT_REFUSED("name: x\nID: 1\nformat:\n\tfield:int (*x)();\toffset:0;\tsize:4;\tsigned:1;\n");
	EXPECT_REFUSED("name: x\nID: 1\nformat:\n\tfield:char x[999999];\toffset:0;\tsize:4;\tsigned:1;\n");
	EXPECT_REFUSED("name: x y\nID: 1\nformat:\n");
	/* libtraceevent finds no type in "A[] x" */
	EXPECT_REFUSED("name: x\nID: 1\nformat:\n\tfield:__data_loc0char[] x;\toffset:0;\tsize:4;\tsigned:0;\n");
	snprintf(text, sizeof(text), "%sno print fmt\n", fields);
	EXPECT_REFUSED(text);
	snprintf(text, sizeof(text), "%sprint fmt: \"\x01\"\n", fields);
	EXPECT_REFUSED(text);
	/* and the whole of a sound one is kept */
	snprintf(text, sizeof(text), "%sprint fmt: \"a=%%d\", REC->a\n", fields);
	sane = tr_format_sanitize(text, strlen(text), 9, &why);
	EXPECT(sane && !strcmp(sane, text));
	free(sane);
}

int main(void)
{
	if (!tracefs_tracing_dir() || !tracefs_event_systems(NULL))
		tap_skip("every_tracefs_format_prints_as_the_original", "tracefs is not readable");
	else
		TAP_RUN(every_tracefs_format_prints_as_the_original);
	TAP_RUN(print_formats_keep_only_conversions_of_plain_fields);
	TAP_RUN(damaged_formats_are_refused);
	return tap_done();
}
