// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracer/record.h>

#include "layout/ctf.h"
#include "reader/trace_impl.h"

void trace_note(struct tr_trace *t, const char *fmt, ...)
{
	char **notes = realloc(t->notes, (t->nnotes + 1) * sizeof(*notes));
	va_list ap;

	if (!notes)
		return;
	t->notes = notes;
	va_start(ap, fmt);
	if (vasprintf(&notes[t->nnotes], fmt, ap) >= 0)
		t->nnotes++;
	va_end(ap);
}

/* ... and without blocking on a FIFO put in its place. */
int trace_open_regular(int dir_fd, const char *name, struct stat *st)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st))
		err = -errno;
	else if (!S_ISREG(st->st_mode))
		err = -EINVAL;
	else
		return fd;
	close(fd);
	return err;
}

const char *trace_file_error(int err)
{
	if (err == -ELOOP)
		return "a symbolic link, not followed";
	if (err == -EINVAL)
		return "not a regular file";
	return strerror(-err);
}

int tr_trace_open_meta(const struct tr_trace *t, const char *name)
{
	struct stat st;

	return trace_open_regular(t->meta_fd, name, &st);
}

__u64 tr_item_number(const struct tr_item *item, const char *name)
{
	struct tep_format_field *f = tep_find_field(item->class->tep, name);
	unsigned long long value;

	return f && !tep_read_number_field(f, item->payload, &value) ? value : 0;
}

const void *tr_item_field(const struct tr_item *item, const char *name, int *len)
{
	struct tep_record rec = { .data = (void *)item->payload, .size = item->record->size };

	*len = 0;
	return tep_get_field_raw(NULL, item->class->tep, name, &rec, len, 0);
}

int tr_trace_open_file(const struct tr_trace *t, const char *name)
{
	struct stat st;

	return trace_open_regular(t->dir_fd, name, &st);
}

/* The clock block comes first in a trace's metadata, after the trace and env blocks. */
#define METADATA_HEAD_BYTES	(64 * 1024)

/* The number after "\tkey = " in the clock block of head, into *value: whether it has one. */
static int clock_number(const char *head, const char *key, long long *value)
{
	const char *clock = strstr(head, "\nclock {"), *at = clock ? strstr(clock, key) : NULL;
	char *end;

	if (!at)
		return 0;
	errno = 0;
	*value = strtoll(at + strlen(key), &end, 10);
	return !errno && end != at + strlen(key) && *end == ';';
}

int tr_trace_clock_offset(const struct tr_trace *t, __s64 *offset_ns)
{
	char *head;
	long long seconds, ns;
	ssize_t len;
	int fd, err = -EINVAL;

	*offset_ns = 0;
	if (t->live) {
		*offset_ns = tr_ctf_clock_offset_ns();
		return 0;
	}
	fd = tr_trace_open_file(t, "metadata");
	if (fd < 0)
		return fd;
	head = malloc(METADATA_HEAD_BYTES + 1);
	len = head ? tr_read_all(fd, head, METADATA_HEAD_BYTES) : -ENOMEM;
	close(fd);
	if (len >= 0) {
		head[len] = 0;
		if (clock_number(head, "\toffset_s = ", &seconds) && clock_number(head, "\toffset = ", &ns) &&
		    seconds > -(1ll << 33) && seconds < (1ll << 33) && ns > -1000000000 && ns < 1000000000) {
			*offset_ns = seconds * 1000000000 + ns;
			err = 0;
		}
	}
	free(head);
	return len < 0 ? (int)len : err;
}

const char *tr_trace_channel_name(const struct tr_trace *t, __u32 stream_id)
{
	return stream_id < TR_MAX_CHANNELS && t->channels[stream_id].used ?
	       t->channels[stream_id].name : NULL;
}

int tr_trace_has_stacks(const struct tr_trace *t)
{
	return t->stacks;
}

int trace_decimal(const char *s, unsigned long long max, unsigned long long *value)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n])
		return 0;
	errno = 0;
	*value = strtoull(s, NULL, 10);
	return !errno && *value <= max;
}

/* --- The merge ------------------------------------------------------------------ */

static int earlier(const struct heap_entry *a, const struct heap_entry *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->cpu < b->cpu;
}

static void heap_swap(struct tr_trace *t, unsigned int i, unsigned int j)
{
	struct heap_entry tmp = t->heap[i];

	t->heap[i] = t->heap[j];
	t->heap[j] = tmp;
}

static void heap_down(struct tr_trace *t, unsigned int i)
{
	for (;;) {
		unsigned int least = i, l = 2 * i + 1, r = l + 1;

		if (l < t->heap_len && earlier(&t->heap[l], &t->heap[least]))
			least = l;
		if (r < t->heap_len && earlier(&t->heap[r], &t->heap[least]))
			least = r;
		if (least == i)
			return;
		heap_swap(t, i, least);
		i = least;
	}
}

/* The root's children being set, its rival (reader/trace_impl.h) is the earlier of them. */
static void find_rival(struct tr_trace *t)
{
	t->rival = (struct heap_entry) { ~0ull, ~0u, 0 };
	if (t->heap_len > 1)
		t->rival = t->heap[1];
	if (t->heap_len > 2 && earlier(&t->heap[2], &t->rival))
		t->rival = t->heap[2];
}

/* Stream i has a head again (a live one was fed): into the merge. */
static void heap_push(struct tr_trace *t, unsigned int i)
{
	unsigned int at = t->heap_len++;

	t->heap[at] = (struct heap_entry) { t->streams[i].head.ts, t->streams[i].head.cpu, i };
	t->streams[i].in_heap = 1;
	while (at && earlier(&t->heap[at], &t->heap[(at - 1) / 2])) {
		heap_swap(t, at, (at - 1) / 2);
		at = (at - 1) / 2;
	}
	find_rival(t);
}

/*
 * The root's stream has a new head: its entry follows it, with no sift
 * while it stays earlier than the rival.  1 when it is still the root.
 */
static inline int root_moved(struct tr_trace *t, const struct stream *s)
{
	t->heap[0].ts = s->head.ts;
	t->heap[0].cpu = s->head.cpu;
	if (earlier(&t->heap[0], &t->rival))
		return 1;
	heap_down(t, 0);
	find_rival(t);
	return 0;
}

/*
 * The stream whose head went out last moves on only now, so that what the
 * item points to (a live record, in its packet) stays until this call.
 */
static inline void advance_last(struct tr_trace *t)
{
	struct stream *s;

	if (!t->handed_out)
		return;
	t->handed_out = 0;
	s = &t->streams[t->heap[0].stream];
	if (stream_next_plain(t, s) || trace_stream_advance(t, s)) {
		root_moved(t, s);
		return;
	}
	s->in_heap = 0;
	t->heap[0] = t->heap[--t->heap_len];
	heap_down(t, 0);
	find_rival(t);
}

/* The streams' first items into the merge. */
static int start_merge(struct tr_trace *t, char *why, size_t whylen)
{
	unsigned int i;

	t->heap = calloc(t->nstreams + 1, sizeof(*t->heap));
	if (!t->heap) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < t->nstreams; i++)
		if (trace_stream_advance(t, &t->streams[i]))
			heap_push(t, i);
	return 0;
}

static struct tr_trace *trace_new(char *why, size_t whylen)
{
	struct tr_trace *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	t->dir_fd = t->meta_fd = -1;
	t->horizon = ~0ull;
	return t;
}

/* The end of opening: the merge started and the trace handed out, or (err) all undone. */
static int opened(struct tr_trace *t, int err, struct tr_trace **trace, char *why, size_t whylen)
{
	if (!err) {
		trace_plain_sizes(t);
		err = start_merge(t, why, whylen);
	}
	if (err) {
		tr_trace_close(t);
		return err;
	}
	*trace = t;
	return 0;
}

int tr_trace_open(struct tr_trace **trace, const char *dir, char *why, size_t whylen)
{
	struct tr_trace *t = trace_new(why, whylen);
	int err;

	if (!t)
		return -ENOMEM;
	t->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dir_fd < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot open %s: %s", dir, strerror(-err));
	} else {
		err = trace_read_meta(t, dir, why, whylen);
	}
	if (!err)
		err = trace_open_streams(t, dir, why, whylen);
	return opened(t, err, trace, why, whylen);
}

static int live_streams(struct tr_trace *t, const char *const *channels, unsigned int nchannels,
			unsigned int ncpu)
{
	unsigned int c, cpu;

	t->streams = calloc(nchannels * ncpu, sizeof(*t->streams));
	if (!t->streams)
		return -ENOMEM;
	for (c = 0; c < nchannels; c++) {
		snprintf(t->channels[c].name, sizeof(t->channels[c].name), "%s", channels[c]);
		t->channels[c].used = 1;
		for (cpu = 0; cpu < ncpu; cpu++) {
			struct stream *s = &t->streams[t->nstreams++];

			snprintf(s->name, sizeof(s->name), "%s_%u", channels[c], cpu);
			s->channel = c;
			s->channel_name = nchannels > 1 ? t->channels[c].name : NULL;
			s->cpu = cpu;
			s->live = 1;
		}
	}
	t->nchannels = nchannels;
	return 0;
}

int tr_trace_open_live(struct tr_trace **trace, const char *events_text, size_t len,
		       const char *const *channels, unsigned int nchannels, unsigned int ncpu,
		       char *why, size_t whylen)
{
	struct tr_trace *t = trace_new(why, whylen);
	int err;

	if (!t)
		return -ENOMEM;
	t->live = 1;
	t->horizon = 0;
	t->events_text = malloc(len + 1);
	err = t->events_text ? 0 : -ENOMEM;
	if (!err) {
		memcpy(t->events_text, events_text, len);
		t->events_text[len] = 0;
		err = trace_parse_classes(t, "the recording", t->events_text, len, why, whylen);
	} else {
		snprintf(why, whylen, "out of memory");
	}
	if (!err && nchannels > TR_MAX_CHANNELS)
		err = -EINVAL;
	if (!err && (err = live_streams(t, channels, nchannels, ncpu)))
		snprintf(why, whylen, "out of memory");
	return opened(t, err, trace, why, whylen);
}

static int feed(struct tr_trace *t, unsigned int stream, const void *packet, int whole)
{
	struct stream *s;
	int err;

	if (stream >= t->nstreams || !t->streams[stream].live)
		return -EINVAL;
	s = &t->streams[stream];
	err = trace_stream_feed(s, packet, whole);
	if (!err && !s->in_heap && trace_stream_advance(t, s)) {
		/* The root moves, with the last item's stream still to advance: that first. */
		advance_last(t);
		heap_push(t, stream);
	}
	return err;
}

int tr_trace_feed(struct tr_trace *t, unsigned int stream, const void *packet)
{
	return feed(t, stream, packet, 1);
}

int tr_trace_feed_header(struct tr_trace *t, unsigned int stream, const void *packet)
{
	return feed(t, stream, packet, 0);
}

void tr_trace_set_horizon(struct tr_trace *t, __u64 ts)
{
	t->horizon = ts;
}

__u64 tr_trace_late(const struct tr_trace *t)
{
	return t->late;
}

/*
 * Hands out a record of a trace directory with a copy of its header and
 * payload and a NUL byte after it, so that a string field without its NUL
 * ends there; or, without memory for the copy, a problem.
 */
static void copy_record(struct tr_trace *t, struct tr_item *item)
{
	size_t size = sizeof(*item->record) + item->record->size;

	if (size + 1 > t->payload_size) {
		free(t->payload);
		t->payload_size = 0;
		t->payload = malloc(size + 1);
		if (!t->payload) {
			snprintf(t->reported, sizeof(t->reported),
				 "no memory for a record of %zu bytes on CPU %u; record skipped",
				 size, item->cpu);
			*item = (struct tr_item) { .kind = TR_ITEM_PROBLEM, .cpu = item->cpu,
						   .ts = item->ts, .problem = t->reported };
			return;
		}
		t->payload_size = size + 1;
	}
	memcpy(t->payload, item->record, size);
	t->payload[size] = 0;
	item->record = (const void *)t->payload;
	item->payload = t->payload + sizeof(*item->record);
}

/*
 * The stream's head as handed out, but a live record (handed out as it
 * is, in its packet): a copy, whose record or problem text is copied too.
 */
static __attribute__((noinline)) const struct tr_item *hand_out_copy(struct tr_trace *t,
								    const struct stream *s)
{
	struct tr_item *item = &t->out;

	*item = s->head;
	if (item->kind == TR_ITEM_PROBLEM) {
		memcpy(t->reported, s->problem, sizeof(t->reported));
		item->problem = t->reported;
	} else if (item->kind == TR_ITEM_RECORD) {
		copy_record(t, item);
	}
	return item;
}

/* The root's head goes out. */
static inline const struct tr_item *hand_out(struct tr_trace *t, const struct stream *s)
{
	if (s->head.ts < t->last_out)
		t->late++;
	else
		t->last_out = s->head.ts;
	t->handed_out = 1;
	return t->live && s->head.kind == TR_ITEM_RECORD ? &s->head : hand_out_copy(t, s);
}

const struct tr_item *tr_trace_next(struct tr_trace *t)
{
	struct stream *s;

	if (t->stopped)
		return NULL;
	if (t->next_note < t->nnotes) {
		t->out = (struct tr_item) { .kind = TR_ITEM_PROBLEM,
					    .problem = t->notes[t->next_note++] };
		return &t->out;
	}
	advance_last(t);
	if (!t->heap_len)
		return NULL;
	s = &t->streams[t->heap[0].stream];
	if (s->head.ts > t->horizon)
		return NULL;
	return hand_out(t, s);
}

/*
 * A record of the root's stream went out: the plain ones after it in its
 * packet go out too, while each is earlier than the rival and within the
 * horizon, with none of tr_trace_next()'s steps between them.  At 1 M
 * events/s from one busy CPU nearly every record is one of such a run.
 */
static void hand_out_run(struct tr_trace *t, tr_item_fn fn, void *data)
{
	struct stream *s = &t->streams[t->heap[0].stream];

	while (!t->stopped && stream_next_plain(t, s)) {
		t->handed_out = 0;
		if (!root_moved(t, s) || s->head.ts > t->horizon)
			return;
		fn(data, hand_out(t, s));
	}
}

void tr_trace_each(struct tr_trace *t, tr_item_fn fn, void *data)
{
	const struct tr_item *it;

	while ((it = tr_trace_next(t))) {
		fn(data, it);
		if (it->kind == TR_ITEM_RECORD)
			hand_out_run(t, fn, data);
	}
}

void tr_trace_stop(struct tr_trace *t)
{
	t->stopped = 1;
}

void tr_trace_close(struct tr_trace *t)
{
	unsigned int i;

	trace_meta_free(t);
	for (i = 0; i < t->nstreams; i++)
		trace_stream_close(&t->streams[i]);
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	if (t->meta_fd >= 0)
		close(t->meta_fd);
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	free(t->notes);
	free(t->streams);
	free(t->heap);
	free(t->payload);
	free(t);
}
