// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringbuf_bench: nanoseconds per event for reserve + payload write +
 * commit, in the tracer's ring buffer (include/tracer/ringbuf.h over a
 * tr_ubuf) and in two baselines that write the same records:
 *
 *  - mutex: a circular byte buffer under a pthread mutex;
 *  - in-order: the ELFE flight recorder's scheme (S3): fetch-add on a
 *    head counter, write, spin until every earlier writer has committed.
 *
 * Every buffer overwrites its oldest data (flight recorder, no reader),
 * holds 1 MiB of records, writes the same bytes per event (a struct
 * tr_event_header and the payload, 8-aligned) and reads
 * tr_clock_monotonic_ns() once per event, so the rows differ only in the
 * buffer.  "clock only" rows show what part of an event is the clock.
 *
 * Each configuration runs --reps times, round-robin across configurations
 * so that a slow period of the machine hits all of them alike, and the
 * median, min and max are printed.  After each run every event must be
 * accounted for (recorded or overwritten, none lost).  A configuration
 * with one run that fails this gets no numbers at all, only the reason,
 * and the benchmark exits non-zero; the other rows are still measured, so
 * that one broken configuration does not hide the rest.  "tracer shared"
 * loses records by design (I4, lost_wrap) when a writer is descheduled
 * between reserve and commit while the other fills NSUBBUF - 1
 * sub-buffers alone, which takes a ms or two (see SUBBUF_SIZE).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout/ubuf.h"
#include "bench_csv.h"

#define __maybe_unused		__attribute__((__unused__))

/*
 * A writer descheduled between reserve and commit in "tracer shared"
 * makes the other drop records (I4, lost_wrap) once that one alone has
 * filled the other NSUBBUF - 1 sub-buffers: about 1 to 2 ms at these
 * sizes.  A larger buffer only moves the limit (4 x 1 MiB still loses
 * records on an idle 2-CPU VM, whose pinned threads are descheduled for
 * a few ms several times a second), so the buffers stay small enough
 * for L2 and such runs are reported broken.
 */
#define SUBBUF_SIZE		(256 * 1024)
#define NSUBBUF			4
/* The baselines get the tracer's capacity. */
#define RING_SIZE		(SUBBUF_SIZE * NSUBBUF)
#define EVENT_ID		1
#define MAX_PAYLOAD		64
#define MAX_THREADS		2
#define LOAD_WARN		0.5

#define DEFAULT_EVENTS		3000000
#define DEFAULT_REPS		5
#define QUICK_EVENTS		200000
#define QUICK_REPS		3

static void die(const char *msg)
{
	fprintf(stderr, "ringbuf_bench: %s\n", msg);
	exit(1);
}

/* What one thread writes in one run. */
struct load {
	long events;
	__u32 payload_size;
	const char *payload;
};

/*
 * A kind of buffer.  recorded() returns how many events the buffer holds
 * or has overwritten, or -1 after saying on stderr why the run is broken.
 */
struct buffer_ops {
	void *(*create)(__u32 cpu);
	void (*write)(void *buf, const struct load *load);
	long (*recorded)(void *buf);
	void (*destroy)(void *buf);
};

static __u32 record_size(__u32 payload_size)
{
	return (sizeof(struct tr_event_header) + payload_size +
		TR_RECORD_ALIGN - 1) & ~(TR_RECORD_ALIGN - 1);
}

/* Mapped like a tr_ubuf: zeroed and populated, so no writer page-faults. */
static char *map_ring(void)
{
	char *data = mmap(NULL, RING_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (data == MAP_FAILED)
		die("cannot map a ring");
	return data;
}

/* Cache-line aligned, so that two threads' control blocks never share a line. */
static void *alloc_ctl(size_t size)
{
	void *p = aligned_alloc(TR_CACHELINE,
				(size + TR_CACHELINE - 1) & ~(size_t)(TR_CACHELINE - 1));

	if (!p)
		die("out of memory");
	memset(p, 0, size);
	return p;
}

/* --- clock only --------------------------------------------------------- */

struct clock_calls {
	long calls;
	__u64 sum;		/* keeps the reads observable */
};

static void *clock_create(__u32 cpu __maybe_unused)
{
	return alloc_ctl(sizeof(struct clock_calls));
}

static void clock_write(void *buf, const struct load *load)
{
	struct clock_calls *c = buf;
	long i;

	for (i = 0; i < load->events; i++)
		c->sum += tr_clock_monotonic_ns();
	c->calls += load->events;
}

static long clock_recorded(void *buf)
{
	return ((struct clock_calls *)buf)->calls;
}

static const struct buffer_ops clock_ops = {
	.create = clock_create,
	.write = clock_write,
	.recorded = clock_recorded,
	.destroy = free,
};

/* --- tracer ------------------------------------------------------------- */

static void *tracer_create(__u32 cpu)
{
	struct tr_ubuf *u = alloc_ctl(sizeof(*u));
	struct trb_config cfg = {
		.subbuf_size = SUBBUF_SIZE,
		.nsubbuf = NSUBBUF,
		.mode = TR_MODE_OVERWRITE,
		.cpu = cpu,
	};

	if (tr_ubuf_create(u, &cfg, tr_clock_monotonic_ns))
		die("tr_ubuf_create failed");
	return u;
}

/* A failed reserve is counted in ctl->lost_* and fails the run afterwards. */
static void tracer_write(void *buf, const struct load *load)
{
	const struct trb_buf *rb = &((struct tr_ubuf *)buf)->rb;
	struct trb_slot slot;
	long i;

	for (i = 0; i < load->events; i++) {
		if (trb_reserve(rb, &slot, EVENT_ID, load->payload_size, 0))
			continue;
		memcpy(trb_payload(&slot), load->payload, load->payload_size);
		trb_commit(rb, &slot);
	}
}

/* With no reader, I7 gives: records = overrun + unread + committed. */
static long tracer_recorded(void *buf)
{
	const struct tr_buf_ctl *ctl = ((struct tr_ubuf *)buf)->rb.ctl;
	long records = ctl->records_overrun;
	int p;

	if (ctl->lost_full || ctl->lost_wrap || ctl->lost_big || ctl->lost_busy) {
		fprintf(stderr, "tracer lost events: full %llu wrap %llu big %llu busy %llu\n",
			ctl->lost_full, ctl->lost_wrap, ctl->lost_big, ctl->lost_busy);
		return -1;
	}
	for (p = 0; p <= NSUBBUF; p++)
		records += ctl->records[p].committed + ctl->records[p].unread;
	return records;
}

static void tracer_destroy(void *buf)
{
	tr_ubuf_destroy(buf);
	free(buf);
}

static const struct buffer_ops tracer_ops = {
	.create = tracer_create,
	.write = tracer_write,
	.recorded = tracer_recorded,
	.destroy = tracer_destroy,
};

/* --- mutex -------------------------------------------------------------- */

struct mutex_ring {
	pthread_mutex_t lock;
	__u64 pos;		/* offset of the next record */
	long records;
	char *data;
};

static void *mutex_create(__u32 cpu __maybe_unused)
{
	struct mutex_ring *m = alloc_ctl(sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	m->data = map_ring();
	return m;
}

/*
 * The clock is read under the lock so that, as in the tracer (I2),
 * timestamps do not decrease in buffer order.  A record that does not
 * fit before the end of the ring starts over at offset 0.
 */
static void mutex_write(void *buf, const struct load *load)
{
	struct mutex_ring *m = buf;
	__u32 size = record_size(load->payload_size);
	struct tr_event_header *eh;
	long i;

	for (i = 0; i < load->events; i++) {
		pthread_mutex_lock(&m->lock);
		if (m->pos + size > RING_SIZE)
			m->pos = 0;
		eh = (struct tr_event_header *)(m->data + m->pos);
		eh->timestamp = tr_clock_monotonic_ns();
		eh->id = EVENT_ID;
		eh->size = load->payload_size;
		memcpy(eh + 1, load->payload, load->payload_size);
		m->pos += size;
		m->records++;
		pthread_mutex_unlock(&m->lock);
	}
}

static long mutex_recorded(void *buf)
{
	return ((struct mutex_ring *)buf)->records;
}

static void mutex_destroy(void *buf)
{
	struct mutex_ring *m = buf;

	pthread_mutex_destroy(&m->lock);
	munmap(m->data, RING_SIZE);
	free(m);
}

static const struct buffer_ops mutex_ops = {
	.create = mutex_create,
	.write = mutex_write,
	.recorded = mutex_recorded,
	.destroy = mutex_destroy,
};

/* --- in-order commit (S3) ----------------------------------------------- */

/* Reserving writers and the committing writer each own a cache line. */
struct inorder_ring {
	char *data;
	__u64 head __attribute__((aligned(TR_CACHELINE)));	/* bytes reserved */
	__u64 commit __attribute__((aligned(TR_CACHELINE)));	/* bytes committed */
	long records;		/* written only by the writer whose turn it is */
};

static void *inorder_create(__u32 cpu __maybe_unused)
{
	struct inorder_ring *r = alloc_ctl(sizeof(*r));

	r->data = map_ring();
	return r;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Copy len bytes to ring position pos, splitting at the end of the ring. */
static void ring_copy(char *data, __u64 pos, const void *src, size_t len)
{
	size_t off = pos & (RING_SIZE - 1);
	size_t first = len < RING_SIZE - off ? len : RING_SIZE - off;

	memcpy(data + off, src, first);
	if (first < len)
		memcpy(data, (const char *)src + first, len - first);
}

static void inorder_put(char *data, __u64 pos, __u64 ts,
			const struct load *load, __u32 size)
{
	size_t off = pos & (RING_SIZE - 1);
	struct tr_event_header h = {
		.timestamp = ts,
		.id = EVENT_ID,
		.size = load->payload_size,
	};

	if (off + size <= RING_SIZE) {
		memcpy(data + off, &h, sizeof(h));
		memcpy(data + off + sizeof(h), load->payload, load->payload_size);
		return;
	}
	ring_copy(data, pos, &h, sizeof(h));
	ring_copy(data, pos + sizeof(h), load->payload, load->payload_size);
}

/*
 * Records may straddle the end of the ring (their size need not divide
 * it), so wrapping is by masking.  The commit turn is exclusive, which
 * is what lets records be a plain counter.
 */
static void inorder_write(void *buf, const struct load *load)
{
	struct inorder_ring *r = buf;
	__u32 size = record_size(load->payload_size);
	__u64 begin, ts;
	long i;

	for (i = 0; i < load->events; i++) {
		ts = tr_clock_monotonic_ns();
		begin = __atomic_fetch_add(&r->head, size, __ATOMIC_RELAXED);
		inorder_put(r->data, begin, ts, load, size);
		while (__atomic_load_n(&r->commit, __ATOMIC_ACQUIRE) != begin)
			cpu_relax();
		r->records++;
		__atomic_store_n(&r->commit, begin + size, __ATOMIC_RELEASE);
	}
}

static long inorder_recorded(void *buf)
{
	struct inorder_ring *r = buf;

	if (r->commit != r->head) {
		fprintf(stderr, "in-order: commit %llu != head %llu\n",
			r->commit, r->head);
		return -1;
	}
	return r->records;
}

static void inorder_destroy(void *buf)
{
	struct inorder_ring *r = buf;

	munmap(r->data, RING_SIZE);
	free(r);
}

static const struct buffer_ops inorder_ops = {
	.create = inorder_create,
	.write = inorder_write,
	.recorded = inorder_recorded,
	.destroy = inorder_destroy,
};

/* --- configurations ----------------------------------------------------- */

struct variant {
	const char *name;
	const struct buffer_ops *ops;
	int threads;
	bool shared;		/* the threads write one buffer, else one each */
	/*
	 * Losing records is this buffer's specified behaviour here, not a
	 * broken run: threads sharing a tracer buffer are preempted between
	 * reserve and commit (ringbuf.h, I4).  Such runs print no numbers
	 * but do not fail the benchmark.
	 */
	bool loss_expected;
};

static const struct variant clock_variants[] = {
	{ "clock only",		&clock_ops,	1, false, false },
	{ "clock only",		&clock_ops,	2, false, false },
};

static const struct variant buffer_variants[] = {
	{ "tracer",		&tracer_ops,	1, false, false },
	{ "mutex",		&mutex_ops,	1, false, false },
	{ "in-order",		&inorder_ops,	1, false, false },
	{ "tracer per-CPU",	&tracer_ops,	2, false, false },
	{ "tracer shared",	&tracer_ops,	2, true, true },
	{ "mutex shared",	&mutex_ops,	2, true, false },
	{ "mutex per-thread",	&mutex_ops,	2, false, false },
	{ "in-order shared",	&inorder_ops,	2, true, false },
};

static const __u32 payload_sizes[] = { 16, 32, 64 };

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_CONFIGS	(ARRAY_SIZE(clock_variants) + \
			 ARRAY_SIZE(buffer_variants) * ARRAY_SIZE(payload_sizes))

struct config {
	const struct variant *v;
	__u32 payload_size;		/* 0: no payload (clock only) */
	double *ns;			/* ns/event of each repetition */
	int broken;			/* runs that did not account for every event */
	double median, min, max;
	const struct config *ref;	/* tracer, per-CPU for 2 threads */
	const struct config *shared_ref;/* tracer shared, 2 threads only */
};

static struct config configs[MAX_CONFIGS];
static int nconfigs;

static void add_config(const struct variant *v, __u32 payload_size, int reps)
{
	struct config *c = &configs[nconfigs++];

	c->v = v;
	c->payload_size = payload_size;
	c->ns = calloc(reps, sizeof(*c->ns));
	if (!c->ns)
		die("out of memory");
}

static const struct config *find_tracer(const struct config *c, bool shared)
{
	int i;

	for (i = 0; i < nconfigs; i++) {
		const struct variant *v = configs[i].v;

		if (v->ops == &tracer_ops && v->threads == c->v->threads &&
		    v->shared == shared && configs[i].payload_size == c->payload_size)
			return &configs[i];
	}
	return NULL;
}

static void make_configs(int reps)
{
	size_t i, p;
	int k;

	for (i = 0; i < ARRAY_SIZE(clock_variants); i++)
		add_config(&clock_variants[i], 0, reps);
	for (p = 0; p < ARRAY_SIZE(payload_sizes); p++)
		for (i = 0; i < ARRAY_SIZE(buffer_variants); i++)
			add_config(&buffer_variants[i], payload_sizes[p], reps);
	for (k = 0; k < nconfigs; k++) {
		if (configs[k].v->ops == &clock_ops)
			continue;
		configs[k].ref = find_tracer(&configs[k], false);
		if (configs[k].v->threads > 1)
			configs[k].shared_ref = find_tracer(&configs[k], true);
	}
}

/* --- one run ------------------------------------------------------------ */

struct worker {
	pthread_t thread;
	__u32 cpu;
	const struct buffer_ops *ops;
	void *buf;
	struct load load;
	pthread_barrier_t *start;
	__u64 begin_ns;
	__u64 end_ns;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		die("cannot pin a thread (needs CPUs 0 and 1)");
	pthread_barrier_wait(w->start);
	w->begin_ns = tr_clock_monotonic_ns();
	w->ops->write(w->buf, &w->load);
	w->end_ns = tr_clock_monotonic_ns();
	return NULL;
}

/* Is every event written in its buffer or overwritten, none lost? */
static bool all_recorded(const struct config *c, void **bufs, int nbufs,
			 long events)
{
	long expected = events * c->v->threads;
	long total = 0;
	int i;

	for (i = 0; i < nbufs; i++) {
		long n = c->v->ops->recorded(bufs[i]);

		if (n < 0)
			return false;
		total += n;
	}
	if (total == expected)
		return true;
	fprintf(stderr, "%ld events accounted for, %ld written\n", total, expected);
	return false;
}

/*
 * Run c once: ns per event is the wall time from the first thread's start
 * to the last one's end over the events of one thread.  False for a
 * broken run.
 */
static bool run_once(const struct config *c, long events, const char *payload,
		     double *ns)
{
	const struct variant *v = c->v;
	struct worker workers[MAX_THREADS];
	void *bufs[MAX_THREADS];
	int nbufs = v->shared ? 1 : v->threads;
	pthread_barrier_t start;
	__u64 begin = ~0ull, end = 0;
	bool ok;
	int i;

	for (i = 0; i < nbufs; i++)
		bufs[i] = v->ops->create(i);
	pthread_barrier_init(&start, NULL, v->threads);
	for (i = 0; i < v->threads; i++) {
		struct worker *w = &workers[i];

		w->cpu = i;
		w->ops = v->ops;
		w->buf = bufs[v->shared ? 0 : i];
		w->load.events = events;
		w->load.payload_size = c->payload_size;
		w->load.payload = payload;
		w->start = &start;
		if (pthread_create(&w->thread, NULL, worker_main, w))
			die("cannot create a thread");
	}
	for (i = 0; i < v->threads; i++) {
		pthread_join(workers[i].thread, NULL);
		if (workers[i].begin_ns < begin)
			begin = workers[i].begin_ns;
		if (workers[i].end_ns > end)
			end = workers[i].end_ns;
	}
	pthread_barrier_destroy(&start);
	ok = all_recorded(c, bufs, nbufs, events);
	for (i = 0; i < nbufs; i++)
		v->ops->destroy(bufs[i]);
	*ns = (double)(end - begin) / events;
	return ok;
}

static void run_config(struct config *c, int rep, long events,
		       const char *payload)
{
	if (run_once(c, events, payload, &c->ns[rep]))
		return;
	c->broken++;
	fprintf(stderr, "%s, %d threads, payload %u, repetition %d: broken run\n",
		c->v->name, c->v->threads, c->payload_size, rep + 1);
}

/* --- statistics and output ---------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* c->ns stays in round order for the CSV. */
static void summarize(struct config *c, int reps)
{
	double sorted[reps];

	memcpy(sorted, c->ns, sizeof(sorted));
	qsort(sorted, reps, sizeof(*sorted), cmp_double);
	c->min = sorted[0];
	c->max = sorted[reps - 1];
	c->median = reps % 2 ? sorted[reps / 2] :
		    (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2;
}

static void format_ratio(char *s, size_t len, const struct config *c,
			 const struct config *ref)
{
	if (ref && !ref->broken)
		snprintf(s, len, "%.2f", c->median / ref->median);
	else
		snprintf(s, len, "-");
}

static void print_row(const struct config *c, int reps, bool markdown)
{
	const char *row = markdown ? "| %s | %d | %s | %.1f | %.1f | %.1f | %s | %s |\n" :
				     "%-17s %7d %7s %9.1f %7.1f %7.1f %9s %9s\n";
	const char *broken_row = markdown ? "| %s | %d | %s | %s in %d of %d runs | | | | |\n" :
					    "%-17s %7d %7s   %s in %d of %d runs: no numbers\n";
	char payload[16], ratio[16], shared_ratio[16];

	if (c->payload_size)
		snprintf(payload, sizeof(payload), "%u", c->payload_size);
	else
		snprintf(payload, sizeof(payload), "-");
	if (c->broken) {
		printf(broken_row, c->v->name, c->v->threads, payload,
		       c->v->loss_expected ? "lost_wrap (I4)" : "broken", c->broken, reps);
		return;
	}
	format_ratio(ratio, sizeof(ratio), c, c->ref);
	format_ratio(shared_ratio, sizeof(shared_ratio), c, c->shared_ref);
	printf(row, c->v->name, c->v->threads, payload, c->median, c->min,
	       c->max, ratio, shared_ratio);
}

static void print_table(int reps, bool markdown)
{
	int i;

	if (markdown)
		printf("| buffer | threads | payload B | median ns/event | min | max | x tracer | x tracer shared |\n"
		       "|---|--:|--:|--:|--:|--:|--:|--:|\n");
	else
		printf("%-17s %7s %7s %9s %7s %7s %9s %9s\n", "buffer", "threads",
		       "payload", "median", "min", "max", "x tracer", "x shared");
	for (i = 0; i < nconfigs; i++)
		print_row(&configs[i], reps, markdown);
}

static void write_csv(FILE *f, int reps)
{
	int i;

	bench_csv_header(f);
	for (i = 0; i < nconfigs; i++) {
		const struct config *c = &configs[i];
		char payload[16] = "", note[64] = "";
		struct bench_row row = { .workload = "ringbuf", .config = c->v->name,
					 .label = c->v->name, .threads = c->v->threads,
					 .param = payload, .unit = "ns/event" };

		if (c->payload_size)
			snprintf(payload, sizeof(payload), "%u", c->payload_size);
		if (c->broken) {
			snprintf(note, sizeof(note), "%s in %d of %d runs",
				 c->v->loss_expected ? "lost_wrap (I4)" : "broken", c->broken, reps);
			row.note = note;
		} else {
			row.values = c->ns;
			row.n = reps;
			row.median = c->median;
			row.min = c->min;
			row.max = c->max;
		}
		if (!c->broken && c->ref && !c->ref->broken)
			row.ratio_to = c->ref->v->name;
		bench_csv_row(f, &row);
	}
}

/* Refuse nothing, but say when the numbers cannot be trusted. */
static void print_machine_state(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double load1 = -1, load5 = -1, load15 = -1;
	char clocksource[64] = "unknown";
	FILE *f;

	f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf %lf %lf", &load1, &load5, &load15) != 3)
			load1 = -1;
		fclose(f);
	}
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f) {
		if (fscanf(f, "%63s", clocksource) != 1)
			strcpy(clocksource, "unknown");
		fclose(f);
	}
	printf("machine: %ld CPUs online, load average %.2f %.2f %.2f, clocksource %s\n",
	       cpus, load1, load5, load15, clocksource);
	if (load1 < 0)
		printf("warning: cannot read /proc/loadavg\n");
	else if (load1 > LOAD_WARN)
		printf("warning: 1-minute load average %.2f > %.1f: the machine is busy, numbers are unreliable\n",
		       load1, LOAD_WARN);
	if (cpus < MAX_THREADS)
		die("needs 2 CPUs");
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--quick] [--reps N] [--events N] [--markdown] [--csv FILE]\n"
		"  --quick     %d events per thread, %d repetitions (smoke run)\n"
		"  --reps N    repetitions of each configuration (default %d)\n"
		"  --events N  events per thread per run (default %d)\n"
		"  --markdown  also print the table in Markdown\n"
		"  --csv FILE  also write the table as the suite's CSV (bench/bench_csv.h)\n",
		prog, QUICK_EVENTS, QUICK_REPS, DEFAULT_REPS, DEFAULT_EVENTS);
	exit(2);
}

/* What the command line asks for. */
struct run_options {
	long events;		/* per thread per run */
	int reps;
	bool markdown;
	const char *csv;	/* NULL: no CSV */
};

/* Parses the command line into o (usage() on an error), sizes defaulting to --quick's or the full run's. */
static void parse_args(int argc, char **argv, struct run_options *o)
{
	static const struct option options[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "reps", required_argument, NULL, 'r' },
		{ "events", required_argument, NULL, 'e' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	bool quick = false;
	int opt;

	*o = (struct run_options){ 0 };
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quick = true;
			break;
		case 'r':
			o->reps = atoi(optarg);
			if (o->reps < 1)
				usage(argv[0]);
			break;
		case 'e':
			o->events = atol(optarg);
			if (o->events < 1)
				usage(argv[0]);
			break;
		case 'm':
			o->markdown = true;
			break;
		case 'c':
			o->csv = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind < argc)
		usage(argv[0]);
	if (!o->events)
		o->events = quick ? QUICK_EVENTS : DEFAULT_EVENTS;
	if (!o->reps)
		o->reps = quick ? QUICK_REPS : DEFAULT_REPS;
}

/*
 * Runs every configuration o->reps times, round-robin, and summarizes
 * those that are not broken; how many are broken other than by the loss
 * their variant expects.
 */
static int run_all(const struct run_options *o, const char *payload)
{
	int r, i, broken = 0;

	for (r = 0; r < o->reps; r++) {
		fprintf(stderr, "repetition %d/%d\n", r + 1, o->reps);
		for (i = 0; i < nconfigs; i++)
			run_config(&configs[i], r, o->events, payload);
	}
	for (i = 0; i < nconfigs; i++) {
		if (!configs[i].broken)
			summarize(&configs[i], o->reps);
		else if (!configs[i].v->loss_expected)
			broken++;
	}
	return broken;
}

/* The table (twice with --markdown) on stdout, and the CSV file if asked for. */
static void report(const struct run_options *o)
{
	printf("\nns per event per thread (median of %d runs, min, max); x = ratio of medians\n"
	       "to the tracer with the same threads and payload (per-CPU for 2 threads)\n\n",
	       o->reps);
	print_table(o->reps, false);
	if (o->markdown) {
		printf("\n");
		print_table(o->reps, true);
	}
	if (o->csv) {
		FILE *f = fopen(o->csv, "w");

		if (!f)
			die("cannot write the CSV file");
		write_csv(f, o->reps);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	struct run_options o;
	char payload[MAX_PAYLOAD];
	int i, broken;
	__u64 t0;

	parse_args(argc, argv, &o);
	print_machine_state();
	printf("%ld events per thread, %d repetitions, buffers of %d x %d KiB, overwrite mode\n",
	       o.events, o.reps, NSUBBUF, SUBBUF_SIZE / 1024);
	for (i = 0; i < MAX_PAYLOAD; i++)
		payload[i] = i;
	make_configs(o.reps);
	/* The progress lines go to stderr: keep the header before them. */
	fflush(stdout);

	t0 = tr_clock_monotonic_ns();
	broken = run_all(&o, payload);
	report(&o);
	printf("\ntotal time: %.1f s\n", (tr_clock_monotonic_ns() - t0) / 1e9);
	printf("\n\"tracer shared\": threads sharing one buffer lose records (lost_wrap) when\n"
	       "a writer is descheduled between reserve and commit while the other fills the\n"
	       "%d other sub-buffers (ringbuf.h, I4): the tracer's buffers are per CPU.\n",
	       NSUBBUF - 1);
	if (!broken)
		return 0;
	printf("\nerror: %d configurations lost events\n", broken);
	return 1;
}
