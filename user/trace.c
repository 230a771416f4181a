// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>

#include "trace.h"
#include "packet.h"

struct stream {
	char name[64];
	__u32 cpu;
	const char *bytes;		/* the file, mapped */
	size_t size;
	size_t next_packet;		/* file offset */
	int in_packet;
	int started;			/* a packet was read: the counters below hold */
	struct tr_packet_iter it;
	const struct tr_packet_header *packet;
	__u64 lost[4];			/* cumulative, as of the last packet */
	__u64 last_seq;
	struct tr_item head;		/* its next item */
	struct tr_item lost_events;	/* reported after the packet's records */
	int has_lost_events;
};

struct tr_trace {
	struct tep_handle *tep;
	struct tr_trace_class *classes;
	unsigned int nclasses;
	struct stream *streams;
	unsigned int nstreams;
	unsigned int *heap;		/* stream indices, earliest head first */
	unsigned int heap_len;
	char warning[512];		/* from the last advance, not yet reported */
	char reported[512];		/* the one tr_trace_next() handed out */
};

/* --- Event classes: .tracer/events ------------------------------------------- */

static int read_classes(struct tr_trace *t, const char *dir)
{
	char path[4096], sys[256], name[256];
	unsigned int id;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.tracer/events", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	t->tep = tep_alloc();
	while (fscanf(f, "event %u %255s %255s %zu\n", &id, sys, name, &len) == 4) {
		char *format = malloc(len + 1);
		struct tr_trace_class *c;

		if (id > 65535 || !format || fread(format, 1, len, f) != len) {
			free(format);
			break;
		}
		if (id >= t->nclasses) {
			t->classes = realloc(t->classes, (id + 1) * sizeof(*t->classes));
			memset(t->classes + t->nclasses, 0,
			       (id + 1 - t->nclasses) * sizeof(*t->classes));
			t->nclasses = id + 1;
		}
		c = &t->classes[id];
		c->system = strdup(sys);
		c->name = strdup(name);
		tep_parse_format(t->tep, &c->tep, format, len, sys);
		free(format);
	}
	fclose(f);
	return t->nclasses ? 0 : -EPROTO;
}

/* --- Streams: channel0_<cpu> -------------------------------------------------- */

static int open_stream(struct stream *s, const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	int fd;

	snprintf(s->name, sizeof(s->name), "%s", name);
	s->cpu = strtoul(strrchr(name, '_') + 1, NULL, 10);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	s->size = st.st_size;
	s->bytes = s->size ? mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	return s->bytes == MAP_FAILED ? -errno : 0;
}

static int open_streams(struct tr_trace *t, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (strncmp(de->d_name, "channel0_", 9))
			continue;
		t->streams = realloc(t->streams, (t->nstreams + 1) * sizeof(*t->streams));
		memset(&t->streams[t->nstreams], 0, sizeof(*t->streams));
		err = open_stream(&t->streams[t->nstreams], dir, de->d_name);
		t->nstreams += !err;
	}
	closedir(d);
	return err;
}

static void stream_cut(struct tr_trace *t, struct stream *s, const char *why)
{
	snprintf(t->warning, sizeof(t->warning),
		 "%s: packet at offset %zu: %s; the rest of this stream is skipped",
		 s->name, s->next_packet, why);
	s->next_packet = s->size;
	s->in_packet = 0;
}

/*
 * What a packet reports lost since the previous one.  Overwritten
 * sub-buffers (a sequence gap) lie before it: returned as the head item.
 * Lost events were counted by the time it ended (in discard mode, while
 * its writer could not leave it): kept for after its records.
 */
static int packet_losses(struct stream *s, const struct tr_packet_header *h)
{
	const __u64 now[4] = { h->lost_full, h->lost_wrap, h->lost_big, h->lost_busy };
	__u64 gap = s->started ? h->packet_seq_num - s->last_seq - 1 : h->packet_seq_num;
	struct tr_item *lost = &s->lost_events;
	int i;

	*lost = (struct tr_item) { .kind = TR_ITEM_LOST, .cpu = s->cpu,
				   .ts = h->timestamp_end };
	lost->lost_full = now[0] - s->lost[0];
	lost->lost_wrap = now[1] - s->lost[1];
	lost->lost_big = now[2] - s->lost[2];
	lost->lost_busy = now[3] - s->lost[3];
	s->has_lost_events = 0;
	for (i = 0; i < 4; i++) {
		s->has_lost_events |= now[i] != s->lost[i];
		s->lost[i] = now[i];
	}
	s->last_seq = h->packet_seq_num;
	s->started = 1;
	s->head = (struct tr_item) { .kind = TR_ITEM_LOST, .cpu = s->cpu,
				     .ts = h->timestamp_begin, .lost_packets = gap };
	return gap != 0;
}

/* Moves a stream to its next item; 0 when it has none left. */
static int stream_advance(struct tr_trace *t, struct stream *s)
{
	const struct tr_event_header *e;
	const char *problem;

	for (;;) {
		if (s->in_packet) {
			e = tr_packet_next(&s->it, &problem);
			if (e) {
				s->head = (struct tr_item) {
					.kind = TR_ITEM_RECORD, .cpu = s->cpu, .ts = e->timestamp,
					.record = e,
					.class = e->id < t->nclasses && t->classes[e->id].name ?
						 &t->classes[e->id] : NULL,
				};
				return 1;
			}
			s->in_packet = 0;
			if (problem) {
				stream_cut(t, s, problem);
				continue;
			}
			s->next_packet += s->packet->packet_size / 8;
			if (s->has_lost_events) {
				s->head = s->lost_events;
				s->has_lost_events = 0;
				return 1;
			}
		}
		if (s->next_packet >= s->size)
			return 0;
		if (s->size - s->next_packet < sizeof(struct tr_packet_header)) {
			stream_cut(t, s, "truncated packet header");
			return 0;
		}
		s->packet = (const void *)(s->bytes + s->next_packet);
		if (s->packet->magic == TR_PACKET_MAGIC &&
		    s->packet->packet_size / 8 > s->size - s->next_packet) {
			stream_cut(t, s, "truncated packet (the recorder stopped while writing it)");
			return 0;
		}
		problem = tr_packet_header_problem(s->packet, s->size - s->next_packet);
		if (problem || s->packet->cpu_id != s->cpu) {
			stream_cut(t, s, problem ? problem : "packet of another CPU");
			return 0;
		}
		tr_packet_iter_init(&s->it, s->packet);
		s->in_packet = 1;
		if (packet_losses(s, s->packet))
			return 1;
	}
}

/* --- The merge ------------------------------------------------------------------ */

static int earlier(const struct tr_trace *t, unsigned int a, unsigned int b)
{
	const struct tr_item *x = &t->streams[a].head, *y = &t->streams[b].head;

	return x->ts != y->ts ? x->ts < y->ts : x->cpu < y->cpu;
}

static void heap_down(struct tr_trace *t, unsigned int i)
{
	for (;;) {
		unsigned int least = i, l = 2 * i + 1, r = l + 1, tmp;

		if (l < t->heap_len && earlier(t, t->heap[l], t->heap[least]))
			least = l;
		if (r < t->heap_len && earlier(t, t->heap[r], t->heap[least]))
			least = r;
		if (least == i)
			return;
		tmp = t->heap[i];
		t->heap[i] = t->heap[least];
		t->heap[least] = tmp;
		i = least;
	}
}

int tr_trace_open(struct tr_trace **trace, const char *dir, char *why, size_t whylen)
{
	struct tr_trace *t = calloc(1, sizeof(*t));
	unsigned int i;
	int err;

	err = read_classes(t, dir);
	if (err) {
		snprintf(why, whylen, "%s is not a tracer trace (no readable .tracer/events)", dir);
		tr_trace_close(t);
		return err;
	}
	err = open_streams(t, dir);
	if (err) {
		snprintf(why, whylen, "cannot read the streams of %s: %s", dir, strerror(-err));
		tr_trace_close(t);
		return err;
	}
	t->heap = calloc(t->nstreams + 1, sizeof(*t->heap));
	for (i = 0; i < t->nstreams; i++)
		if (stream_advance(t, &t->streams[i]))
			t->heap[t->heap_len++] = i;
	for (i = t->heap_len / 2 + 1; i-- > 0;)
		heap_down(t, i);
	*trace = t;
	return 0;
}

int tr_trace_next(struct tr_trace *t, struct tr_item *item, const char **warning)
{
	struct stream *s;

	*warning = NULL;
	if (t->warning[0]) {
		memcpy(t->reported, t->warning, sizeof(t->reported));
		t->warning[0] = 0;
		*warning = t->reported;
	}
	if (!t->heap_len)
		return 0;
	s = &t->streams[t->heap[0]];
	*item = s->head;
	if (!stream_advance(t, s))
		t->heap[0] = t->heap[--t->heap_len];
	heap_down(t, 0);
	return 1;
}

struct tep_handle *tr_trace_tep(const struct tr_trace *trace)
{
	return trace->tep;
}

void tr_trace_close(struct tr_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->nclasses; i++) {
		free(t->classes[i].system);
		free(t->classes[i].name);
	}
	for (i = 0; i < t->nstreams; i++)
		if (t->streams[i].bytes)
			munmap((void *)t->streams[i].bytes, t->streams[i].size);
	if (t->tep)
		tep_free(t->tep);
	free(t->classes);
	free(t->streams);
	free(t->heap);
	free(t);
}
