// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report's fast path (print/fields.c) against libtraceevent's
 * tep_print_fields(), the text it stands in for: every tracepoint format
 * of the running kernel, sanitized as report reads it, prints random
 * records byte for byte alike; and formats made to hit libtraceevent's
 * quirks do too.  Each side has its own parse of the format, so a char
 * array that one side stops printing as a string the other must as well.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <tracefs.h>
#include <event-parse.h>

#include "tap.h"
#include "reader/format_check.h"
#include "print/fields.h"
#include "print/print_fmt.h"
#include "records.h"

/* Some fields small (padding, "(nil)", 0), some strings printable, the rest random. */
static void tame(const struct tep_event *ev, unsigned char *data, unsigned int len)
{
	struct tep_format_field *f;

	for (f = ev->format.fields; f; f = f->next) {
		unsigned int i, at = f->offset, n = f->size;

		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			__u32 loc;

			memcpy(&loc, data + f->offset, sizeof(loc));
			at = loc & 0xffff;
			n = loc >> 16;
			if (at + n > len || !n)
				continue;
			n--;		/* keep the NUL */
		}
		if (next_random() % 3)
			continue;
		if (f->flags & TEP_FIELD_IS_ARRAY) {
			for (i = 0; i < n; i++)
				data[at + i] = " azAZ09_-./"[next_random() % 11];
			if (n && !(f->flags & TEP_FIELD_IS_DYNAMIC))
				data[at + next_random() % n] = 0;
		} else {
			memset(data + at, 0, n);
			data[at] = next_random() % 12;
			if (next_random() % 2 && n > 1)
				memset(data + at, 0xff, n);
		}
	}
}

/*
 * Both sides print the same records of one sanitized format: 1 if the
 * plan took the class, 0 if it left it to libtraceevent, -1 on a
 * difference (said).
 */
static int compare_format(const char *label, const char *sane, unsigned int records)
{
	struct tep_handle *ref_tep = tep_alloc(), *fast_tep = tep_alloc();
	static unsigned char data[65536 + 512];
	struct tep_event *ref = parse(ref_tep, sane, "tracer");
	struct tep_event *fast = parse(fast_tep, sane, "tracer");
	struct tr_field_plan *plan = fast ? tr_field_plan_new(fast) : NULL;
	struct tr_line line = { NULL, 0, 0 };
	struct trace_seq seq;
	int result = plan ? 1 : 0;
	unsigned int r;

	if (ref)	/* as the plan does: u8 arrays are bytes */
		tr_fields_bytes_as_bytes(ref);
	/* as report reads a trace (reader/trace.c) */
	tep_set_long_size(ref_tep, 8);
	tep_set_long_size(fast_tep, 8);
	trace_seq_init(&seq);
	for (r = 0; plan && r < records; r++) {
		unsigned int len = random_record(ref, data, sizeof(data) - 1);

		tame(ref, data, len);
		trace_seq_reset(&seq);
		tep_print_fields(&seq, data, len, ref);
		trace_seq_terminate(&seq);
		line.len = 0;
		if (tr_field_plan_print(plan, data, len, &line) || tr_line_reserve(&line, 1)) {
			tap_fail(__FILE__, __LINE__, "memory for a line");
			result = -1;
			break;
		}
		line.buf[line.len] = 0;
		if (strcmp(seq.buffer, line.buf)) {
			tap_fail(__FILE__, __LINE__, "the fast path prints as libtraceevent");
			tap_diag("  %s, record %u\n#   libtraceevent: %s\n#   fast path:     %s",
				 label, r, seq.buffer, line.buf);
			result = -1;
			break;
		}
	}
	trace_seq_destroy(&seq);
	free(line.buf);
	tr_field_plan_free(plan);
	tep_free(ref_tep);
	tep_free(fast_tep);
	return result;
}

/* visit(label, format, size, data) on each tracepoint format of the running kernel. */
typedef void visit_fn(const char *label, const char *format, int size, void *data);

/* Each format but ftrace's own events', until a check fails. */
static void for_each_tracefs_format(visit_fn *visit, void *data)
{
	char **systems = tracefs_event_systems(NULL);
	int i, j;

	for (i = 0; systems && systems[i] && !tap_current_failed; i++) {
		char **events = tracefs_system_events(NULL, systems[i]);

		for (j = 0; events && events[j] && strcmp(systems[i], "ftrace") &&
			    !tap_current_failed; j++) {
			char *format, label[256];
			int size = 0;

			format = tracefs_event_file_read(NULL, systems[i], events[j], "format", &size);
			snprintf(label, sizeof(label), "%s:%s", systems[i], events[j]);
			if (format)
				visit(label, format, size, data);
			free(format);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
}

struct field_counts {
	unsigned int formats, planned;
};

static void compare_fields_of(const char *label, const char *format, int size, void *data)
{
	struct field_counts *n = data;
	const char *why;
	char *sane = tr_format_sanitize(format, size, 7, &why);

	if (sane) {
		n->formats++;
		n->planned += compare_format(label, sane, 60) == 1;
	}
	free(sane);
}

static void every_tracefs_format_prints_as_libtraceevent(void)
{
	struct field_counts n = { 0, 0 };

	for_each_tracefs_format(compare_fields_of, &n);
	tap_diag("%u of %u formats printed by the fast path", n.planned, n.formats);
	EXPECT(n.formats > 100);
	/* most tracepoints are plain numbers and strings: the fast path is the rule */
	EXPECT(n.planned * 10 >= n.formats * 8);
}

/*
 * A format passed whole: the plan prints random records of it as
 * tep_print_event() does, except those it says are short of what the
 * format reads (counted in *short_records), where libtraceevent reads
 * outside the record or dies of a division by zero.  1 if it has a plan and they agree, 0 if it has
 * none, -1 on a difference (said).
 */
static int compare_print(const char *label, const char *whole, unsigned int records,
			 unsigned int *short_records)
{
	struct tep_handle *ref_tep = tep_alloc(), *fast_tep = tep_alloc();
	static unsigned char data[65536 + 512];
	struct tep_event *ref = parse(ref_tep, whole, "tracer");
	struct tep_event *fast = parse(fast_tep, whole, "tracer");
	struct tr_print_plan *plan = fast ? tr_print_plan_new(fast, NULL) : NULL;
	struct tr_line line = { NULL, 0, 0 };
	struct trace_seq seq;
	int result = plan ? 1 : 0;
	unsigned int r;

	tep_set_long_size(ref_tep, 8);
	tep_set_long_size(fast_tep, 8);
	trace_seq_init(&seq);
	for (r = 0; plan && r < records; r++) {
		unsigned int len = random_record(ref, data, sizeof(data) - 1);
		struct tep_record rec = { .data = data, .size = len };
		__u16 type = ref->id;
		int printed;

		tame(ref, data, len);
		/* tep_print_event() finds the event by common_type */
		memcpy(data, &type, sizeof(type));
		line.len = 0;
		printed = tr_print_plan_print(plan, data, len, &line);
		if (printed < 0 || tr_line_reserve(&line, 1)) {
			tap_fail(__FILE__, __LINE__, "memory for a line");
			result = -1;
			break;
		}
		line.buf[line.len] = 0;
		/* libtraceevent would read outside the record, or die */
		if (printed == 1) {
			(*short_records)++;
			continue;
		}
		trace_seq_reset(&seq);
		tep_print_event(ref_tep, &seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		if (strcmp(seq.buffer, line.buf)) {
			tap_fail(__FILE__, __LINE__, "the plan prints the print fmt as libtraceevent");
			tap_diag("  %s, record %u\n#   libtraceevent: %s\n#   plan:          %s",
				 label, r, seq.buffer, line.buf);
			result = -1;
			break;
		}
	}
	trace_seq_destroy(&seq);
	free(line.buf);
	tr_print_plan_free(plan);
	tep_free(ref_tep);
	tep_free(fast_tep);
	return result;
}

struct print_counts {
	unsigned int formats, whole, planned, short_records;
};

static void compare_print_of(const char *label, const char *format, int size, void *data)
{
	struct print_counts *n = data;
	const char *why;
	char *text = tr_format_whole(format, size, 7, &why);

	n->formats++;
	if (text) {
		int printed = compare_print(label, text, 60, &n->short_records);

		n->whole++;
		n->planned += printed == 1;
		if (!printed && getenv("PRINT_TEST_VERBOSE"))
			tap_diag("no plan: %s", label);
	} else if (getenv("PRINT_TEST_VERBOSE")) {
		tap_diag("not whole: %s: %s", label, why);
	}
	free(text);
}

static void every_tracefs_print_fmt_prints_as_libtraceevent(void)
{
	struct print_counts n = { 0, 0, 0, 0 };

	for_each_tracefs_format(compare_print_of, &n);
	tap_diag("%u of %u formats passed whole, %u of them printed by the plan (%u short records "
		 "left out)", n.whole, n.formats, n.planned, n.short_records);
	EXPECT(n.formats > 100);
	EXPECT(n.planned * 10 >= n.formats * 7);
}

#define HEAD \
	"name: quirks\nID: 9\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned long b;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:short c;\toffset:24;\tsize:2;\tsigned:1;\n" \
	"\tfield:char d;\toffset:26;\tsize:1;\tsigned:1;\n" \
	"\tfield:void * e;\toffset:32;\tsize:8;\tsigned:0;\n" \
	"\tfield:long f;\toffset:40;\tsize:8;\tsigned:1;\n" \
	"\tfield:char g[8];\toffset:48;\tsize:8;\tsigned:0;\n" \
	"\tfield:__data_loc char[] h;\toffset:56;\tsize:4;\tsigned:0;\n" \
	"\tfield:u8 i[6];\toffset:60;\tsize:6;\tsigned:0;\n\n" \
	"print fmt: "

/* 1 if the plan prints the format as libtraceevent does, -1 if not; 0 if it has no plan. */
static int quirk(const char *print)
{
	char text[4096], *sane;
	const char *why;
	int result;

	snprintf(text, sizeof(text), "%s%s\n", HEAD, print);
	sane = tr_format_sanitize(text, strlen(text), 9, &why);
	if (!sane) {
		tap_fail(__FILE__, __LINE__, "a format the sanitizer takes");
		tap_diag("  %s: %s", print, why);
		return -1;
	}
	result = compare_format(print, sane, 2000);
	free(sane);
	return result;
}

static void libtraceevent_quirks_print_alike(void)
{
	/* "0x" before a conversion, casts that cut, the length modifiers */
	EXPECT_EQ(quirk("\"a=%d b=0x%lx c=%hd d=%hhd e=%p f=%ld\", REC->a, REC->b, REC->c, REC->d, "
			"REC->e, REC->f"), 1);
	EXPECT_EQ(quirk("\"%u %x %X %o %hhu %lu %zu %llx\", (u8)REC->a, (unsigned int)REC->b, "
			"(short)REC->c, REC->d, REC->a, (int)REC->f, REC->b, (s16)REC->e"), 1);
	/* conversions out of field order: the search wraps, and the last ends it */
	EXPECT_EQ(quirk("\"%d %d %lu\", REC->c, REC->a, REC->b"), 1);
	EXPECT_EQ(quirk("\"%lx %d\", REC->f, REC->a"), 1);
	/* fields no conversion prints, by type; arrays and strings always */
	EXPECT_EQ(quirk("\"%s %s %s\", REC->g, __get_str(h), REC->i"), 1);
	EXPECT_EQ(quirk("\"\""), 1);
	EXPECT_EQ(quirk("\"0x%d 0x%%%x\\n0x%u\", REC->a, REC->b, REC->c"), 1);
	/* widths and flags */
	EXPECT_EQ(quirk("\"%08lx %#x %-3d %#016lx %3d %#o %05d %-2u\", REC->b, REC->a, REC->c, "
			"REC->f, REC->d, REC->a, REC->a, REC->d"), 1);
	/* what it leaves to libtraceevent */
	EXPECT_EQ(quirk("\"%.3d\", REC->a"), 0);
	EXPECT_EQ(quirk("\"%s\", REC->e"), 0);
	EXPECT_EQ(quirk("\"%pS\", REC->e"), 0);
}

/*
 * 1 if the plan prints a print fmt passed whole as tep_print_event() does,
 * -1 if not; 0 if the format is not passed whole or has no plan.
 */
static int print_quirk(const char *print)
{
	unsigned int short_records = 0;
	char text[4096], *whole;
	const char *why;
	int result;

	snprintf(text, sizeof(text), "%s%s\n", HEAD, print);
	whole = tr_format_whole(text, strlen(text), 9, &why);
	if (!whole)
		return 0;
	result = compare_print(print, whole, 2000, &short_records);
	free(whole);
	return result;
}

static void print_formats_print_as_libtraceevent(void)
{
	/* sched_switch's shape: ?: choosing strings, flags with a delimiter and a rest */
	EXPECT_EQ(print_quirk("\"a=%d %s%s\", REC->a, REC->a & 3 ? __print_flags(REC->a & 3, \"|\", "
			      "{ 1, \"S\" }, { 2, \"D\" }) : \"R\", REC->a & 4 ? \"+\" : \"\""), 1);
	EXPECT_EQ(print_quirk("\"%s %s\", __print_flags(REC->b, \",\", { 0x1, \"A\" }, { 0x6, \"BC\" }), "
			      "__print_symbolic(REC->d, { 0, \"zero\" }, { 1, \"one\" })"), 1);
	/* a negative value in a table is -1 to libtraceevent, whatever it is */
	EXPECT_EQ(print_quirk("\"%s\", __print_symbolic(REC->d, { -6ULL, \"six\" }, { (-1), \"one\" }, "
			      "{ 2, \"two\" })"), 1);
	/* conversions libtraceevent does not know print as ">c<" and take nothing */
	EXPECT_EQ(print_quirk("\"%c %+d\", REC->a, REC->a"), 1);
	/* functions without names, pointers */
	EXPECT_EQ(print_quirk("\"%pS %ps %p\", REC->e, REC->b, REC->e"), 1);
	/* buffers, indexes, arithmetic, casts, widths and precisions */
	EXPECT_EQ(print_quirk("\"%s|%s\", __print_hex(REC->i, 6), "
			      "__print_array(__get_dynamic_array(h), __get_dynamic_array_len(h), 1)"), 1);
	EXPECT_EQ(print_quirk("\"%d %u %llu %lx\", REC->i[2], (u8)REC->a / 3, REC->b % 0x10UL, "
			      "(REC->b >> 40) | ~REC->f"), 1);
	EXPECT_EQ(print_quirk("\"%-8s|%.3s|%*d|%.*s\", REC->g, __get_str(h), REC->d, REC->a, "
			      "REC->c, __get_str(h)"), 1);
	/* not passed whole: names the kernel left in, sizeof, function calls */
	EXPECT_EQ(print_quirk("\"%d\", FOO_BAR"), 0);
	EXPECT_EQ(print_quirk("\"%d\", sizeof(int)"), 0);
	EXPECT_EQ(print_quirk("\"%d\", jiffies_to_msecs(REC->a)"), 0);
	/* divisors libtraceevent might fold to 0 as it parses, and die */
	EXPECT_EQ(print_quirk("\"%d\", REC->a / (2 - 2)"), 0);
	EXPECT_EQ(print_quirk("\"%d\", REC->a % 0x0"), 0);
	EXPECT_EQ(print_quirk("\"%d\", REC->a / 2 - 2"), 0);
	EXPECT_EQ(print_quirk("\"%lu\", REC->b / REC->d"), 0);
	/* IPv4 addresses in their orders, UUIDs (REC->i is no UUID) */
	EXPECT_EQ(print_quirk("\"%pI4 %pi4 %pI4h %pI4l %pI4n %pU %pUL\", REC->a, REC->a, REC->a, "
			      "(u32)REC->a, REC->a, REC->i, REC->i"), 1);
	/* passed whole, no plan: an IPv6 address, a MAC */
	EXPECT_EQ(print_quirk("\"%pI6\", REC->i"), 0);
	EXPECT_EQ(print_quirk("\"%pM\", REC->i"), 0);
}

int main(void)
{
	if (!tracefs_tracing_dir() || !tracefs_event_systems(NULL))
		tap_skip("every_tracefs_format_prints_as_libtraceevent", "tracefs is not readable");
	else
		TAP_RUN(every_tracefs_format_prints_as_libtraceevent);
	if (tracefs_tracing_dir() && tracefs_event_systems(NULL))
		TAP_RUN(every_tracefs_print_fmt_prints_as_libtraceevent);
	TAP_RUN(libtraceevent_quirks_print_alike);
	TAP_RUN(print_formats_print_as_libtraceevent);
	return tap_done();
}
