// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's BPF programs and its backend.  The backend is chosen
 * here, once: choose_backend(), then load_for_backend()'s fallbacks as
 * the kernel refuses programs; the programs are configured for it
 * (configure()), their maps filled, and open_buffers() opens its
 * buffers, whose ops table (buffers/buffers.h) everything after goes
 * through.  s->use_kmod is read nowhere else.
 *
 * The two backends share the buffer layout and protocol; they differ in
 * who holds the buffers and runs the reader's steps (this process, or the
 * module through /dev/tracer), in who flushes periodically (this process,
 * or the module's per-CPU timers) and in the clock (bpf_ktime_get_ns, or
 * the module's clock on the same time base).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "layout/ubuf.h"
#include "common/cpus.h"
#include "record/recursion_misses.h"
#include "record.skel.h"
#include "record/session.h"

/* With the module, the BPF map regions are never written: keep them small. */
static const struct trb_config unused_regions = {
	.subbuf_size = TR_MIN_SUBBUF_SIZE, .nsubbuf = TR_MIN_SUBBUFS,
};

/*
 * The program reads the preempt count where kallsyms lists it (data
 * symbols); libbpf resolves it the same way.
 */
static int kernel_resolves_preempt_count(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		const char *name = strrchr(line, ' ');

		found = name && (!strcmp(name, " __preempt_count\n") ||
				 !strcmp(name, " pcpu_hot\n"));
	}
	if (f)
		fclose(f);
	return found;
}

int rec_by_syscall(const struct session *s, const struct tr_event *ev)
{
	return s->syscall_progs && ev->syscall_nr >= 0 && ev->syscall_nr < TR_MAX_SYSCALLS;
}

/*
 * System call events go through the tp_btf programs on sys_enter and
 * sys_exit (bpf/record.bpf.c says why) when a recording takes many of
 * them: those programs run for every system call, recorded or not, which
 * costs an unrecorded one about 150 ns here.  A few system calls stay on
 * their own tracepoints, but not with kernel stacks: on some kernels
 * (Debian's 6.1; not 6.18) a system call tracepoint hands its BPF programs
 * the user's registers, from which no kernel stack is taken.  Never where
 * the module takes the records from its perf events.
 */
#define SYSCALL_PROGS_MIN_EVENTS	64

static void choose_syscall_programs(struct session *s)
{
	unsigned int i, nsyscall = 0;
	int enter = 0, exit = 0;

	for (i = 0; i < s->events.count; i++)
		nsyscall += s->events.events[i].syscall_nr >= 0;
	s->syscall_progs = !s->kmod_via_perf && nsyscall &&
			   (nsyscall >= SYSCALL_PROGS_MIN_EVENTS || (s->o->stacks & TR_STACK_KERNEL));
	for (i = 0; i < s->events.count; i++) {
		const struct tr_event *ev = &s->events.events[i];

		enter |= rec_by_syscall(s, ev) && !ev->syscall_exit;
		exit |= rec_by_syscall(s, ev) && ev->syscall_exit;
	}
	bpf_program__set_autoload(s->skel->progs.tr_sys_enter, enter);
	bpf_program__set_autoload(s->skel->progs.tr_sys_exit, exit);
}

static bool has_filters(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->events.count; i++)
		if (s->events.events[i].filter)
			return true;
	return s->trigger.ninsn > 0;
}

/* sched:sched_switch's id in the set, or ~0. */
static __u32 switch_id(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->events.count; i++)
		if (!strcmp(s->events.events[i].system, "sched") &&
		    !strcmp(s->events.events[i].name, "sched_switch"))
			return i;
	return ~0u;
}

static int configure(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	const struct trb_config *regions = s->use_kmod ? &unused_regions : s->cfg;
	unsigned int nregions = s->use_kmod ? 1 : s->nchannels;
	struct record *skel = s->skel;
	int err;

	TR_BPFBUF_SET_GEOMETRY(skel->rodata, regions, nregions, s->ncpu);
	skel->rodata->tr_use_kmod = s->use_kmod;
	skel->rodata->tr_kmod_via_perf = s->kmod_via_perf;
	/* A flight recorder reads only for snapshots: no notices to wake it. */
	skel->rodata->trb_notify = !s->use_kmod && !o->flight_recorder;
	skel->rodata->tr_self_tgid = s->self;
	skel->rodata->tr_switch_id = switch_id(s);
	skel->rodata->tr_filter_pids = !o->system_wide && (o->pid || o->command);
	skel->rodata->tr_follow_forks = !o->system_wide && !o->pid && o->command;
	skel->rodata->tr_filter_cpus = o->cpus != NULL;
	if (o->comm) {
		skel->rodata->tr_filter_comm = true;
		strncpy((char *)skel->rodata->tr_comm, o->comm, sizeof(skel->rodata->tr_comm) - 1);
	}
	err = tr_bpfbuf_size_map(skel->maps.trb_regions, regions, nregions, s->ncpu);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.tr_cpus, s->ncpu);
	/* The events' filters by id, then the trigger's. */
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.tr_filters, s->events.count + 1);
	skel->rodata->tr_have_filters = has_filters(s);
	skel->rodata->tr_trigger_id = s->trigger_id;
	skel->rodata->tr_trigger_recorded = s->trigger_recorded;
	skel->rodata->tr_trigger_filter = s->events.count;
	skel->rodata->tr_task_state_id = s->task_state_id;
	skel->rodata->tr_stack_flags = o->stacks;
	skel->rodata->tr_context_flags = o->context;
	skel->rodata->tr_vm_map_id = s->vm_map_id;
	bpf_program__set_autoload(skel->progs.tr_vm_dump, s->vm_map_id);
	bpf_program__set_autoload(skel->progs.tr_vm_exec, s->vm_map_id);
	bpf_program__set_autoload(skel->progs.tr_vm_mmap, s->vm_map_id);
	if (!skel->rodata->tr_follow_forks)
		bpf_program__set_autoload(skel->progs.tr_follow_fork, false);
	s->derive_context = kernel_resolves_preempt_count();
	choose_syscall_programs(s);
	return err ? err : rec_probes_configure(s);
}

/* tr_syscalls[nr]: the ids of system call nr's events, plus one. */
static int fill_syscall_map(struct session *s)
{
	struct tr_syscall_events *by_nr = calloc(TR_MAX_SYSCALLS, sizeof(*by_nr));
	unsigned int i;
	int err = by_nr ? 0 : -ENOMEM;

	for (i = 0; i < s->events.count && !err; i++) {
		const struct tr_event *ev = &s->events.events[i];

		if (!rec_by_syscall(s, ev))
			continue;
		if (ev->syscall_exit)
			by_nr[ev->syscall_nr].exit = ev->id + 1;
		else
			by_nr[ev->syscall_nr].enter = ev->id + 1;
	}
	for (i = 0; i < TR_MAX_SYSCALLS && !err; i++)
		if (by_nr[i].enter || by_nr[i].exit)
			err = bpf_map__update_elem(s->skel->maps.tr_syscalls, &i, sizeof(i),
						   &by_nr[i], sizeof(by_nr[i]), BPF_ANY);
	free(by_nr);
	return err;
}

static int fill_maps(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	__u8 yes = 1, *cpus;
	unsigned int i;
	int err = 0;

	for (i = 0; i < s->events.count && !err; i++)
		err = bpf_map__update_elem(s->skel->maps.tr_events, &i, sizeof(i),
					   &s->events.events[i].shape,
					   sizeof(struct tr_event_shape), BPF_ANY);
	for (i = 0; i < s->events.count && !err; i++)
		if (s->events.events[i].filter)
			err = bpf_map__update_elem(s->skel->maps.tr_filters, &i, sizeof(i),
						   s->events.events[i].filter,
						   sizeof(struct tr_filter), BPF_ANY);
	if (!err && s->trigger.ninsn)
		err = bpf_map__update_elem(s->skel->maps.tr_filters, &s->events.count,
					   sizeof(s->events.count), &s->trigger,
					   sizeof(s->trigger), BPF_ANY);
	if (!err)
		err = fill_syscall_map(s);
	if (!err && o->pid) {
		__u32 tgid = o->pid;

		err = bpf_map__update_elem(s->skel->maps.tr_pids, &tgid, sizeof(tgid),
					   &yes, 1, BPF_ANY);
	}
	if (err || !o->cpus)
		return err;
	cpus = calloc(s->ncpu, 1);
	err = tr_parse_cpu_list(o->cpus, cpus, s->ncpu);
	if (err)
		rec_say("bad CPU list '%s' (this machine has CPUs 0-%u)", o->cpus, s->ncpu - 1);
	for (i = 0; i < s->ncpu && !err; i++)
		err = bpf_map__update_elem(s->skel->maps.tr_cpus, &i, sizeof(i),
					   &cpus[i], 1, BPF_ANY);
	free(cpus);
	return err;
}

/*
 * libbpf's messages go to stderr with -v.  Either way, a verifier log (a
 * warning: the thousands of debug messages of a load are not read) that
 * refuses a kfunc call in the program's type is noted: a refusal through
 * the module is then the kernel's rule, not some other fault.
 */
static int libbpf_verbose, kfunc_not_allowed;

static void note_kfunc_refusal(const char *fmt, va_list args)
{
	va_list again;
	char *text;

	va_copy(again, args);
	if (vasprintf(&text, fmt, again) >= 0) {
		kfunc_not_allowed |= strstr(text, "calling kernel function") &&
				     strstr(text, " is not allowed");
		free(text);
	}
	va_end(again);
}

static int libbpf_message(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_WARN)
		note_kfunc_refusal(fmt, args);
	return libbpf_verbose ? vfprintf(stderr, fmt, args) : 0;
}

void rec_libbpf_messages(int verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_message);
}

static int load_programs(struct session *s)
{
	int err;

	kfunc_not_allowed = 0;
	s->skel = record__open();
	if (!s->skel)
		return -errno;
	err = configure(s);
	if (!err)
		err = record__load(s->skel);
	if (err) {
		record__destroy(s->skel);
		s->skel = NULL;
	}
	s->task_dump = s->skel ? s->skel->progs.tr_task_dump : NULL;
	s->vm_dump = s->skel && s->vm_map_id ? s->skel->progs.tr_vm_dump : NULL;
	return err;
}

static int choose_backend(struct session *s)
{
	const char *why_not = tr_kmodbuf_unavailable();

	if (s->o->backend == TR_BACKEND_KMOD && why_not) {
		rec_say("--backend kmod: %s; use --backend bpf", why_not);
		return -ENODEV;
	}
	s->use_kmod = s->o->backend != TR_BACKEND_BPF && !why_not;
	if (s->use_kmod && s->nchannels > 1) {
		rec_say("--channel: the module has one buffer per CPU, so far: add --backend bpf");
		return -EINVAL;
	}
	return 0;
}

/* The programs that the kernel may not let call the module's kfuncs (below). */
static const char *kfunc_callers(const struct session *s)
{
	return rec_kprobe_program_count(s) ? "kprobe, uprobe and USDT programs" : "tracepoint programs";
}

/*
 * Programs that call the module's kfuncs load on Linux 6.2 and later; on
 * 6.1 only tp_btf/fentry programs may call module kfuncs, so there the
 * programs only filter and the module takes the records from its own perf
 * events on the tracepoints.  Kprobe programs (kprobes, uprobes, USDT)
 * may call them from 6.10 on, and have no such way round.  If that fails
 * too, auto records through BPF regions instead.
 */
static int load_for_backend(struct session *s)
{
	int err = load_programs(s);
	/*
	 * The module's perf events take no stacks and no context, and no
	 * program sees their records to freeze the buffers for a trigger:
	 * with any of them, auto goes to BPF buffers and kmod is refused.
	 */
	const char *option = s->o->stacks ? "-g" : s->o->context ? "--context" : "--snapshot-on";
	const char *lacks = s->o->stacks ? "it takes no stacks" :
			    s->o->context ? "its records carry no context" :
			    "no program sees the records to freeze the buffers";
	int needs_programs = s->o->stacks || s->o->context || s->trigger_id != TR_NO_TRIGGER;

	if (err && s->use_kmod && !geteuid() && needs_programs && s->o->backend == TR_BACKEND_KMOD) {
		rec_say("%s: the kernel refused the programs that write through the module (%s; -v shows why); on Linux 6.1, where the module writes from its perf events, %s: use --backend bpf",
			option, strerror(-err), lacks);
		return -EINVAL;
	}
	if (err && s->use_kmod && !geteuid() && !needs_programs) {
		s->kmod_via_perf = 1;
		err = load_programs(s);
		if (!err && s->events.count > rec_probe_count(s))
			rec_say("note: this kernel's tracepoint programs cannot call the module's kfuncs; the module takes the records from its perf events, the programs filter");
	}
	if (err && s->use_kmod && !geteuid() && s->o->backend == TR_BACKEND_AUTO) {
		s->kmod_via_perf = 0;
		if (kfunc_not_allowed)
			rec_say("note: this kernel does not let %s call the module's kfuncs (%s); recording through BPF buffers",
				kfunc_callers(s), strerror(-err));
		else
			rec_say("note: the kernel refused the programs that write through the module (%s; -v shows why); recording through BPF buffers",
				strerror(-err));
		s->use_kmod = 0;
		err = load_programs(s);
	}
	if (!err)
		return 0;
	if ((err == -EPERM || err == -EACCES) && geteuid())
		rec_say("loading BPF programs is not permitted: run as root (or with CAP_BPF, CAP_PERFMON and CAP_SYS_RESOURCE)");
	else if (s->use_kmod && !kfunc_not_allowed)
		rec_say("the kernel refused the programs that write through the module (%s); run with -v to see why, or use --backend bpf",
			strerror(-err));
	else if (s->use_kmod && rec_kprobe_program_count(s))
		rec_say("this kernel does not let kprobe, uprobe and USDT programs call the module's kfuncs (%s; Linux 6.10 and later do): use --backend bpf",
		    strerror(-err));
	else if (s->use_kmod)
		rec_say("cannot load tracepoint programs that call the module's kfuncs (%s); Linux 6.1 allows kfuncs only in tp_btf/fentry programs (run with -v for the verifier's log, or use --backend bpf)",
		    strerror(-err));
	else
		rec_say("the kernel refused the BPF programs (%s); run with -v to see why",
		    strerror(-err));
	return err;
}

/* The module's NMI self-test records, declared like a tracepoint. */
static __u32 selftest_event(struct session *s)
{
	__u32 id = s->events.count;

	if (!tr_kmodbuf_selftest() ||
	    tr_events_add_format(&s->events, "tracer", "nmi_test", tr_kmodbuf_nmi_test_format))
		return TR_KMOD_NO_EVENT;
	return id;
}

/*
 * The recursion misses' records go into the BPF regions, which this
 * process may write; the module's regions are read-only here, so with
 * the module they are counted in the summary only.
 */
static void declare_misses_event(struct session *s)
{
	s->misses_event = s->events.count;
	if (s->use_kmod ||
	    tr_events_add_format(&s->events, "tracer", "recursion_misses", tr_misses_format))
		s->misses_event = TR_KMOD_NO_EVENT;
}

static int open_bpf_buffers(struct session *s)
{
	int err = tr_buffers_open_bpf(&s->buffers, s->skel->maps.trb_regions, s->cfg,
				      s->nchannels, s->ncpu, tr_clock_monotonic_ns);
	int fd = err ? err : tr_bpfbuf_watch_deliveries(&s->buffers.bpf,
							 s->skel->maps.trb_delivered);

	return fd < 0 ? fd : tr_waiter_watch(&s->waiter, fd, EPOLLIN);
}

/*
 * A flight recorder on the module's buffers: no flushes on its timers (each
 * would deliver a partly filled sub-buffer, leaving less for the snapshot),
 * no poll() of its buffers (they stay full: nothing is read until a
 * snapshot), but --snapshot-on's wake-up, as on BPF buffers.
 */
static int watch_kmod_buffers(struct session *s)
{
	int fd;

	if (!s->o->flight_recorder)
		return tr_waiter_watch(&s->waiter, s->buffers.kmod.fd, EPOLLIN | EPOLLPRI);
	if (s->trigger_id == TR_NO_TRIGGER)
		return 0;
	fd = tr_bpfbuf_watch_deliveries(&s->buffers.bpf, s->skel->maps.trb_delivered);
	return fd < 0 ? fd : tr_waiter_watch(&s->waiter, fd, EPOLLIN);
}

static int open_buffers(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	int err;

	declare_misses_event(s);
	if (!s->use_kmod)
		return open_bpf_buffers(s);
	err = tr_buffers_open_kmod(&s->buffers, &s->cfg[0], o->flight_recorder ? 0 : o->flush_ms,
				   selftest_event(s));
	if (!err)
		err = watch_kmod_buffers(s);
	if (err == -EBUSY)
		rec_say("another recording is using the tracer module (" TR_KMOD_DEVICE " is busy)");
	if (!err && s->buffers.kmod.ncpu != s->ncpu)
		err = -EPROTO;
	return err;
}

int rec_load_bpf(struct session *s)
{
	int err = rec_probes_prepare(s);

	if (!err)
		err = choose_backend(s);
	if (!err)
		err = load_for_backend(s);
	if (err)
		return err;
	err = fill_maps(s);
	if (!err)
		err = open_buffers(s);
	if (err && err != -EBUSY)
		rec_say("cannot set up the buffers: %s", strerror(-err));
	return err;
}
