/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The format tests' shared pieces: a format parsed by libtraceevent, and
 * random records for it.
 */
#ifndef TRACER_TESTS_RECORDS_H
#define TRACER_TESTS_RECORDS_H

#include <string.h>
#include <event-parse.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned long long next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct tep_event *parse(struct tep_handle *tep, const char *text, const char *sys)
{
	struct tep_event *ev = NULL;

	if (tep_parse_format(tep, &ev, text, strlen(text), sys) || !ev ||
	    (ev->flags & TEP_EVENT_FL_FAILED))
		return NULL;
	return ev;
}

/* A record for ev: random bytes, __data_loc data inside it and NUL-terminated. */
static unsigned int random_record(const struct tep_event *ev, unsigned char *data,
				  unsigned int room)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	struct tep_format_field *f;
	unsigned int fixed = 0, tail, i, l;

	for (l = 0; l < 2; l++)
		for (f = lists[l]; f; f = f->next)
			if ((unsigned int)(f->offset + f->size) > fixed)
				fixed = f->offset + f->size;
	for (i = 0; i < room; i++)
		data[i] = next_random();
	tail = fixed;
	for (f = ev->format.fields; f; f = f->next) {
		unsigned int len = 1 + next_random() % 24, loc;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || tail + len > room)
			continue;
		loc = (len << 16) | (tail - (f->flags & TEP_FIELD_IS_RELATIVE ?
					     f->offset + f->size : 0));
		memcpy(data + f->offset, &loc, sizeof(loc));
		data[tail + len - 1] = 0;
		tail += len;
	}
	data[tail] = 0;
	return tail;
}

#endif /* TRACER_TESTS_RECORDS_H */
