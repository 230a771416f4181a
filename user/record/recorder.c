// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record.  Order matters so that nothing is lost and a killed
 * recorder leaves a readable trace:
 *   resolve events -> load BPF, fill the filter maps, set up the buffers
 *   (BPF map regions, or the kernel module's) -> create the trace
 *   directory -> write the metadata -> start the command (held) ->
 *   attach -> release the command -> consume until stopped -> detach ->
 *   flush and drain every buffer -> summary.
 *
 * This file sets the session up, attaches the BPF programs, runs the
 * command and the consumer's loop; record/programs.c loads the programs
 * for the backend it chooses, record/consume.c reads the buffers into the
 * outputs, record/output.c writes the trace directory (record/README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <tracer/filter.h>

#include "layout/ubuf.h"
#include "record/recursion_misses.h"
#include "events/probes.h"
#include "record/statedump.h"
#include "record.skel.h"
#include "record/session.h"

static volatile sig_atomic_t stop_requested, snapshot_requested;
static volatile sig_atomic_t in_run, give_up_relay;	/* run() runs; waits on the relay end */

/*
 * SIGINT, SIGTERM: stop.  The stop that ends run() lets what was recorded
 * go on to the relay, each command within its deadline; any other (while
 * setting up or finishing, or a second one) gives up waiting on the relay:
 * nothing recorded is lost by it that waiting would have sent.
 */
static void on_stop_signal(int sig)
{
	(void)sig;
	if (stop_requested || !in_run)
		give_up_relay = 1;
	stop_requested = 1;
}

/* SIGUSR2: a snapshot, with --flight-recorder (as perf record --switch-output=signal). */
static void on_snapshot_signal(int sig)
{
	(void)sig;
	snapshot_requested = 1;
}

static __u64 now_ns(void)
{
	return tr_clock_monotonic_ns();
}

/* --- Attaching ------------------------------------------------------------ */

/* sys_enter's and sys_exit's programs, where loaded, into links[0] and [1]. */
static int attach_syscall_programs(struct session *s, struct bpf_link **links)
{
	struct bpf_program *progs[2] = { s->skel->progs.tr_sys_enter, s->skel->progs.tr_sys_exit };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			rec_say("cannot attach to the raw %s tracepoint: %s", i ? "sys_exit" : "sys_enter",
			    strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/*
 * New tasks and new command names (and, with user stacks, new code
 * mappings) are followed from before the state dump, which comes before
 * any recorded event: every task a record names is named before it,
 * whenever it appeared.
 */
static int follow_tasks(struct session *s)
{
	struct record *skel = s->skel;
	int err;

	skel->links.tr_task_new = bpf_program__attach(skel->progs.tr_task_new);
	if (skel->links.tr_task_new)
		skel->links.tr_task_rename = bpf_program__attach(skel->progs.tr_task_rename);
	if (!skel->links.tr_task_new || !skel->links.tr_task_rename) {
		rec_say("cannot follow new tasks and their command names (task:task_newtask, task:task_rename): %s",
			strerror(errno));
		return -errno;
	}
	if (s->vm_map_id) {
		skel->links.tr_vm_exec = bpf_program__attach(skel->progs.tr_vm_exec);
		if (skel->links.tr_vm_exec)
			skel->links.tr_vm_mmap = bpf_program__attach(skel->progs.tr_vm_mmap);
		if (!skel->links.tr_vm_exec || !skel->links.tr_vm_mmap) {
			rec_say("cannot follow where user code is mapped (sched:sched_process_exec, raw sys_exit): %s",
				strerror(errno));
			return -errno;
		}
	}
	err = rec_state_dump(s);
	if (err)
		rec_say("the state dump failed (a BPF task iterator): %s", strerror(-err));
	return err;
}

static int attach(struct session *s)
{
	unsigned int i;
	int err;
	__u32 child;
	__u8 yes = 1;

	if (s->child) {
		child = s->child;
		if (bpf_map__update_elem(s->skel->maps.tr_pids, &child, sizeof(child),
					 &yes, 1, BPF_ANY))
			return -errno;
	}
	if (s->skel->rodata->tr_follow_forks) {
		s->skel->links.tr_follow_fork = bpf_program__attach(s->skel->progs.tr_follow_fork);
		if (!s->skel->links.tr_follow_fork) {
			rec_say("cannot follow the command's children: %s", strerror(errno));
			return -errno;
		}
	}
	err = follow_tasks(s);
	if (err)
		return err;
	s->nlinks = s->events.count + 2;
	s->links = calloc(s->nlinks, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	err = attach_syscall_programs(s, s->links + s->events.count);
	if (err)
		return err;
	for (i = 0; i < s->events.count; i++) {
		const struct tr_event *ev = &s->events.events[i];
		LIBBPF_OPTS(bpf_tracepoint_opts, topts, .bpf_cookie = ev->id);

		if (stop_requested || s->write_error)
			return -ECANCELED;
		if (ev->probe) {
			err = rec_probe_attach(s, i);
			if (err)
				return err;
			continue;
		}
		if (ev->not_a_tracepoint || rec_by_syscall(s, ev))
			continue;
		s->links[i] = bpf_program__attach_tracepoint_opts(s->skel->progs.tr_tracepoint,
								  ev->system, ev->name, &topts);
		if (!s->links[i]) {
			rec_say("cannot attach to %s:%s: %s", ev->system, ev->name, strerror(errno));
			return -errno;
		}
		s->nattached++;
		err = s->kmod_via_perf ? tr_kmodbuf_add_tracepoint(&s->buffers.kmod, ev->id, &ev->shape) : 0;
		if (err) {
			rec_say("the module cannot open perf events on %s:%s: %s", ev->system, ev->name,
			    strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Attaching runs beside the consumer: hundreds of tracepoints take
 * seconds to attach, and what the first ones record meanwhile must not
 * fill the buffers unread.  The eventfd wakes the consumer when it is done.
 */
static void *attach_all(void *arg)
{
	struct session *s = arg;
	__u64 one = 1;

	s->attach_err = attach(s);
	if (write(s->attached_fd, &one, sizeof(one)) != sizeof(one))
		s->attach_err = s->attach_err ?: -errno;
	return NULL;
}

static int start_attaching(struct session *s)
{
	int err;

	s->attached_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->attached_fd < 0)
		return -errno;
	err = tr_waiter_watch(&s->waiter, s->attached_fd, EPOLLIN);
	if (!err)
		err = -pthread_create(&s->attacher, NULL, attach_all, s);
	s->attaching = !err;
	return err;
}

/*
 * Waits for the attacher, if it was started and not yet joined; its result.
 * A stop asked for while it attached is none: what was recorded is kept.
 */
static int finish_attaching(struct session *s)
{
	if (s->attaching)
		pthread_join(s->attacher, NULL);
	s->attaching = 0;
	if (s->attach_err == -ECANCELED && stop_requested && !s->write_error) {
		rec_say("stopped while attaching, after %u tracepoints; what they recorded is kept",
			s->nattached);
		s->attach_err = 0;
	}
	return s->attach_err;
}

#define DETACH_THREADS	16

struct detacher {
	struct session *s;
	unsigned int first;
};

static void *detach_some(void *arg)
{
	const struct detacher *d = arg;
	unsigned int i;

	for (i = d->first; i < d->s->nlinks; i += DETACH_THREADS) {
		bpf_link__destroy(d->s->links[i]);
		rec_probe_detach(d->s, i);
	}
	return NULL;
}

/*
 * Stop recording at once, then detach.  Each detach waits for an RCU
 * grace period in the kernel (tens of ms here), so hundreds of events
 * (syscalls:*) detach from several threads, whose waits overlap.
 */
static void detach(struct session *s)
{
	struct detacher d[DETACH_THREADS];
	pthread_t t[DETACH_THREADS];
	unsigned int i, started = 0;

	if (s->skel)
		s->skel->bss->tr_stopped = true;
	finish_attaching(s);
	if (!s->links)
		return;
	for (i = 0; i < DETACH_THREADS; i++) {
		d[i] = (struct detacher) { s, i };
		if (pthread_create(&t[started], NULL, detach_some, &d[i]))
			detach_some(&d[i]);
		else
			started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(s->links);
	s->links = NULL;
}

/* --- The command ------------------------------------------------------------ */

/* Fork the command, held until release_command() so no event is missed. */
static int start_command(struct session *s)
{
	int go[2], err;
	char byte;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	err = rec_ust_command_socket(s);
	if (err)
		return err;
	s->child = fork();
	if (s->child < 0) {
		s->child = 0;	/* no command: kill(-1, ...) at the end would end every process */
		return -errno;
	}
	if (s->child == 0) {
		pthread_sigmask(SIG_SETMASK, &s->waiter.before, NULL);
		rec_ust_in_command(s);
		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(s->o->command[0], s->o->command);
		fprintf(stderr, "tracer record: cannot run %s: %s\n", s->o->command[0],
			strerror(errno));
		_exit(127);
	}
	rec_ust_command_started(s);
	close(go[0]);
	s->release_fd = go[1];
	return 0;
}

static void release_command(struct session *s)
{
	if (s->child && write(s->release_fd, "g", 1) != 1)
		kill(s->child, SIGKILL);
	close(s->release_fd);
	s->release_fd = -1;
}

/*
 * The status line is redrawn in place, so only while this process owns
 * the terminal: in the background it would draw over the shell's prompt
 * and what the user types there.
 */
static int owns_terminal(void)
{
	return isatty(STDERR_FILENO) && tcgetpgrp(STDERR_FILENO) == getpgrp();
}

static void status_line(struct session *s, __u64 start, __u64 now)
{
	double secs = (now - start) / 1e9;

	if (!owns_terminal())
		return;
	fprintf(stderr, "\r[ %.1f s  %.0f events/s  %.1f MiB written  %llu lost ]  ",
		secs, secs > 0 ? s->records / secs : 0.0, s->bytes / 1048576.0,
		(unsigned long long)rec_lost_total(s));
	s->status_drawn = 1;
}

/* Erase it: the summary and the shell's prompt start on a clean line. */
static void status_line_erase(const struct session *s)
{
	if (s->status_drawn && owns_terminal())
		fputs("\r\033[K", stderr);
}

static int command_running(struct session *s)
{
	if (!s->child)
		return 1;
	if (waitpid(s->child, &s->child_status, WNOHANG) == s->child) {
		s->child = 0;
		return 0;
	}
	return 1;
}

/*
 * What the kernel skipped since the last reading, as a record in the
 * buffer of the CPU this runs on (the counters do not say which CPU).
 */
static void record_misses(struct session *s, __u64 now)
{
	int cpu = sched_getcpu();

	s->misses = tr_recursion_misses(s->skel->obj) + rec_probes_misses(s);
	if (s->misses == s->misses_recorded || s->misses_event == TR_KMOD_NO_EVENT)
		return;
	if (cpu < 0 || (unsigned int)cpu >= s->ncpu)
		cpu = 0;
	/* A record lost to a full buffer is counted there; its count is retried. */
	if (!tr_misses_write(&s->buffers.bpf.buf[cpu], s->misses_event,
			     s->misses - s->misses_recorded, s->last_misses_read)) {
		s->misses_recorded = s->misses;
		s->last_misses_read = now;
	}
}

/*
 * Once everything is attached the command may start and the clock runs.
 * 1 when recording, 0 while still attaching, -errno if attaching failed.
 */
static int start_recording(struct session *s)
{
	__u64 done;
	int err;

	if (read(s->attached_fd, &done, sizeof(done)) != sizeof(done))
		return 0;
	err = finish_attaching(s);
	if (err)
		return err;
	release_command(s);
	s->recording = 1;
	if (s->child) {
		s->child_fd = pidfd_open(s->child, 0);
		if (s->child_fd >= 0)
			tr_waiter_watch(&s->waiter, s->child_fd, EPOLLIN);
	} else if (!s->live) {
		/*
		 * Without a command, say when recording starts (scripts wait
		 * for it), once the libtracer-ust programs already running in
		 * its scope are found and their buffers taken.
		 */
		rec_ust_consume(s);
		rec_say("recording %u tracepoints; Ctrl-C stops", s->nattached);
	}
	return 1;
}

/* SIGUSR2, and (last) the end of a flight recording. */
static void snapshot(struct session *s, int last)
{
	char said[1024];

	if (!s->o->flight_recorder)
		return;
	rec_snapshot(s, last, said, sizeof(said));
	rec_say("%s", said);
}

/*
 * --snapshot-on fired and froze the buffers: the snapshot holds what came
 * before it; then the writers go on.
 */
static void triggered_snapshot(struct session *s)
{
	const struct tr_event *ev = &s->events.events[s->trigger_id];
	char said[1024];

	rec_snapshot(s, 0, said, sizeof(said));
	__atomic_store_n(&s->skel->bss->tr_frozen, 0, __ATOMIC_RELEASE);
	rec_say("%s:%s fired: %s", ev->system, ev->name, said);
}

static __u64 earliest(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

/*
 * Consume until stopped (a flight recorder only takes the snapshots asked
 * for, and reads the programs' misses).  The consumer sleeps until a sub-buffer is
 * delivered (the writers' notices, or the module's poll()), the command
 * exits, or the next flush, status line or end of --duration is due:
 * idle, it wakes 1000/flush_ms times a second.
 */
static void run(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	const __u64 flush_ns = o->flush_ms * 1000000ull, never = ~0ull;
	__u64 start = now_ns(), next_flush = start + flush_ns, next_status = never, end = never;
	int status = isatty(STDERR_FILENO) && !s->live, had_command = s->child != 0;

	s->last_misses_read = start;
	while (!stop_requested && !s->write_error && !(s->live && rec_live_stop_asked(s))) {
		__u64 now = now_ns(), wake;
		int flushed = 0;

		if (!s->recording && start_recording(s)) {
			if (!s->recording)
				break;
			start = now;
			end = o->duration > 0 ? now + o->duration * 1e9 : never;
			next_status = status ? now + 1000000000ull : never;
		}
		if (s->recording && had_command && !command_running(s))
			break;
		if (now >= end)
			break;
		if (now >= next_flush) {
			if (!o->flight_recorder)
				s->buffers.ops->flush_due(&s->buffers);
			record_misses(s, now);
			next_flush = now + flush_ns;
			flushed = 1;
		}
		if (!o->flight_recorder)
			rec_consume(s);
		if (flushed)
			rec_outputs_flush(s, now);
		rec_ust_consume(s);
		rec_outputs_round(s, now, 0);
		if (snapshot_requested) {
			snapshot_requested = 0;
			snapshot(s, 0);
		}
		if (s->skel->bss->tr_frozen)
			triggered_snapshot(s);
		rec_control_serve(s);
		if (now >= next_status) {
			status_line(s, start, now);
			next_status = now + 1000000000ull;
		}
		wake = earliest(earliest(next_flush, next_status), end);
		tr_waiter_wait(&s->waiter, (wake - now + 999999) / 1000000);
		tr_buffers_drain_notices(&s->buffers);
	}
	/* A trigger that fired before the end has its snapshot, not the last one's. */
	if (s->recording && s->skel->bss->tr_frozen)
		triggered_snapshot(s);
	status_line_erase(s);
}

/* --- Summary ------------------------------------------------------------- */

/* Records not written while --snapshot-on's trigger froze the buffers. */
static __u64 frozen_drops(const struct session *s)
{
	__u64 *per_cpu = calloc(s->ncpu, sizeof(*per_cpu)), sum = 0;
	__u32 zero = 0;
	unsigned int cpu;

	if (per_cpu && !bpf_map__lookup_elem(s->skel->maps.tr_frozen_drops, &zero, sizeof(zero),
					     per_cpu, s->ncpu * sizeof(*per_cpu), 0))
		for (cpu = 0; cpu < s->ncpu; cpu++)
			sum += per_cpu[cpu];
	free(per_cpu);
	return sum;
}

static void summary(struct session *s)
{
	__u64 frozen = frozen_drops(s);
	unsigned int i;

	if (s->o->flight_recorder)
		fprintf(stderr, "tracer %s: %u snapshot%s, ", rec_said_as(), s->snapshots,
			s->snapshots == 1 ? "" : "s");
	else
		fprintf(stderr, "tracer %s: ", rec_said_as());
	fprintf(stderr, "%lu events, %.1f MiB in %s (backend %s, clock %s)\n",
		s->records, s->bytes / 1048576.0, s->o->relay_only ? "the relay" : s->o->output,
		s->buffers.ops->name, rec_clock_name(s));
	for (i = 0; i < s->events.count; i++)
		if (s->per_event[i])
			fprintf(stderr, "  %10lu  %s:%s\n", s->per_event[i],
				s->events.events[i].system, s->events.events[i].name);
	fprintf(stderr, "  task records: %llu (state dump%s, new tasks, new command names)\n",
		(unsigned long long)s->skel->bss->tr_task_records,
		s->o->flight_recorder ? "s at the start and at each snapshot" : " at the start");
	rec_vm_map_summary(s);
	rec_channels_summary(s);
	rec_ust_summary(s);
	rec_outputs_summary(s);
	if (s->misses)
		fprintf(stderr, "  all cpus lost: %llu skipped by the kernel (a BPF program was already running on their CPU: recursion misses)\n",
			(unsigned long long)s->misses);
	if (frozen)
		fprintf(stderr, "  all cpus lost: %llu not written while the buffers were frozen for a triggered snapshot\n",
			(unsigned long long)frozen);
}

/* --- Entry point ----------------------------------------------------------- */

static int create_trace_dir(struct session *s)
{
	char why[1024];
	int err = tr_trace_dir_create(&s->dir, s->o->output, s->o->force, why, sizeof(why));

	if (err)
		rec_say("%s", why);
	return err;
}

/* What the probes' set-up found that the user should know (events/probes.h). */
static void say_probe_notes(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->events.count; i++)
		if (s->events.events[i].probe && s->events.events[i].probe->note[0])
			rec_say("%s", s->events.events[i].probe->note);
}

/* The -e specs into s->events, but libtracer-ust's, which record/ust_buffers.c takes. */
static int resolve_events(struct session *s, char *why, size_t whylen)
{
	unsigned int n = s->o->nevents;
	const char **specs = calloc(n + 1, sizeof(*specs)), **filters = calloc(n + 1, sizeof(*filters));
	unsigned int *channels = calloc(n + 1, sizeof(*channels));
	int err = specs && filters && channels ? 0 : -ENOMEM;

	if (!err)
		err = rec_ust_split_specs(s, specs, filters, channels, &n, why, whylen);
	if (!err)
		err = tr_events_resolve(&s->events, specs, filters, channels, n, why, whylen);
	else if (err == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	free(specs);
	free(filters);
	free(channels);
	return err;
}

static int setup(struct session *s)
{
	char why[1024];
	int err;

	err = tr_tracefs_mount();
	if (err) {
		rec_say("tracefs is not mounted and mounting it failed (%s): run as root, or mount -t tracefs nodev /sys/kernel/tracing",
		    strerror(-err));
		return err;
	}
	s->self = getpid();
	err = resolve_events(s, why, sizeof(why));
	if (!err && s->o->snapshot_on)
		err = tr_events_add_trigger(&s->events, s->o->snapshot_on, &s->trigger_id,
					    &s->trigger_recorded, &s->trigger, why, sizeof(why));
	if (!err) {
		s->task_state_id = s->events.count;
		err = tr_events_add_format(&s->events, "tracer", "task_state", tr_task_state_format);
		if (err)
			snprintf(why, sizeof(why), "cannot declare tracer:task_state: %s", strerror(-err));
	}
	if (!err)
		err = rec_declare_vm_map(s, why, sizeof(why));
	if (err) {
		rec_say("%s", why);
		return err;
	}
	say_probe_notes(s);
	err = rec_load_bpf(s);
	if (!err)
		err = rec_relay_connect(s);
	if (!err && s->o->output)
		err = create_trace_dir(s);
	s->per_event = calloc(s->events.count, sizeof(*s->per_event));
	if (!err && s->o->flight_recorder)
		err = rec_control_open(s);
	if (!err && s->o->output && !s->o->flight_recorder)
		err = rec_write_metadata(s);
	if (!err && s->o->output && !s->o->flight_recorder && !s->o->relay_only)
		err = rec_open_streams(s);
	if (!err)
		err = rec_ust_start(s);
	if (!err)
		err = rec_relay_start(s);
	if (!err && s->o->live)
		err = rec_live_open(s);
	if (!err && s->o->live && s->o->live->stop_fd >= 0)
		err = tr_waiter_watch(&s->waiter, s->o->live->stop_fd, EPOLLIN);
	if (!err && s->o->command)
		err = start_command(s);
	if (!err)
		err = start_attaching(s);
	return err;
}

static void teardown(struct session *s)
{
	detach(s);
	if (s->skel)
		record__destroy(s->skel);
	tr_buffers_close(&s->buffers);
	rec_control_close(s);
	rec_ust_close(s);
	rec_outputs_close(s);
	tr_trace_dir_close(&s->dir);
	close(s->release_fd);
	close(s->attached_fd);
	close(s->child_fd);
	tr_waiter_close(&s->waiter);
	free(s->per_event);
	free(s->trampolines);
	tr_events_free(&s->events);
}

/* How the command ended, as a shell reports it: its exit code, or 128 + the signal. */
static int shell_status(int wstatus)
{
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
}

int tr_record(const struct tr_record_opts *o)
{
	struct sigaction stop = { .sa_handler = on_stop_signal };
	struct sigaction ask_snapshot = { .sa_handler = on_snapshot_signal, .sa_flags = SA_RESTART };
	struct session s = {
		.dir = TR_TRACE_DIR_CLOSED,
		.o = o, .ncpu = libbpf_num_possible_cpus(), .buffers = TR_BUFFERS_CLOSED,
		.attached_fd = -1, .child_fd = -1, .release_fd = -1, .waiter = { .epoll_fd = -1 }, .misses_event = TR_KMOD_NO_EVENT,
		.control_fd = -1, .trigger_id = TR_NO_TRIGGER, .give_up_relay = &give_up_relay,
	};
	int err, status = 0;

	rec_say_as(o->name);
	if (rec_channels_set(&s))
		return 2;
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGUSR2, &ask_snapshot, NULL);
	rec_libbpf_messages(o->verbose);
	err = tr_waiter_init(&s.waiter);
	if (!err)
		err = setup(&s);
	s.command = s.child;
	if (!err) {
		in_run = 1;
		run(&s);
		in_run = 0;
		if (o->flight_recorder && s.recording)
			rec_snapshot_dump(&s);
		detach(&s);
		err = finish_attaching(&s);
	}
	if (!err) {
		record_misses(&s, now_ns());
		if (o->flight_recorder) {
			snapshot(&s, 1);
		} else {
			s.buffers.ops->finish(&s.buffers);
			rec_consume(&s);
			rec_ust_finish(&s);
		}
		rec_outputs_round(&s, now_ns(), 1);
		if (s.write_error)
			rec_say("writing the trace failed (%s): recording stopped; what was written stays readable",
			    strerror(-s.write_error));
		if (o->output)
			summary(&s);
	}
	/* Stopped before the command ended: end it, as perf record does. */
	if (s.child) {
		kill(s.child, err ? SIGKILL : SIGTERM);
		waitpid(s.child, &s.child_status, 0);
	}
	if (s.o->command)
		status = shell_status(s.child_status);
	teardown(&s);
	if (err)
		return err == -ENOENT || err == -EEXIST || err == -EINVAL ? 2 : 1;
	return s.write_error || s.relay_failed ? 1 : status;
}
