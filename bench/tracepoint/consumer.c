// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The consumer of the libbpf peers (BPF ringbuf, perf buffer): a thread
 * that drains the buffer every 1 ms and writes the records to a file,
 * counting them and our threads' among them.  The per-record callbacks
 * are here, beside the buffer they copy into.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peers.h"

/* The consumer of the run: one at a time. */
struct consumer {
	pthread_t thread;
	volatile int stop;
	int (*consume)(void);
	int fd;
	char *buf;
	size_t used;
	long long total, ours, lost, write_errors;
};

#define CONSUMER_BUF	(1u << 20)

static struct consumer cons;

void consumer_alloc(void)
{
	if (!cons.buf)
		cons.buf = malloc(CONSUMER_BUF);
}

/* Counts a record, ours or not, and copies it to the buffer (written out when full). */
static void consumer_take(const void *data, size_t size)
{
	const char *rec = data;

	cons.total++;
	if (size >= 24 && is_ours(*(const int *)(rec + 16 + 4)))
		cons.ours++;
	if (cons.used + size > CONSUMER_BUF) {
		if (write(cons.fd, cons.buf, cons.used) < 0)
			cons.write_errors++;
		cons.used = 0;
	}
	memcpy(cons.buf + cons.used, data, size);
	cons.used += size;
}

int rb_sample(void *ctx, void *data, size_t size)
{
	(void)ctx;
	consumer_take(data, size);
	return 0;
}

enum bpf_perf_event_ret pb_event(void *ctx, int cpu, struct perf_event_header *e)
{
	(void)ctx;
	(void)cpu;
	if (e->type == PERF_RECORD_SAMPLE) {
		__u32 size = *(__u32 *)(e + 1);

		consumer_take((char *)(e + 1) + 4, size);
	} else if (e->type == PERF_RECORD_LOST) {
		cons.lost += ((__u64 *)(e + 1))[1];
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/* The thread: consume every 1 ms until told to stop, then once more. */
static void *consumer_run(void *p)
{
	(void)p;
	while (!cons.stop) {
		cons.consume();
		sleep_ms(1);
	}
	cons.consume();
	return NULL;
}

/* Starts the thread consuming into tmpdir/file, its counts zeroed; 0 or -errno. */
static int consumer_start(int (*consume)(void), const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, file);
	cons.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cons.fd < 0)
		return -errno;
	unlink(path);
	cons.consume = consume;
	cons.stop = 0;
	cons.used = 0;
	consume();		/* anything left from before */
	cons.used = 0;
	cons.total = cons.ours = cons.lost = cons.write_errors = 0;
	return -pthread_create(&cons.thread, NULL, consumer_run, NULL);
}

void consumer_stop(struct run_result *r)
{
	cons.stop = 1;
	pthread_join(cons.thread, NULL);
	if (cons.used && write(cons.fd, cons.buf, cons.used) < 0)
		cons.write_errors++;
	if (cons.write_errors)
		snprintf(r->note, sizeof(r->note), "the consumer's file writes failed %lld times",
			 cons.write_errors);
	close(cons.fd);
	r->counted = true;
	r->ours = cons.ours;
	r->total = cons.total;
}

long long consumer_lost(void)
{
	return cons.lost;
}

int consumer_attach(int (*consume)(void), const char *file, const struct bpf_program *prog)
{
	int err;

	err = consumer_start(consume, file);
	if (err)
		return err;
	err = attach_to_event(prog);
	if (err) {
		cons.stop = 1;
		pthread_join(cons.thread, NULL);
		close(cons.fd);
	}
	return err;
}
