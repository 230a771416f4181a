// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a trace's .tracer directory says of it: its event classes
 * (.tracer/events, each format checked before libtraceevent parses it),
 * channels, context fields, stacks, and the strings and function names
 * its fields point to.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracer/record.h>

#include "reader/trace_impl.h"
#include "reader/format_check.h"

/* .tracer/events holds at most TR_MAX_EVENTS formats of a few KiB each. */
#define MAX_EVENTS_FILE		(64u << 20)
/* A field lies in the first 64 KiB of its record (__data_loc offsets are 16-bit). */
#define MAX_FIELD_END		65536

/* An event's format in .tracer/events, and the same with its print fmt whole once parsed. */
struct whole_format {
	const char *text;
	size_t len;
	struct tep_event *ev;		/* NULL: printed by its fields (reader/format_check.h says why) */
	int parsed;
};

/* .tracer/stacks is there when the records carry stacks (what it says is for people). */
static void read_stacks_flag(struct tr_trace *t)
{
	int fd = tr_trace_open_meta(t, TR_TRACE_STACKS);

	t->stacks = fd != -ENOENT;
	if (fd >= 0)
		close(fd);
	else if (fd != -ENOENT)
		trace_note(t, ".tracer/" TR_TRACE_STACKS ": %s; the stacks are read as if it were there",
			   trace_file_error(fd));
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
	    !name_ok(word[2]) || !name_ok(word[3]) || !trace_decimal(word[4], ~0ull, &len)) {
		snprintf(why, whylen, "not an \"event ID SYSTEM NAME LENGTH\" line");
		return -EPROTO;
	}
	if (!trace_decimal(word[1], TR_MAX_EVENTS - 1, &id)) {
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

/* Room for n classes (by id) and what goes with each.  0 or -ENOMEM. */
static int grow_classes(struct tr_trace *t, unsigned int n)
{
	struct whole_format *w = realloc(t->whole, n * sizeof(*w));
	struct class_layout *l = w ? realloc(t->layouts, n * sizeof(*l)) : NULL;
	struct tr_trace_class *c = l ? realloc(t->classes, n * sizeof(*c)) : NULL;

	if (w)
		t->whole = w;
	if (l)
		t->layouts = l;
	if (!c)
		return -ENOMEM;
	memset(c + t->nclasses, 0, (n - t->nclasses) * sizeof(*c));
	memset(w + t->nclasses, 0, (n - t->nclasses) * sizeof(*w));
	memset(l + t->nclasses, 0, (n - t->nclasses) * sizeof(*l));
	t->classes = c;
	t->nclasses = n;
	return 0;
}

/* Where a format's fixed fields end, and whether any locates data after them. */
static struct class_layout layout_of(const struct tep_event *ev)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	struct class_layout l = { 0, 0, ~0u };
	const struct tep_format_field *f;
	int i;

	for (i = 0; i < 2; i++)
		for (f = lists[i]; f; f = f->next) {
			if ((__u32)(f->offset + f->size) > l.fixed_end)
				l.fixed_end = f->offset + f->size;
			l.dynamic |= !!(f->flags & TEP_FIELD_IS_DYNAMIC);
		}
	return l;
}

static void add_class(struct tr_trace *t, const struct entry *e, const char *format,
		      size_t offset)
{
	struct tr_trace_class *c;
	const char *why;

	if (e->id < t->nclasses && t->classes[e->id].name) {
		trace_note(t, ".tracer/events: offset %zu: event id %u is given twice; the second is ignored",
			   offset, e->id);
		return;
	}
	if (e->id >= t->nclasses && grow_classes(t, e->id + 1))
		return;
	c = &t->classes[e->id];
	c->system = strdup(e->system);
	c->name = strdup(e->name);
	if (!c->system || !c->name)
		why = "out of memory";
	else
		c->tep = parse_format(t->tep, e->id, format, e->format_len, 0, &why);
	if (c->tep) {
		t->whole[e->id] = (struct whole_format) { format, e->format_len, NULL, 0 };
		t->layouts[e->id] = layout_of(c->tep);
	}
	if (!c->tep)
		trace_note(t, ".tracer/events: offset %zu: the format of event %u (%s:%s): %s; its records are skipped",
			   offset, e->id, e->system, e->name, why);
}

/*
 * The entries of .tracer/events.  A line that does not parse ends them
 * (nothing after it can be framed); a format that does not, only its event.
 */
int trace_parse_classes(struct tr_trace *t, const char *name, const char *text, size_t len,
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
				snprintf(why, whylen, "%s: offset %zu: %s", name, at, problem);
				return -EPROTO;
			}
			trace_note(t, ".tracer/events: offset %zu: %s; the events after it are unknown",
				   at, problem);
			return 0;
		}
		add_class(t, &e, text + at + e.header_len, at);
	}
	if (!entries) {
		snprintf(why, whylen, "%s: no event in it", name);
		return -EPROTO;
	}
	return 0;
}

ssize_t tr_read_all(int fd, char *buf, size_t size)
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
	char name[4096];
	struct stat st;
	ssize_t len = 0;
	char *text;
	int fd;

	t->meta_fd = open_meta_dir(t->dir_fd);
	fd = t->meta_fd < 0 ? t->meta_fd : trace_open_regular(t->meta_fd, TR_TRACE_FORMATS, &st);
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
			 t->meta_fd < 0 ? ".tracer" : ".tracer/events", trace_file_error(fd));
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
		len = tr_read_all(fd, text, st.st_size);
	close(fd);
	if (!text || len < 0) {
		snprintf(why, whylen, "%s/.tracer/events: %s", dir, strerror(text ? -len : ENOMEM));
		free(text);
		return text ? len : -ENOMEM;
	}
	snprintf(name, sizeof(name), "%s/.tracer/events", dir);
	len = trace_parse_classes(t, name, text, len, why, whylen);
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
	ssize_t len = fd < 0 ? fd : tr_read_all(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (len < 0) {
		if (fd != -ENOENT)
			trace_note(t, ".tracer/" TR_TRACE_CHANNELS ": %s; only channel0 is read", trace_file_error(len));
		one_channel(t);
		return;
	}
	text[len] = 0;
	memset(t->channels, 0, sizeof(t->channels));
	t->nchannels = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!add_channel(t, line)) {
			trace_note(t, ".tracer/" TR_TRACE_CHANNELS ": '%.64s' is not a new \"channel ID NAME\"; the channels after it are not read",
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
	ssize_t len = fd < 0 ? fd : tr_read_all(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (len < 0) {
		if (fd != -ENOENT)
			trace_note(t, ".tracer/" TR_TRACE_CONTEXT ": %s; records are read without context",
				   trace_file_error(len));
		return;
	}
	text[len] = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (t->ncontext == TR_MAX_CONTEXT || !context_name_ok(line)) {
			trace_note(t, ".tracer/" TR_TRACE_CONTEXT ": '%.32s' is not a context field's name, or one too many; records are read without context",
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
			trace_note(t, ".tracer/" TR_TRACE_PRINTK ": %s; strings print as addresses",
				   trace_file_error(fd));
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
		trace_note(t, ".tracer/" TR_TRACE_PRINTK ": %u lines that are no address and string, skipped",
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

int tr_trace_has_class(const struct tr_trace *t, const char *system, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nclasses; i++)
		if (t->classes[i].tep && !strcmp(t->classes[i].system, system) &&
		    !fnmatch(name, t->classes[i].name, 0))
			return 1;
	return 0;
}

char *tr_trace_format_text(const struct tr_trace *t, __u32 id, unsigned int as_id)
{
	const struct whole_format *w = id < t->nclasses ? &t->whole[id] : NULL;
	const char *why;
	char *text;

	if (!w || !w->text)
		return NULL;
	text = tr_format_whole(w->text, w->len, as_id, &why);
	return text ?: tr_format_sanitize(w->text, w->len, as_id, &why);
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


int trace_read_meta(struct tr_trace *t, const char *dir, char *why, size_t whylen)
{
	int err = read_classes(t, dir, why, whylen);

	if (err)
		return err;
	read_stacks_flag(t);
	read_channels(t);
	read_context(t);
	read_printk_formats(t);
	return 0;
}

void trace_plain_sizes(struct tr_trace *t)
{
	unsigned int id;

	for (id = 0; id < t->nclasses; id++) {
		struct class_layout *l = &t->layouts[id];

		l->plain_size = t->classes[id].tep && !l->dynamic && !t->ncontext && !t->stacks ?
				l->fixed_end : ~0u;
	}
}

void trace_meta_free(struct tr_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->nclasses; i++) {
		free(t->classes[i].system);
		free(t->classes[i].name);
	}
	for (i = 0; i < t->nprintk; i++)
		free(t->printk[i].text);
	if (t->tep)
		tep_free(t->tep);
	if (t->tep_whole)
		tep_free(t->tep_whole);
	free(t->printk);
	free(t->whole);
	free(t->layouts);
	free(t->events_text);
	free(t->classes);
}
