// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Part 2: the buffer path alone, in the kernel.  BPF_PROG_TEST_RUN of a
 * bpf_loop writing records: the tracer's writer (bpf/writer_loop.bpf.c,
 * and the same loop without its shared counters in bpf/bench_peers.bpf.c)
 * against BPF ringbuf reserve/submit, on 1 CPU and on 2 CPUs at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "buffers/bpfbuf.h"
#include "layout/ubuf.h"
#include "bench_peers.skel.h"
#include "writer_loop.skel.h"
#include "../bench_csv.h"
#include "peers.h"
#include "workloads.h"

#define LOOP_PAYLOADS	4

static const __u32 loop_payloads[LOOP_PAYLOADS] = { 0, 16, 64, 256 };

/* The loops measured: the BPF programs loop_prog_fd() runs. */
enum { L_TRACER, L_TRACER_PEER, L_RINGBUF, L_EMPTY, L_CLOCK, NLOOPS };

static const char *loop_keys[NLOOPS] = { "writer_loop", "tracer", "ringbuf", "empty", "clock" };

static const char *loop_labels[NLOOPS] = {
	"tracer writer: writer_loop (overwrite, 4 x 1 MiB per CPU; + a shared atomic counter per record)",
	"tracer writer: same loop without writer_loop's shared counters (bench_peers)",
	"BPF ringbuf reserve/submit (NO_WAKEUP, 8 MiB shared)",
	"empty bpf_loop callback",
	"bpf_ktime_get_ns only",
};

/* The measurements of one loop, payload and number of CPUs, in round order. */
struct loop_cell {
	double ns[MAX_ROUNDS];
	int n;
};

static struct loop_cell loops[NLOOPS][LOOP_PAYLOADS][MAX_THREADS + 1];

/* BPF ringbuf bp_rb_loop's positions: it has no reader, we move its consumer position ourselves. */
static volatile __u64 *rb_loop_consumer;
static const volatile __u64 *rb_loop_producer;

static struct writer_loop *wl_skel;
static struct tr_bpfbuf wl_bufs;
static char loop_problem[512];		/* why the figures may be wrong, or "" */
static int loop_repeated, loop_kept_disturbed, loop_runs;

/* Loads writer_loop and maps bp_rb_loop's positions; 0 or -errno, why in why. */
static int loop_setup(char *why, size_t len)
{
	struct trb_config cfg = { .subbuf_size = 1 << 20, .nsubbuf = 4, .mode = TR_MODE_OVERWRITE };
	long page = sysconf(_SC_PAGESIZE);
	int err = peers_setup(), i;
	void *p;

	if (err) {
		snprintf(why, len, "bench_peers: %s", strerror(-err));
		return err;
	}
	wl_skel = writer_loop__open();
	if (!wl_skel)
		return -errno;
	TR_BPFBUF_SET_GEOMETRY(wl_skel->rodata, &cfg, 1, ncpu);
	err = tr_bpfbuf_size_map(wl_skel->maps.trb_regions, &cfg, 1, ncpu);
	if (!err)
		err = writer_loop__load(wl_skel);
	if (!err)
		err = tr_bpfbuf_open(&wl_bufs, wl_skel->maps.trb_regions, &cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
	if (err) {
		snprintf(why, len, "writer_loop: %s", strerror(-err));
		writer_loop__destroy(wl_skel);
		wl_skel = NULL;
		return err;
	}
	for (i = 0; i < (int)sizeof(wl_skel->bss->trb_payload_src); i++)
		wl_skel->bss->trb_payload_src[i] = i * 13 + 7;
	for (i = 0; i < (int)sizeof(peers->bss->bp_payload_src); i++)
		peers->bss->bp_payload_src[i] = i * 13 + 7;
	/* The loop ringbuf has no reader: we move its consumer position ourselves. */
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(peers->maps.bp_rb_loop), 0);
	if (p == MAP_FAILED)
		return -errno;
	rb_loop_consumer = p;
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, bpf_map__fd(peers->maps.bp_rb_loop), page);
	if (p == MAP_FAILED)
		return -errno;
	rb_loop_producer = p;
	return 0;
}

/* The program of a loop. */
static int loop_prog_fd(int loop)
{
	switch (loop) {
	case L_TRACER: return bpf_program__fd(wl_skel->progs.trb_write_loop);
	case L_TRACER_PEER: return bpf_program__fd(peers->progs.bp_tracer_loop);
	case L_RINGBUF: return bpf_program__fd(peers->progs.bp_ringbuf_loop);
	case L_EMPTY: return bpf_program__fd(peers->progs.bp_empty_loop);
	default: return bpf_program__fd(peers->progs.bp_clock_loop);
	}
}

/* Records per program run: what fits in 80% of the ringbuf with every CPU writing. */
static long loop_chunk(__u32 payload, int threads)
{
	long rec = 8 + ((16 + payload + 7) & ~7u);

	return (long)(PEER_RB_BYTES * 0.8) / rec / threads;
}

/* What one CPU's thread runs and measures. */
struct loop_job {
	int loop, cpu, threads;
	__u32 payload;
	long records, chunk;
	pthread_barrier_t *barrier;
	__u64 busy_ns;
	int err;
};

/* A thread pinned to j->cpu: program runs of j->chunk records until j->records, timed. */
static void *loop_thread(void *p)
{
	struct loop_job *j = p;
	__u64 args[3];
	long done;

	pin_self(j->cpu);
	for (done = 0; done < j->records && !interrupted; done += j->chunk) {
		long n = j->records - done < j->chunk ? j->records - done : j->chunk;
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = j->cpu);
		__u64 t0;

		/* Between runs: the ringbuf emptied, as by a reader keeping up. */
		pthread_barrier_wait(j->barrier);
		if (j->cpu == 0)
			__atomic_store_n(rb_loop_consumer, __atomic_load_n(rb_loop_producer, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		pthread_barrier_wait(j->barrier);
		if (j->loop == L_TRACER) {
			args[0] = n;
			args[1] = 1;
			args[2] = j->payload;
		} else {
			args[0] = n;
			args[1] = j->payload;
			args[2] = 0;
		}
		t0 = now_ns();
		if (bpf_prog_test_run_opts(loop_prog_fd(j->loop), &o) || o.retval)
			j->err = -errno ? -errno : -EIO;
		j->busy_ns += now_ns() - t0;
	}
	return NULL;
}

/* ns per record per CPU: the time inside the program runs over the records of one CPU. */
static double run_loop(int loop, __u32 payload, int threads, long records, int *err)
{
	struct loop_job jobs[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	pthread_barrier_t barrier;
	double ns = 0;
	int i;

	pthread_barrier_init(&barrier, NULL, threads);
	for (i = 0; i < threads; i++) {
		jobs[i] = (struct loop_job){ .loop = loop, .cpu = i, .threads = threads,
					     .payload = payload, .records = records,
					     .chunk = loop_chunk(payload, threads), .barrier = &barrier };
		pthread_create(&th[i], NULL, loop_thread, &jobs[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		ns += (double)jobs[i].busy_ns / records / threads;
		if (jobs[i].err)
			*err = jobs[i].err;
	}
	pthread_barrier_destroy(&barrier);
	return ns;
}

/* run_loop(), again (at most MAX_ATTEMPTS) while others used the CPUs during it. */
static double run_loop_quiet(int loop, __u32 payload, int threads, long records, int *err)
{
	struct cpu_sample a, b;
	double ns = 0, others = 0, steal = 0;
	int attempt;

	loop_runs++;
	for (attempt = 1; attempt <= MAX_ATTEMPTS && !interrupted; attempt++) {
		cpu_sample(&a);
		ns = run_loop(loop, payload, threads, records, err);
		cpu_sample(&b);
		cpu_others(&a, &b, &others, &steal);
		if (others <= DISTURBED && steal <= DISTURBED)
			return ns;
		loop_repeated += attempt == 1;
	}
	loop_kept_disturbed++;
	return ns;
}

/* One round: every loop, payload and number of CPUs once; a failed run's -errno in *err. */
static void measure_round(int *err)
{
	int l, p, t;

	for (l = 0; l < NLOOPS; l++)
		for (p = 0; p < LOOP_PAYLOADS; p++) {
			if ((l == L_EMPTY || l == L_CLOCK) && p)
				continue;
			for (t = 1; t <= MAX_THREADS && t <= ncpu; t++) {
				struct loop_cell *e = &loops[l][p][t];

				/* The other payloads only show the trend: half the records. */
				long n = loop_payloads[p] == 16 ? opt.loop_records : opt.loop_records / 2;

				e->ns[e->n++] = run_loop_quiet(l, loop_payloads[p], t, n, err);
			}
		}
}

void buffer_path_run(void)
{
	__u64 wl_written0, wl_failed0, rb_failed0;
	int round, err = 0;

	if (loop_setup(loop_problem, sizeof(loop_problem))) {
		progress("in-kernel loops: %s\n", loop_problem);
		return;
	}
	wl_written0 = wl_skel->bss->trb_written;
	wl_failed0 = wl_skel->bss->trb_failed;
	rb_failed0 = peers->bss->bp_loop_failed;
	for (round = 0; round < opt.rounds && !interrupted; round++) {
		progress("in-kernel loops, round %d/%d\n", round + 1, opt.rounds);
		measure_round(&err);
	}
	if (err)
		snprintf(loop_problem, sizeof(loop_problem), "a program run failed: %s", strerror(-err));
	if (wl_skel->bss->trb_failed != wl_failed0 || peers->bss->bp_loop_failed != rb_failed0)
		snprintf(loop_problem, sizeof(loop_problem),
			 "records not written: tracer %llu (of %llu), ringbuf %llu",
			 (unsigned long long)(wl_skel->bss->trb_failed - wl_failed0),
			 (unsigned long long)(wl_skel->bss->trb_written - wl_written0),
			 (unsigned long long)(peers->bss->bp_loop_failed - rb_failed0));
}

/* The table's row of loop l with payload p: median (min-max) on 1 and on 2 CPUs. */
static void print_row(FILE *out, int l, int p)
{
	int t;

	if (l >= L_EMPTY)
		fprintf(out, "| %s | - |", loop_labels[l]);
	else
		fprintf(out, "| %s | %u |", loop_labels[l], loop_payloads[p]);
	for (t = 1; t <= MAX_THREADS; t++) {
		struct loop_cell *e = &loops[l][p][t];

		if (e->n)
			fprintf(out, " %.1f (%.1f-%.1f) |", median(e->ns, e->n),
				vmin(e->ns, e->n), vmax(e->ns, e->n));
		else
			fprintf(out, " - |");
	}
	fprintf(out, "\n");
}

/* Median ns per record of loop l, payload index p, t CPUs. */
static double loop_median(int l, int p, int t)
{
	return median(loops[l][p][t].ns, loops[l][p][t].n);
}

/* Per payload: the tracer's writers against BPF ringbuf, and without the clock read. */
static void print_ratios(FILE *out)
{
	int p;

	for (p = 0; p < LOOP_PAYLOADS; p++) {
		if (!loops[L_TRACER][p][1].n || !loops[L_RINGBUF][p][1].n || !loops[L_TRACER_PEER][p][1].n)
			continue;
		fprintf(out, "- payload %u: tracer / ringbuf = %.2f (1 CPU), %.2f (2 CPUs); "
			"writer_loop / ringbuf = %.2f (1 CPU), %.2f (2 CPUs)", loop_payloads[p],
			loop_median(L_TRACER_PEER, p, 1) / loop_median(L_RINGBUF, p, 1),
			loop_median(L_TRACER_PEER, p, 2) / loop_median(L_RINGBUF, p, 2),
			loop_median(L_TRACER, p, 1) / loop_median(L_RINGBUF, p, 1),
			loop_median(L_TRACER, p, 2) / loop_median(L_RINGBUF, p, 2));
		if (loops[L_CLOCK][0][1].n)
			fprintf(out, "; without the clock read: tracer %.1f ns, ringbuf %.1f ns (1 CPU)",
				loop_median(L_TRACER_PEER, p, 1) - loop_median(L_CLOCK, 0, 1),
				loop_median(L_RINGBUF, p, 1) - loop_median(L_CLOCK, 0, 1));
		fprintf(out, "\n");
	}
}

void buffer_path_print(FILE *out)
{
	int l, p;

	fprintf(out, "## 2. The buffer path alone: a bpf_loop run with BPF_PROG_TEST_RUN\n\n");
	fprintf(out, "%ld records per CPU per measurement (half as many for payloads other than 16), in program runs of at most what fills 80%% "
		"of the 8 MiB ringbuf (which is emptied between runs, as by a reader that keeps up); "
		"\"2 CPUs\": both CPUs run the loop at the same time, ns per record per CPU. "
		"Record = 16-byte header (timestamp from bpf_ktime_get_ns, id, size) + payload "
		"copied with bpf_probe_read_kernel. %d rounds, median (min-max).\n\n",
		opt.loop_records, opt.rounds);
	if (loop_problem[0])
		fprintf(out, "**Problem: %s**\n\n", loop_problem);
	fprintf(out, "%d of %d measurements were repeated because other processes used more than %.0f%% of a "
		"CPU during them; %d stayed disturbed after %d attempts.\n\n", loop_repeated, loop_runs,
		DISTURBED * 100, loop_kept_disturbed, MAX_ATTEMPTS);
	fprintf(out, "| loop | payload bytes | 1 CPU ns/record | 2 CPUs ns/record |\n|---|---|---|---|\n");
	for (l = 0; l < NLOOPS; l++)
		for (p = 0; p < LOOP_PAYLOADS; p++)
			if (loops[l][p][1].n)
				print_row(out, l, p);
	fprintf(out, "\n");
	print_ratios(out);
	fprintf(out, "\n");
}

/* The CSV row of loop l, payload index p, t CPUs. */
static void csv_row(FILE *f, int l, int p, int t)
{
	struct loop_cell *e = &loops[l][p][t], *rb = &loops[L_RINGBUF][p][t];
	char payload[16] = "";
	struct bench_row row;

	if (l < L_EMPTY)
		snprintf(payload, sizeof(payload), "%u", loop_payloads[p]);
	row = (struct bench_row){ .workload = "loop", .config = loop_keys[l],
			.label = loop_labels[l], .threads = t, .param = payload,
			.unit = "ns/record", .values = e->ns, .n = e->n,
			.median = median(e->ns, e->n), .min = vmin(e->ns, e->n),
			.max = vmax(e->ns, e->n), .note = loop_problem };
	if (l < L_EMPTY && rb->n)
		row.ratio_to = "ringbuf";
	bench_csv_row(f, &row);
}

void buffer_path_csv(FILE *f)
{
	int l, p, t;

	for (l = 0; l < NLOOPS; l++)
		for (p = 0; p < LOOP_PAYLOADS; p++)
			for (t = 1; t <= MAX_THREADS; t++)
				if (loops[l][p][t].n)
					csv_row(f, l, p, t);
}

void buffer_path_teardown(void)
{
	if (wl_skel) {
		tr_bpfbuf_close(&wl_bufs);
		writer_loop__destroy(wl_skel);
	}
}
