// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Records packed into the kernel's ring-buffer pages (ftrace_pages.h has the layout). */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sinks/ftrace_pages.h"

const char tr_ftrace_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

const char tr_ftrace_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define TYPE_LEN_MAX		28	/* the most payload words type_len says itself */
#define TYPE_TIME_EXTEND	30
#define DELTA_BITS		27
#define MISSED_EVENTS		(1ull << 31)
#define MISSED_STORED		(1ull << 30)

_Static_assert(TR_FTRACE_PAGE_DATA == 4080, "tr_ftrace_header_page describes 4080 data bytes");

void tr_ftrace_pages_init(struct tr_ftrace_pages *p, int fd)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
}

/* The bytes a record of len payload bytes takes: its header words and its payload, aligned. */
static __u32 event_bytes(__u32 len)
{
	__u32 aligned = (len + 3) & ~3u;

	return aligned && aligned <= 4 * TYPE_LEN_MAX ? 4 + aligned : 8 + aligned;
}

/* The data bytes the page has room for: the number of events lost before it goes at their end. */
static __u32 room(const struct tr_ftrace_pages *p)
{
	return TR_FTRACE_PAGE_DATA - (p->missed && !p->missed_unknown ? 8 : 0);
}

static void put32(struct tr_ftrace_pages *p, __u32 value)
{
	__u32 le = htole32(value);

	memcpy(p->page + TR_FTRACE_PAGE_HEADER + p->used, &le, 4);
	p->used += 4;
}

static void put64(unsigned char *at, __u64 value)
{
	__u64 le = htole64(value);

	memcpy(at, &le, 8);
}

/* Writes the page if it holds an event, and starts the next one empty. */
int tr_ftrace_pages_flush(struct tr_ftrace_pages *p)
{
	__u64 commit = p->used;
	ssize_t n;

	if (p->err || !p->used)
		return p->err;
	if (p->missed || p->missed_unknown) {
		commit |= MISSED_EVENTS;
		if (!p->missed_unknown) {
			put64(p->page + TR_FTRACE_PAGE_HEADER + p->used, p->missed);
			commit |= MISSED_STORED;
		}
	}
	put64(p->page + 8, commit);
	do
		n = write(p->fd, p->page, sizeof(p->page));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(p->page))
		return p->err = n < 0 ? -errno : -EIO;
	p->pages++;
	p->used = 0;
	p->missed = 0;
	p->missed_unknown = 0;
	memset(p->page, 0, sizeof(p->page));
	return 0;
}

void tr_ftrace_pages_lost(struct tr_ftrace_pages *p, __u64 events, int unknown)
{
	if (tr_ftrace_pages_flush(p))
		return;
	p->missed += events;
	p->missed_unknown |= unknown || !events;
}

int tr_ftrace_pages_add(struct tr_ftrace_pages *p, __u64 ts, const void *payload, __u32 len)
{
	__u32 bytes = event_bytes(len), aligned = (len + 3) & ~3u;
	__u64 delta = 0;

	if (len > TR_FTRACE_PAYLOAD_MAX)
		return -E2BIG;
	if (p->used) {
		ts = ts < p->ts ? p->ts : ts;
		delta = ts - p->ts;
		/* a delta beyond an extend's 59 bits, or no room: a new page, its time whole */
		if ((delta >> (DELTA_BITS + 32) || p->used + bytes + (delta >> DELTA_BITS ? 8 : 0) > room(p)) &&
		    tr_ftrace_pages_flush(p))
			return p->err;
	}
	if (!p->used) {
		put64(p->page, ts);
		delta = 0;
	}
	if (delta >> DELTA_BITS) {
		put32(p, TYPE_TIME_EXTEND | (__u32)(delta << 5));
		put32(p, (__u32)(delta >> DELTA_BITS));
		delta = 0;
	}
	if (bytes == 4 + aligned) {
		put32(p, aligned / 4 | (__u32)(delta << 5));
	} else {
		put32(p, (__u32)(delta << 5));
		put32(p, aligned + 4);
	}
	memcpy(p->page + TR_FTRACE_PAGE_HEADER + p->used, payload, len);
	p->used += aligned;
	p->ts = ts;
	return 0;
}
