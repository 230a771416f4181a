// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: the kernel's ftrace ring buffer, in our own tracefs instance
 * (8 MiB per CPU), with a reader thread per CPU that writes the
 * trace_pipe_raw pages to a file and counts the event's records in them,
 * as trace-cmd's per-CPU recorders do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peers.h"

static char instance[256];		/* our ftrace instance, if made */
static int ftrace_event_id;

/* A reader of one CPU's buffer. */
struct ftrace_reader {
	pthread_t thread;
	int cpu, fd, out;
	long long total, ours;
	int error;
};

static struct ftrace_reader readers[64];
static volatile int readers_stop;	/* the readers stop once their buffer is empty */
static long ftrace_page;		/* bytes of a trace_pipe_raw page */

/* Counts the event's records in one ring-buffer page (and ours among them). */
static void ftrace_count_page(struct ftrace_reader *rd, const char *page, size_t n)
{
	__u64 commit;
	const char *q, *end;

	if (n < 16)
		return;
	commit = *(const __u64 *)(page + 8) & ((1ull << 30) - 1);
	q = page + 16;
	end = q + (commit < n - 16 ? commit : n - 16);
	while (q + 4 <= end) {
		__u32 h = *(const __u32 *)q, type_len = h & 31, delta = h >> 5;
		const char *data = NULL;
		size_t len;

		if (type_len == 29) {			/* padding */
			if (!delta || q + 8 > end)
				break;
			len = 4 + *(const __u32 *)(q + 4);
		} else if (type_len >= 30) {		/* time extend, time stamp */
			len = 8;
		} else if (type_len == 0) {
			if (q + 8 > end)
				break;
			len = 4 + *(const __u32 *)(q + 4);
			data = q + 8;
		} else {
			len = 4 + type_len * 4;
			data = q + 4;
		}
		if (data && data + 8 <= end && *(const __u16 *)data == ftrace_event_id) {
			rd->total++;
			if (is_ours(*(const int *)(data + 4)))
				rd->ours++;
		}
		if (len < 4)
			break;
		q += (len + 3) & ~3ul;
	}
}

/* The reader thread: pages read and written to its file until stopped and empty. */
static void *ftrace_read(void *p)
{
	struct ftrace_reader *rd = p;
	size_t cap = 1 << 20, used = 0;
	char *buf = malloc(cap);

	for (;;) {
		ssize_t n;

		if (used + ftrace_page > cap) {
			if (write(rd->out, buf, used) < 0)
				rd->error = errno;
			used = 0;
		}
		n = read(rd->fd, buf + used, ftrace_page);
		if (n > 0) {
			ftrace_count_page(rd, buf + used, n);
			used += n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			rd->error = errno;
			break;
		}
		if (readers_stop)
			break;		/* disabled first, so empty now means done */
		sleep_ms(1);
	}
	if (used && write(rd->out, buf, used) < 0)
		rd->error = errno;
	free(buf);
	return NULL;
}

/* Events the instance overwrote or dropped so far, all CPUs. */
static long long ftrace_lost_now(void)
{
	char path[PATH_MAX], line[256];
	long long lost = 0;
	int cpu;

	for (cpu = 0; cpu < ncpu; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", instance, cpu);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			long long v;

			if (sscanf(line, "overrun: %lld", &v) == 1 ||
			    sscanf(line, "dropped events: %lld", &v) == 1)
				lost += v;
		}
		if (f)
			fclose(f);
	}
	return lost;
}

int ftrace_setup(struct config *c)
{
	char path[PATH_MAX], buf[64];

	snprintf(instance, sizeof(instance), TRACEFS "/instances/tracepoint_bench_%d", getpid());
	if (mkdir(instance, 0755) && errno != EEXIST) {
		snprintf(c->why, sizeof(c->why), "cannot create an ftrace instance: %s", strerror(errno));
		instance[0] = 0;
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/buffer_size_kb", instance);
	snprintf(buf, sizeof(buf), "%d", FTRACE_BUF_KB);
	write_str(path, buf);
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", EVENT_SYSTEM, event_name);
	ftrace_event_id = atoi(read_str(path, buf, sizeof(buf)));
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", instance);
	ftrace_page = atol(read_str(path, buf, sizeof(buf))) * 1024;
	if (ftrace_page <= 0)
		ftrace_page = sysconf(_SC_PAGESIZE);
	return ftrace_event_id > 0 ? 0 : -ENOENT;
}

static long long ftrace_lost_before;	/* ftrace_lost_now() at the run's start */

/* Enables (on) or disables the event in our instance; 0 or -errno. */
static int ftrace_enable(int on)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", instance, EVENT_SYSTEM, event_name);
	return write_str(path, on ? "1" : "0");
}

int ftrace_start(void)
{
	char path[PATH_MAX];
	int cpu;

	ftrace_lost_before = ftrace_lost_now();
	readers_stop = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct ftrace_reader *rd = &readers[cpu];

		*rd = (struct ftrace_reader){ .cpu = cpu };
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", instance, cpu);
		rd->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		snprintf(path, sizeof(path), "%s/ftrace.cpu%d", tmpdir, cpu);
		rd->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		unlink(path);
		if (rd->fd < 0 || rd->out < 0)
			return -errno;
		pthread_create(&rd->thread, NULL, ftrace_read, rd);
	}
	return ftrace_enable(1);
}

void ftrace_stop(struct run_result *r)
{
	int cpu;

	ftrace_enable(0);
	readers_stop = 1;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct ftrace_reader *rd = &readers[cpu];

		pthread_join(rd->thread, NULL);
		close(rd->fd);
		close(rd->out);
		rd->fd = rd->out = -1;
		r->total += rd->total;
		r->ours += rd->ours;
		if (rd->error)
			snprintf(r->note, sizeof(r->note), "reader cpu%d: %s", cpu, strerror(rd->error));
	}
	r->counted = true;
	r->lost = ftrace_lost_now() - ftrace_lost_before;
	r->lost_known = true;
}

void ftrace_teardown(void)
{
	char path[PATH_MAX];
	int cpu;

	if (!instance[0])
		return;
	ftrace_enable(0);
	for (cpu = 0; cpu < ncpu && cpu < 64; cpu++)
		if (readers[cpu].fd > 0)
			close(readers[cpu].fd);
	snprintf(path, sizeof(path), "%s/events/enable", instance);
	write_str(path, "0");
	if (rmdir(instance))
		progress("warning: cannot remove %s: %s\n", instance, strerror(errno));
	instance[0] = 0;
}
