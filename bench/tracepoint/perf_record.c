// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: `perf record -a` to a file, enabled through its control FIFO once
 * ready; its samples counted from perf.data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "peers.h"

static char perf_data[PATH_MAX], perf_log[PATH_MAX], perf_ctl[PATH_MAX], perf_ack[PATH_MAX];

int perf_setup(struct config *c)
{
	char *argv[] = { "perf", "--version", NULL };
	char log[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/perf-version.log", tmpdir);
	pid = spawn(argv, log);
	status = reap(pid, 10000);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(c->why, sizeof(c->why), "perf does not run (apt-get install -y linux-perf)");
		return -ENOENT;
	}
	snprintf(perf_data, sizeof(perf_data), "%s/perf.data", tmpdir);
	snprintf(perf_log, sizeof(perf_log), "%s/perf.log", tmpdir);
	snprintf(perf_ctl, sizeof(perf_ctl), "%s/perf.ctl", tmpdir);
	snprintf(perf_ack, sizeof(perf_ack), "%s/perf.ack", tmpdir);
	if (mkfifo(perf_ctl, 0600) || mkfifo(perf_ack, 0600)) {
		snprintf(c->why, sizeof(c->why), "mkfifo: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int perf_start(void)
{
	char control[2 * PATH_MAX + 16], ack[8] = "";
	char *argv[] = { "perf", "record", "-e", event_spec, "-a", "-o", perf_data,
			 "--no-buildid", "-D", "-1", "--control", control, NULL };
	int ctl = open(perf_ctl, O_RDWR | O_CLOEXEC), ackfd = open(perf_ack, O_RDWR | O_CLOEXEC);
	struct pollfd p = { .fd = ackfd, .events = POLLIN };
	int err = 0, waited, status;

	snprintf(control, sizeof(control), "fifo:%s,%s", perf_ctl, perf_ack);
	if (ctl < 0 || ackfd < 0) {
		err = -errno;
		goto out;
	}
	child_pid = spawn(argv, perf_log);
	if (write(ctl, "enable\n", 7) != 7) {
		err = -errno;
		goto out;
	}
	for (waited = 0; waited < 30000; waited += 50) {
		if (poll(&p, 1, 50) == 1) {
			if (read(ackfd, ack, sizeof(ack) - 1) <= 0 || strncmp(ack, "ack", 3))
				err = -EPROTO;
			goto out;
		}
		if (!child_alive(child_pid, &status)) {
			child_pid = 0;
			progress("\nperf record exited:\n");
			log_tail(perf_log, "  ");
			err = -ECHILD;
			goto out;
		}
	}
	err = -ETIMEDOUT;
out:
	if (ctl >= 0)
		close(ctl);
	if (ackfd >= 0)
		close(ackfd);
	if (err)
		stop_child(SIGKILL, 1000, NULL);
	return err;
}

/* perf.data's file header (perf's util/header.h). */
struct perf_file_section {
	__u64 offset, size;
};

struct perf_file_header {
	__u64 magic, size, attr_size;
	struct perf_file_section attrs, data, event_types;
	__u64 flags[4];
};

/* Sample times of one thread, to drop duplicates. */
struct times {
	__u64 *t;
	size_t n, cap;
};

static void times_add(struct times *v, __u64 t)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1 << 20;
		v->t = realloc(v->t, v->cap * sizeof(*v->t));
	}
	v->t[v->n++] = t;
}

/* qsort's order of times. */
static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts the times; how many are distinct. */
static size_t times_distinct(struct times *v)
{
	size_t i, n = 0;

	qsort(v->t, v->n, sizeof(*v->t), cmp_u64);
	for (i = 0; i < v->n; i++)
		n += !i || v->t[i] != v->t[i - 1];
	return n;
}

/* What perf.data's records say: our samples' times per thread, all samples, losses. */
struct perf_counts {
	struct times ours[MAX_THREADS];
	long long total, lost_records, lost_samples;
};

/* Counts the sample after its header p: all, and its time if one of our threads' (by tid). */
static void count_sample(const char *p, __u64 sample_type, struct perf_counts *pc)
{
	int who = -1;

	pc->total++;
	p += sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	p += sample_type & PERF_SAMPLE_IP ? 8 : 0;
	if (sample_type & PERF_SAMPLE_TID) {
		who = our_index(((const __u32 *)p)[1]);
		p += 8;
	}
	if (who >= 0)
		times_add(&pc->ours[who], sample_type & PERF_SAMPLE_TIME ?
			  *(const __u64 *)p : pc->ours[who].n);
}

/* Walks the records from off to end of the mapped file: samples and losses into pc. */
static void count_records(const char *map, __u64 off, __u64 end, __u64 sample_type,
			  struct perf_counts *pc)
{
	while (off + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *e = (const void *)(map + off);
		const char *p = (const char *)(e + 1);

		if (e->size < sizeof(*e) || off + e->size > end)
			break;
		if (e->type == PERF_RECORD_SAMPLE)
			count_sample(p, sample_type, pc);
		else if (e->type == PERF_RECORD_LOST)
			pc->lost_records += ((const __u64 *)p)[1];
		else if (e->type == PERF_RECORD_LOST_SAMPLES)
			pc->lost_samples += ((const __u64 *)p)[0];
		off += e->size;
	}
}

/*
 * Maps perf.data and counts its records into pc; 0, -EINVAL when it is
 * not a perf.data file, or -errno.
 */
static int read_perf_data(const char *path, struct perf_counts *pc)
{
	const struct perf_file_header *h;
	__u64 sample_type, end;
	struct stat st;
	char *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(*h)) {
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	h = (const void *)map;
	if (memcmp(&h->magic, "PERFILE2", 8) || h->attrs.offset + 32 > (__u64)st.st_size) {
		munmap(map, st.st_size);
		return -EINVAL;
	}
	sample_type = *(const __u64 *)(map + h->attrs.offset + 24);
	end = h->data.size ? h->data.offset + h->data.size : (__u64)st.st_size;
	end = end > (__u64)st.st_size ? (__u64)st.st_size : end;
	count_records(map, h->data.offset, end, sample_type, pc);
	munmap(map, st.st_size);
	return 0;
}

/*
 * Samples in perf.data: all, and ours counted once each (perf 6.1 on this
 * kernel writes some samples twice when its buffer overflows: a thread's
 * samples have distinct timestamps, so duplicates are dropped by time).
 * Lost: the kernel's LOST records and perf's LOST_SAMPLES count the same
 * samples; the larger is taken.  0 or -errno (r untouched).
 */
static int parse_perf_data(const char *path, struct run_result *r)
{
	struct perf_counts pc = { 0 };
	long long dup = 0;
	int i, err;

	err = read_perf_data(path, &pc);
	if (err)
		return err;
	r->total += pc.total;
	for (i = 0; i < MAX_THREADS; i++) {
		size_t n = times_distinct(&pc.ours[i]);

		dup += pc.ours[i].n - n;
		r->ours += n;
		free(pc.ours[i].t);
	}
	r->total -= dup;
	r->lost = pc.lost_records > pc.lost_samples ? pc.lost_records : pc.lost_samples;
	if (dup)
		snprintf(r->note, sizeof(r->note), "perf.data holds %lld duplicate samples of ours (counted once)",
			 dup);
	r->counted = true;
	r->lost_known = true;
	return 0;
}

void perf_stop(struct run_result *r)
{
	int status = -1;

	stop_child(SIGINT, 120000, &status);
	if (parse_perf_data(perf_data, r)) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "perf.data unreadable (perf status %d)", status);
		log_tail(perf_log, "  perf: ");
	}
	if (r->counted && r->total == 0 && r->expected)
		snprintf(r->note, sizeof(r->note),
			 "0 samples: another BPF program on this tracepoint that returns 0 suppresses perf samples");
	unlink(perf_data);
}
