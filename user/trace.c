// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracer/record.h>

#include "trace.h"
#include "packet.h"
#include "format.h"
#include "cpus.h"
#include "trace_dir.h"

/* .tracer/events holds at most TR_MAX_EVENTS formats of a few KiB each. */
#define MAX_EVENTS_FILE		(64u << 20)
/* A field lies in the first 64 KiB of its record (__data_loc offsets are 16-bit). */
#define MAX_FIELD_END		65536

struct stream {
	char name[TR_CHANNEL_NAME_MAX + 16];	/* CHANNEL_CPU */
	__u32 channel;			/* the packets' stream_id */
	const char *channel_name;	/* for its losses, when the trace has several */
	__u32 cpu;
	const char *bytes;		/* the file, mapped */
	size_t size;
	size_t next_packet;		/* file offset */
	int in_packet;
	int started;			/* a packet was read: the counters below hold */
	struct tr_packet_iter it;
	const struct tr_packet_header *packet;
	__u64 lost[4];			/* cumulative, the most a packet reported */
	__u64 last_seq;
	__u64 last_end;			/* timestamp_end of the previous packet */
	__u64 last_ts;			/* of its latest item */
	struct tr_item head;		/* its next item */
	struct tr_item lost_events;	/* reported after the packet's records */
	int has_lost_events;
	char problem[512];		/* the head's text when it is a problem */
};

/* A channel of the trace: its stream files are NAME_CPU. */
struct channel {
	char name[TR_CHANNEL_NAME_MAX];
	int used;
};

struct tr_trace {
	int dir_fd, meta_fd;		/* the trace directory and its .tracer */
	struct channel channels[TR_MAX_CHANNELS];	/* by stream class id */
	unsigned int nchannels;
	struct tep_handle *tep;
	struct tr_trace_class *classes;
	unsigned int nclasses;
	struct stream *streams;
	unsigned int nstreams;
	unsigned int *heap;		/* stream indices, earliest head first */
	unsigned int heap_len;
	char **notes;			/* problems found while opening */
	unsigned int nnotes, next_note;
	/* Event ids (the last entry: all larger ones) said to have no format. */
	unsigned char unknown_told[TR_MAX_EVENTS + 1];
	char reported[512];		/* the problem tr_trace_next() handed out */
	char *payload;			/* the record it handed out, copied */
	size_t payload_size;
	int stacks;			/* its records carry call stacks (.tracer/stacks) */
	/* ... and context fields, 8 bytes each (.tracer/context) */
	char context[TR_MAX_CONTEXT][TR_CONTEXT_NAME_MAX];
	const char *context_names[TR_MAX_CONTEXT];
	unsigned int ncontext;
	/* who names the kernel functions fields point to (tr_trace_name_functions()) */
	tr_function_namer namer;
	void *namer_data;
	/* the formats passed whole, parsed when report's text first asks (tr_trace_print_format()) */
	struct tep_handle *tep_whole;
	struct whole_format *whole;	/* by event id */
	char *events_text;		/* .tracer/events, which they point into */
	/* .tracer/printk_formats, by address */
	struct printk_string *printk;
	unsigned int nprintk;
};

/* An event's format in .tracer/events, and the same with its print fmt whole once parsed. */
struct whole_format {
	const char *text;
	size_t len;
	struct tep_event *ev;		/* NULL: printed by its fields (format.h says why) */
	int parsed;
};

/* A problem found while opening, handed out before the first item. */
static void note(struct tr_trace *t, const char *fmt, ...)
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

/*
 * Open a file of the trace for reading: a regular file, not a symbolic
 * link, and without blocking on a FIFO put in its place.
 */
static int open_regular(int dir_fd, const char *name, struct stat *st)
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

/* What an error of opening a file of the trace means, in words. */
static const char *file_error(int err)
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

	return open_regular(t->meta_fd, name, &st);
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

	return open_regular(t->dir_fd, name, &st);
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

/* .tracer/stacks is there when the records carry stacks (what it says is for people). */
static void read_stacks_flag(struct tr_trace *t)
{
	int fd = tr_trace_open_meta(t, TR_TRACE_STACKS);

	t->stacks = fd != -ENOENT;
	if (fd >= 0)
		close(fd);
	else if (fd != -ENOENT)
		note(t, ".tracer/" TR_TRACE_STACKS ": %s; the stacks are read as if it were there",
		     file_error(fd));
}

/* --- Event classes: .tracer/events ------------------------------------------- */

/* One entry: "event ID SYSTEM NAME LENGTH\n" and LENGTH bytes of format. */
struct entry {
	unsigned int id;
	char system[256];
	char name[256];
	size_t header_len;		/* the line and its newline */
	size_t format_len;
};

/* A decimal number (no sign, no space, no overflow) up to max. */
static int decimal(const char *s, unsigned long long max, unsigned long long *value)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n])
		return 0;
	errno = 0;
	*value = strtoull(s, NULL, 10);
	return !errno && *value <= max;
}

static int name_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	return n && n < 256 && !s[n];
}

/* Parses the entry at s (n bytes left); 0, or -EPROTO with why. */
static int parse_entry(const char *s, size_t n, struct entry *e, char *why, size_t whylen)
{
	const char *nl = memchr(s, '\n', n < 1024 ? n : 1024);
	char line[1024], *word[5], *w, *save;
	unsigned long long id, len;
	unsigned int words = 0;

	if (!nl || memchr(s, 0, nl - s)) {
		snprintf(why, whylen, "no \"event ID SYSTEM NAME LENGTH\" line");
		return -EPROTO;
	}
	memcpy(line, s, nl - s);
	line[nl - s] = 0;
	e->header_len = nl - s + 1;
	for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save), words++)
		if (words < 5)
			word[words] = w;
	if (words != 5 || strcmp(word[0], "event") ||
	    !name_ok(word[2]) || !name_ok(word[3]) || !decimal(word[4], ~0ull, &len)) {
		snprintf(why, whylen, "not an \"event ID SYSTEM NAME LENGTH\" line");
		return -EPROTO;
	}
	if (!decimal(word[1], TR_MAX_EVENTS - 1, &id)) {
		snprintf(why, whylen, "event id %.20s is not below %u", word[1], TR_MAX_EVENTS);
		return -EPROTO;
	}
	if (len > n - e->header_len) {
		snprintf(why, whylen, "format length %llu runs past the end of the file (%zu bytes left)",
			 len, n - e->header_len);
		return -EPROTO;
	}
	e->id = id;
	e->format_len = len;
	strcpy(e->system, word[2]);
	strcpy(e->name, word[3]);
	return 0;
}

/* Every field in the first 64 KiB, every __data_loc locator 4 bytes. */
static const char *fields_problem(const struct tep_event *ev)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	const struct tep_format_field *f;
	int l;

	for (l = 0; l < 2; l++)
		for (f = lists[l]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || f->offset + f->size > MAX_FIELD_END)
				return "a field lies beyond the first 64 KiB of its record";
			if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4)
				return "a __data_loc field is not 4 bytes";
		}
	return NULL;
}

/*
 * The parsed format of an entry into tep, its print fmt reduced or whole,
 * or NULL and why not.
 */
static struct tep_event *parse_format(struct tep_handle *tep, unsigned int id, const char *format,
				      size_t len, int whole, const char **why)
{
	char *sane = whole ? tr_format_whole(format, len, id, why) :
			     tr_format_sanitize(format, len, id, why);
	struct tep_event *ev = NULL;

	/*
	 * libtraceevent gives the "ftrace" system's formats a meaning of their
	 * own; these are tracepoint formats whatever their system is called.
	 */
	if (sane && tep_parse_format(tep, &ev, sane, strlen(sane), "tracer"))
		ev = NULL;
	if (sane && (!ev || (ev->flags & TEP_EVENT_FL_FAILED))) {
		*why = "libtraceevent cannot parse it";
		ev = NULL;
	}
	if (ev && (*why = fields_problem(ev)))
		ev = NULL;
	free(sane);
	return ev;
}

static void add_class(struct tr_trace *t, const struct entry *e, const char *format,
		      size_t offset)
{
	struct tr_trace_class *c;
	const char *why;

	if (e->id < t->nclasses && t->classes[e->id].name) {
		note(t, ".tracer/events: offset %zu: event id %u is given twice; the second is ignored",
		     offset, e->id);
		return;
	}
	if (e->id >= t->nclasses) {
		struct whole_format *w = realloc(t->whole, (e->id + 1) * sizeof(*w));

		if (w)
			t->whole = w;
		c = w ? realloc(t->classes, (e->id + 1) * sizeof(*c)) : NULL;
		if (!c)
			return;
		memset(c + t->nclasses, 0, (e->id + 1 - t->nclasses) * sizeof(*c));
		memset(w + t->nclasses, 0, (e->id + 1 - t->nclasses) * sizeof(*w));
		t->classes = c;
		t->nclasses = e->id + 1;
	}
	c = &t->classes[e->id];
	c->system = strdup(e->system);
	c->name = strdup(e->name);
	if (!c->system || !c->name)
		why = "out of memory";
	else
		c->tep = parse_format(t->tep, e->id, format, e->format_len, 0, &why);
	if (c->tep)
		t->whole[e->id] = (struct whole_format) { format, e->format_len, NULL, 0 };
	if (!c->tep)
		note(t, ".tracer/events: offset %zu: the format of event %u (%s:%s): %s; its records are skipped",
		     offset, e->id, e->system, e->name, why);
}

/*
 * The entries of .tracer/events.  A line that does not parse ends them
 * (nothing after it can be framed); a format that does not, only its event.
 */
static int parse_classes(struct tr_trace *t, const char *dir, const char *text, size_t len,
			 char *why, size_t whylen)
{
	unsigned int entries = 0;
	struct entry e;
	char problem[256];
	size_t at;

	t->tep = tep_alloc();
	t->tep_whole = tep_alloc();
	if (!t->tep || !t->tep_whole) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* the recorder's kernel is 64-bit: a pointer-sized field is a pointer */
	tep_set_long_size(t->tep, 8);
	tep_set_long_size(t->tep_whole, 8);
	for (at = 0; at < len; at += e.header_len + e.format_len, entries++) {
		if (parse_entry(text + at, len - at, &e, problem, sizeof(problem))) {
			if (!entries) {
				snprintf(why, whylen, "%s/.tracer/events: offset %zu: %s",
					 dir, at, problem);
				return -EPROTO;
			}
			note(t, ".tracer/events: offset %zu: %s; the events after it are unknown",
			     at, problem);
			return 0;
		}
		add_class(t, &e, text + at + e.header_len, at);
	}
	if (!entries) {
		snprintf(why, whylen, "%s/.tracer/events: no event in it", dir);
		return -EPROTO;
	}
	return 0;
}

/* Reads the whole of a regular file into a buffer of its size. */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = read(fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* The trace's .tracer directory, not a symbolic link: a descriptor for openat(). */
static int open_meta_dir(int dir_fd)
{
	int fd = openat(dir_fd, ".tracer", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISDIR(st.st_mode))
		return fd;
	else
		err = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
	close(fd);
	return err;
}

static int read_classes(struct tr_trace *t, const char *dir, char *why, size_t whylen)
{
	struct stat st;
	ssize_t len = 0;
	char *text;
	int fd;

	t->meta_fd = open_meta_dir(t->dir_fd);
	fd = t->meta_fd < 0 ? t->meta_fd : open_regular(t->meta_fd, "events", &st);
	if (fd == -ENOENT && !faccessat(t->dir_fd, "snapshot-1", F_OK, AT_SYMLINK_NOFOLLOW)) {
		snprintf(why, whylen, "%s holds a flight recorder's snapshots, each a trace: %s/snapshot-1, ...",
			 dir, dir);
		return fd;
	}
	if (fd == -ENOENT) {
		snprintf(why, whylen, "%s is not a tracer trace (no .tracer/events)", dir);
		return fd;
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s/%s: %s", dir,
			 t->meta_fd < 0 ? ".tracer" : ".tracer/events", file_error(fd));
		return fd;
	}
	if (st.st_size > MAX_EVENTS_FILE) {
		snprintf(why, whylen, "%s/.tracer/events: larger than %u MiB, not a tracer trace's",
			 dir, MAX_EVENTS_FILE >> 20);
		close(fd);
		return -EFBIG;
	}
	text = malloc(st.st_size + 1);
	if (text)
		len = read_all(fd, text, st.st_size);
	close(fd);
	if (!text || len < 0) {
		snprintf(why, whylen, "%s/.tracer/events: %s", dir, strerror(text ? -len : ENOMEM));
		free(text);
		return text ? len : -ENOMEM;
	}
	len = parse_classes(t, dir, text, len, why, whylen);
	t->events_text = text;
	return len;
}

/* --- Channels: .tracer/channels ---------------------------------------------- */

static void one_channel(struct tr_trace *t)
{
	memset(t->channels, 0, sizeof(t->channels));
	strcpy(t->channels[0].name, TR_DEFAULT_CHANNEL);
	t->channels[0].used = 1;
	t->nchannels = 1;
}

/* Whether "channel ID NAME" names a new channel; if so, it is added. */
static int add_channel(struct tr_trace *t, const char *line)
{
	char name[TR_CHANNEL_NAME_MAX + 1];
	unsigned int id, i;
	int end = 0;

	if (sscanf(line, "channel %u %32[A-Za-z0-9_-]%n", &id, name, &end) != 2 || line[end] ||
	    id >= TR_MAX_CHANNELS || t->channels[id].used ||
	    !tr_trace_dir_channel_name_ok(name, strlen(name)))
		return 0;
	for (i = 0; i < TR_MAX_CHANNELS; i++)
		if (t->channels[i].used && !strcmp(t->channels[i].name, name))
			return 0;
	strcpy(t->channels[id].name, name);
	t->channels[id].used = 1;
	t->nchannels++;
	return 1;
}

/* Which channels the trace has; without .tracer/channels (older traces), channel0. */
static void read_channels(struct tr_trace *t)
{
	char text[TR_MAX_CHANNELS * 64], *line, *save = NULL;
	int fd = tr_trace_open_meta(t, TR_TRACE_CHANNELS);
	ssize_t len = fd < 0 ? fd : read_all(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (len < 0) {
		if (fd != -ENOENT)
			note(t, ".tracer/" TR_TRACE_CHANNELS ": %s; only channel0 is read", file_error(len));
		one_channel(t);
		return;
	}
	text[len] = 0;
	memset(t->channels, 0, sizeof(t->channels));
	t->nchannels = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!add_channel(t, line)) {
			note(t, ".tracer/" TR_TRACE_CHANNELS ": '%.64s' is not a new \"channel ID NAME\"; the channels after it are not read",
			     line);
			break;
		}
	if (!t->nchannels)
		one_channel(t);
}

/* --- Context fields: .tracer/context ------------------------------------------------ */

/* A name of a context field: letters, digits and '_', as the recorder writes them. */
static int context_name_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len < TR_CONTEXT_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

/*
 * .tracer/context names the context fields each tracepoint record
 * carries, one per line (tracer/record.h).  A name the reader does not
 * know is still a field of 8 bytes; a list it cannot read leaves records
 * read as without context, which their sizes then show as damaged.
 */
static void read_context(struct tr_trace *t)
{
	char text[TR_MAX_CONTEXT * TR_CONTEXT_NAME_MAX + 1], *line, *save = NULL;
	int fd = tr_trace_open_meta(t, TR_TRACE_CONTEXT);
	ssize_t len = fd < 0 ? fd : read_all(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (len < 0) {
		if (fd != -ENOENT)
			note(t, ".tracer/" TR_TRACE_CONTEXT ": %s; records are read without context",
			     file_error(len));
		return;
	}
	text[len] = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (t->ncontext == TR_MAX_CONTEXT || !context_name_ok(line)) {
			note(t, ".tracer/" TR_TRACE_CONTEXT ": '%.32s' is not a context field's name, or one too many; records are read without context",
			     line);
			t->ncontext = 0;
			return;
		}
		strcpy(t->context[t->ncontext], line);
		t->context_names[t->ncontext] = t->context[t->ncontext];
		t->ncontext++;
	}
}

/*
 * A line of .tracer/printk_formats, '0xADDRESS : "TEXT"', with TEXT
 * printable and of 2 bytes at least (libtraceevent reads the 3 last bytes
 * of its copy without the first quote): TEXT still quoted into *text, or 0.
 */
static int printk_line(char *line, unsigned long long *address, char **text)
{
	char *end;
	size_t len;

	if (strncmp(line, "0x", 2) || !isxdigit((unsigned char)line[2]))
		return 0;
	errno = 0;
	*address = strtoull(line + 2, &end, 16);
	if (errno || strncmp(end, " : \"", 4))
		return 0;
	*text = end + 3;
	len = strlen(*text);
	if (len < 4 || (*text)[len - 1] != '"')
		return 0;
	for (end = *text; *end; end++)
		if (!isprint((unsigned char)*end))
			return 0;
	return 1;
}

/* A string of .tracer/printk_formats at its address. */
struct printk_string {
	__u64 address;
	char *text;
};

static int printk_order(const void *a, const void *b)
{
	const struct printk_string *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

/* A printk_line()'s text kept as tep_register_print_string() keeps it: no quotes, no "\n". */
static void add_printk(struct tr_trace *t, __u64 address, const char *quoted)
{
	struct printk_string *more = realloc(t->printk, (t->nprintk + 1) * sizeof(*more));
	size_t len = strlen(quoted) - 2;
	char *text;

	if (!more)
		return;
	t->printk = more;
	if (len >= 2 && !memcmp(quoted + 1 + len - 2, "\\n", 2))
		len -= 2;
	text = strndup(quoted + 1, len);
	if (!text)
		return;
	more[t->nprintk++] = (struct printk_string) { address, text };
}

/*
 * .tracer/printk_formats: the strings that pointer fields printed with %s
 * point to (tracefs's printk_formats at record time).  A trace without it
 * prints such fields as addresses; a line that is not one is skipped.
 */
static void read_printk_formats(struct tr_trace *t)
{
	int fd = tr_trace_open_meta(t, TR_TRACE_PRINTK);
	FILE *in = fd < 0 ? NULL : fdopen(fd, "r");
	unsigned int bad = 0;
	unsigned long long address;
	char line[4096], *text;

	if (!in) {
		if (fd >= 0)
			close(fd);
		else if (fd != -ENOENT)
			note(t, ".tracer/" TR_TRACE_PRINTK ": %s; strings print as addresses",
			     file_error(fd));
		return;
	}
	while (fgets(line, sizeof(line), in) && t->nprintk < TR_PRINTK_MAX) {
		line[strcspn(line, "\n")] = 0;
		if (!printk_line(line, &address, &text))
			bad++;
		else if (!tep_register_print_string(t->tep, text, address))
			add_printk(t, address, text);
	}
	fclose(in);
	if (t->nprintk)
		qsort(t->printk, t->nprintk, sizeof(*t->printk), printk_order);
	if (bad)
		note(t, ".tracer/" TR_TRACE_PRINTK ": %u lines that are no address and string, skipped",
		     bad);
}

struct tep_event *tr_trace_print_format(struct tr_trace *t, __u32 id)
{
	struct whole_format *w = id < t->nclasses ? &t->whole[id] : NULL;

	if (!w || !w->text)
		return NULL;
	if (!w->parsed)
		w->ev = parse_format(t->tep_whole, id, w->text, w->len, 1, &(const char *) { NULL });
	w->parsed = 1;
	return w->ev;
}

const char *tr_trace_printk(const struct tr_trace *t, __u64 address)
{
	struct printk_string key = { .address = address }, *found;

	found = t->nprintk ? bsearch(&key, t->printk, t->nprintk, sizeof(key), printk_order) : NULL;
	return found ? found->text : NULL;
}

const char *tr_trace_function(const struct tr_trace *t, __u64 address, __u64 *start)
{
	return t->namer ? t->namer(t->namer_data, address, start) : NULL;
}

static char *resolve_function(void *data, unsigned long long *address, char **module)
{
	struct tr_trace *t = data;
	__u64 start = *address;
	const char *name = t->namer(t->namer_data, *address, &start);

	*address = start;
	*module = NULL;
	return (char *)name;
}

int tr_trace_name_functions(struct tr_trace *t, tr_function_namer namer, void *data)
{
	t->namer = namer;
	t->namer_data = data;
	return tep_set_function_resolver(t->tep, resolve_function, t) ? -ENOMEM : 0;
}

unsigned int tr_trace_context(const struct tr_trace *t, const char *const **names)
{
	*names = t->context_names;
	return t->ncontext;
}

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
		    !decimal(digits, TR_MAX_CPUS - 1, &cpu))
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
	fd = open_regular(t->dir_fd, name, &st);
	if (fd < 0) {
		note(t, "%s: %s; this stream is skipped", name, file_error(fd));
		return fd;
	}
	s->size = st.st_size;
	s->bytes = s->size ? mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (s->bytes == MAP_FAILED) {
		int err = -errno;

		note(t, "%s: cannot map it: %s; this stream is skipped", name, strerror(-err));
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

static int open_streams(struct tr_trace *t, const char *dir, char *why, size_t whylen)
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
static int stream_problem(struct stream *s, __u64 ts, const char *fmt, ...)
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
				   .channel = s->channel_name,
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
				     .channel = s->channel_name,
				     .ts = h->timestamp_begin, .lost_packets = gap };
	return gap != 0;
}

/*
 * Why a record's payload cannot be decoded by its format, or NULL: every
 * field, and the data a __data_loc field locates, must lie inside it.
 * Then nothing that decodes it by the format reads past it.  *raw_end is
 * where the last of them ends (a stack follows there, tracer/record.h).
 */
static const char *payload_problem(const struct tep_event *ev, const char *payload,
				   __u32 size, __u32 *raw_end, char *why, size_t whylen)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	const struct tep_format_field *f;
	int l;

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

/* Makes a record the stream's next item, or a problem about it; 0 to skip it. */
static int record_item(struct tr_trace *t, struct stream *s, const struct tr_event_header *e)
{
	const struct tr_trace_class *class = e->id < t->nclasses && t->classes[e->id].tep ?
					     &t->classes[e->id] : NULL;
	size_t offset = s->next_packet + ((const char *)e - (const char *)s->packet);
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
				      s->name, offset, e->id);
	}
	s->head = (struct tr_item) { .kind = TR_ITEM_RECORD, .cpu = s->cpu, .stream_id = s->channel,
				     .ts = e->timestamp,
				     .record = e, .class = class };
	problem = payload_problem(class->tep, (const char *)(e + 1), e->size, &raw_end,
				  why, sizeof(why));
	if (!problem && t->ncontext && strcmp(class->system, "tracer"))
		problem = context_problem(e->size, &raw_end, t->ncontext, &s->head, why, sizeof(why));
	if (!problem && t->stacks && strcmp(class->system, "tracer"))
		problem = stacks_problem((const char *)(e + 1), e->size, raw_end, &s->head,
					 why, sizeof(why));
	if (problem)
		return stream_problem(s, e->timestamp, "%s: record at offset %zu: %s; record skipped",
				      s->name, offset, problem);
	return 1;
}

/* Moves a stream to its next item; 0 when it has none left. */
static int stream_advance(struct tr_trace *t, struct stream *s)
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
		if (s->next_packet >= s->size)
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

	if (!t) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	t->meta_fd = -1;
	t->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dir_fd < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot open %s: %s", dir, strerror(-err));
	} else {
		err = read_classes(t, dir, why, whylen);
	}
	if (!err) {
		read_stacks_flag(t);
		read_channels(t);
		read_context(t);
		read_printk_formats(t);
	}
	if (!err)
		err = open_streams(t, dir, why, whylen);
	if (!err && !(t->heap = calloc(t->nstreams + 1, sizeof(*t->heap)))) {
		snprintf(why, whylen, "out of memory");
		err = -ENOMEM;
	}
	if (err) {
		tr_trace_close(t);
		return err;
	}
	for (i = 0; i < t->nstreams; i++)
		if (stream_advance(t, &t->streams[i]))
			t->heap[t->heap_len++] = i;
	for (i = t->heap_len / 2 + 1; i-- > 0;)
		heap_down(t, i);
	*trace = t;
	return 0;
}

/*
 * Hands out a record with a copy of its payload and a NUL byte after it,
 * so that a string field without its NUL ends there; or, without memory
 * for the copy, a problem.
 */
static void copy_payload(struct tr_trace *t, struct tr_item *item)
{
	size_t size = item->record->size;

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
	memcpy(t->payload, item->record + 1, size);
	t->payload[size] = 0;
	item->payload = t->payload;
}

int tr_trace_next(struct tr_trace *t, struct tr_item *item)
{
	struct stream *s;

	if (t->next_note < t->nnotes) {
		*item = (struct tr_item) { .kind = TR_ITEM_PROBLEM,
					   .problem = t->notes[t->next_note++] };
		return 1;
	}
	if (!t->heap_len)
		return 0;
	s = &t->streams[t->heap[0]];
	*item = s->head;
	if (item->kind == TR_ITEM_PROBLEM) {
		memcpy(t->reported, s->problem, sizeof(t->reported));
		item->problem = t->reported;
	} else if (item->kind == TR_ITEM_RECORD) {
		copy_payload(t, item);
	}
	if (!stream_advance(t, s))
		t->heap[0] = t->heap[--t->heap_len];
	heap_down(t, 0);
	return 1;
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
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	for (i = 0; i < t->nprintk; i++)
		free(t->printk[i].text);
	if (t->tep)
		tep_free(t->tep);
	if (t->tep_whole)
		tep_free(t->tep_whole);
	if (t->meta_fd >= 0)
		close(t->meta_fd);
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	free(t->notes);
	free(t->printk);
	free(t->whole);
	free(t->events_text);
	free(t->classes);
	free(t->streams);
	free(t->heap);
	free(t->payload);
	free(t);
}
