// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's user-space events: -e ust:PROVIDER:EVENT (globs) records
 * what programs linked with libtracer-ust (user/ust/) write, into the same
 * trace as the kernel's events, merged by their CLOCK_MONOTONIC timestamps.
 *
 * Finding them.  The command the recorder starts, and what it starts,
 * send each buffer and event description as they make it (ust/handoff.h)
 * to a socket they inherit, so even a program that lives a millisecond is
 * read to its last record.  And every SCAN_NS the processes in the
 * recording's scope (-a: all but the recorder; -p PID; else the command
 * and its descendants) are looked through for the same memory, through
 * /proc/PID/fd: its per-thread buffers and the description of its events
 * (.tracer/events's text with the process's own event ids), so programs
 * started before the recording are found too, without their help.  Once
 * mapped here, the buffers of a program that ends are read to the end.
 *
 * Trusting none of it.  We run as root; the programs and their users may
 * be hostile.  A descriptor found through /proc is taken from the
 * process (pidfd_getfd()), never reopened by a path it could swap; and
 * whatever is handed over or taken is used only if it is a memfd sealed
 * at its size (library_memfd()), which no program can shrink under our
 * mapping to kill us with SIGBUS.
 *
 * Reading them.  Each buffer is mapped and read with the protocol's get
 * and put, as the kernel's are (ringbuf.h).  Only a buffer's thread may
 * close its open sub-buffer, so at the end of the recording the records
 * of each open sub-buffer are copied (tr_ubuf_copy_open(), as a dump does).
 * The memory is another process's: each packet is copied before it is
 * checked and rewritten, and a buffer whose tables point outside its
 * memory is left.
 *
 * tracer ust dump PID reads a running process's buffers the same way,
 * read-only: what they hold as they are, nothing taken (tr_ust_dump()).
 *
 * Into the trace.  One channel, "ust", whose streams ust_N are the
 * buffers in the order found; each packet is rewritten for its stream
 * (stream id, instance and cpu_id N) and each record for the trace's event
 * ids, which count down from TR_MAX_EVENTS - 1 above the kernel's; records
 * of events no -e selects are left out.  The channel's stream class and
 * each new event's format (.tracer/events) and CTF class (metadata) are
 * appended to the trace as they are found.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>
#include <event-parse.h>

#include "session.h"
#include "names.h"
#include "ctf.h"
#include "packet.h"
#include "ubuf.h"
#include "ust/handoff.h"

#define SCAN_NS		200000000ull	/* 200 ms */
#define MAX_PEERS	256		/* programs connected to the registry at once */
#define MAX_FIELDS	64
#define NO_CLASS	(~0u)
#define BUFFER_LINK	"/memfd:" UST_BUFFER_MEMFD " (deleted)"
#define META_LINK	"/memfd:" UST_META_MEMFD " (deleted)"

/* An event of one process: its id there, the trace's (NO_CLASS: not selected). */
struct ust_class {
	pid_t pid;
	__u32 local;
	__u32 id;
};

/* A trace-wide event: its format without the ID line, to find it again. */
struct ust_event {
	char *key;			/* "SYSTEM NAME\nFORMAT-WITHOUT-ID" */
	__u32 id;
};

struct ust_buf {
	pid_t pid;
	dev_t dev;
	ino_t ino;
	void *region;
	size_t size;
	struct trb_buf rb;
	unsigned int stream;		/* ust_N */
	int fd;				/* the stream file, or -1 (--relay alone) */
	int relay;			/* the relay's stream, or -1 */
	int damaged;			/* its tables pointed outside it: left */
};

struct rec_ust {
	const char **patterns;		/* PROVIDER:EVENT globs */
	unsigned char *matched;		/* ... each, whether an event found matched it */
	unsigned int npatterns;
	char **found;			/* PROVIDER:EVENT of the events found, once each */
	unsigned int nfound;
	__u32 channel;			/* the "ust" stream class */
	struct ust_class *classes;
	unsigned int nclasses;
	struct ust_event *events;
	unsigned int nevents;
	struct ust_buf *bufs;
	unsigned int nbufs;
	ino_t *metas;			/* descriptions read, by inode */
	unsigned int nmetas;
	ino_t *refused;			/* descriptors not the library's memory, by inode */
	unsigned int nrefused;
	struct tep_handle *tep;
	__u64 next_scan;
	char *copy, *out;		/* a packet copied, and rewritten */
	size_t copy_size;
	unsigned long records, left_out;
	pid_t *pids;			/* processes whose buffers were found */
	unsigned int npids;
	int readonly;			/* a dump's: nothing written into the buffers */
	int sock;			/* the command's handoff socket, our end, or -1 */
	int child_sock;			/* ... its end, until the command has it */
	int wake;			/* the eventfd its writers add to, or -1 */
	int registry;			/* -a, -p: where other programs hand theirs, or -1 */
	int *peers;			/* ... the programs connected to it */
	unsigned int npeers;
	int said_full;			/* ... that more than MAX_PEERS connected, once */
	int said_no_getfd;		/* that descriptors are opened by path instead, once */
};

static int add_pattern(struct rec_ust *u, const char *pattern)
{
	const char **patterns = realloc(u->patterns, (u->npatterns + 1) * sizeof(*patterns));
	unsigned char *matched;

	if (!patterns)
		return -ENOMEM;
	u->patterns = patterns;
	if (!(matched = realloc(u->matched, u->npatterns + 1)))
		return -ENOMEM;
	u->matched = matched;
	u->matched[u->npatterns] = 0;
	u->patterns[u->npatterns++] = pattern;
	return 0;
}

int rec_ust_split_specs(struct session *s, const char **specs, const char **filters,
			unsigned int *channels, unsigned int *n, char *why, size_t whylen)
{
	const struct tr_record_opts *o = s->o;
	struct rec_ust *u;
	unsigned int i;

	*n = 0;
	for (i = 0; i < o->nevents; i++) {
		if (!tr_ust_spec(o->events[i])) {
			specs[*n] = o->events[i];
			filters[*n] = o->filters ? o->filters[i] : NULL;
			channels[*n] = o->event_channels ? o->event_channels[i] : 0;
			++*n;
			continue;
		}
		if ((o->filters && o->filters[i]) || (o->event_channels && o->event_channels[i])) {
			snprintf(why, whylen, "-e %s: user-space events take no --filter and no @CHANNEL (they go to channel ust)",
				 o->events[i]);
			return -EINVAL;
		}
		if (o->flight_recorder || o->live) {
			snprintf(why, whylen, "-e %s: user-space events are recorded by tracer record without --flight-recorder only, so far",
				 o->events[i]);
			return -EINVAL;
		}
		if (!strchr(o->events[i] + 4, ':')) {
			snprintf(why, whylen, "-e %s: name them ust:PROVIDER:EVENT, e.g. ust:myapp:* or ust:*:*",
				 o->events[i]);
			return -EINVAL;
		}
		if (!s->ust && !(s->ust = calloc(1, sizeof(*s->ust))))
			return -ENOMEM;
		u = s->ust;
		u->sock = u->child_sock = u->wake = u->registry = -1;
		if (add_pattern(u, o->events[i] + 4))
			return -ENOMEM;
	}
	return 0;
}

/* Keep name for the summary's suggestions, once. */
static void note_found(struct rec_ust *u, const char *name)
{
	char **more;
	unsigned int i;

	for (i = 0; i < u->nfound; i++)
		if (!strcmp(u->found[i], name))
			return;
	more = realloc(u->found, (u->nfound + 1) * sizeof(*more));
	if (!more)
		return;
	u->found = more;
	if ((more[u->nfound] = strdup(name)))
		u->nfound++;
}

static int selected(struct rec_ust *u, const char *system, const char *name)
{
	char full[256];
	unsigned int i;
	int any = 0;

	snprintf(full, sizeof(full), "%s:%s", system, name);
	for (i = 0; i < u->npatterns; i++)
		if (!fnmatch(u->patterns[i], full, 0))
			any = u->matched[i] = 1;
	note_found(u, full);
	return any;
}

static int append_at(int dir_fd, const char *name, const char *text, size_t len)
{
	int fd = openat(dir_fd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = tr_ctf_write_all(fd, text, len);
	close(fd);
	return err;
}

/*
 * -a, -p: the abstract address programs started while we record hand
 * their memory to (ust/handoff.h), listened on: a program checks our
 * credentials when it connects.  One recorder at a time has it; another
 * finds new programs by its scans only, and says so.
 */
static int open_registry(struct session *s)
{
	struct sockaddr_un addr;
	socklen_t len = ust_registry_address(&addr);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), on = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on))) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	if (bind(fd, (struct sockaddr *)&addr, len) || listen(fd, 64)) {
		rec_say("note: another recorder receives libtracer-ust programs as they start (%s); "
			"this one finds them every %llu ms", strerror(errno), SCAN_NS / 1000000);
		close(fd);
		return 0;
	}
	s->ust->registry = fd;
	return tr_waiter_watch(&s->waiter, fd, EPOLLIN);
}

int rec_ust_start(struct session *s)
{
	struct rec_ust *u = s->ust;
	char line[64], *text = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (!u)
		return 0;
	if (s->nchannels >= TR_MAX_CHANNELS) {
		rec_say("user-space events need a channel of their own, and %u are used already", s->nchannels);
		return -EINVAL;
	}
	u->channel = s->nchannels;
	u->tep = tep_alloc();
	f = open_memstream(&text, &len);
	if (!u->tep || !f)
		return -ENOMEM;
	tr_ctf_write_stream_class(f, u->channel);
	fclose(f);
	err = append_at(s->dir.fd, "metadata", text, len);
	free(text);
	snprintf(line, sizeof(line), "channel %u ust\n", u->channel);
	if (!err)
		err = append_at(s->dir.meta_fd, TR_TRACE_CHANNELS, line, strlen(line));
	if (err)
		rec_say("cannot declare the user-space events' channel in %s: %s", s->o->output, strerror(-err));
	if (!err && !u->readonly && (s->o->system_wide || s->o->pid))
		err = open_registry(s);
	return err;
}

/* --- Events ------------------------------------------------------------------ */

/*
 * Where a format's "ID: N" line starts (at its newline) and ends (at the
 * next), within len bytes: 0, or -1 when it has none.
 */
static int id_line(const char *format, size_t len, const char **start, const char **end)
{
	*start = memmem(format, len, "\nID: ", 5);
	*end = *start ? memchr(*start + 1, '\n', format + len - *start - 1) : NULL;
	return *end ? 0 : -1;
}

/* Its CTF class and format appended to the trace: 0 or -errno. */
static int declare(struct session *s, __u32 id, const char *system, const char *name,
		   const char *format)
{
	struct rec_ust *u = s->ust;
	struct tr_ctf_field fields[MAX_FIELDS];
	struct tep_event *ev = NULL;
	char full[256], *text = NULL, *entry = NULL;
	size_t len = 0;
	int nf, err;
	FILE *f;

	if (tep_parse_format(u->tep, &ev, format, strlen(format), system))
		return -EINVAL;
	nf = tr_ctf_fields_from_format(ev, fields, MAX_FIELDS);
	if (nf < 0)
		return nf;
	snprintf(full, sizeof(full), "%s:%s", system, name);
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	err = tr_ctf_write_event_class(f, &(struct tr_ctf_event_class) {
		full, id, u->channel, fields, nf });
	fclose(f);
	if (!err)
		err = append_at(s->dir.fd, "metadata", text, len);
	if (!err)
		rec_relay_metadata(s);	/* before any packet of the event */
	if (!err && asprintf(&entry, "event %u %s %s %zu\n%s", id, system, name, strlen(format),
			     format) < 0)
		err = -ENOMEM;
	if (!err)
		err = append_at(s->dir.meta_fd, "events", entry, strlen(entry));
	free(text);
	free(entry);
	return err;
}

/* The trace's id of this event, declared on first sight: NO_CLASS if it cannot be. */
static __u32 trace_id(struct session *s, const char *system, const char *name,
		      const char *format, size_t len)
{
	struct rec_ust *u = s->ust;
	const char *line, *after_id;
	char *key = NULL, *text = NULL;
	unsigned int i;
	__u32 id;

	if (id_line(format, len, &line, &after_id) ||
	    asprintf(&key, "%s %s\n%.*s", system, name, (int)(format + len - after_id), after_id) < 0)
		return NO_CLASS;
	for (i = 0; i < u->nevents; i++)
		if (!strcmp(u->events[i].key, key)) {
			free(key);
			return u->events[i].id;
		}
	/* The format for the trace, its ID line saying the trace's id. */
	id = TR_MAX_EVENTS - 1 - u->nevents;
	if (id < s->events.count ||
	    asprintf(&text, "%.*s\nID: %u%.*s", (int)(line - format), format, id,
		     (int)(format + len - after_id), after_id) < 0)
		text = NULL;
	if (!text || declare(s, id, system, name, text) ||
	    !(u->events = realloc(u->events, (u->nevents + 1) * sizeof(*u->events)))) {
		rec_say("cannot add user-space event %s:%s to the trace", system, name);
		free(text);
		free(key);
		return NO_CLASS;
	}
	free(text);
	u->events[u->nevents++] = (struct ust_event) { key, id };
	return id;
}

static int add_class(struct rec_ust *u, pid_t pid, __u32 local, __u32 id)
{
	struct ust_class *c = realloc(u->classes, (u->nclasses + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	u->classes = c;
	c[u->nclasses++] = (struct ust_class) { pid, local, id };
	return 0;
}

/* A process's description of its events (ust_meta.c's text): each entry a class. */
static void read_meta(struct session *s, pid_t pid, const char *text, size_t size)
{
	const char *p = text, *end = text + size;

	while (p < end) {
		char system[64], name[128];
		unsigned int local;
		size_t len;
		int header;

		if (sscanf(p, "event %u %63s %127s %zu\n%n", &local, system, name, &len, &header) != 4 ||
		    len > (size_t)(end - p - header))
			return;
		add_class(s->ust, pid, local, selected(s->ust, system, name) ?
			  trace_id(s, system, name, p + header, len) : NO_CLASS);
		p += header + len;
	}
}

static __u32 class_of(const struct rec_ust *u, pid_t pid, __u32 local)
{
	unsigned int i;

	for (i = u->nclasses; i-- > 0;)
		if (u->classes[i].pid == pid && u->classes[i].local == local)
			return u->classes[i].id;
	return NO_CLASS;
}

/* --- Finding buffers ---------------------------------------------------------- */

static pid_t parent_of(pid_t pid)
{
	char path[64], text[512], *close_paren;
	FILE *f;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(text, sizeof(text), f) && (close_paren = strrchr(text, ')')))
		sscanf(close_paren + 1, " %*c %d", &ppid);
	fclose(f);
	return ppid;
}

static int in_scope(const struct session *s, pid_t pid)
{
	int depth;

	if (pid == (pid_t)s->self)
		return 0;
	if (s->o->system_wide)
		return 1;
	if (s->o->pid)
		return pid == s->o->pid;
	if (!s->command)
		return 1;
	for (depth = 0; pid > 1 && depth < 64; depth++, pid = parent_of(pid))
		if (pid == s->command)
			return 1;
	return 0;
}

static int known_meta(const struct rec_ust *u, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < u->nmetas; i++)
		if (u->metas[i] == ino)
			return 1;
	return 0;
}

/* Count the descriptor of st as refused, once however often it is found. */
static void note_refused(struct rec_ust *u, const struct stat *st)
{
	ino_t *refused;
	unsigned int i;

	for (i = 0; i < u->nrefused; i++)
		if (u->refused[i] == st->st_ino)
			return;
	refused = realloc(u->refused, (u->nrefused + 1) * sizeof(*refused));
	if (refused) {
		u->refused = refused;
		refused[u->nrefused++] = st->st_ino;
	}
}

/*
 * Whether fd is memory as the library makes it (ust/handoff.h): a memfd
 * sealed at its size (st its size, then), so that no mapping of it can
 * fault, however its program or user treats it.  Anything else handed
 * over, or swapped in for it, is counted (note_refused()) and left.  The
 * seals are read first: once they are set, the size fstat() gives holds.
 */
static int library_memfd(struct rec_ust *u, int fd, struct stat *st)
{
	int seals = fcntl(fd, F_GET_SEALS);
	struct statfs fs;

	if (fstat(fd, st))
		return 0;
	if (S_ISREG(st->st_mode) && seals >= 0 && (seals & UST_SEALS_NEEDED) == UST_SEALS_NEEDED &&
	    !fstatfs(fd, &fs) && fs.f_type == TMPFS_MAGIC)
		return 1;
	note_refused(u, st);
	return 0;
}

static void take_meta(struct session *s, pid_t pid, int fd)
{
	struct rec_ust *u = s->ust;
	struct stat st;
	ino_t *metas;
	char *text;

	if (!library_memfd(u, fd, &st) || known_meta(u, st.st_ino) || st.st_size <= 0 ||
	    st.st_size > (64 << 20))
		return;
	metas = realloc(u->metas, (u->nmetas + 1) * sizeof(*metas));
	if (!metas)
		return;
	u->metas = metas;
	metas[u->nmetas++] = st.st_ino;
	text = malloc(st.st_size);
	if (text && pread(fd, text, st.st_size, 0) == st.st_size)
		read_meta(s, pid, text, st.st_size);
	free(text);
}

static int known_buffer(const struct rec_ust *u, const struct stat *st)
{
	unsigned int i;

	for (i = 0; i < u->nbufs; i++)
		if (u->bufs[i].ino == st->st_ino && u->bufs[i].dev == st->st_dev)
			return 1;
	return 0;
}

static void note_pid(struct rec_ust *u, pid_t pid)
{
	unsigned int i;
	pid_t *pids;

	for (i = 0; i < u->npids; i++)
		if (u->pids[i] == pid)
			return;
	pids = realloc(u->pids, (u->npids + 1) * sizeof(*pids));
	if (pids) {
		u->pids = pids;
		pids[u->npids++] = pid;
	}
}

/* Map a buffer found in pid's memory, and open its stream file. */
static void take_buffer(struct session *s, pid_t pid, int fd)
{
	struct rec_ust *u = s->ust;
	struct ust_buf *b;
	struct stat st;
	struct trb_buf rb;
	void *region;
	int attached;

	if (!library_memfd(u, fd, &st) || known_buffer(u, &st))
		return;
	if (st.st_size < TR_CTL_SIZE) {
		note_refused(u, &st);
		return;
	}
	region = mmap(NULL, st.st_size, PROT_READ | (u->readonly ? 0 : PROT_WRITE), MAP_SHARED,
		      fd, 0);
	if (region == MAP_FAILED)
		return;
	/* Found by a scan while its program still makes it: taken when it is made. */
	attached = trb_attach(&rb, region, tr_clock_monotonic_ns);
	b = attached == -EAGAIN ? NULL : realloc(u->bufs, (u->nbufs + 1) * sizeof(*b));
	if (!b) {
		munmap(region, st.st_size);
		return;
	}
	u->bufs = b;
	b = &b[u->nbufs];
	*b = (struct ust_buf) { .pid = pid, .dev = st.st_dev, .ino = st.st_ino, .region = region,
				.size = st.st_size, .stream = u->nbufs, .fd = -1, .relay = -1, .rb = rb };
	/* Its geometry from its own control block, which must fit what was mapped. */
	if (attached ||
	    TR_BUF_REGION_SIZE(b->rb.subbuf_size, 1u << b->rb.nsubbuf_order) > (__u64)st.st_size ||
	    b->rb.stream_id >= TR_MAX_CHANNELS)
		b->damaged = 1;
	if (!s->o->relay_only)
		b->fd = tr_trace_dir_stream_file(&s->dir, "ust", b->stream);
	if (b->fd < 0 && !s->o->relay_only) {
		rec_say("cannot create stream ust_%u in %s: %s", b->stream, s->o->output,
			strerror(-b->fd));
		b->damaged = 1;
	}
	if (!b->damaged) {
		char name[32];

		snprintf(name, sizeof(name), "ust_%u", b->stream);
		b->relay = rec_relay_new_stream(s, name, u->channel, b->stream);
	}
	if (b->rb.subbuf_size > u->copy_size && !b->damaged) {
		free(u->copy);
		free(u->out);
		u->copy = malloc(b->rb.subbuf_size);
		u->out = malloc(b->rb.subbuf_size);
		u->copy_size = u->copy && u->out ? b->rb.subbuf_size : 0;
		b->damaged = !u->copy_size;
	}
	note_pid(u, pid);
	u->nbufs++;
}

/*
 * The process's descriptor that link (/proc/PID/fd/N) shows, as one of
 * ours, or -1; pidfd is the process's, or -errno from pidfd_open().  It
 * is taken from the process itself (pidfd_getfd()): what it holds now,
 * never a path it could swap after we read the link.  A kernel without
 * pidfd_getfd() (before 5.6), or that refuses it (a security module, or
 * Yama to a user who is not root), has the link opened instead, as
 * nothing we could block on or take as our terminal; either way what we
 * get is checked before it is used (library_memfd()).
 */
static int take_fd(struct rec_ust *u, int pidfd, const char *link, int number)
{
	int fd = pidfd >= 0 ? pidfd_getfd(pidfd, number, 0) : -1;
	int err = pidfd >= 0 ? errno : -pidfd;

	if (fd >= 0 || (err != ENOSYS && err != EPERM))
		return fd;
	if (err == ENOSYS && !u->said_no_getfd++)
		rec_say("note: this kernel cannot hand over another process's descriptors (pidfd_getfd, Linux 5.6): "
			"libtracer-ust's are opened through /proc, then checked");
	return open(link, (u->readonly ? O_RDONLY : O_RDWR) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/*
 * Each of pid's descriptors that shows the library's memory of this kind
 * (BUFFER_LINK, META_LINK), taken (take_fd()), to take (s NULL: only
 * counted).  How many there are.
 */
static unsigned int each_memfd(struct session *s, pid_t pid, const char *kind,
			       void (*take)(struct session *s, pid_t pid, int fd))
{
	char path[32], link[64], target[64];
	unsigned int found = 0;
	struct dirent *de;
	int pidfd = s ? pidfd_open(pid, 0) : -1;
	DIR *d;

	if (s && pidfd < 0)
		pidfd = -errno;
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		ssize_t n;
		int fd;

		snprintf(link, sizeof(link), "%s/%.16s", path, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strcmp(target, kind))
			continue;
		found++;
		fd = s ? take_fd(s->ust, pidfd, link, atoi(de->d_name)) : -1;
		if (fd < 0)
			continue;
		take(s, pid, fd);
		close(fd);
	}
	if (d)
		closedir(d);
	if (pidfd >= 0)
		close(pidfd);
	return found;
}

static void scan_process(struct session *s, pid_t pid)
{
	/* Descriptions first: a buffer's records need them. */
	each_memfd(s, pid, META_LINK, take_meta);
	each_memfd(s, pid, BUFFER_LINK, take_buffer);
}

static void scan(struct session *s)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		pid_t pid = isdigit((unsigned char)de->d_name[0]) ? atoi(de->d_name) : 0;

		if (pid > 0 && in_scope(s, pid))
			scan_process(s, pid);
	}
	if (d)
		closedir(d);
}

static int setenv_fd(const char *name, int fd)
{
	char number[16];

	snprintf(number, sizeof(number), "%d", fd);
	return setenv(name, number, 1) ? -errno : 0;
}

/*
 * The command's socket (ust/handoff.h): a datagram socket pair, the
 * command's end named in the environment it inherits; the kernel adds each
 * sender's credentials, which say whose memory a descriptor is.  And the
 * eventfd its writers wake us by when a sub-buffer ends.
 */
int rec_ust_command_socket(struct session *s)
{
	struct rec_ust *u = s->ust;
	int sv[2], on = 1, err;

	if (!u || !s->o->command)
		return 0;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	u->sock = sv[0];
	u->child_sock = sv[1];
	u->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->wake < 0 || setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK))
		return -errno;
	err = setenv_fd(UST_HANDOFF_ENV, sv[1]);
	if (!err)
		err = setenv_fd(UST_WAKE_ENV, u->wake);
	if (!err)
		err = tr_waiter_watch(&s->waiter, u->wake, EPOLLIN);
	return err ? err : tr_waiter_watch(&s->waiter, sv[0], EPOLLIN);
}

void rec_ust_in_command(struct session *s)
{
	if (s->ust && s->ust->child_sock >= 0) {
		fcntl(s->ust->child_sock, F_SETFD, 0);
		fcntl(s->ust->wake, F_SETFD, 0);
	}
}

void rec_ust_command_started(struct session *s)
{
	if (!s->ust || s->ust->child_sock < 0)
		return;
	close(s->ust->child_sock);
	s->ust->child_sock = -1;
	unsetenv(UST_HANDOFF_ENV);
	unsetenv(UST_WAKE_ENV);
}

/*
 * The one descriptor a message received carries, or -1, and its sender's
 * pid (0: not said).  A sender may attach several, each then ours: all
 * are closed, none taken.
 */
static int message_fd(struct msghdr *msg, pid_t *pid)
{
	unsigned int count = 0;
	struct cmsghdr *c;
	int first = -1;

	*pid = 0;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t i, n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			*pid = ((struct ucred *)CMSG_DATA(c))->pid;
		for (i = 0; c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (count++)
				close(fd);
			else
				first = fd;
		}
	}
	if (count > 1)
		close(first);
	return count == 1 ? first : -1;
}

/*
 * What programs sent to sock: their descriptions and buffers.  The
 * command's socket is its processes' alone; the registry's senders may be
 * any process, in scope or not.  Whether sock may have more later: 0
 * once its program closed it and all was read, or it failed.
 */
static int receive_from(struct session *s, int sock, int check_scope)
{
	if (sock < 0)
		return 0;
	for (;;) {
		char control[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))], kind;
		struct iovec iov = { .iov_base = &kind, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
				      .msg_controllen = sizeof(control) };
		ssize_t got = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		pid_t pid;
		int fd;

		if (got < 0)
			return errno == EAGAIN || errno == EINTR;
		fd = message_fd(&msg, &pid);
		if (got != 1) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
		if (pid > 0 && check_scope && !in_scope(s, pid))
			pid = 0;
		if (fd >= 0 && pid > 0 && kind == UST_HANDOFF_META)
			take_meta(s, pid, fd);
		else if (fd >= 0 && pid > 0 && kind == UST_HANDOFF_BUFFER)
			take_buffer(s, pid, fd);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * The programs that connected to the registry since the last call, kept
 * to receive from.  Past MAX_PEERS at once, a program's connection is
 * closed: it hands nothing over, and our scans find it.
 */
static void accept_peers(struct session *s)
{
	struct rec_ust *u = s->ust;
	int fd;

	while (u->registry >= 0 &&
	       (fd = accept4(u->registry, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		int *peers = u->npeers < MAX_PEERS ?
			     realloc(u->peers, (u->npeers + 1) * sizeof(*peers)) : NULL;

		if (peers)
			u->peers = peers;
		if (!peers && !u->said_full++)
			rec_say("note: more than %d programs connected at once; the others are found every %llu ms",
				MAX_PEERS, SCAN_NS / 1000000);
		if (!peers || tr_waiter_watch(&s->waiter, fd, EPOLLIN)) {
			close(fd);
			continue;
		}
		peers[u->npeers++] = fd;
	}
}

static void receive(struct session *s)
{
	struct rec_ust *u = s->ust;
	unsigned int i = 0;

	receive_from(s, u->sock, 0);
	accept_peers(s);
	while (i < u->npeers) {
		if (receive_from(s, u->peers[i], 1)) {
			i++;
			continue;
		}
		close(u->peers[i]);
		u->peers[i] = u->peers[--u->npeers];
	}
}

/* --- Reading buffers ---------------------------------------------------------- */

/*
 * u->copy (a packet of b, checked) rewritten into u->out for the trace:
 * its stream, and the selected records with the trace's event ids.
 */
static void rewrite(struct rec_ust *u, const struct ust_buf *b)
{
	const struct tr_packet_header *h = (const void *)u->copy;
	struct tr_packet_header *o = (void *)u->out;
	struct tr_packet_iter it;
	const struct tr_event_header *e;
	const char *problem;
	__u64 to = sizeof(*o), end = to, on_disk;

	*o = *h;
	o->stream_id = u->channel;
	o->stream_instance_id = o->cpu_id = b->stream;
	tr_packet_iter_init(&it, u->copy);
	while ((e = tr_packet_next(&it, &problem))) {
		__u32 id = class_of(u, b->pid, e->id);
		struct tr_event_header *copy = (void *)(u->out + trb_record_align(to));
		__u16 common_type = id;

		if (id == NO_CLASS) {
			u->left_out++;
			continue;
		}
		to = trb_record_align(to);
		memcpy(copy, e, sizeof(*e) + e->size);
		copy->id = id;
		if (e->size >= sizeof(common_type))
			memcpy(copy + 1, &common_type, sizeof(common_type));
		to += sizeof(*e) + e->size;
		end = to;
		u->records++;
	}
	on_disk = trb_packet_sizes(&b->rb, o, end);
	memset(u->out + end, 0, on_disk - end);
}

static int store(struct session *s, struct ust_buf *b)
{
	struct rec_ust *u = s->ust;
	unsigned long before = u->records;

	if (tr_packet_header_problem((const void *)u->copy, b->rb.subbuf_size))
		return 0;

	rewrite(u, b);
	s->records += u->records - before;
	rec_relay_send(s, b->relay, u->out);
	if (b->fd < 0)
		return 0;
	s->bytes += ((const struct tr_packet_header *)u->out)->packet_size / 8;
	return tr_ctf_write_packet(b->fd, u->out);
}

/* Whether the sub-buffer the reader holds lies inside the mapping (another process wrote the tables). */
static int inside(const struct ust_buf *b, const char *packet)
{
	const char *data = (const char *)b->region + TR_CTL_SIZE;

	return packet >= data &&
	       packet + b->rb.subbuf_size <= (const char *)b->region + b->size;
}

static void drain(struct session *s, struct ust_buf *b)
{
	struct rec_ust *u = s->ust;
	const char *packet;
	__u64 pos;

	while (!b->damaged && !s->write_error && !trb_get_subbuf(&b->rb, &pos, &packet)) {
		if (!inside(b, packet)) {
			b->damaged = 1;
			rec_say("user-space buffer of pid %d points outside itself: left", b->pid);
			break;
		}
		memcpy(u->copy, packet, b->rb.subbuf_size);
		trb_put_subbuf(&b->rb, pos);
		s->write_error = store(s, b);
	}
}


void rec_ust_consume(struct session *s)
{
	struct rec_ust *u = s->ust;
	__u64 now;
	unsigned int i;

	if (!u || !s->recording)
		return;
	if (u->wake >= 0)
		(void)!read(u->wake, &now, sizeof(now));	/* woken: the count back to 0 */
	receive(s);
	now = tr_clock_monotonic_ns();
	if (now >= u->next_scan) {
		scan(s);
		u->next_scan = now + SCAN_NS;
	}
	for (i = 0; i < u->nbufs; i++)
		drain(s, &u->bufs[i]);
}

void rec_ust_finish(struct session *s)
{
	struct rec_ust *u = s->ust;
	unsigned int i;

	if (!u || !s->recording)
		return;
	receive(s);
	scan(s);
	for (i = 0; i < u->nbufs && !s->write_error; i++) {
		struct ust_buf *b = &u->bufs[i];
		__u64 pos;

		/*
		 * A process that ended writes no more: its open sub-buffers are
		 * closed here, as only a writer may while one lives (I8), so that
		 * its overwritten records are all counted (I7).
		 */
		if (!b->damaged && kill(b->pid, 0) && errno == ESRCH)
			trb_flush(&b->rb);
		drain(s, b);
		if (b->damaged)
			continue;
		/* The records of the open sub-buffer: its thread may be writing one. */
		if (tr_ubuf_copy_open(&b->rb, u->copy, &pos) > 0)
			s->write_error = store(s, b);
	}
}

/* A dump's session and the buffer it copies (tr_ubuf_snapshot()'s data). */
struct dumping {
	struct session *s;
	struct ust_buf *b;
};

static int snapshot_packet(void *data, __u64 pos, long content)
{
	struct dumping *d = data;

	(void)pos, (void)content;
	return store(d->s, d->b);
}

/* The dump's trace directory: no kernel events, the ust channel alone. */
static int dump_dir(struct session *s)
{
	struct tr_ctf_trace trace = {
		.backend = "ust", .domain = "ust", .clock = "CLOCK_MONOTONIC",
		.context = "user space: common_pid is the thread id",
		.clock_offset_ns = tr_ctf_clock_offset_ns(),
	};
	char why[1024], host[256];
	FILE *f;
	int err = tr_trace_dir_create(&s->dir, s->o->output, s->o->force, why, sizeof(why));

	if (err) {
		rec_say("%s", why);
		return err;
	}
	if (tr_ctf_identify(&trace, host, sizeof(host)))
		return -EIO;
	f = tr_trace_dir_metadata(&s->dir);
	err = f ? tr_ctf_write_metadata(f, &trace) : -errno;
	if (f && fclose(f) && !err)
		err = -errno;
	if (!err)
		err = tr_trace_dir_write_channels(&s->dir, NULL, 0);
	if (!err)
		err = tr_trace_dir_write_formats(&s->dir, &s->events);
	if (err)
		rec_say("cannot write %s: %s", s->o->output, strerror(-err));
	return err;
}

int tr_ust_dump(pid_t pid, const char *output, int force)
{
	struct tr_record_opts o = { .name = "ust dump", .pid = pid, .output = output, .force = force };
	struct session s = { .o = &o, .dir = TR_TRACE_DIR_CLOSED, .recording = 1 };
	struct rec_ust *u = calloc(1, sizeof(*u));
	unsigned int i;
	int err;

	rec_say_as(o.name);
	if (!u)
		return -ENOMEM;
	s.ust = u;
	u->sock = u->child_sock = u->wake = u->registry = -1;
	u->readonly = 1;
	s.events.tep = tep_alloc();
	err = s.events.tep ? add_pattern(u, "*:*") : -ENOMEM;
	if (!err && !each_memfd(NULL, pid, BUFFER_LINK, NULL)) {
		rec_say("process %d has no libtracer-ust buffers that can be read (%s)", pid,
			kill(pid, 0) && errno == ESRCH ? "no such process" :
			"not linked with libtracer-ust, or no event recorded yet, or not ours to read: run as root or as its user");
		err = -ENOENT;
	}
	if (!err)
		err = dump_dir(&s);
	if (!err)
		err = rec_ust_start(&s);
	if (!err)
		scan_process(&s, pid);
	/* Each buffer as it is (tr_ubuf_snapshot()), nothing taken from a recorder reading it. */
	for (i = 0; !err && i < u->nbufs && !s.write_error; i++) {
		struct dumping d = { &s, &u->bufs[i] };

		if (!d.b->damaged)
			s.write_error = tr_ubuf_snapshot(&d.b->rb, u->copy, snapshot_packet, &d);
	}
	if (!err && u->nrefused)
		rec_say("%u descriptors of process %d were not libtracer-ust's sealed memory: refused, not read",
			u->nrefused, pid);
	if (!err && s.write_error) {
		rec_say("writing %s failed: %s", output, strerror(-s.write_error));
		err = s.write_error;
	}
	if (!err)
		fprintf(stderr, "tracer ust dump: %lu events of process %d (%u buffers) in %s\n",
			u->records, pid, u->nbufs, output);
	rec_ust_close(&s);
	tr_trace_dir_close(&s.dir);
	if (s.events.tep)
		tep_free(s.events.tep);
	return err;
}

/* Each -e ust: that matched none of the events found: the closest, or the first few found. */
static void say_unmatched(const struct rec_ust *u)
{
	unsigned int i, j;

	for (i = 0; i < u->npatterns; i++) {
		struct tr_closest c;

		if (u->matched[i])
			continue;
		tr_closest_init(&c, u->patterns[i]);
		for (j = 0; j < u->nfound; j++)
			tr_closest_offer(&c, u->found[j]);
		fprintf(stderr, "  user space: -e ust:%s matched none of the events found", u->patterns[i]);
		if (*c.name)
			fprintf(stderr, "; did you mean ust:%s?\n", c.name);
		for (j = 0; !*c.name && j < u->nfound && j < 4; j++)
			fprintf(stderr, "%s ust:%s", j ? "," : ":", u->found[j]);
		if (!*c.name)
			fprintf(stderr, "%s\n", u->nfound > 4 ? ", ..." : "");
	}
}

void rec_ust_summary(const struct session *s)
{
	const struct rec_ust *u = s->ust;
	__u64 lost = 0, overwritten = 0;
	unsigned int i;

	unsigned int damaged = 0;

	if (!u)
		return;
	for (i = 0; i < u->nbufs; i++)
		if (u->bufs[i].damaged) {
			damaged++;
		} else {
			lost += trb_lost(&u->bufs[i].rb);
			overwritten += u->bufs[i].rb.ctl->records_overrun;
		}
	fprintf(stderr, "  user space: %lu events from %u process%s (%u buffers); lost %llu, overwritten %llu\n",
		u->records, u->npids, u->npids == 1 ? "" : "es", u->nbufs,
		(unsigned long long)lost, (unsigned long long)overwritten);
	if (u->left_out)
		fprintf(stderr, "  user space: %lu records of events no -e selects left out\n", u->left_out);
	if (damaged)
		fprintf(stderr, "  user space: %u buffers not read (their tables were not a buffer's): what they held is not counted\n",
			damaged);
	if (u->nrefused)
		fprintf(stderr, "  user space: %u descriptors handed over or found were not libtracer-ust's sealed memory: refused, not read\n",
			u->nrefused);
	if (!u->nbufs)
		fprintf(stderr, "  user space: no process linked with libtracer-ust was found in the recording's scope (the command, -p PID, or -a)\n");
	else
		say_unmatched(u);
}

void rec_ust_close(struct session *s)
{
	struct rec_ust *u = s->ust;
	unsigned int i;

	if (!u)
		return;
	if (u->sock >= 0)
		close(u->sock);
	if (u->child_sock >= 0)
		close(u->child_sock);
	if (u->wake >= 0)
		close(u->wake);
	if (u->registry >= 0)
		close(u->registry);
	for (i = 0; i < u->npeers; i++)
		close(u->peers[i]);
	for (i = 0; i < u->nbufs; i++) {
		munmap(u->bufs[i].region, u->bufs[i].size);
		if (u->bufs[i].fd >= 0)
			close(u->bufs[i].fd);
	}
	for (i = 0; i < u->nevents; i++)
		free(u->events[i].key);
	if (u->tep)
		tep_free(u->tep);
	free(u->bufs);
	free(u->events);
	free(u->classes);
	free(u->metas);
	free(u->refused);
	free(u->peers);
	free(u->pids);
	free(u->patterns);
	free(u->matched);
	for (i = 0; i < u->nfound; i++)
		free(u->found[i]);
	free(u->found);
	free(u->copy);
	free(u->out);
	free(u);
	s->ust = NULL;
}
