// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A stream of the trace (a channel's packets of one CPU) as items: each
 * packet checked against the one before, what it says was lost, then its
 * records, each checked against its format.  The packets come from a
 * stream file (mapped) or, in a live trace, fed one by one as a consumer
 * takes them from the buffers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracer/record.h>

#include "reader/trace_impl.h"
#include "common/cpus.h"

/* --- Streams: CHANNEL_CPU --------------------------------------------------------- */

/* The CPU of a stream file "CHANNEL_CPU" as the recorder names it and its channel, or -1. */
static int stream_cpu(const struct tr_trace *t, const char *name, unsigned int *channel)
{
	unsigned long long cpu;
	unsigned int c;

	for (c = 0; c < TR_MAX_CHANNELS; c++) {
		size_t len = strlen(t->channels[c].name);
		const char *digits = name + len + 1;

		if (!t->channels[c].used || strncmp(name, t->channels[c].name, len) ||
		    name[len] != '_' || (digits[0] == '0' && digits[1]) ||
		    !trace_decimal(digits, TR_MAX_CPUS - 1, &cpu))
			continue;
		*channel = c;
		return cpu;
	}
	return -1;
}

static int open_stream(struct tr_trace *t, struct stream *s, const char *name,
		       unsigned int channel, int cpu)
{
	struct stat st;
	int fd;

	snprintf(s->name, sizeof(s->name), "%s_%d", t->channels[channel].name, cpu);
	s->channel = channel;
	s->channel_name = t->nchannels > 1 ? t->channels[channel].name : NULL;
	s->cpu = cpu;
	fd = trace_open_regular(t->dir_fd, name, &st);
	if (fd < 0) {
		trace_note(t, "%s: %s; this stream is skipped", name, trace_file_error(fd));
		return fd;
	}
	s->size = st.st_size;
	s->bytes = s->size ? mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (s->bytes == MAP_FAILED) {
		int err = -errno;

		trace_note(t, "%s: cannot map it: %s; this stream is skipped", name, strerror(-err));
		s->bytes = NULL;
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

static int by_channel_and_cpu(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;

	if (x->channel != y->channel)
		return (x->channel > y->channel) - (x->channel < y->channel);
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int trace_open_streams(struct tr_trace *t, const char *dir, char *why, size_t whylen)
{
	int fd = openat(t->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	struct stream *s;

	if (!d) {
		int err = -errno;

		snprintf(why, whylen, "cannot list %s: %s", dir, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		unsigned int channel;
		int cpu = stream_cpu(t, de->d_name, &channel);

		if (cpu < 0)
			continue;
		s = realloc(t->streams, (t->nstreams + 1) * sizeof(*s));
		if (!s)
			break;
		t->streams = s;
		memset(&s[t->nstreams], 0, sizeof(*s));
		t->nstreams += !open_stream(t, &s[t->nstreams], de->d_name, channel, cpu);
	}
	closedir(d);
	if (t->nstreams)
		qsort(t->streams, t->nstreams, sizeof(*t->streams), by_channel_and_cpu);
	return 0;
}

/* --- A stream's items --------------------------------------------------------- */

/* Makes a problem the stream's next item; 1. */
static __attribute__((cold)) int stream_problem(struct stream *s, __u64 ts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->problem, sizeof(s->problem), fmt, ap);
	va_end(ap);
	s->head = (struct tr_item) { .kind = TR_ITEM_PROBLEM, .cpu = s->cpu, .ts = ts };
	return 1;
}

/* Ends a stream at a damaged packet: its last item says why; 1. */
static int stream_cut(struct stream *s, const char *why)
{
	size_t offset = s->next_packet;

	s->next_packet = s->size;
	s->in_packet = 0;
	if (s->live)	/* only this packet: the next one fed is read */
		return stream_problem(s, s->last_ts, "%s: packet %llu: %s; packet skipped",
				      s->name, (unsigned long long)s->packets_read, why);
	return stream_problem(s, s->last_ts, "%s: packet at offset %zu: %s; the rest of this stream is skipped",
			      s->name, offset, why);
}

/* Why the packet at s->next_packet cannot be read after the previous one, or NULL. */
static const char *packet_problem(const struct stream *s, char *why, size_t whylen)
{
	size_t left = s->size - s->next_packet;
	const struct tr_packet_header *h = (const void *)(s->bytes + s->next_packet);
	const char *problem;

	if (left < sizeof(*h))
		return "truncated packet header";
	if (h->magic == TR_PACKET_MAGIC && h->packet_size / 8 > left)
		return "truncated packet (the recorder stopped while writing it)";
	problem = tr_packet_header_problem(h, left < TR_MAX_SUBBUF_SIZE ? left :
						 TR_MAX_SUBBUF_SIZE);
	if (problem)
		return problem;
	if (h->cpu_id != s->cpu)
		return "packet of another CPU";
	if (h->stream_id != s->channel)
		return "packet of another channel";
	if (s->started && h->packet_seq_num <= s->last_seq) {
		snprintf(why, whylen, "packet_seq_num %llu after %llu: packet repeated or out of order",
			 h->packet_seq_num, s->last_seq);
		return why;
	}
	if (s->started && h->timestamp_begin < s->last_end) {
		snprintf(why, whylen, "packet begins at %llu ns, before the previous one ended (%llu ns)",
			 h->timestamp_begin, s->last_end);
		return why;
	}
	return NULL;
}

/*
 * What a packet reports lost since the previous one.  Overwritten
 * sub-buffers (a sequence gap) lie before it: returned as the head item.
 * Lost events were counted by the time it ended (in discard mode, while
 * its writer could not leave it): kept for after its records.  A count
 * below the previous packet's (a writer that read the counters before a
 * nested one did) adds nothing.
 */
static int packet_losses(struct stream *s, const struct tr_packet_header *h)
{
	const __u64 now[4] = { h->lost_full, h->lost_wrap, h->lost_big, h->lost_busy };
	__u64 gap = s->started ? h->packet_seq_num - s->last_seq - 1 : h->packet_seq_num;
	__u64 *since[4];
	struct tr_item *lost = &s->lost_events;
	int i;

	*lost = (struct tr_item) { .kind = TR_ITEM_LOST, .cpu = s->cpu, .stream_id = s->channel,
				   .channel = s->channel_name, .packet_seq = h->packet_seq_num,
				   .ts = h->timestamp_end };
	since[0] = &lost->lost_full;
	since[1] = &lost->lost_wrap;
	since[2] = &lost->lost_big;
	since[3] = &lost->lost_busy;
	s->has_lost_events = 0;
	for (i = 0; i < 4; i++) {
		if (now[i] <= s->lost[i])
			continue;
		*since[i] = now[i] - s->lost[i];
		s->lost[i] = now[i];
		s->has_lost_events = 1;
	}
	s->last_seq = h->packet_seq_num;
	s->last_end = h->timestamp_end;
	s->started = 1;
	s->head = (struct tr_item) { .kind = TR_ITEM_LOST, .cpu = s->cpu, .stream_id = s->channel,
				     .channel = s->channel_name, .packet_seq = h->packet_seq_num,
				     .ts = h->timestamp_begin, .lost_packets = gap };
	return gap != 0;
}

/*
 * Why a record's payload cannot be decoded by its format, or NULL: every
 * field, and the data a __data_loc field locates, must lie inside it.
 * Then nothing that decodes it by the format reads past it.  *raw_end is
 * where the last of them ends (a stack follows there, tracer/record.h).
 */
static const char *payload_problem(const struct tep_event *ev, const struct class_layout *layout,
				   const char *payload, __u32 size, __u32 *raw_end,
				   char *why, size_t whylen)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	const struct tep_format_field *f;
	int l;

	/* Most formats have fixed fields only: the record holds them or not. */
	*raw_end = layout->fixed_end;
	if (!layout->dynamic && size >= layout->fixed_end)
		return NULL;
	*raw_end = 0;
	for (l = 0; l < 2; l++)
		for (f = lists[l]; f; f = f->next) {
			__u64 end = (__u64)f->offset + f->size, start;
			__u32 loc;

			if (end > size) {
				snprintf(why, whylen, "field %s (bytes %d to %llu) lies past the record's %u bytes",
					 f->name, f->offset, end, size);
				return why;
			}
			if (end > *raw_end)
				*raw_end = end;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			memcpy(&loc, payload + f->offset, sizeof(loc));
			loc = le32toh(loc);
			start = (loc & 0xffff) + (f->flags & TEP_FIELD_IS_RELATIVE ? end : 0);
			if (start + (loc >> 16) > size) {
				snprintf(why, whylen, "the data of field %s (bytes %llu to %llu) lies past the record's %u bytes",
					 f->name, start, start + (loc >> 16), size);
				return why;
			}
			if (start + (loc >> 16) > *raw_end)
				*raw_end = start + (loc >> 16);
		}
	return NULL;
}

/* Why the stacks after the raw record do not fill the rest of it, or NULL. */
static const char *stacks_problem(const char *payload, __u32 size, __u32 raw_end,
				  struct tr_item *item, char *why, size_t whylen)
{
	struct tr_stack_counts counts;
	__u64 end;

	if (raw_end + sizeof(counts) > size) {
		snprintf(why, whylen, "no room for its stack's frame counts after byte %u of %u",
			 raw_end, size);
		return why;
	}
	memcpy(&counts, payload + raw_end, sizeof(counts));
	end = raw_end + sizeof(counts) + 8ull * (le16toh(counts.kernel) + le16toh(counts.user));
	if (end != size) {
		snprintf(why, whylen, "its stacks (%u kernel and %u user frames) end at byte %llu, not at its end (%u)",
			 le16toh(counts.kernel), le16toh(counts.user), end, size);
		return why;
	}
	item->kernel_frames = le16toh(counts.kernel);
	item->user_frames = le16toh(counts.user);
	item->frames_at = raw_end + sizeof(counts);
	return NULL;
}

/* Why the context fields after the raw record do not fit in it, or NULL; *raw_end moves past them. */
static const char *context_problem(__u32 size, __u32 *raw_end, unsigned int n,
				   struct tr_item *item, char *why, size_t whylen)
{
	if (*raw_end + 8ull * n > size) {
		snprintf(why, whylen, "no room for its %u context fields after byte %u of %u",
			 n, *raw_end, size);
		return why;
	}
	item->context_at = *raw_end;
	*raw_end += 8 * n;
	return NULL;
}

/* Where a record lies in its stream (for messages). */
static size_t record_offset(const struct stream *s, const struct tr_event_header *e)
{
	return s->next_packet + ((const char *)e - (const char *)s->packet);
}

/* Makes a record the stream's next item, or a problem about it; 0 to skip it. */
static int record_item(struct tr_trace *t, struct stream *s, const struct tr_event_header *e)
{
	const struct tr_trace_class *class = e->id < t->nclasses && t->classes[e->id].tep ?
					     &t->classes[e->id] : NULL;
	unsigned char *told = &t->unknown_told[e->id < TR_MAX_EVENTS ? e->id : TR_MAX_EVENTS];
	const char *problem;
	__u32 raw_end;
	char why[192];

	if (!class) {
		if (*told)
			return 0;
		*told = 1;
		return stream_problem(s, e->timestamp,
				      "%s: record at offset %zu: event id %u has no usable format in .tracer/events; its records are skipped",
				      s->name, record_offset(s, e), e->id);
	}
	stream_record_head(s, e, class);
	problem = payload_problem(class->tep, &t->layouts[e->id], (const char *)(e + 1), e->size,
				  &raw_end, why, sizeof(why));
	if (!problem && t->ncontext && strcmp(class->system, "tracer"))
		problem = context_problem(e->size, &raw_end, t->ncontext, &s->head, why, sizeof(why));
	if (!problem && t->stacks && strcmp(class->system, "tracer"))
		problem = stacks_problem((const char *)(e + 1), e->size, raw_end, &s->head,
					 why, sizeof(why));
	if (problem)
		return stream_problem(s, e->timestamp, "%s: record at offset %zu: %s; record skipped",
				      s->name, record_offset(s, e), problem);
	return 1;
}

/*
 * Packets read are kept for the next ones fed, up to as many bytes as a
 * round of the consumer feeds at a high rate: at a million records a
 * second, fresh memory for each packet costs more in page faults than
 * copying the packet does.
 */
#define MAX_SPARE_BYTES	(32u << 20)

static void spare_packet(struct stream *s, struct fed_packet *p)
{
	if (p && s->spare_bytes + p->capacity <= MAX_SPARE_BYTES) {
		p->next = s->spares;
		s->spares = p;
		s->spare_bytes += p->capacity;
	} else {
		free(p);
	}
}

/* A packet of at least size bytes: the smallest spare that holds it, or a new one of size rounded up. */
static struct fed_packet *packet_for(struct stream *s, size_t size)
{
	struct fed_packet **at, **best = NULL, *p;

	for (at = &s->spares; *at; at = &(*at)->next)
		if ((*at)->capacity >= size && (!best || (*at)->capacity < (*best)->capacity))
			best = at;
	if (best) {
		p = *best;
		*best = p->next;
		s->spare_bytes -= p->capacity;
		return p;
	}
	size = (size + TR_PACKET_ALIGN - 1) & ~(size_t)(TR_PACKET_ALIGN - 1);
	p = malloc(sizeof(*p) + size);
	if (p)
		p->capacity = size;
	return p;
}

/* A live stream's next packet fed, in place of the one read: 1, or 0 if none is fed yet. */
static int read_fed(struct stream *s)
{
	struct fed_packet *p = s->fed;

	if (!p)
		return 0;
	s->fed = p->next;
	if (!s->fed)
		s->fed_last = NULL;
	spare_packet(s, s->reading);
	s->reading = p;
	s->bytes = p->bytes;
	s->size = p->size;
	s->next_packet = 0;
	s->packets_read++;
	return 1;
}

int trace_stream_advance(struct tr_trace *t, struct stream *s)
{
	const struct tr_event_header *e;
	const char *problem;
	char why[128];

	for (;;) {
		if (s->in_packet) {
			e = tr_packet_next(&s->it, &problem);
			if (e && record_item(t, s, e))
				break;
			if (e)
				continue;
			s->in_packet = 0;
			if (problem)
				return stream_cut(s, problem);
			s->next_packet += s->packet->packet_size / 8;
			if (s->has_lost_events) {
				s->head = s->lost_events;
				s->has_lost_events = 0;
				break;
			}
		}
		if (s->next_packet >= s->size && !read_fed(s))
			return 0;
		problem = packet_problem(s, why, sizeof(why));
		if (problem)
			return stream_cut(s, problem);
		s->packet = (const void *)(s->bytes + s->next_packet);
		tr_packet_iter_init(&s->it, s->packet);
		s->in_packet = 1;
		if (packet_losses(s, s->packet))
			break;
	}
	s->last_ts = s->head.ts;
	return 1;
}


int trace_stream_feed(struct stream *s, const struct tr_packet_header *packet, int whole)
{
	size_t size = whole ? packet->packet_size / 8 : sizeof(*packet);
	struct fed_packet *p = packet_for(s, size);
	struct tr_packet_header *h;

	if (!p)
		return -ENOMEM;
	h = (void *)p->bytes;
	p->next = NULL;
	p->size = size;
	memcpy(p->bytes, packet, size);
	if (!whole) {
		/*
		 * The header alone: its content ends with it, and the packet
		 * is as long as that rounds up to.  Nothing reads past the
		 * content, so the bytes up to there need not be copied.
		 */
		h->content_size = 8 * sizeof(*h);
		h->packet_size = 8 * TR_PACKET_ALIGN;
		p->size = TR_PACKET_ALIGN;
	}
	if (s->fed_last)
		s->fed_last->next = p;
	else
		s->fed = p;
	s->fed_last = p;
	return 0;
}

void trace_stream_close(struct stream *s)
{
	struct fed_packet *p, *next;

	if (!s->live && s->bytes)
		munmap((void *)s->bytes, s->size);
	for (p = s->fed; p; p = next) {
		next = p->next;
		free(p);
	}
	for (p = s->spares; p; p = next) {
		next = p->next;
		free(p);
	}
	free(s->reading);
}
