// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's user-space events: -e ust:PROVIDER:EVENT (globs) records
 * what programs linked with libtracer-ust (user/ust/) write, into the same
 * trace as the kernel's events, merged by their CLOCK_MONOTONIC timestamps.
 *
 * Finding them.  The command the recorder starts, and what it starts,
 * send each buffer and event description as they make it (layout/handoff.h)
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
 * and put, as the kernel's are (ringbuf.h), by one recorder only: two
 * would take sub-buffers from each other, and each trace would miss
 * some.  The first to find it claims it in its control block
 * (reader_claim: the recorder's pid and start time, so that a recorder
 * killed without letting go is known gone); the others leave it to that
 * one and say so, and take it if it lets go (at its end) while they
 * still record.  Only a buffer's thread may close its open sub-buffer, so
 * at the end of the recording the records of each open sub-buffer are
 * copied (tr_ubuf_copy_open(), as a dump does).
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
 *
 * Hostile programs.  The recorder runs as root; the programs it reads may
 * be anyone's, so nothing they write is trusted beyond what it can be
 * checked against.  A user-space event's system is its own: never a
 * kernel system tracefs lists nor one of tracer's (kernel_system()), and
 * its system and name are C identifiers (they go into the CTF metadata).
 * A record's pid is the process that handed its buffer over, as the
 * kernel says (SCM_CREDENTIALS, /proc); its tid is the thread it names
 * unless that is a live task of another process, then the pid
 * (thread_of()).  A record whose size is not what its fields say is
 * refused.  Each process may hand over UST_MAX_EVENTS events,
 * UST_MAX_METAS descriptions and UST_MAX_BUFFERS buffers (all processes
 * together UST_MAX_BUFFERS_ALL, at most half the descriptors), of
 * sub-buffers of at most UST_MAX_SUBBUF bytes; a round reads at most a
 * lap of each buffer and UST_ROUND_BYTES in all, so a buffer that is
 * always delivering holds up neither the others nor the end of the
 * recording.  Loss counts above one event a nanosecond since boot are
 * left out of the summary and the packets.  What is refused is counted,
 * and said in one line of the summary.
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracefs.h>

#include "record/session.h"
#include "common/suggest.h"
#include "layout/ctf.h"
#include "layout/packet.h"
#include "layout/ubuf.h"
#include "layout/handoff.h"
#include "common/hash.h"

#define SCAN_NS		200000000ull	/* 200 ms */
#define MAX_PEERS	256		/* programs connected to the registry at once */
#define MAX_MESSAGES	256		/* read from one socket in a round */
#define MAX_FIELDS	64
#define NO_CLASS	(~0u)
#define REFUSED_CLASS	(~1u)	/* refused (enum refusal): its records left out */
#define BUFFER_LINK	"/memfd:" UST_BUFFER_MEMFD " (deleted)"
#define META_LINK	"/memfd:" UST_META_MEMFD " (deleted)"

/* What one process may hand over, and what a round reads (see above). */
#define UST_MAX_EVENTS		1024
#define UST_MAX_METAS		64
#define UST_MAX_BUFFERS		256
#define UST_MAX_BUFFERS_ALL	1024
#define UST_MAX_SUBBUF		(8u << 20)
#define UST_ROUND_BYTES		(64ull << 20)
#define MAX_REGION		TR_BUF_REGION_SIZE(UST_MAX_SUBBUF, TR_MAX_SUBBUFS)

/* What is refused, each counted (rec_ust_summary() says them in one line). */
enum refusal {
	REFUSED_SYSTEM,		/* an event in a kernel or tracer system */
	REFUSED_NAME,		/* ... whose system or name is not a C identifier */
	REFUSED_EVENTS,		/* ... past UST_MAX_EVENTS of its process */
	REFUSED_IDS,		/* ... past the trace's TR_MAX_EVENTS */
	REFUSED_FORMAT,		/* ... whose format is not one */
	REFUSED_METAS,		/* a description past UST_MAX_METAS */
	REFUSED_BUFFERS,	/* a buffer past UST_MAX_BUFFERS(_ALL) */
	REFUSED_GEOMETRY,	/* a buffer of sub-buffers over UST_MAX_SUBBUF */
	REFUSED_SIZE,		/* a record whose size is not its fields' */
	REFUSED_PACKET,		/* a sub-buffer whose header is not a packet's */
	REFUSED_LOSSES,		/* a buffer whose loss counts cannot be */
	REFUSED_NOT_MEMORY,	/* a descriptor not the library's sealed memfd */
	REFUSALS
};

static const char *const refusal_text[REFUSALS] = {
	[REFUSED_SYSTEM] = "events in a kernel or tracer system",
	[REFUSED_NAME] = "events not named by C identifiers",
	[REFUSED_EVENTS] = "events past 1024 a process",
	[REFUSED_IDS] = "events past the trace's 4096 ids",
	[REFUSED_FORMAT] = "events of formats that are not one",
	[REFUSED_METAS] = "event descriptions past 64 a process",
	[REFUSED_BUFFERS] = "buffers past 256 a process or 1024 in all",
	[REFUSED_GEOMETRY] = "buffers of sub-buffers over 8 MiB",
	[REFUSED_SIZE] = "records whose size is not their fields'",
	[REFUSED_PACKET] = "sub-buffers that were not packets",
	[REFUSED_LOSSES] = "buffers' loss counts above an event a nanosecond since boot (left out)",
	[REFUSED_NOT_MEMORY] = "descriptors that were not libtracer-ust's sealed memory (not read)",
};

/*
 * Open addressing over entry numbers (a slot holds number + 1; 0 is
 * empty) with each slot's hash beside it: a power of two of slots, at
 * most half used.  The entries themselves are the caller's.
 */
struct ust_hash {
	__u32 *slots;
	__u64 *hashes;
	__u32 mask;		/* slots - 1; 0 before the first entry */
	__u32 used;
};

/* An event of one process: its id there, the trace's (NO_CLASS: not selected). */
struct ust_class {
	pid_t pid;
	__u32 local;
	__u32 id;
};

/* Its record's fields: where the fixed part ends, where its strings' locators are. */
struct ust_layout {
	__u32 fixed;
	unsigned int nlocs;
	__u32 locs[MAX_FIELDS];
};

/* A trace-wide event: its format without the ID line, to find it again. */
struct ust_event {
	char *key;			/* "SYSTEM NAME\nFORMAT-WITHOUT-ID" */
	__u32 id;
	struct ust_layout layout;
};

/* What a process handed over so far, against its limits. */
struct ust_proc {
	pid_t pid;
	unsigned int events, metas, buffers;
	unsigned int past_events;	/* the most entries past UST_MAX_EVENTS a description had */
};

/* A buffer refused, by its memory's identity: counted once. */
struct ust_file {
	dev_t dev;
	ino_t ino;
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
	int claimed;			/* its reader_claim is ours: let go at the end */
	int false_losses;		/* its loss counts cannot be: left out */
	pid_t tid_ok, tid_bad;		/* the last thread named checked, either way */
};

struct rec_ust {
	const char **patterns;		/* PROVIDER:EVENT globs */
	unsigned char *matched;		/* ... each, whether an event found matched it */
	unsigned int npatterns;
	char **found;			/* PROVIDER:EVENT of the events found, once each */
	unsigned int nfound;
	struct ust_hash found_index;
	__u32 channel;			/* the "ust" stream class */
	struct ust_class *classes;
	unsigned int nclasses;
	struct ust_hash class_index;	/* by pid and local id */
	struct ust_event *events;	/* events[i] is trace id TR_MAX_EVENTS - 1 - i */
	unsigned int nevents;
	struct ust_hash event_index;	/* by key */
	struct ust_proc *procs;
	unsigned int nprocs;
	struct ust_hash proc_index;
	struct ust_file *refused_files;
	unsigned int nrefused_files;
	struct ust_hash refused_index;
	char **kernel_systems;		/* tracefs's, or NULL */
	unsigned long refused[REFUSALS];
	unsigned int max_buffers;	/* all processes' */
	unsigned int next_drain;	/* the buffer a round starts with */
	struct ust_buf *bufs;
	unsigned int nbufs;
	ino_t *metas;			/* descriptions read, by inode */
	unsigned int nmetas;
	struct tep_handle *tep;
	__u64 next_scan;
	char *copy, *out;		/* a packet copied, and rewritten */
	size_t copy_size;
	unsigned long records, left_out;
	unsigned int npids;		/* processes whose buffers were found */
	__u64 identity;			/* ours, as reader_claim holds it (process_identity()) */
	struct ust_file *left;		/* buffers another recorder reads, left to it */
	unsigned int nleft;
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

/* --- Lookups ----------------------------------------------------------------- */

/* Room for one more entry in h (its slots may move): 0 or -ENOMEM. */
static int hash_reserve(struct ust_hash *h)
{
	__u32 size = h->mask ? 2 * (h->mask + 1) : 64, i, j;
	__u32 *slots;
	__u64 *hashes;

	if (h->mask && 2 * (h->used + 1) <= h->mask + 1)
		return 0;
	slots = calloc(size, sizeof(*slots));
	hashes = calloc(size, sizeof(*hashes));
	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -ENOMEM;
	}
	for (i = 0; h->mask && i <= h->mask; i++) {
		if (!h->slots[i])
			continue;
		for (j = h->hashes[i] & (size - 1); slots[j]; j = (j + 1) & (size - 1))
			;
		slots[j] = h->slots[i];
		hashes[j] = h->hashes[i];
	}
	free(h->slots);
	free(h->hashes);
	h->slots = slots;
	h->hashes = hashes;
	h->mask = size - 1;
	return 0;
}

/*
 * The slot of the entry of this hash that same(u, entry, key) says is
 * key's, or the empty slot where it would go; NULL while h is empty.
 */
static __u32 *hash_slot(const struct ust_hash *h, __u64 hash, const struct rec_ust *u,
			int (*same)(const struct rec_ust *u, __u32 entry, const void *key),
			const void *key)
{
	__u32 i;

	if (!h->mask)
		return NULL;
	for (i = hash & h->mask; h->slots[i]; i = (i + 1) & h->mask)
		if (h->hashes[i] == hash && same(u, h->slots[i] - 1, key))
			break;
	return &h->slots[i];
}

/* Entry number entry put in slot (an empty one hash_slot() gave, for hash). */
static void hash_put(struct ust_hash *h, __u32 *slot, __u64 hash, __u32 entry)
{
	*slot = entry + 1;
	h->hashes[slot - h->slots] = hash;
	h->used++;
}

/* h's memory freed (not its entries', the caller's). */
static void hash_free(struct ust_hash *h)
{
	free(h->slots);
	free(h->hashes);
}

/*
 * hash_slot()'s same() of each table: whether entry number entry of the
 * array the table indexes (u->found, events, classes, procs,
 * refused_files) is key's.
 */
static int same_found(const struct rec_ust *u, __u32 entry, const void *key)
{
	return !strcmp(u->found[entry], key);
}

static int same_event(const struct rec_ust *u, __u32 entry, const void *key)
{
	return !strcmp(u->events[entry].key, key);
}

static int same_class(const struct rec_ust *u, __u32 entry, const void *key)
{
	const struct ust_class *c = key;

	return u->classes[entry].pid == c->pid && u->classes[entry].local == c->local;
}

static int same_proc(const struct rec_ust *u, __u32 entry, const void *key)
{
	return u->procs[entry].pid == *(const pid_t *)key;
}

static int same_file(const struct rec_ust *u, __u32 entry, const void *key)
{
	const struct ust_file *f = key;

	return u->refused_files[entry].dev == f->dev && u->refused_files[entry].ino == f->ino;
}

/* The hash of pid's event local (class_index's). */
static __u64 hash_class(pid_t pid, __u32 local)
{
	__u64 both = (__u64)(__u32)pid << 32 | local;

	return tr_hash_bytes(&both, sizeof(both));
}

/* What pid handed over so far (made on first sight), or NULL: out of memory. */
static struct ust_proc *proc_of(struct rec_ust *u, pid_t pid)
{
	__u64 hash = tr_hash_bytes(&pid, sizeof(pid));
	struct ust_proc *procs;
	__u32 *slot;

	if (hash_reserve(&u->proc_index))
		return NULL;
	slot = hash_slot(&u->proc_index, hash, u, same_proc, &pid);
	if (*slot)
		return &u->procs[*slot - 1];
	procs = realloc(u->procs, (u->nprocs + 1) * sizeof(*procs));
	if (!procs)
		return NULL;
	u->procs = procs;
	procs[u->nprocs] = (struct ust_proc) { .pid = pid };
	hash_put(&u->proc_index, slot, hash, u->nprocs);
	return &procs[u->nprocs++];
}

/*
 * Count a refusal of the buffer st is, once however often it is found
 * again; 1 if it was refused before (so is again, uncounted).
 */
static int refuse_file(struct rec_ust *u, const struct stat *st, enum refusal why)
{
	struct ust_file f = { st->st_dev, st->st_ino }, *files;
	__u64 hash = tr_hash_bytes(&f, sizeof(f));
	__u32 *slot;

	if (hash_reserve(&u->refused_index))
		return 1;
	slot = hash_slot(&u->refused_index, hash, u, same_file, &f);
	if (*slot)
		return 1;
	files = realloc(u->refused_files, (u->nrefused_files + 1) * sizeof(*files));
	if (!files)
		return 1;
	u->refused_files = files;
	files[u->nrefused_files] = f;
	hash_put(&u->refused_index, slot, hash, u->nrefused_files++);
	u->refused[why]++;
	return 0;
}

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
	__u64 hash = tr_hash_string(name);
	char **more;
	__u32 *slot;

	if (hash_reserve(&u->found_index) ||
	    *(slot = hash_slot(&u->found_index, hash, u, same_found, name)))
		return;
	more = realloc(u->found, (u->nfound + 1) * sizeof(*more));
	if (!more)
		return;
	u->found = more;
	if ((more[u->nfound] = strdup(name)))
		hash_put(&u->found_index, slot, hash, u->nfound++);
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
 * their memory to (layout/handoff.h), listened on: a program checks our
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

/* How many buffers all processes may hand over: UST_MAX_BUFFERS_ALL, at most half the descriptors. */
static unsigned int buffers_allowed(void)
{
	struct rlimit files;

	if (getrlimit(RLIMIT_NOFILE, &files) || files.rlim_cur / 2 >= UST_MAX_BUFFERS_ALL)
		return UST_MAX_BUFFERS_ALL;
	return files.rlim_cur / 2;
}

/*
 * /proc/PID/stat's fields after the command name (the third on), into
 * text; NULL when pid is gone.
 */
static const char *stat_fields(pid_t pid, char *text, size_t size)
{
	char path[64], *close_paren = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (fgets(text, size, f))
		close_paren = strrchr(text, ')');
	fclose(f);
	return close_paren ? close_paren + 1 : NULL;
}

/* Pids are below 2^22 (PID_MAX_LIMIT). */
#define IDENTITY_PID_BITS	22

/*
 * A process's identity that a reuse of its pid does not take: its start
 * time (clock ticks since boot) above its pid; 0 when it is gone.
 */
static __u64 process_identity(pid_t pid)
{
	char text[512];
	const char *fields = stat_fields(pid, text, sizeof(text));
	unsigned long long start;

	/* state, ppid .. tpgid, flags, faults (4), utime, stime, cutime .. itrealvalue, starttime */
	if (!fields || sscanf(fields, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
			      " %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start << IDENTITY_PID_BITS | (__u64)pid;
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
	/* Where tracefs is not mounted, no more than tracer's own list (it is not mounted for this). */
	if (tracefs_tracing_dir_is_mounted(false, NULL) == 1)
		u->kernel_systems = tracefs_event_systems(NULL);
	u->max_buffers = buffers_allowed();
	u->identity = process_identity(getpid());
	f = open_memstream(&text, &len);
	if (!u->tep || !f)
		return -ENOMEM;
	tr_ctf_write_stream_class(f, u->channel);
	fclose(f);
	err = append_at(s->dir.fd, "metadata", text, len);
	free(text);
	snprintf(line, sizeof(line), "channel %u " TR_UST_CHANNEL "\n", u->channel);
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

/* Where ev's records' fixed part ends and where its strings' locators are: 0, or -EINVAL. */
static int layout_of(const struct tep_event *ev, struct ust_layout *l)
{
	const struct tep_format_field *lists[] = { ev->format.common_fields, ev->format.fields };
	const struct tep_format_field *f;
	unsigned int i;

	*l = (struct ust_layout) { 0 };
	/* A string's locator holds 16-bit offsets: no field of a record lies past them. */
	for (i = 0; i < 2; i++)
		for (f = lists[i]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || f->offset + f->size > 65536)
				return -EINVAL;
			if ((__u32)(f->offset + f->size) > l->fixed)
				l->fixed = f->offset + f->size;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (l->nlocs == MAX_FIELDS || f->size != 4)
				return -EINVAL;
			l->locs[l->nlocs++] = f->offset;
		}
	return 0;
}

/* Its CTF class and format appended to the trace, its record's layout in l: 0 or -errno. */
static int declare(struct session *s, __u32 id, const char *system, const char *name,
		   const char *format, struct ust_layout *l)
{
	struct rec_ust *u = s->ust;
	struct tr_ctf_field fields[MAX_FIELDS];
	struct tep_event *ev = NULL;
	char full[256], *text = NULL, *entry = NULL;
	size_t len = 0;
	int nf, err;
	FILE *f;

	if (tep_parse_format(u->tep, &ev, format, strlen(format), system) || layout_of(ev, l))
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

/*
 * Why system:name is not in the trace (declare()'s error, or -ENOSPC: no
 * id left): a refusal counted, when it is the event's (REFUSED_CLASS), else
 * said (NO_CLASS).
 */
static __u32 not_declared(struct rec_ust *u, const char *system, const char *name, int err)
{
	if (err == -ENOSPC || err == -EINVAL || err == -E2BIG) {
		u->refused[err == -ENOSPC ? REFUSED_IDS : REFUSED_FORMAT]++;
		return REFUSED_CLASS;
	}
	rec_say("cannot add user-space event %s:%s to the trace", system, name);
	return NO_CLASS;
}

/*
 * The trace's id of this event, declared on first sight: NO_CLASS if it
 * cannot be, REFUSED_CLASS when it is refused (not_declared()).
 */
static __u32 trace_id(struct session *s, const char *system, const char *name,
		      const char *format, size_t len)
{
	struct rec_ust *u = s->ust;
	const char *line, *after_id;
	char *key = NULL, *text = NULL;
	struct ust_layout layout;
	struct ust_event *events;
	__u64 hash;
	__u32 id, *slot;
	int err;

	if (id_line(format, len, &line, &after_id) ||
	    asprintf(&key, "%s %s\n%.*s", system, name, (int)(format + len - after_id), after_id) < 0)
		return NO_CLASS;
	hash = tr_hash_string(key);
	slot = hash_reserve(&u->event_index) ? NULL : hash_slot(&u->event_index, hash, u, same_event, key);
	if (slot && *slot) {
		free(key);
		return u->events[*slot - 1].id;
	}
	/* The format for the trace, its ID line saying the trace's id. */
	id = TR_MAX_EVENTS - 1 - u->nevents;
	err = !slot ? -ENOMEM : id < s->events.count ? -ENOSPC : 0;
	if (!err && asprintf(&text, "%.*s\nID: %u%.*s", (int)(line - format), format, id,
			     (int)(format + len - after_id), after_id) < 0)
		err = -ENOMEM;
	if (!err)
		err = declare(s, id, system, name, text, &layout);
	if (!err && !(events = realloc(u->events, (u->nevents + 1) * sizeof(*events))))
		err = -ENOMEM;
	free(text);
	if (err) {
		free(key);
		return not_declared(u, system, name, err);
	}
	u->events = events;
	events[u->nevents] = (struct ust_event) { key, id, layout };
	hash_put(&u->event_index, slot, hash, u->nevents++);
	return id;
}

/* pid's event local, of trace id id, once: 0 or -errno. */
static int add_class(struct rec_ust *u, __u32 *slot, __u64 hash, pid_t pid, __u32 local, __u32 id)
{
	struct ust_class *c = realloc(u->classes, (u->nclasses + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	u->classes = c;
	c[u->nclasses] = (struct ust_class) { pid, local, id };
	hash_put(&u->class_index, slot, hash, u->nclasses++);
	return 0;
}

/*
 * Whether system is a kernel's (tracefs lists it) or tracer's own (its
 * events, its probes', those whose fields report reads to name tasks):
 * a user-space event there would pass for one of them.
 */
static int kernel_system(const struct rec_ust *u, const char *system)
{
	static const char *const reserved[] = {
		"tracer", "uprobe", "uretprobe", "kprobe", "kretprobe", "fentry", "fexit",
		"sched", "task", "syscalls", "raw_syscalls",
	};
	unsigned int i;

	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(system, reserved[i]))
			return 1;
	for (i = 0; u->kernel_systems && u->kernel_systems[i]; i++)
		if (!strcmp(system, u->kernel_systems[i]))
			return 1;
	return !strncmp(system, "sdt_", 4);
}

/*
 * The trace's id of pid's event local (NO_CLASS: not selected), or why it
 * is refused.
 */
static int class_id(struct session *s, const char *system, const char *name,
		    const char *format, size_t len, __u32 *id)
{
	struct rec_ust *u = s->ust;

	if (!tr_ctf_is_identifier(system) || !tr_ctf_is_identifier(name))
		return REFUSED_NAME;
	if (kernel_system(u, system))
		return REFUSED_SYSTEM;
	*id = selected(u, system, name) ? trace_id(s, system, name, format, len) : NO_CLASS;
	return REFUSALS;
}

/*
 * One entry of a description at p, before end: "event LOCAL SYSTEM NAME
 * LEN\n" and LEN bytes of format.  The entry's length, or 0 when it is
 * not one.
 */
static size_t meta_entry(const char *p, const char *end, unsigned int *local, char *system,
			 char *name, const char **format, size_t *len)
{
	const char *newline = memchr(p, '\n', end - p < 256 ? end - p : 256);
	char header[256];
	int used;

	if (!newline)
		return 0;
	snprintf(header, sizeof(header), "%.*s", (int)(newline - p), p);
	if (sscanf(header, "event %u %63s %127s %zu%n", local, system, name, len, &used) != 4 ||
	    header[used] || *len > (size_t)(end - newline - 1))
		return 0;
	*format = newline + 1;
	return newline + 1 - p + *len;
}

/*
 * A process's description of its events (ust_meta.c's text): each entry a
 * class, up to UST_MAX_EVENTS of the process; one it has already stays,
 * and one refused is counted once.
 */
static void read_meta(struct session *s, pid_t pid, const char *text, size_t size)
{
	struct rec_ust *u = s->ust;
	struct ust_proc *proc = proc_of(u, pid);
	const char *p = text, *end = text + size, *format;
	unsigned int local, past = 0;
	size_t len, entry;
	char system[64], name[128];

	if (proc)
		proc->metas++;
	while (proc && (entry = meta_entry(p, end, &local, system, name, &format, &len))) {
		__u64 hash = hash_class(pid, local);
		struct ust_class key = { pid, local, 0 };
		__u32 *slot = hash_reserve(&u->class_index) ? NULL :
			hash_slot(&u->class_index, hash, u, same_class, &key);
		__u32 id = REFUSED_CLASS;
		int refused;

		p += entry;
		if (!slot || *slot)
			continue;
		if (proc->events >= UST_MAX_EVENTS) {
			past++;
			continue;
		}
		refused = class_id(s, system, name, format, len, &id);
		if (refused != REFUSALS)
			u->refused[refused]++;
		if (add_class(u, slot, hash, pid, local, id))
			break;
		proc->events++;
	}
	if (proc && past > proc->past_events) {
		u->refused[REFUSED_EVENTS] += past - proc->past_events;
		proc->past_events = past;
	}
}

static __u32 class_of(const struct rec_ust *u, pid_t pid, __u32 local)
{
	struct ust_class key = { pid, local, 0 };
	__u32 *slot = hash_slot(&u->class_index, hash_class(pid, local), u, same_class, &key);

	return slot && *slot ? u->classes[*slot - 1].id : NO_CLASS;
}

/* --- Finding buffers ---------------------------------------------------------- */

static pid_t parent_of(pid_t pid)
{
	char text[512];
	const char *fields = stat_fields(pid, text, sizeof(text));
	int ppid = 0;

	if (fields)
		sscanf(fields, " %*c %d", &ppid);
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

/*
 * Whether the metadata memfd of inode ino was read already.  The inode
 * alone tells them apart: library_memfd() lets only sealed memfds of
 * tmpfs through, and those all live on the kernel's one internal mount.
 */
static int known_meta(const struct rec_ust *u, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < u->nmetas; i++)
		if (u->metas[i] == ino)
			return 1;
	return 0;
}

/*
 * Whether fd is memory as the library makes it (layout/handoff.h): a memfd
 * sealed at its size (st its size, then), so that no mapping of it can
 * fault, however its program or user treats it.  Anything else handed
 * over, or swapped in for it, is counted (refuse_file()) and left.  The
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
	refuse_file(u, st, REFUSED_NOT_MEMORY);
	return 0;
}

/*
 * Whether pid may hand over no more of this kind (REFUSED_METAS,
 * REFUSED_BUFFERS; REFUSED_GEOMETRY: none of this size): the memory st is
 * then refused, counted once.
 */
static int over_limit(struct rec_ust *u, pid_t pid, const struct stat *st, enum refusal why)
{
	const struct ust_proc *proc = proc_of(u, pid);
	int over = !proc || why == REFUSED_GEOMETRY;

	if (!over && why == REFUSED_METAS)
		over = proc->metas >= UST_MAX_METAS;
	else if (!over)
		over = proc->buffers >= UST_MAX_BUFFERS || u->nbufs >= u->max_buffers;
	if (over)
		refuse_file(u, st, why);
	return over;
}

static void take_meta(struct session *s, pid_t pid, int fd)
{
	struct rec_ust *u = s->ust;
	struct stat st;
	ino_t *metas;
	char *text;

	if (!library_memfd(u, fd, &st) || known_meta(u, st.st_ino) || st.st_size <= 0 ||
	    st.st_size > (64 << 20) || over_limit(u, pid, &st, REFUSED_METAS))
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

/* One more buffer of pid's taken (it was in the limits: over_limit()). */
static void note_pid(struct rec_ust *u, pid_t pid)
{
	struct ust_proc *proc = proc_of(u, pid);

	if (proc && !proc->buffers++)
		u->npids++;
}

/* The tries at taking a claim word that keeps changing under us. */
#define CLAIM_TRIES	8

/*
 * Whether this recorder consumes rb: it now holds its claim, or held it.
 * A claim is left to the recorder that holds it while that one lives;
 * one whose holder is gone (killed before it let go) is taken over.  The
 * word is in the program's memory: a program that writes it can keep
 * recorders from its own events only, which it could by not writing them;
 * one that rewrites it without end gets its buffer left after a few
 * tries, never a recorder spinning.
 */
static int claim(const struct rec_ust *u, struct trb_buf *rb)
{
	__u64 *word = &rb->ctl->reader_claim;
	__u64 held = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	unsigned int tries;

	for (tries = 0; held != u->identity; tries++) {
		if (tries == CLAIM_TRIES ||
		    (held && process_identity(held & ((1u << IDENTITY_PID_BITS) - 1)) == held))
			return 0;
		if (__atomic_compare_exchange_n(word, &held, u->identity, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return 1;
	}
	return 1;
}

/* Lets rb's claim go, if it is still ours: another recorder may take it. */
static void let_go(const struct rec_ust *u, struct trb_buf *rb)
{
	__u64 mine = u->identity;

	__atomic_compare_exchange_n(&rb->ctl->reader_claim, &mine, 0, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

/* Where the buffer st is in u->left, or u->nleft. */
static unsigned int left_index(const struct rec_ust *u, const struct stat *st)
{
	unsigned int i;

	for (i = 0; i < u->nleft; i++)
		if (u->left[i].ino == st->st_ino && u->left[i].dev == st->st_dev)
			break;
	return i;
}

/* Whether the buffer st is left to another recorder (left: it is now). */
static void note_left(struct rec_ust *u, const struct stat *st, int left)
{
	unsigned int i = left_index(u, st);
	struct ust_file *files;

	if (!left && i < u->nleft)
		u->left[i] = u->left[--u->nleft];
	if (!left || i < u->nleft)
		return;
	files = realloc(u->left, (u->nleft + 1) * sizeof(*files));
	if (!files)
		return;
	u->left = files;
	u->left[u->nleft++] = (struct ust_file) { st->st_dev, st->st_ino };
}

/* Map a buffer found in pid's memory, and open its stream file. */
static void take_buffer(struct session *s, pid_t pid, int fd)
{
	struct rec_ust *u = s->ust;
	struct ust_buf *b;
	struct stat st;
	struct trb_buf rb;
	void *region;
	int attached, claimed = 0;

	if (!library_memfd(u, fd, &st) || known_buffer(u, &st) ||
	    over_limit(u, pid, &st, (__u64)st.st_size > MAX_REGION ? REFUSED_GEOMETRY : REFUSED_BUFFERS))
		return;
	if (st.st_size < TR_CTL_SIZE) {
		refuse_file(u, &st, REFUSED_NOT_MEMORY);
		return;
	}
	region = mmap(NULL, st.st_size, PROT_READ | (u->readonly ? 0 : PROT_WRITE), MAP_SHARED,
		      fd, 0);
	if (region == MAP_FAILED)
		return;
	/* Found by a scan while its program still makes it: taken when it is made. */
	attached = trb_attach(&rb, region, tr_clock_monotonic_ns);
	if (!attached && rb.subbuf_size > UST_MAX_SUBBUF) {
		refuse_file(u, &st, REFUSED_GEOMETRY);
		attached = -EAGAIN;
	}
	/* Read by another recorder: left to it, tried again at each scan. */
	if (!attached && !u->readonly) {
		claimed = claim(u, &rb);
		note_left(u, &st, !claimed);
		if (!claimed)
			attached = -EAGAIN;
	}
	b = attached == -EAGAIN ? NULL : realloc(u->bufs, (u->nbufs + 1) * sizeof(*b));
	if (!b) {
		if (claimed)
			let_go(u, &rb);
		munmap(region, st.st_size);
		return;
	}
	u->bufs = b;
	b = &b[u->nbufs];
	*b = (struct ust_buf) { .pid = pid, .dev = st.st_dev, .ino = st.st_ino, .region = region,
				.size = st.st_size, .stream = u->nbufs, .fd = -1, .relay = -1, .rb = rb,
				.claimed = claimed };
	/* Its geometry from its own control block, which must fit what was mapped. */
	if (attached ||
	    TR_BUF_REGION_SIZE(b->rb.subbuf_size, 1u << b->rb.nsubbuf_order) > (__u64)st.st_size ||
	    b->rb.stream_id >= TR_MAX_CHANNELS)
		b->damaged = 1;
	if (!s->o->relay_only)
		b->fd = tr_trace_dir_stream_file(&s->dir, TR_UST_CHANNEL, b->stream);
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
 * The command's socket (layout/handoff.h): a datagram socket pair, the
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
 * any process, in scope or not.  At most MAX_MESSAGES a call, so that a
 * program sending without end holds up no round.  Whether sock may have
 * more later: 0 once its program closed it and all was read, or it failed.
 */
static int receive_from(struct session *s, int sock, int check_scope)
{
	unsigned int messages;

	if (sock < 0)
		return 0;
	for (messages = 0; messages < MAX_MESSAGES; messages++) {
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
	return 1;
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

/* Whether a record's size is its event's fields': the fixed part, its strings, nothing after. */
static int size_fits(const struct ust_layout *l, const struct tr_event_header *e)
{
	const char *payload = (const char *)(e + 1);
	__u32 end = l->fixed, i, loc;

	if (e->size < l->fixed)
		return 0;
	for (i = 0; i < l->nlocs; i++) {
		memcpy(&loc, payload + l->locs[i], sizeof(loc));
		if ((loc & 0xffff) < l->fixed || (loc & 0xffff) + (loc >> 16) > e->size)
			return 0;
		if ((loc & 0xffff) + (loc >> 16) > end)
			end = (loc & 0xffff) + (loc >> 16);
	}
	return end == e->size;
}

/*
 * The thread a record of b names, unless the kernel says it is not one of
 * the thread group that handed b over: a live task of another group (its
 * /proc/TID, and no /proc/PID/task/TID); then b's pid.  A thread that has
 * ended is taken at its word (nothing names it any more).  The last
 * answer each way is kept: a buffer is one thread's at a time.
 */
static pid_t thread_of(struct ust_buf *b, pid_t tid)
{
	char path[64];
	int other;

	if (tid == b->pid || tid == b->tid_ok)
		return tid;
	if (tid <= 0 || tid == b->tid_bad)
		return b->pid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", b->pid, tid);
	other = access(path, F_OK) != 0;
	snprintf(path, sizeof(path), "/proc/%d", tid);
	if (other && !access(path, F_OK)) {
		b->tid_bad = tid;
		return b->pid;
	}
	b->tid_ok = tid;
	return tid;
}

/*
 * Record e of b, of the trace's event id, into the trace at to: its
 * event id, and its pid and tid (in the header and common_pid) as the
 * kernel says they are.
 */
static void put_record(struct rec_ust *u, struct ust_buf *b, const struct tr_event_header *e,
		       __u32 id, __u64 to)
{
	struct tr_event_header *copy = (void *)(u->out + to);
	struct ust_common { __u16 type; __u8 flags, preempt_count; __s32 pid; } common;

	memcpy(copy, e, sizeof(*e) + e->size);
	copy->id = id;
	copy->pid = b->pid;
	copy->tid = thread_of(b, e->tid);
	if (e->size < sizeof(common))
		return;
	memcpy(&common, copy + 1, sizeof(common));
	common.type = id;
	common.pid = copy->tid;
	memcpy(copy + 1, &common, sizeof(common));
}

/*
 * u->copy (a packet of b, checked) rewritten into u->out for the trace:
 * its stream, and the selected records with the trace's event ids.  How
 * many records it keeps, or -1 when it refused some and kept none (junk:
 * not written).
 */
static long rewrite(struct rec_ust *u, struct ust_buf *b)
{
	const struct tr_packet_header *h = (const void *)u->copy;
	struct tr_packet_header *o = (void *)u->out;
	struct tr_packet_iter it;
	const struct tr_event_header *e;
	const char *problem;
	__u64 to = sizeof(*o), end = to, on_disk;
	long kept = 0, refused = 0;

	*o = *h;
	o->stream_id = u->channel;
	o->stream_instance_id = o->cpu_id = b->stream;
	tr_packet_iter_init(&it, u->copy);
	while ((e = tr_packet_next(&it, &problem))) {
		__u32 id = class_of(u, b->pid, e->id);

		if (id == NO_CLASS) {
			u->left_out++;
			continue;
		}
		if (id == REFUSED_CLASS ||
		    !size_fits(&u->events[TR_MAX_EVENTS - 1 - id].layout, e)) {
			u->refused[REFUSED_SIZE] += id != REFUSED_CLASS;
			refused++;
			continue;
		}
		to = trb_record_align(to);
		put_record(u, b, e, id, to);
		to += sizeof(*e) + e->size;
		end = to;
		kept++;
	}
	u->records += kept;
	on_disk = trb_packet_sizes(&b->rb, o, end);
	memset(u->out + end, 0, on_disk - end);
	return refused && !kept ? -1 : kept;
}

/*
 * Whether a packet's loss counts can be: each at most one event a
 * nanosecond since boot (no writer attempts more), so that their sum
 * cannot wrap either.
 */
static int losses_credible(const struct tr_packet_header *h, __u64 now)
{
	return h->lost_full <= now && h->lost_wrap <= now && h->lost_big <= now &&
	       h->lost_busy <= now;
}

/* b's loss counts left out of its packets from now on: they cannot be. */
static void false_losses(struct rec_ust *u, struct ust_buf *b)
{
	if (!b->false_losses)
		u->refused[REFUSED_LOSSES]++;
	b->false_losses = 1;
}

/*
 * u->copy, a sub-buffer of b, into the trace (its stream file, the
 * relay): refused when its header is not a packet's, left out when it
 * holds refused records only (junk), its loss counts zeroed when b's
 * cannot be.  0, or the write's -errno.
 */
static int store(struct session *s, struct ust_buf *b)
{
	struct rec_ust *u = s->ust;
	struct tr_packet_header *o = (void *)u->out;
	long kept;

	if (tr_packet_header_problem((const void *)u->copy, b->rb.subbuf_size)) {
		u->refused[REFUSED_PACKET]++;
		return 0;
	}
	kept = rewrite(u, b);
	if (kept < 0)
		return 0;
	if (!losses_credible(o, tr_clock_monotonic_ns()))
		false_losses(u, b);
	if (b->false_losses)
		o->events_discarded = o->lost_full = o->lost_wrap = o->lost_big = o->lost_busy = 0;
	s->records += kept;
	rec_relay_send(s, b->relay, u->out);
	if (b->fd < 0)
		return 0;
	s->bytes += o->packet_size / 8;
	return tr_ctf_write_packet(b->fd, u->out);
}

/*
 * Whether the sub-buffer the reader holds lies wholly inside the mapping's
 * data (another process wrote the tables that found it): compared as
 * addresses, so that no pointer beyond the mapping is ever formed.
 */
static int inside(const struct ust_buf *b, const char *packet)
{
	uintptr_t data = (uintptr_t)b->region + TR_CTL_SIZE, end = (uintptr_t)b->region + b->size;
	uintptr_t at = (uintptr_t)packet;

	return end >= data && end - data >= b->rb.subbuf_size && at >= data &&
	       at - data <= end - data - b->rb.subbuf_size;
}

/*
 * The sub-buffers b delivered, at most a lap of them and *budget bytes
 * (less what they take): a buffer that is always delivering (another
 * process may make it so) holds up neither the others nor the recording.
 */
static void drain(struct session *s, struct ust_buf *b, __u64 *budget)
{
	struct rec_ust *u = s->ust;
	unsigned int lap = 1u << b->rb.nsubbuf_order;
	const char *packet;
	__u64 pos;

	while (!b->damaged && !s->write_error && lap-- && *budget >= b->rb.subbuf_size &&
	       !trb_get_subbuf(&b->rb, &pos, &packet)) {
		if (!inside(b, packet)) {
			b->damaged = 1;
			rec_say("user-space buffer of pid %d points outside itself: left", b->pid);
			break;
		}
		memcpy(u->copy, packet, b->rb.subbuf_size);
		trb_put_subbuf(&b->rb, pos);
		*budget -= b->rb.subbuf_size;
		s->write_error = store(s, b);
	}
}

void rec_ust_consume(struct session *s)
{
	struct rec_ust *u = s->ust;
	__u64 now, budget = UST_ROUND_BYTES;
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
	/* UST_ROUND_BYTES a round, the next round starting where this one stopped. */
	for (i = 0; i < u->nbufs && budget >= UST_MAX_SUBBUF; i++)
		drain(s, &u->bufs[(u->next_drain + i) % u->nbufs], &budget);
	if (u->nbufs)
		u->next_drain = (u->next_drain + i) % u->nbufs;
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
		__u64 pos, budget = ~0ull;

		/*
		 * A process that ended writes no more: its open sub-buffers are
		 * closed here, as only a writer may while one lives (I8), so that
		 * its overwritten records are all counted (I7).
		 */
		if (!b->damaged && kill(b->pid, 0) && errno == ESRCH)
			trb_flush(&b->rb);
		drain(s, b, &budget);
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
		err = rec_write_formats(&s->dir, &s->events);
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
	if (!err && u->refused[REFUSED_NOT_MEMORY])
		rec_say("%lu descriptors of process %d were not libtracer-ust's sealed memory: refused, not read",
			u->refused[REFUSED_NOT_MEMORY], pid);
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

/*
 * b's losses and overwritten records, as its control block counts them, to
 * *lost and *overwritten; 0, or -1 when they cannot be (more than an event
 * a nanosecond since boot, or its packets' could not be).
 */
static int buffer_losses(const struct ust_buf *b, __u64 *lost, __u64 *overwritten)
{
	const struct tr_buf_ctl *ctl = b->rb.ctl;
	__u64 now = tr_clock_monotonic_ns();
	__u64 counts[] = { trb_read(&ctl->lost_full), trb_read(&ctl->lost_wrap),
			   trb_read(&ctl->lost_big), trb_read(&ctl->lost_busy),
			   trb_read(&ctl->records_overrun) };
	unsigned int i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (counts[i] > now || b->false_losses)
			return -1;
	*lost += counts[0] + counts[1] + counts[2] + counts[3];
	*overwritten += counts[4];
	return 0;
}

/* What was refused, in one line, if anything. */
static void say_refused(const unsigned long *refused)
{
	const char *sep = "  user space: refused";
	unsigned int i;

	for (i = 0; i < REFUSALS; i++)
		if (refused[i]) {
			fprintf(stderr, "%s %lu %s", sep, refused[i], refusal_text[i]);
			sep = ",";
		}
	if (*sep == ',')
		fputc('\n', stderr);
}

void rec_ust_summary(const struct session *s)
{
	const struct rec_ust *u = s->ust;
	__u64 lost = 0, overwritten = 0;
	unsigned long refused[REFUSALS];
	unsigned int i, damaged = 0;

	if (!u)
		return;
	memcpy(refused, u->refused, sizeof(refused));
	for (i = 0; i < u->nbufs; i++)
		if (u->bufs[i].damaged)
			damaged++;
		else if (buffer_losses(&u->bufs[i], &lost, &overwritten))
			refused[REFUSED_LOSSES] += !u->bufs[i].false_losses;
	fprintf(stderr, "  user space: %lu events from %u process%s (%u buffers); lost %llu, overwritten %llu\n",
		u->records, u->npids, u->npids == 1 ? "" : "es", u->nbufs,
		(unsigned long long)lost, (unsigned long long)overwritten);
	if (u->left_out)
		fprintf(stderr, "  user space: %lu records of events no -e selects left out\n", u->left_out);
	if (damaged)
		fprintf(stderr, "  user space: %u buffers not read (their tables were not a buffer's): what they held is not counted\n",
			damaged);
	if (u->nleft)
		fprintf(stderr, "  user space: %u buffers left to the recorder that was reading them (their events are in its trace)\n",
			u->nleft);
	say_refused(refused);
	if (!u->nbufs && !refused[REFUSED_BUFFERS] && !refused[REFUSED_GEOMETRY])
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
		if (u->bufs[i].claimed)
			let_go(u, &u->bufs[i].rb);
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
	free(u->peers);
	free(u->procs);
	free(u->refused_files);
	free(u->left);
	hash_free(&u->found_index);
	hash_free(&u->class_index);
	hash_free(&u->event_index);
	hash_free(&u->proc_index);
	hash_free(&u->refused_index);
	tracefs_list_free(u->kernel_systems);
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
