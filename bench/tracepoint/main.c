// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracepoint_bench: what recording one tracepoint event costs, per event,
 * with this tracer and with its peers, on this machine.  Method and last
 * results: bench/tracepoint_bench.md; this folder's files: README.md.
 *
 *  1. A generator makes getppid() calls from 1 thread (pinned to CPU 0) or
 *     2 threads (CPUs 0 and 1) while one configuration records
 *     syscalls:sys_enter_getppid: nothing; an empty BPF program; the
 *     tracer CLI (build/tracer record -a, a subprocess writing to disk);
 *     the tracer's BPF program alone (in this process, overwrite mode, no
 *     reader); BPF ringbuf; perf buffer; perf record; trace-cmd record, or
 *     when trace-cmd cannot run, the kernel's ftrace ring buffer through
 *     tracefs with a reader writing to a file.  Configurations are
 *     interleaved, several rounds; wall ns per call per thread.
 *  2. The buffer path alone: BPF_PROG_TEST_RUN of a bpf_loop writing
 *     records, the tracer's writer (bpf/writer_loop.bpf.c, and the same
 *     loop without its shared counters in bpf/bench_peers.bpf.c) against
 *     BPF ringbuf reserve/submit, on 1 CPU and on 2 CPUs at once.
 *  3. Saturation: the tracer CLI recording 2 threads calling as fast as
 *     they can; events/s and losses.
 *  4. Where loss begins: the tracer CLI recording 4 events per call
 *     (raw_syscalls and the call's own enter/exit) while 2 threads call
 *     at fixed rates; the lowest rate that loses events, and the loss at
 *     twice that rate.
 * Then the targets of the issue, PASS or FAIL with the numbers.
 *
 *   tracepoint_bench [--quick] [--rounds N] [--calls N] [--loop-records N]
 *                    [--sat-calls N] [--ladder M,...] [--ladder-secs S]
 *                    [--syscall NAME] [--only KEY,...] [--diag] [--tracer PATH]
 *                    [--csv FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "../bench_csv.h"
#include "configs.h"
#include "peers.h"
#include "workloads.h"

/* Stops what runs and releases what was made, once: at exit, or on a second signal. */
static void cleanup(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	stop_child(SIGINT, 10000, NULL);
	bpf_link__destroy(cur_link);
	cur_link = NULL;
	ftrace_teardown();
	restore_top_tracefs();
	tracer_prog_teardown();
	buffer_path_teardown();
	ringbuf_teardown();
	perfbuf_teardown();
	bench_peers_teardown();
	if (tmpdir[0])
		rm_rf(tmpdir);
	unmount_tracefs_if_ours();
}

/* The first signal asks the parts to stop; a second one exits at once. */
static void on_signal(int sig)
{
	if (interrupted) {
		cleanup();
		_exit(128 + sig);
	}
	interrupted = sig;
}

/* Cleanup at exit and on SIGINT, SIGTERM, SIGHUP; SIGPIPE ignored. */
static void handle_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	atexit(cleanup);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Is the part named key (loops, saturation, ladder) to run: no --only, or listed in it? */
static bool part_wanted(const char *key)
{
	return !opt.only || key_listed(opt.only, key);
}

/*
 * Sets each configuration up, those --only leaves out aside (none, empty
 * and ringbuf always run); says on stderr which are not measured and why.
 */
static void set_up_configs(void)
{
	int c;

	for (c = 0; c < NCONFIGS; c++) {
		if (opt.only && c != C_NONE && c != C_EMPTY && c != C_RINGBUF &&
		    !key_listed(opt.only, configs[c].key)) {
			snprintf(configs[c].why, sizeof(configs[c].why), "not in --only %s", opt.only);
			continue;
		}
		configs[c].available = !configs[c].setup || configs[c].setup(&configs[c]) == 0;
		if (!configs[c].available)
			progress("not measured: %s: %s\n", configs[c].key, configs[c].why);
	}
}

/* Runs the parts asked for, in order, until one is interrupted. */
static void run_parts(void)
{
	per_event_run();
	if (!interrupted && part_wanted("loops"))
		buffer_path_run();
	if (!interrupted && part_wanted("saturation"))
		saturation_run();
	if (!interrupted && part_wanted("ladder"))
		loss_onset_run();
}

/* The parts' sections and the targets on stdout; how many targets failed. */
static int print_parts(void)
{
	per_event_print(stdout);
	if (part_wanted("loops"))
		buffer_path_print(stdout);
	if (part_wanted("saturation"))
		saturation_print(stdout);
	if (part_wanted("ladder"))
		loss_onset_print(stdout);
	return targets_print(stdout);
}

/* Every part's rows, in the suite's CSV (bench/bench_csv.h); 0 or -errno. */
static int write_csv(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	bench_csv_header(f);
	per_event_csv(f);
	buffer_path_csv(f);
	saturation_csv(f);
	loss_onset_csv(f);
	return fclose(f) ? -errno : 0;
}

/* Root, signals, the temporary directory and tracefs; 0, or 1 after saying why not. */
static int prepare(void)
{
	int err;

	ncpu = libbpf_num_possible_cpus();
	if (geteuid()) {
		fprintf(stderr, "tracepoint_bench: needs root (BPF, tracefs, perf -a)\n");
		return 1;
	}
	libbpf_set_print(NULL);
	handle_signals();
	if (make_tmpdir())
		return 1;
	err = ensure_tracefs();
	if (err) {
		fprintf(stderr, "tracepoint_bench: cannot mount tracefs: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	__u64 t0 = now_ns();
	char loadavg[128];
	int err, fails;

	parse_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prepare())
		return 1;
	printf("# tracepoint_bench%s\n\n", opt.quick ? " --quick (smoke run: numbers are not meaningful)" : "");
	machine_state(stdout);
	remove_stale_instances();
	set_up_configs();
	run_parts();
	if (interrupted) {
		fprintf(stderr, "interrupted\n");
		return 130;
	}
	fails = print_parts();
	if (opt.csv && (err = write_csv(opt.csv)))
		fprintf(stderr, "tracepoint_bench: cannot write %s: %s\n", opt.csv, strerror(-err));
	printf("Run time %.0f s; loadavg at the end: ", (now_ns() - t0) / 1e9);
	printf("%s\n", read_str("/proc/loadavg", loadavg, sizeof(loadavg)));
	return fails ? 3 : 0;
}
