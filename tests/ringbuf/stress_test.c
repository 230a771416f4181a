// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer protocol under concurrency: writer threads on one buffer,
 * each interrupted at a high rate by a signal handler that writes too (the
 * user-space stand-in for interrupts and NMIs), a reader and a flusher on
 * another thread, tiny sub-buffers, counters that cross 2^64, and a writer
 * that sometimes holds a reservation open while the others wrap around it
 * (the K42 race).  Every record must decode, every packet must be sound,
 * each writer's records must come out in order, and the counts must add up
 * exactly: in discard mode every reserved record is read once; in overwrite
 * mode read + overrun + lost == attempted.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "layout/ubuf.h"
#include "drain.h"

#define MAX_WRITERS	4
#define MAX_STREAMS	(2 * MAX_WRITERS)	/* a thread and its handler each */
#define MAX_SEQ		(4u << 20)		/* attempts per stream */
#define MAX_FILL	40

struct scenario {
	const char *name;
	enum tr_buf_mode mode;
	__u64 subbuf_size;
	__u32 nsubbuf;
	__u64 start;
	int writers;
	int holder;		/* writer 0 sleeps inside some reservations */
	int slow_reader;	/* the reader naps between sub-buffers */
	long signal_ns;		/* interval of each writer's signal timer */
	int run_ms;		/* at least; then until the run has exercised its case */
};

/* However loaded the machine, a run that has not exercised its case by then fails. */
#define MAX_RUN_MS	120000

/* Payload of every record: who wrote it, which attempt, and filler. */
struct record {
	__u32 stream;
	__u32 fill;
	__u64 seq;
	unsigned char bytes[];
};

struct stream {
	__u64 attempted;	/* written only by its own context */
	unsigned char *reserved;
	unsigned char *read;	/* written only by the reader */
	__u64 last_read;
	int any_read;
};

struct run {
	const struct scenario *sc;
	struct tr_ubuf buf;
	struct stream streams[MAX_STREAMS];
	volatile int stop_writers;
	volatile int stop_reader;
	pthread_barrier_t start;
	struct drain_state drained;
	unsigned long corrupt, duplicates, out_of_order, nested;
};

static struct run *the_run;
static __thread int writer_stream = -1;
static __thread volatile sig_atomic_t in_reservation;

static unsigned char fill_byte(__u64 seq, __u32 i, __u32 stream)
{
	return (seq * 31 + i * 7 + stream) & 0xff;
}

/* One attempt of a stream: reserve, fill, commit; remember the outcome. */
/*
 * Sleep 200 us inside a reservation, whatever the signals.  Toward an
 * absolute deadline: nanosleep()'s remaining time, interrupted every 50 us
 * by the timer's signal, never falls below its timer slack (50 us), and a
 * loop over it may sleep forever.
 */
static void hold_200us(void)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += 200000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL))
		;
}

static void emit(struct run *r, __u32 stream, int hold)
{
	struct stream *st = &r->streams[stream];
	__u64 seq = st->attempted;
	__u32 fill = seq % (MAX_FILL + 1), i;
	struct record *rec;
	struct trb_slot s;

	if (seq >= MAX_SEQ)
		return;
	in_reservation = 1;
	if (trb_reserve(&r->buf.rb, &s, stream + 1, sizeof(*rec) + fill, 0) == 0) {
		rec = trb_payload(&s);
		rec->stream = stream;
		rec->fill = fill;
		rec->seq = seq;
		for (i = 0; i < fill; i++)
			rec->bytes[i] = fill_byte(seq, i, stream);
		if (hold)
			hold_200us();
		trb_commit(&r->buf.rb, &s);
		st->reserved[seq] = 1;
	}
	in_reservation = 0;
	st->attempted = seq + 1;
}

static void on_signal(int sig)
{
	struct run *r = the_run;

	(void)sig;
	if (writer_stream < 0 || r->stop_writers)
		return;
	if (in_reservation)
		__atomic_fetch_add(&r->nested, 1, __ATOMIC_RELAXED);
	emit(r, writer_stream + 1, 0);
}

static timer_t start_signal_timer(long interval_ns)
{
	struct sigevent ev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGUSR1,
	};
	struct itimerspec every = {
		.it_interval = { 0, interval_ns }, .it_value = { 0, interval_ns },
	};
	timer_t timer;

	ev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) ||
	    timer_settime(timer, 0, &every, NULL)) {
		perror("timer");
		exit(1);
	}
	return timer;
}

struct writer_arg {
	struct run *run;
	int index;
};

static void *writer(void *p)
{
	struct writer_arg *arg = p;
	struct run *r = arg->run;
	__u32 stream = 2 * arg->index;
	sigset_t usr1;
	timer_t timer;
	__u64 n = 0;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	timer = start_signal_timer(r->sc->signal_ns);
	pthread_barrier_wait(&r->start);
	writer_stream = stream;
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	while (!r->stop_writers && r->streams[stream].attempted < MAX_SEQ)
		emit(r, stream, r->sc->holder && arg->index == 0 && ++n % 20000 == 0);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	timer_delete(timer);
	return NULL;
}

/* The reader's check of each record: intact, known, once, in order. */
static void check_record(const struct tr_packet_header *h,
			 const struct tr_event_header *e, void *arg)
{
	const struct record *rec = (const void *)(e + 1);
	struct run *r = arg;
	struct stream *st;
	__u32 i;

	(void)h;
	if (e->size < sizeof(*rec) || rec->stream >= 2 * (unsigned)r->sc->writers ||
	    e->id != rec->stream + 1 || e->size != sizeof(*rec) + rec->fill ||
	    rec->fill > MAX_FILL || rec->seq >= MAX_SEQ) {
		r->corrupt++;
		return;
	}
	for (i = 0; i < rec->fill; i++)
		if (rec->bytes[i] != fill_byte(rec->seq, i, rec->stream)) {
			r->corrupt++;
			return;
		}
	st = &r->streams[rec->stream];
	if (st->read[rec->seq]++)
		r->duplicates++;
	if (st->any_read && rec->seq <= st->last_read)
		r->out_of_order++;
	st->any_read = 1;
	st->last_read = rec->seq;
}

static __u64 now_ns(void)
{
	return tr_clock_monotonic_ns();
}

/* Reads and flushes while the writers run, as the consumer's timers would. */
static void *reader(void *p)
{
	struct run *r = p;
	struct timespec nap = { 0, 20000 };
	__u64 last_flush = now_ns();

	pthread_barrier_wait(&r->start);
	while (!r->stop_reader) {
		const char *packet;
		__u64 pos;

		if (trb_get_subbuf(&r->buf.rb, &pos, &packet) == 0) {
			drain_packet(&r->buf.rb, packet, &r->drained, check_record, r);
			trb_put_subbuf(&r->buf.rb, pos);
			if (r->sc->slow_reader)
				nanosleep(&nap, NULL);
		} else {
			nanosleep(&nap, NULL);
		}
		if (now_ns() - last_flush > 1000000) {
			trb_flush(&r->buf.rb);
			last_flush = now_ns();
		}
	}
	return NULL;
}

/*
 * What reconcile() checks the run exercised: signal handlers writing
 * inside reservations, enough packets, laps around the buffer (so counters
 * near 2^64 cross it), and with a holder, the writer finding the next
 * sub-buffer not yet committed.
 */
static int exercised(struct run *r)
{
	const struct tr_buf_ctl *ctl = r->buf.rb.ctl;
	__u64 written = __atomic_load_n(&ctl->write_count, __ATOMIC_RELAXED) - r->sc->start;

	return __atomic_load_n(&r->nested, __ATOMIC_RELAXED) > 0 &&
	       __atomic_load_n(&r->drained.packets, __ATOMIC_RELAXED) > 10 &&
	       written > 4 * r->buf.rb.buf_size &&
	       (!r->sc->holder || __atomic_load_n(&ctl->lost_wrap, __ATOMIC_RELAXED) > 0);
}

/* The scenario's time, then until it has exercised its case: load only slows it. */
static void run_until_exercised(struct run *r)
{
	struct timespec tick = { 0, 10000000 };
	int ms;

	for (ms = 0; ms < MAX_RUN_MS && (ms < r->sc->run_ms || !exercised(r)); ms += 10)
		nanosleep(&tick, NULL);
}

static void run_threads(struct run *r)
{
	struct writer_arg args[MAX_WRITERS];
	pthread_t writers[MAX_WRITERS], rd;
	int i;

	pthread_barrier_init(&r->start, NULL, r->sc->writers + 2);
	for (i = 0; i < r->sc->writers; i++) {
		args[i] = (struct writer_arg) { r, i };
		pthread_create(&writers[i], NULL, writer, &args[i]);
	}
	pthread_create(&rd, NULL, reader, r);
	pthread_barrier_wait(&r->start);
	run_until_exercised(r);
	r->stop_writers = 1;
	for (i = 0; i < r->sc->writers; i++)
		pthread_join(writers[i], NULL);
	r->stop_reader = 1;
	pthread_join(rd, NULL);
	pthread_barrier_destroy(&r->start);
	/* The stop sequence: final flush, final drain. */
	trb_flush(&r->buf.rb);
	drain(&r->buf.rb, &r->drained, check_record, r);
}

/* Compares what was reserved with what was read, stream by stream. */
static void reconcile(struct run *r)
{
	const struct tr_buf_ctl *ctl = r->buf.rb.ctl;
	__u64 attempted = 0, reserved = 0, read = 0, read_unreserved = 0;
	int s;
	__u64 q;

	for (s = 0; s < 2 * r->sc->writers; s++) {
		struct stream *st = &r->streams[s];

		attempted += st->attempted;
		for (q = 0; q < st->attempted; q++) {
			reserved += st->reserved[q];
			read += st->read[q] != 0;
			read_unreserved += st->read[q] && !st->reserved[q];
		}
	}
	tap_diag("%s: attempted %llu, read %llu, lost full %llu wrap %llu big %llu, overrun %llu, packets %lu, nested %lu",
		 r->sc->name, attempted, read, ctl->lost_full, ctl->lost_wrap,
		 ctl->lost_big, ctl->records_overrun, r->drained.packets, r->nested);
	if (r->drained.problem)
		tap_diag("first problem: %s", r->drained.problem);
	EXPECT(r->drained.problem == NULL);
	EXPECT_EQ(r->corrupt, 0);
	EXPECT_EQ(r->duplicates, 0);
	EXPECT_EQ(r->out_of_order, 0);
	EXPECT_EQ(read_unreserved, 0);
	EXPECT_EQ(read, r->drained.records);
	EXPECT_EQ(ctl->lost_big, 0);
	EXPECT_EQ(reserved + trb_lost(&r->buf.rb), attempted);
	EXPECT_EQ(read + ctl->records_overrun, reserved);
	if (r->sc->mode == TR_MODE_DISCARD)
		EXPECT_EQ(ctl->records_overrun, 0);
	/* The run exercised what it is meant to. */
	EXPECT(r->nested > 0);
	EXPECT(r->drained.packets > 10);
	EXPECT(ctl->write_count - r->sc->start > 4 * r->buf.rb.buf_size);
	if (r->sc->start && ctl->write_count >= r->sc->start)
		tap_fail(__FILE__, __LINE__, "counters crossed 2^64");
	if (r->sc->holder)
		EXPECT(ctl->lost_wrap > 0);
}

static void run_scenario(const struct scenario *sc)
{
	struct trb_config cfg = {
		.subbuf_size = sc->subbuf_size, .nsubbuf = sc->nsubbuf,
		.mode = sc->mode, .cpu = 0, .stream_id = 0, .start = sc->start,
	};
	struct run *r = calloc(1, sizeof(*r));
	int s;

	r->sc = sc;
	for (s = 0; s < 2 * sc->writers; s++) {
		r->streams[s].reserved = calloc(MAX_SEQ, 1);
		r->streams[s].read = calloc(MAX_SEQ, 1);
	}
	if (tr_ubuf_create(&r->buf, &cfg, tr_clock_monotonic_ns)) {
		tap_fail(__FILE__, __LINE__, "buffer created");
		return;
	}
	the_run = r;
	run_threads(r);
	reconcile(r);
	tr_ubuf_destroy(&r->buf);
	for (s = 0; s < 2 * sc->writers; s++) {
		free(r->streams[s].reserved);
		free(r->streams[s].read);
	}
	free(r);
}

#define NEAR_WRAP(subbuf)	(0ull - 5 * (subbuf))

static const struct scenario scenarios[] = {
	{ "discard, 2 x 4 KiB, counters cross 2^64, held reservations",
	  TR_MODE_DISCARD, 4096, 2, NEAR_WRAP(4096), 2, 1, 0, 50000, 1500 },
	{ "overwrite, 2 x 4 KiB, counters cross 2^64, held reservations",
	  TR_MODE_OVERWRITE, 4096, 2, NEAR_WRAP(4096), 2, 1, 0, 50000, 1500 },
	{ "discard, 4 x 64 KiB, three writers",
	  TR_MODE_DISCARD, 65536, 4, 0, 3, 0, 0, 30000, 1500 },
	{ "overwrite, 8 x 16 KiB, slow reader, counters cross 2^64",
	  TR_MODE_OVERWRITE, 16384, 8, NEAR_WRAP(16384), 2, 0, 1, 30000, 1500 },
};

static const struct scenario *current;

static void one_scenario(void)
{
	run_scenario(current);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigset_t usr1;
	unsigned i;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	/* Only writer threads take the signal, once they unblock it. */
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		current = &scenarios[i];
		tap_run(current->name, one_scenario);
	}
	return tap_done();
}
