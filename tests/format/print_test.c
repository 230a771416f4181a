// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report's fast path (print_fields.c) against libtraceevent's
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
#include "format.h"
#include "print_fields.h"
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

	/* as report reads a trace (trace.c) */
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

static void every_tracefs_format_prints_as_libtraceevent(void)
{
	char **systems = tracefs_event_systems(NULL);
	unsigned int formats = 0, planned = 0;
	int i, j;

	for (i = 0; systems && systems[i] && !tap_current_failed; i++) {
		char **events = tracefs_system_events(NULL, systems[i]);

		for (j = 0; events && events[j] && strcmp(systems[i], "ftrace") &&
			    !tap_current_failed; j++) {
			char *format, *sane, label[256];
			const char *why;
			int size = 0;

			format = tracefs_event_file_read(NULL, systems[i], events[j], "format", &size);
			sane = format ? tr_format_sanitize(format, size, 7, &why) : NULL;
			snprintf(label, sizeof(label), "%s:%s", systems[i], events[j]);
			if (sane) {
				formats++;
				planned += compare_format(label, sane, 60) == 1;
			}
			free(sane);
			free(format);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	tap_diag("%u of %u formats printed by the fast path", planned, formats);
	EXPECT(formats > 100);
	/* most tracepoints are plain numbers and strings: the fast path is the rule */
	EXPECT(planned * 10 >= formats * 8);
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

int main(void)
{
	if (!tracefs_tracing_dir() || !tracefs_event_systems(NULL))
		tap_skip("every_tracefs_format_prints_as_libtraceevent", "tracefs is not readable");
	else
		TAP_RUN(every_tracefs_format_prints_as_libtraceevent);
	TAP_RUN(libtraceevent_quirks_print_alike);
	return tap_done();
}
