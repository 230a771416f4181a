// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness over tr_format_sanitize(): an input is one format
 * text.  What it accepts, libtraceevent must parse without failing
 * (reader/format_check.h); a refusal there means the sanitizer let through text the
 * parser misreads, and aborts.  Then report's fast path (print/fields.h),
 * where it takes the format, must print records made from the input as
 * libtraceevent's tep_print_fields() does, or the harness aborts.
 *
 * tr_format_whole() is held to less: what it passes, libtraceevent
 * parses or refuses without a fault (report then prints fields); and the
 * print format's plan (print/print_fmt.h), where it takes the format, prints
 * any record without reading outside it (the sanitizer build finds a read
 * that does).  libtraceevent is no oracle
 * there: on hostile records it reads outside them, or dies.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "reader/format_check.h"
#include "print/fields.h"
#include "print/print_fmt.h"
#include "reader/trace.h"
#include "../format/records.h"

/* The plan's names come from a trace; the harness has none. */
const char *tr_trace_printk(const struct tr_trace *trace, __u64 address)
{
	(void)trace;
	(void)address;
	return NULL;
}

const char *tr_trace_function(const struct tr_trace *trace, __u64 address, __u64 *start)
{
	(void)trace;
	(void)address;
	(void)start;
	return NULL;
}

static struct tep_event *parse_sane(struct tep_handle *tep, const char *sane)
{
	struct tep_event *ev = tep ? parse(tep, sane, "tracer") : NULL;

	if (!ev) {
		fprintf(stderr, "libtraceevent refused a sanitized format:\n%s\n", sane);
		abort();
	}
	return ev;
}

/* Random records from here on follow from the input (FNV-1a of its bytes). */
static void seed_records(const uint8_t *data, size_t size)
{
	size_t i;

	rng = 0x9e3779b97f4a7c15ull;
	for (i = 0; i < size; i++)
		rng = (rng ^ data[i]) * 0x100000001b3ull;
	rng |= 1;
}

/* Three records, seeded by the input, printed by both: the same text. */
static void compare_prints(const char *sane, const uint8_t *data, size_t size)
{
	static unsigned char record[65536 + 512];
	struct tep_handle *ref_tep = tep_alloc(), *fast_tep = tep_alloc();
	struct tep_event *ref = parse_sane(ref_tep, sane), *fast = parse_sane(fast_tep, sane);
	struct tr_field_plan *plan = tr_field_plan_new(fast);
	struct tr_line line = { NULL, 0, 0 };
	struct trace_seq seq;
	unsigned int r, len;

	if (ref)	/* as the plan does: u8 arrays are bytes */
		tr_fields_bytes_as_bytes(ref);
	seed_records(data, size);
	trace_seq_init(&seq);
	for (r = 0; plan && r < 3; r++) {
		len = random_record(ref, record, sizeof(record) - 1);
		trace_seq_reset(&seq);
		tep_print_fields(&seq, record, len, ref);
		trace_seq_terminate(&seq);
		line.len = 0;
		if (tr_field_plan_print(plan, record, len, &line) || tr_line_reserve(&line, 1))
			abort();
		line.buf[line.len] = 0;
		if (strcmp(seq.buffer, line.buf)) {
			fprintf(stderr, "the fast path prints otherwise:\n%s\nlibtraceevent: %s\nfast path:     %s\n",
				sane, seq.buffer, line.buf);
			abort();
		}
	}
	trace_seq_destroy(&seq);
	free(line.buf);
	tr_field_plan_free(plan);
	tep_free(ref_tep);
	tep_free(fast_tep);
}

/* Records seeded by the input, cut at every length: the plan prints them all, in bounds. */
static void print_whole(const char *whole, const uint8_t *data, size_t size)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = tep ? parse(tep, whole, "tracer") : NULL;
	struct tr_print_plan *plan = ev ? tr_print_plan_new(ev, NULL) : NULL;
	struct tr_line line = { NULL, 0, 0 };
	unsigned char *record;
	unsigned int r, len, cut;

	seed_records(data, size);
	for (r = 0; plan && r < 3; r++) {
		record = malloc(65536 + 512);
		if (!record)
			abort();
		len = random_record(ev, record, 65536 + 511);
		for (cut = len; cut + 64 >= len && cut <= len; cut--) {
			/* the NUL that report puts after every record */
			unsigned char *copy = malloc(cut + 1);

			if (!copy)
				abort();
			memcpy(copy, record, cut);
			copy[cut] = 0;
			line.len = 0;
			if (tr_print_plan_print(plan, copy, cut, &line) < 0)
				abort();
			free(copy);
		}
		free(record);
	}
	free(line.buf);
	tr_print_plan_free(plan);
	tep_free(tep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why;
	char *sane;

	sane = tr_format_sanitize((const char *)data, size, 1, &why);
	if (!sane)
		return 0;
	compare_prints(sane, data, size);
	free(sane);
	sane = tr_format_whole((const char *)data, size, 1, &why);
	if (sane)
		print_whole(sane, data, size);
	free(sane);
	return 0;
}
