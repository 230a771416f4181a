// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top: a recording (record/recorder.c) with a live sink.  Its consumer
 * thread reads the live trace and counts (top/model.c); each interval
 * closed is handed to the display thread (top/handoff.c), which runs the
 * display --batch or not asks for (its ops: top/screen.c, top/batch.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <urcu/urcu-memb.h>

#include "top/top.h"
#include "top/display.h"
#include "reader/trace.h"

const char *const tr_top_default_events[] = {
	"sched:sched_switch", "sched:sched_waking", "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
};
const unsigned int tr_top_ndefault_events =
	sizeof(tr_top_default_events) / sizeof(tr_top_default_events[0]);

/* The displays, by what --batch and --output ask for. */
static const struct top_display *const displays[] = {
	[TR_TOP_SCREEN] = &top_screen, [TR_TOP_TEXT] = &top_batch, [TR_TOP_JSON] = &top_batch,
};

/* The consumer's side. */
struct top {
	struct top_shared sh;
	const struct top_display *display;
	struct top_model *model;
	__u64 cpu_ns, wall_ns;		/* at the previous snapshot: the recorder's CPU use */
};

static __u64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The model closed an interval: it becomes what the display reads. */
static void publish(void *data, struct top_snapshot *snap)
{
	struct top *t = data;
	__u64 cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID), wall = clock_ns(CLOCK_MONOTONIC);

	if (!snap)
		return;
	snap->recorder_cpu = wall > t->wall_ns ? (double)(cpu - t->cpu_ns) / (wall - t->wall_ns) : 0;
	t->cpu_ns = cpu;
	t->wall_ns = wall;
	top_publish(&t->sh, snap);
}

static void live_item(void *data, const struct tr_item *item)
{
	struct top *t = data;

	top_model_item(t->model, item);
}

static void live_round(void *data, __u64 reached, const struct tr_live_status *status)
{
	struct top *t = data;

	if (__atomic_exchange_n(&t->sh.reset_asked, 0, __ATOMIC_ACQ_REL))
		top_model_reset(t->model);
	top_model_reached(t->model, reached, status);
}

/* --- The display thread ---------------------------------------------------------- */

static void *display(void *arg)
{
	struct top *t = arg;
	sigset_t stops;
	long status;

	/* Ctrl-C and SIGTERM go to the consumer, whose wait they end. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stops, NULL);
	urcu_memb_register_thread();
	status = t->display->run(&t->sh);
	urcu_memb_unregister_thread();
	return (void *)status;
}

/*
 * While the screen is up, what the recorder says on stderr goes to a file,
 * printed once the terminal is back: a line written over the screen would
 * be garbage on it and gone after.
 */
static int hold_stderr(void)
{
	FILE *held = tmpfile();
	int saved = held ? dup(STDERR_FILENO) : -1;

	if (saved < 0 || dup2(fileno(held), STDERR_FILENO) < 0) {
		if (held)
			fclose(held);
		if (saved >= 0)
			close(saved);
		return -1;
	}
	fclose(held);	/* fd 2 keeps the file */
	return saved;
}

static void release_stderr(int saved)
{
	char buf[4096];
	ssize_t n;

	if (saved < 0)
		return;
	fflush(stderr);
	lseek(STDERR_FILENO, 0, SEEK_SET);
	while ((n = read(STDERR_FILENO, buf, sizeof(buf))) > 0)
		if (write(saved, buf, n) != n)
			break;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

static int record_with_display(struct top *t, struct tr_record_opts *ro)
{
	struct tr_live_sink sink = {
		.item = live_item, .round = live_round, .data = t, .stop_fd = t->sh.stop_fd,
		.sample_percent = t->sh.o->sample_percent,
	};
	int held = t->display->holds_stderr ? hold_stderr() : -1;
	pthread_t thread;
	void *shown = NULL;
	sigset_t winch;
	int status;

	/* Resizes go to the screen's thread (top/screen.c unblocks them there). */
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &winch, NULL);
	ro->live = &sink;
	if (pthread_create(&thread, NULL, display, t)) {
		release_stderr(held);
		fprintf(stderr, "tracer top: cannot start the display thread\n");
		return 1;
	}
	status = tr_record(ro);
	top_notify(t->sh.ended_fd);
	pthread_join(thread, &shown);
	release_stderr(held);
	return status ? status : (int)(long)shown;
}

int tr_top(const struct tr_top_opts *o)
{
	struct tr_record_opts ro = o->record;
	struct top t = {
		.sh = { .o = o, .published_fd = -1, .stop_fd = -1, .ended_fd = -1 },
		.display = displays[o->output],
	};
	char why[256];
	int status;

	if (t.display->possible && !t.display->possible(why, sizeof(why))) {
		fprintf(stderr, "tracer top: %s\n", why);
		return 2;
	}
	if (!ro.nevents) {
		ro.events = tr_top_default_events;
		ro.nevents = tr_top_ndefault_events;
		ro.filters = NULL;
		ro.event_channels = NULL;
	}
	ro.name = "top";
	t.model = top_model_new(o->interval * 1e9, libbpf_num_possible_cpus(), o->sample_percent,
				publish, &t);
	if (!t.model || top_handoff_open(&t.sh)) {
		fprintf(stderr, "tracer top: %s\n", strerror(t.model ? errno : ENOMEM));
		if (t.model)
			top_model_free(t.model);
		top_handoff_close(&t.sh);
		return 1;
	}
	t.cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	t.wall_ns = clock_ns(CLOCK_MONOTONIC);
	urcu_memb_register_thread();
	status = record_with_display(&t, &ro);
	top_unpublish(&t.sh);
	urcu_memb_unregister_thread();
	top_model_free(t.model);
	top_handoff_close(&t.sh);
	return status;
}
