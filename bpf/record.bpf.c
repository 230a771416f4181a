// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record: one program for every tracepoint.  Each attachment
 * carries its event id as the BPF cookie; the program applies the filters,
 * finds the raw record's size from its shape (fixed part plus the data of
 * its dynamic fields) and copies the whole record, as the kernel laid it
 * out, into this CPU's buffer.  The common header (type, flags, preempt
 * count, pid) is written by the program: the kernel hands BPF a pt_regs
 * pointer in its place.
 *
 * The program derives the flags and preempt count as ftrace's
 * tracing_gen_ctx() does, from the CPU's preempt count and the task's
 * flags; whether interrupts were off is known only in hard interrupts
 * and NMIs, where they always are.  The preempt count is a per-CPU
 * kernel variable found through kallsyms; where kallsyms has no data
 * symbols (CONFIG_KALLSYMS_ALL off) both stay 0, and the trace's
 * metadata says the context is unknown.
 *
 * With the kernel module loaded (tr_use_kmod), the record goes through
 * its kfunc instead, into the module's buffers: copied first into a
 * per-CPU scratch record, since the kfunc takes the bytes from BPF
 * memory.  Tracepoint programs do not nest on a CPU (the kernel skips a
 * program while another runs there), so one scratch record per CPU is
 * enough for them (tr_scratch has others for tracer's own records).
 *
 * System call events come from the raw sys_enter/sys_exit tracepoints
 * instead (tp_btf programs, by system call number, tracer/record.h), which
 * build the same record.  A classic tracepoint program marks its CPU busy
 * for every BPF program of the kinds that share the mark, so an interrupt
 * that arrives while one runs has its own tracepoints skipped (recursion
 * misses); tp_btf programs guard only against themselves, so interrupts
 * during the system call events, by far the most frequent ones, are
 * recorded.
 *
 * Probes (user/events/probes.h) build a struct tr_probe_record from the
 * registers (uprobes, kprobes, USDT) or from the trampoline's context
 * (fentry, fexit) and write it as a tracepoint's; each kind's guard
 * against nesting is said where its programs are.
 *
 * Linux 6.1 lets only tp_btf/fentry programs call module kfuncs.  There
 * (tr_kmod_via_perf) this program only filters: returning non-zero lets
 * the kernel hand the record to the tracepoint's perf events, among them
 * the module's, which writes it (kmod/tracepoints.c).
 */
#include "ringbuf.bpf.h"
#include "filter.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include <tracer/kmod.h>
#include <tracer/record.h>

/* The recorder's own process: never recorded, but for its CPUs' switches (below). */
const volatile __u32 tr_self_tgid;
/*
 * sched:sched_switch's event id, or ~0.  The record of a switch is written
 * by the task leaving the CPU: the recorder's are kept, or the time it
 * runs would show as the time of whoever ran before it (tracer top's CPU
 * times, export's slices).
 */
const volatile __u32 tr_switch_id = ~0u;
/* Record only processes in tr_pids (-p, or a command and its children). */
const volatile bool tr_filter_pids;
/* Add children of recorded processes to tr_pids (a command's children). */
const volatile bool tr_follow_forks;
/* Record only on CPUs set in tr_cpus (-C). */
const volatile bool tr_filter_cpus;
/* Record only tasks with this comm (--comm). */
const volatile bool tr_filter_comm;
const volatile char tr_comm[16];
/* Write through the module's kfunc rather than into trb_regions. */
const volatile bool tr_use_kmod;
/* ... or let the module's perf event on the tracepoint write (Linux 6.1). */
const volatile bool tr_kmod_via_perf;
/*
 * Set by the loader when recording stops: detaching many tracepoints takes
 * a while (an RCU grace period each), and what fires meanwhile is after
 * the stop.
 */
bool tr_stopped;

/*
 * --snapshot-on (a flight recorder on BPF buffers): the trigger's event,
 * whether some -e records it too, and its filter's key in tr_filters.
 * When the trigger fires it freezes the buffers (tr_frozen) and wakes the
 * recorder; until the recorder has taken its snapshot and thawed them,
 * records are not written but counted in tr_frozen_drops.  So the
 * snapshot keeps what came before the trigger, however late the recorder
 * wakes.
 */
const volatile __u32 tr_trigger_id = TR_NO_TRIGGER;
const volatile bool tr_trigger_recorded;
const volatile __u32 tr_trigger_filter;
__u32 tr_frozen;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} tr_frozen_drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct tr_event_shape);
	__uint(max_entries, TR_MAX_EVENTS);
} tr_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} tr_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);			/* set by the loader: CPUs */
} tr_cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct tr_syscall_events);
	__uint(max_entries, TR_MAX_SYSCALLS);
} tr_syscalls SEC(".maps");

/*
 * Per-CPU scratch records, one for each kind of program that builds its
 * record before writing it and may be interrupted, on its CPU, by one of
 * another kind: tracepoint records, and tracer:vm_map records (in system
 * call and exec programs, and in the state dump's iterator, which may be
 * preempted), and kprobe records (built before they may be copied into
 * the tracepoint one, for the module or -g; while a kprobe or tracepoint
 * program runs on a CPU, trace_call_bpf() skips any other there).
 * fentry and fexit programs pass no such guard (any other kind may
 * interrupt them, and they it), and neither do uprobe programs (which an
 * interrupt's programs may interrupt): each of the two kinds has two of
 * its own, its values and the record built from them.  Twice the largest
 * record, so a size masked with SCRATCH_MASK stays inside.
 */
#define SCRATCH_MASK		(2 * TR_BPF_MAX_RECORD - 1)
enum scratch_slot {
	SCRATCH_RECORD,
	SCRATCH_VM_MAP,
	SCRATCH_VM_DUMP,
	SCRATCH_PROBE,
	SCRATCH_TRAMPOLINE,
	SCRATCH_TRAMPOLINE_RECORD,
	SCRATCH_UPROBE,
	SCRATCH_UPROBE_RECORD,
	NR_SCRATCH
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__uint(value_size, 2 * TR_BPF_MAX_RECORD);
	__uint(max_entries, NR_SCRATCH);
} tr_scratch SEC(".maps");

/* Whether comm, a task's name (up to 16 bytes, NUL-ended), is --comm's. */
static __always_inline bool comm_is_wanted(const char *comm)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (comm[i] != tr_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* Whether the running task's records pass -p, the command's tree and -C. */
static __always_inline bool task_and_cpu_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 cpu = bpf_get_smp_processor_id();
	__u8 *set;

	if (tr_filter_pids && !bpf_map_lookup_elem(&tr_pids, &tgid))
		return false;
	return !tr_filter_cpus || ((set = bpf_map_lookup_elem(&tr_cpus, &cpu)) && *set);
}

/* Whether the running task's records are recorded (self: the recorder's too). */
static __always_inline bool wanted_from(bool self)
{
	char comm[16];

	if (bpf_get_current_pid_tgid() >> 32 == tr_self_tgid)
		return self;
	if (!task_and_cpu_wanted())
		return false;
	if (!tr_filter_comm)
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	return comm_is_wanted(comm);
}

static __always_inline bool wanted(void)
{
	return wanted_from(false);
}

/*
 * x86's per-CPU preempt count: its own variable, or a field of pcpu_hot
 * (6.2-6.14).  Addresses from kallsyms (typeless and weak: 0 where it
 * lacks them); a CPU's copy is at the address plus its per-CPU offset.
 */
extern const void __preempt_count __ksym __weak;
extern const void pcpu_hot __ksym __weak;
extern const void __per_cpu_offset __ksym __weak;
struct pcpu_hot___kernel {
	int preempt_count;
} __attribute__((preserve_access_index));

static __always_inline bool read_preempt_count(__u32 *pc)
{
	const unsigned long *offsets = &__per_cpu_offset;
	__u32 cpu = bpf_get_smp_processor_id();
	unsigned long base = 0, at;

	if (!offsets || bpf_probe_read_kernel(&base, sizeof(base), offsets + (cpu & 4095)))
		return false;
	if (&__preempt_count)
		at = (unsigned long)&__preempt_count;
	else if (&pcpu_hot)
		at = (unsigned long)&pcpu_hot +
		     bpf_core_field_offset(struct pcpu_hot___kernel, preempt_count);
	else
		return false;
	return !bpf_probe_read_kernel(pc, sizeof(*pc), (const void *)(at + base));
}

/* preempt_count() layout (include/linux/preempt.h) */
#define PREEMPT_MASK		0x000000ffu
#define SOFTIRQ_SHIFT		8
#define SOFTIRQ_OFFSET		(1u << SOFTIRQ_SHIFT)
#define SOFTIRQ_MASK		0x0000ff00u
#define HARDIRQ_MASK		0x000f0000u
#define NMI_MASK		0x00f00000u
/* x86 keeps "no reschedule needed" inverted in the top bit. */
#define PREEMPT_NEED_RESCHED	0x80000000u
#define TIF_NEED_RESCHED	3

/*
 * common_flags and common_preempt_count as tracing_gen_ctx() computes
 * them, less what the tracepoint disabled (preemption) and what the BPF
 * program runner disabled (migration) before this program ran.
 */
static __always_inline void fill_context(struct trace_entry *common)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 pc, flags = 0, depth, migrate = 0;

	common->flags = 0;
	common->preempt_count = 0;
	if (!read_preempt_count(&pc))
		return;

	if (pc & NMI_MASK)
		flags |= TRACE_FLAG_NMI | TRACE_FLAG_IRQS_OFF;
	if (pc & HARDIRQ_MASK)
		flags |= TRACE_FLAG_HARDIRQ | TRACE_FLAG_IRQS_OFF;
	if (pc & SOFTIRQ_OFFSET)
		flags |= TRACE_FLAG_SOFTIRQ;
	if ((pc & SOFTIRQ_MASK) >> (SOFTIRQ_SHIFT + 1))
		flags |= TRACE_FLAG_BH_OFF;
	if (!(pc & PREEMPT_NEED_RESCHED))
		flags |= TRACE_FLAG_PREEMPT_RESCHED;
	if (task->thread_info.flags & (1ul << TIF_NEED_RESCHED))
		flags |= TRACE_FLAG_NEED_RESCHED;
	if (bpf_core_field_exists(task->migration_disabled))
		migrate = task->migration_disabled;
	migrate -= migrate > 0;
	depth = pc & PREEMPT_MASK;
	depth -= depth > 0;
	common->flags = flags;
	common->preempt_count = (depth < 15 ? depth : 15) | (migrate < 15 ? migrate : 15) << 4;
}

/*
 * Whether the filter at key in tr_filters (an event's --filter at its id,
 * the trigger's after them) passes the record, before any space is taken.
 */
static __always_inline bool filter_passes(const void *record, __u32 key,
					  const struct tr_event_shape *shape, __u32 slot)
{
	struct trace_entry common = {};

	if (!tr_have_filters)
		return true;
	common.type = shape->kernel_id;
	common.pid = bpf_get_current_pid_tgid();
	fill_context(&common);
	return tr_filter_passes(record, &common, key, slot);
}

/* Bytes of the raw record: its fixed part and its dynamic data. */
static __always_inline __u32 record_size(void *ctx, const struct tr_event_shape *shape)
{
	__u32 size = shape->fixed_size;
	int i;

	for (i = 0; i < TR_MAX_DYN && i < shape->ndyn; i++) {
		__u32 loc = 0, end;

		bpf_probe_read_kernel(&loc, sizeof(loc),
				      ctx + (shape->dyn_offset[i] & ~TR_DYN_RELATIVE));
		end = tr_dyn_end(loc, shape->dyn_offset[i]);
		if (end > size)
			size = end;
	}
	return size;
}

/* Copy the raw record to dst (size bytes, checked by the caller). */
static __always_inline void copy_record(void *dst, __u32 size, void *ctx,
					const struct tr_event_shape *shape)
{
	struct trace_entry *common = dst;

	bpf_probe_read_kernel(dst, size, ctx);
	common->type = shape->kernel_id;
	common->pid = bpf_get_current_pid_tgid();
	fill_context(common);
}

static __always_inline void record_in_regions(void *ctx, __u32 id, __u32 size,
					      const struct tr_event_shape *shape)
{
	struct trb_bpf_slot s;
	struct trb_bpf b;

	if (!trb_bpf_this_cpu(&b, shape->channel) || trb_bpf_reserve(&b, &s, id, size))
		return;
	if (size >= sizeof(struct trace_entry)) {
		/* Keep clang from merging the checks: older verifiers lose the bound. */
		barrier_var(size);
		if (size <= TR_BPF_MAX_RECORD - sizeof(struct tr_event_header))
			copy_record(s.record + 1, size, ctx, shape);
	}
	trb_bpf_commit(&b, &s);
}

/* Which call stacks every record carries (-g: TR_STACK_*), or 0. */
const volatile __u32 tr_stack_flags;

#define STACK_BYTES		(TR_MAX_FRAMES * 8)
/* Raw records up to this size get their stacks; larger ones 0 frames. */
#define STACKED_MAX		(TR_BPF_MAX_RECORD - sizeof(struct tr_event_header) - \
				 sizeof(struct tr_stack_counts) - 2 * STACK_BYTES)

/*
 * One stack into the scratch record at *at: its frames.  Offsets are
 * masked to TR_BPF_MAX_RECORD - 1 after the checks, which leaves them as
 * they are: older verifiers (6.12) lose the checks' bounds, never a mask's.
 */
static __always_inline __u16 take_stack(void *ctx, char *scratch, __u32 *at, __u64 flags)
{
	__u32 offset = *at;
	long bytes;

	if (offset > TR_BPF_MAX_RECORD - STACK_BYTES)
		return 0;
	barrier_var(offset);
	offset &= TR_BPF_MAX_RECORD - 1;
	bytes = bpf_get_stack(ctx, scratch + offset, STACK_BYTES, flags);
	if (bytes <= 0 || bytes > STACK_BYTES)
		return 0;
	*at = offset + bytes;
	return (__u32)bytes / 8;
}

/* The stacks after the size bytes of raw record in scratch: the payload's size. */
static __always_inline __u32 add_stacks(void *ctx, char *scratch, __u32 size)
{
	struct tr_stack_counts counts = {};
	__u32 at = size + sizeof(counts);

	if (size <= STACKED_MAX && (tr_stack_flags & TR_STACK_KERNEL))
		counts.kernel = take_stack(ctx, scratch, &at, 0);
	if (size <= STACKED_MAX && (tr_stack_flags & TR_STACK_USER))
		counts.user = take_stack(ctx, scratch, &at, BPF_F_USER_STACK);
	if (size <= TR_BPF_MAX_RECORD - sizeof(counts))
		bpf_probe_read_kernel(scratch + (size & (TR_BPF_MAX_RECORD - 1)), sizeof(counts),
				      &counts);
	return at;
}

/* Which context fields every record carries (--context: 1 << TR_CONTEXT_*), or 0. */
const volatile __u32 tr_context_flags;

#define MAX_PRIO_NICE_0		120	/* the kernel's static priority of nice 0 */

static __always_inline __u64 context_value(struct task_struct *task, int field)
{
	switch (field) {
	case TR_CONTEXT_CGROUP:
		return bpf_get_current_cgroup_id();
	case TR_CONTEXT_UID:
		return (__u32)bpf_get_current_uid_gid();
	case TR_CONTEXT_GID:
		return bpf_get_current_uid_gid() >> 32;
	case TR_CONTEXT_PRIO:
		return (__s64)task->prio;
	case TR_CONTEXT_NICE:
		return (__s64)(task->static_prio - MAX_PRIO_NICE_0);
	default:
		return 0;
	}
}

/*
 * The context fields after the size bytes of raw record in scratch: the
 * new size.  A record too big to take them keeps the size it would have,
 * which the buffers refuse as too big (counted).
 */
static __always_inline __u32 add_context(char *scratch, __u32 size)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 values[TR_CONTEXT_FIELDS];
	__u32 n = 0;
	int i;

	for (i = 0; i < TR_CONTEXT_FIELDS; i++)
		if (tr_context_flags & (1u << i))
			values[n++] = context_value(task, i);
	if (size > TR_BPF_MAX_RECORD - sizeof(values))
		return size + n * 8;
	barrier_var(size);
	size &= TR_BPF_MAX_RECORD - 1;
	bpf_probe_read_kernel(scratch + size, n * 8, values);
	return size + n * 8;
}

/*
 * The record built in the per-CPU scratch record, with its context and
 * stacks if asked for: for the module's kfunc, which takes the bytes from BPF
 * memory, and for -g.  Its size, or 0.
 */
static __always_inline __u32 build_in_scratch(void *ctx, void *record, __u32 size,
					      const struct tr_event_shape *shape,
					      __u32 slot, char **scratch)
{
	*scratch = bpf_map_lookup_elem(&tr_scratch, &slot);
	/* The kernel never hands BPF a raw record above 8 KiB. */
	if (!*scratch || size < sizeof(struct trace_entry) || size > TR_BPF_MAX_RECORD)
		return 0;
	/* Older verifiers lose the bound above: mask, and keep clang from dropping it. */
	barrier_var(size);
	size &= SCRATCH_MASK;
	copy_record(*scratch, size, record, shape);
	if (tr_context_flags)
		size = add_context(*scratch, size);
	return tr_stack_flags ? add_stacks(ctx, *scratch, size) : size;
}

/*
 * A record of size bytes at data (BPF memory: the scratch record, or the
 * stack) into this CPU's buffer of a channel: through the module's kfunc
 * (which has one channel), or into the BPF regions.  The mask leaves the
 * size as it is; older verifiers need it.
 */
static __always_inline void write_bytes(const void *data, __u32 id, __u32 size,
					__u32 channel)
{
	struct trb_bpf_slot s;
	struct trb_bpf b;

	if (tr_use_kmod) {
		tr_kmod_write(id, data, size & SCRATCH_MASK);
		return;
	}
	if (!trb_bpf_this_cpu(&b, channel) || trb_bpf_reserve(&b, &s, id, size))
		return;
	barrier_var(size);
	if (size <= TR_BPF_MAX_RECORD - sizeof(struct tr_event_header))
		bpf_probe_read_kernel(s.record + 1, size, data);
	trb_bpf_commit(&b, &s);
}

/* Whether event id's record is written: an -e selected it and its filter passes. */
static __always_inline bool record_wanted(void *record, __u32 id,
					  const struct tr_event_shape *shape, __u32 slot)
{
	if (id == tr_trigger_id && !tr_trigger_recorded)
		return false;
	return filter_passes(record, id, shape, slot);
}

/* Whether the trigger holds the buffers frozen; if so the record is counted as dropped. */
static __always_inline bool frozen(void)
{
	__u32 zero = 0;
	__u64 *drops;

	if (!tr_frozen)
		return false;
	drops = bpf_map_lookup_elem(&tr_frozen_drops, &zero);
	if (drops)
		__sync_fetch_and_add(drops, 1);
	return true;
}

/*
 * ctx is the program's, for the stacks; record the raw record to copy;
 * scratch_slot where the record is built when it needs building.
 */
static __always_inline void write_record(void *ctx, void *record, __u32 id, __u32 size,
					 const struct tr_event_shape *shape, __u32 scratch_slot)
{
	char *scratch;

	if (frozen())
		return;
	if (!tr_use_kmod && !tr_stack_flags && !tr_context_flags) {
		record_in_regions(record, id, size, shape);
		return;
	}
	size = build_in_scratch(ctx, record, size, shape, scratch_slot, &scratch);
	if (size)
		write_bytes(scratch, id, size, shape->channel);
}

/* After the record: fire the trigger if this is its event and its filter passes. */
static __always_inline void check_trigger(void *record, __u32 id,
					  const struct tr_event_shape *shape, __u32 slot)
{
	__u32 cpu;

	if (id != tr_trigger_id || tr_frozen ||
	    !filter_passes(record, tr_trigger_filter, shape, slot) ||
	    __sync_val_compare_and_swap(&tr_frozen, 0, 1))
		return;
	cpu = bpf_get_smp_processor_id();
	bpf_ringbuf_output(&trb_delivered, &cpu, sizeof(cpu), 0);
}

/*
 * The return value decides whether the kernel also hands the record to
 * the tracepoint's perf events.  1 lets other tools (perf stat, perf
 * record) see the tracepoint as if tracer were not there; measured here,
 * it costs nothing measurable (under 20 ns of a 900 ns system call).
 * With tr_kmod_via_perf it selects what the module's perf events write.
 */
#define TR_SHARE	1
SEC("tracepoint")
int tr_tracepoint(void *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);
	const struct tr_event_shape *shape;

	/* With tr_kmod_via_perf the return value is the record: none after the stop. */
	if (tr_stopped)
		return tr_kmod_via_perf ? 0 : TR_SHARE;
	shape = bpf_map_lookup_elem(&tr_events, &id);
	if (!shape || !wanted_from(id == tr_switch_id))
		return tr_kmod_via_perf ? 0 : TR_SHARE;
	if (tr_kmod_via_perf)
		return filter_passes(ctx, id, shape, TR_FILTER_SLOT_TRACEPOINT);
	if (record_wanted(ctx, id, shape, TR_FILTER_SLOT_TRACEPOINT))
		write_record(ctx, ctx, id, record_size(ctx, shape), shape, SCRATCH_RECORD);
	check_trigger(ctx, id, shape, TR_FILTER_SLOT_TRACEPOINT);
	return TR_SHARE;
}


/* --- Probes: a function's entry or return, a USDT probe ------------------------ */

/* A scratch record, whole: what a function verified on its own may write. */
struct tr_scratch_record {
	char bytes[2 * TR_BPF_MAX_RECORD];
};

/*
 * The strings the string arguments point to, after the size bytes of
 * fixed part of the record in scratch: the record's size.  A kprobe's
 * string may be in kernel or user memory (the kernel's BTF rarely says
 * which): kernel memory is tried first, which refuses user addresses.  A
 * string that cannot be read (a bad pointer, a page not present) is
 * recorded as "(fault)", as ftrace's probes do.  A global function, so the
 * verifier checks it once rather than for every path through six strings.
 */
__noinline __u32 tr_add_strings(struct tr_scratch_record *scratch, __u32 size, __u32 strings)
{
	struct tr_probe_record *rec = (struct tr_probe_record *)scratch;
	__u32 at = size;
	int i;

	if (!scratch)
		return 0;
	for (i = 0; i < TR_PROBE_VALUES; i++) {
		long n;

		if (!(strings & (1u << i)))
			continue;
		barrier_var(at);
		if (at > TR_BPF_MAX_RECORD - TR_PROBE_STRING_MAX)
			break;
		at &= TR_BPF_MAX_RECORD - 1;
		n = -1;
		if (strings & TR_PROBE_STRINGS_KERNEL)
			n = bpf_probe_read_kernel_str(scratch->bytes + at, TR_PROBE_STRING_MAX,
						      (const void *)rec->values[i]);
		if (n <= 0)
			n = bpf_probe_read_user_str(scratch->bytes + at, TR_PROBE_STRING_MAX,
						    (const void *)rec->values[i]);
		if (n <= 0) {
			__builtin_memcpy(scratch->bytes + at, "(fault)", 8);
			n = 8;
		}
		rec->values[i] = n << 16 | at;
		at += n;
	}
	return at;
}

/*
 * Where a kind of probe program builds and filters its records.  Kprobe
 * programs, like tracepoint programs, run under trace_call_bpf()'s per-CPU
 * bpf_prog_active: none starts on a CPU while another runs there, so they
 * share the tracepoint programs' filter slot and built record.  Uprobe
 * programs (uprobes, uretprobes, USDT) pass no such guard: the kernel runs
 * them with migration off but interrupts on, and preemption too where the
 * kernel is preemptible; so a tracepoint or kprobe program may run inside
 * one on its CPU, in an interrupt, and another task's uprobe program after
 * a preemption.  fentry and fexit programs neither (below).  Each kind has
 * its own slots, and a per-CPU busy flag keeps a second program of the
 * kind from taking them: its event is counted in tr_probe_nested, which
 * the recorder reports as the kernel's recursion misses.  (A kprobe
 * program never finds its flag taken.)
 */
struct probe_slots {
	__u32 filter;		/* TR_FILTER_SLOT_* */
	__u32 values;		/* the scratch record its values are set in */
	__u32 built;		/* the scratch record for -g, --context, the module */
	__u32 busy;		/* its flag in tr_probe_busy */
};

enum probe_busy { BUSY_KPROBE, BUSY_UPROBE, BUSY_TRAMPOLINE, NR_BUSY };

static const struct probe_slots kprobe_slots = {
	TR_FILTER_SLOT_TRACEPOINT, SCRATCH_PROBE, SCRATCH_RECORD, BUSY_KPROBE
};
static const struct probe_slots uprobe_slots = {
	TR_FILTER_SLOT_UPROBE, SCRATCH_UPROBE, SCRATCH_UPROBE_RECORD, BUSY_UPROBE
};
static const struct probe_slots trampoline_slots = {
	TR_FILTER_SLOT_TRAMPOLINE, SCRATCH_TRAMPOLINE, SCRATCH_TRAMPOLINE_RECORD, BUSY_TRAMPOLINE
};

__u64 tr_probe_nested;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, NR_BUSY);
} tr_probe_busy SEC(".maps");

/*
 * This CPU's values record of slots, for a probe that is recorded, with
 * the kind's busy flag taken (*busy: write_probe() gives it back); or NULL.
 * The flag is taken by one atomic exchange: a program preempted between a
 * test and a set would share the slots with the one that ran meanwhile.
 */
static __always_inline struct tr_probe_record *take_slots(const struct probe_slots *slots,
							  __u32 **busy)
{
	__u32 flag = slots->busy, values = slots->values;
	struct tr_probe_record *rec;

	if (tr_stopped || !wanted())
		return NULL;
	*busy = bpf_map_lookup_elem(&tr_probe_busy, &flag);
	if (!*busy)
		return NULL;
	if (__sync_val_compare_and_swap(*busy, 0, 1)) {
		__sync_fetch_and_add(&tr_probe_nested, 1);
		return NULL;
	}
	rec = bpf_map_lookup_elem(&tr_scratch, &values);
	if (!rec)
		**busy = 0;
	return rec;
}

/*
 * A probe's record (tracer/record.h), its values set in scratch: its
 * strings added, filtered, written; then its slots are free again.
 */
static __always_inline void write_probe(void *ctx, __u32 id, struct tr_probe_record *rec,
					const struct probe_slots *slots, __u32 *busy)
{
	const struct tr_event_shape *shape = bpf_map_lookup_elem(&tr_events, &id);
	__u32 size;

	if (shape) {
		size = shape->fixed_size < sizeof(*rec) ? shape->fixed_size : sizeof(*rec);
		if (shape->probe_strings)
			size = tr_add_strings((struct tr_scratch_record *)rec, size,
					      shape->probe_strings);
		if (record_wanted(rec, id, shape, slots->filter))
			write_record(ctx, rec, id, size, shape, slots->built);
		check_trigger(rec, id, shape, slots->filter);
	}
	*busy = 0;
}

/* A uprobe's or kprobe's values: the argument registers at entry, or the return value. */
static __always_inline int record_probe(struct pt_regs *regs, bool ret,
					const struct probe_slots *slots)
{
	__u32 *busy;
	struct tr_probe_record *rec = take_slots(slots, &busy);

	if (!rec)
		return 0;
	rec->ip = PT_REGS_IP(regs);
	if (ret) {
		rec->values[0] = PT_REGS_RC(regs);
	} else {
		rec->values[0] = PT_REGS_PARM1(regs);
		rec->values[1] = PT_REGS_PARM2(regs);
		rec->values[2] = PT_REGS_PARM3(regs);
		rec->values[3] = PT_REGS_PARM4(regs);
		rec->values[4] = PT_REGS_PARM5(regs);
		rec->values[5] = regs->r9;	/* x86-64; this libbpf has no PT_REGS_PARM6 */
	}
	write_probe(regs, bpf_get_attach_cookie(regs), rec, slots, busy);
	return 0;
}
SEC("?uprobe")
int tr_uprobe(struct pt_regs *regs)
{
	return record_probe(regs, false, &uprobe_slots);
}

SEC("?uretprobe")
int tr_uretprobe(struct pt_regs *regs)
{
	return record_probe(regs, true, &uprobe_slots);
}

SEC("?kprobe")
int tr_kprobe(struct pt_regs *regs)
{
	return record_probe(regs, false, &kprobe_slots);
}

SEC("?kretprobe")
int tr_kretprobe(struct pt_regs *regs)
{
	return record_probe(regs, true, &kprobe_slots);
}

/* A glob's kprobes, attached at once (user/record/attach.c). */
SEC("?kprobe.multi")
int tr_kprobe_multi(struct pt_regs *regs)
{
	return record_probe(regs, false, &kprobe_slots);
}

SEC("?kretprobe.multi")
int tr_kretprobe_multi(struct pt_regs *regs)
{
	return record_probe(regs, true, &kprobe_slots);
}

/* A USDT probe: libbpf's usdt.bpf.h fetches its arguments as its note says. */
SEC("?usdt")
int tr_usdt(struct pt_regs *regs)
{
	__u32 *busy;
	struct tr_probe_record *rec = take_slots(&uprobe_slots, &busy);
	int i, n = bpf_usdt_arg_cnt(regs);

	if (!rec)
		return 0;
	rec->ip = PT_REGS_IP(regs);
	for (i = 0; i < TR_PROBE_VALUES; i++) {
		long value = 0;

		if (i < n)
			bpf_usdt_arg(regs, i, &value);
		rec->values[i] = value;
	}
	write_probe(regs, bpf_usdt_cookie(regs), rec, &uprobe_slots, busy);
	return 0;
}

/*
 * fentry and fexit: one program loaded for the first function of each
 * kind, and another instance of it for each other (user/record/attach.c):
 * a trampoline program is bound to its function when it is loaded.  The
 * kernel keeps each instance from nesting in itself only, so any of them,
 * and programs of every other kind, may run inside another on its CPU (an
 * interrupt, or a preemption: they run with migration, not preemption,
 * off).  Hence their own slots and busy flag (above).
 */

/* The function's arguments (after them, at fexit, its return value), by the trampoline's ctx. */
static __always_inline int record_trampoline(void *ctx, bool exit)
{
	__u32 *busy;
	struct tr_probe_record *rec = take_slots(&trampoline_slots, &busy);
	int i;

	if (!rec)
		return 0;
	rec->ip = bpf_get_func_ip(ctx);
	for (i = 0; i < TR_PROBE_ARG_REGISTERS; i++) {
		__u64 value = 0;

		bpf_get_func_arg(ctx, i, &value);
		rec->values[i] = value;
	}
	if (exit) {
		__u64 value = 0;

		bpf_get_func_ret(ctx, &value);
		rec->values[TR_PROBE_ARG_REGISTERS] = value;
	}
	write_probe(ctx, bpf_get_attach_cookie(ctx), rec, &trampoline_slots, busy);
	return 0;
}

SEC("?fentry")
int tr_fentry(void *ctx)
{
	return record_trampoline(ctx, false);
}

SEC("?fexit")
int tr_fexit(void *ctx)
{
	return record_trampoline(ctx, true);
}

/* --- Where user code is: executable mappings, for user stacks (-g) ------- */

/* tracer:vm_map's event id (tracer/record.h), when -g takes user stacks. */
const volatile __u32 tr_vm_map_id;
/* Records made, and mappings that could not be read (mmap lock busy). */
__u64 tr_vm_records;
__u64 tr_vm_unread;

#define NR_MMAP			9	/* x86-64 */
#define PROT_EXEC		0x4
#define VM_EXEC			0x4
#define PAGE_SHIFT		12
#define AT_BASE			7
#define AUXV_PAIRS		28	/* saved_auxv's size on x86, in pairs */
#define PATH_STEPS		32	/* path components and mount crossings */
#define NAME_BYTES		256	/* a path component, with its NUL */

/* A tracer:vm_map record being built, and the walk that finds its path. */
struct vm_scratch {
	char rec[__builtin_offsetof(struct tr_vm_map, path_data) + TR_VM_PATH_MAX + NAME_BYTES];
	const unsigned char *names[PATH_STEPS];
};

/*
 * A file's path from the root of the mount tree, as d_path() gives it but
 * readable from any program: its dentries' names, leaf first, crossing
 * each mount to its mount point (walk_up), then written root first
 * (write_down).  Cut at PATH_STEPS steps or TR_VM_PATH_MAX - 1 bytes.
 * bpf_loop() steps, as the verifier cannot follow such a loop's paths.
 */
struct path_walk {
	struct dentry *d;
	struct mount *mnt;
	__u64 mnt_at;			/* of struct vfsmount in struct mount */
	__u32 slot;			/* the scratch record's */
	__u32 n;			/* names found */
	__u32 at;			/* bytes of path written */
};

static long walk_up(__u32 i, void *data)
{
	struct path_walk *w = data;
	struct vm_scratch *sc = bpf_map_lookup_elem(&tr_scratch, &w->slot);
	struct vfsmount *vfs = (void *)w->mnt + w->mnt_at;
	struct dentry *d = w->d, *parent;
	struct mount *mnt = w->mnt, *up;

	if (!sc)
		return 1;
	if (d == BPF_CORE_READ(vfs, mnt_root)) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (up == mnt)
			return 1;
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (d == parent)
		return 1;
	sc->names[w->n++ & (PATH_STEPS - 1)] = BPF_CORE_READ(d, d_name.name);
	w->d = parent;
	return 0;
}

static long write_down(__u32 i, void *data)
{
	struct path_walk *w = data;
	struct vm_scratch *sc = bpf_map_lookup_elem(&tr_scratch, &w->slot);
	__u32 at = w->at;
	char *path;
	long len;

	if (!sc || i >= w->n || at >= TR_VM_PATH_MAX - 1)
		return 1;
	path = ((struct tr_vm_map *)sc->rec)->path_data;
	path[at++ & (TR_VM_PATH_MAX - 1)] = '/';
	len = bpf_probe_read_kernel_str(path + (at & (TR_VM_PATH_MAX - 1)), NAME_BYTES,
					sc->names[(w->n - 1 - i) & (PATH_STEPS - 1)]);
	if (len <= 1)
		return 1;
	w->at = at + len - 1;
	return 0;
}

/* The path of file into slot's scratch record; its length with the NUL. */
static __always_inline __u32 path_of(struct file *file, struct vm_scratch *sc, __u32 slot)
{
	struct path_walk w = {
		.d = BPF_CORE_READ(file, f_path.dentry),
		.mnt_at = bpf_core_field_offset(struct mount, mnt),
		.slot = slot,
	};
	__u32 at;

	w.mnt = (void *)BPF_CORE_READ(file, f_path.mnt) - w.mnt_at;
	bpf_loop(PATH_STEPS, walk_up, &w, 0);
	bpf_loop(w.n, write_down, &w, 0);
	at = w.at < TR_VM_PATH_MAX - 1 ? w.at : TR_VM_PATH_MAX - 1;
	barrier_var(at);
	((struct tr_vm_map *)sc->rec)->path_data[at & (TR_VM_PATH_MAX - 1)] = 0;
	return at + 1;
}

/* A file mapping with code: what a user stack's frames point into. */
static __always_inline bool is_code(struct vm_area_struct *vma)
{
	return (BPF_CORE_READ(vma, vm_flags) & VM_EXEC) && BPF_CORE_READ(vma, vm_file);
}

static __always_inline void write_vm_map(struct task_struct *task, struct vm_area_struct *vma,
					 __u32 reason, __u32 slot)
{
	struct vm_scratch *sc = bpf_map_lookup_elem(&tr_scratch, &slot);
	struct tr_vm_map *rec = (void *)sc;
	__u32 size;

	if (!sc)
		return;
	__sync_fetch_and_add(&tr_vm_records, 1);
	rec->common_type = TR_VM_MAP_TYPE;
	rec->common_flags = 0;
	rec->common_preempt_count = 0;
	rec->common_pid = bpf_get_current_pid_tgid();
	rec->pid = BPF_CORE_READ(task, tgid);
	rec->reason = reason;
	rec->start = BPF_CORE_READ(vma, vm_start);
	rec->end = BPF_CORE_READ(vma, vm_end);
	rec->offset = BPF_CORE_READ(vma, vm_pgoff) << PAGE_SHIFT;
	size = path_of(BPF_CORE_READ(vma, vm_file), sc, slot);
	rec->path = size << 16 | __builtin_offsetof(struct tr_vm_map, path_data);
	/* In the default channel, beside the task records. */
	write_bytes(sc, tr_vm_map_id, __builtin_offsetof(struct tr_vm_map, path_data) + size, 0);
}

/*
 * The state dump's half for mappings: run by the recorder after the
 * task records, one call per mapping of every process (the iterator
 * skips threads that share their leader's).  Writes even while frozen,
 * as the task records do.
 */
SEC("?iter/task_vma")
int tr_vm_dump(struct bpf_iter__task_vma *ctx)
{
	struct task_struct *task = ctx->task;
	struct vm_area_struct *vma = ctx->vma;
	__u32 tgid;

	if (!task || !vma)
		return 0;
	tgid = task->tgid;
	if (tgid == tr_self_tgid || (tr_filter_pids && !bpf_map_lookup_elem(&tr_pids, &tgid)))
		return 0;
	if (is_code(vma))
		write_vm_map(task, vma, TR_VM_DUMP, SCRATCH_VM_DUMP);
	return 0;
}

/* Whether the current process's new mappings are recorded; counted as dropped if frozen. */
static __always_inline bool vm_change_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tr_stopped || tgid == tr_self_tgid ||
	    (tr_filter_pids && !bpf_map_lookup_elem(&tr_pids, &tgid)))
		return false;
	return !frozen();
}

/* bpf_find_vma()'s callback: the mapping at an address, written if code. */
struct vm_lookup {
	__u32 reason;
	bool code;			/* out: it was, and is written */
	__u64 end;			/* out: where it ends */
};

static long vm_found(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vm_lookup *l = data;

	l->end = BPF_CORE_READ(vma, vm_end);
	l->code = is_code(vma);
	if (l->code)
		write_vm_map(task, vma, l->reason, SCRATCH_VM_MAP);
	return 0;
}

/* The mapping at address, written if code; false if the mappings could not be read. */
static __always_inline bool find_mapping(struct task_struct *task, __u64 address,
					 struct vm_lookup *l)
{
	l->code = false;
	l->end = 0;
	if (!bpf_find_vma(task, address, vm_found, l, 0))
		return true;
	__sync_fetch_and_add(&tr_vm_unread, 1);
	return false;
}

/* Where exec put the program's interpreter (the dynamic loader), or 0. */
static __always_inline __u64 interpreter_base(struct task_struct *task)
{
	unsigned long *auxv = (void *)BPF_CORE_READ(task, mm) +
			      bpf_core_field_offset(struct mm_struct, saved_auxv);
	unsigned long pair[2];
	int i;

	for (i = 0; i < AUXV_PAIRS; i++) {
		if (bpf_probe_read_kernel(pair, sizeof(pair), auxv + 2 * i) || !pair[0])
			return 0;
		if (pair[0] == AT_BASE)
			return pair[1];
	}
	return 0;
}

/*
 * A new image: the program's code (at start_code) starts it, as an
 * exec record; then the interpreter's code, in one of the mappings
 * that follow its first at AT_BASE (ld.so maps its segments side by
 * side).  Later code comes with mmap() (tr_vm_mmap).
 */
SEC("?tp_btf/sched_process_exec")
int BPF_PROG(tr_vm_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vm_lookup l = { .reason = TR_VM_EXEC };
	__u64 at;
	int i;

	if (!vm_change_wanted())
		return 0;
	find_mapping(task, BPF_CORE_READ(task, mm, start_code), &l);
	at = interpreter_base(task);
	l.reason = TR_VM_MMAP;
	for (i = 0; at && i < 4; i++) {
		if (!find_mapping(task, at, &l) || l.code)
			break;
		at = l.end;
	}
	return 0;
}

/* After a system call: the mapping an mmap() of code made. */
SEC("?tp_btf/sys_exit")
int BPF_PROG(tr_vm_mmap, struct pt_regs *regs, long ret)
{
	struct vm_lookup l = { .reason = TR_VM_MMAP };

	if (regs->orig_ax == NR_MMAP && (unsigned long)ret < -4095UL && (regs->dx & PROT_EXEC) &&
	    vm_change_wanted())
		find_mapping(bpf_get_current_task_btf(), ret, &l);
	return 0;
}

/* A syscalls:sys_enter_NAME or sys_exit_NAME record, as the kernel lays it out. */
struct tr_syscall_record {
	struct trace_entry common;
	int nr;
	unsigned long args[TR_SYSCALL_ARGS];	/* sys_exit: the return value */
};

/* x86: a 32-bit system call; syscall tracepoints leave those out. */
#define TS_COMPAT	0x0002

static __always_inline int record_syscall(void *ctx, struct pt_regs *regs, long nr, bool exit,
					  long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct tr_syscall_events *events;
	struct tr_syscall_record rec = {};
	const struct tr_event_shape *shape;
	__u32 key = nr, id, size;

	if (tr_stopped || nr < 0 || nr >= TR_MAX_SYSCALLS)
		return 0;
	events = bpf_map_lookup_elem(&tr_syscalls, &key);
	id = events ? (exit ? events->exit : events->enter) : 0;
	if (!id-- || (task->thread_info.status & TS_COMPAT) || !wanted())
		return 0;
	shape = bpf_map_lookup_elem(&tr_events, &id);
	if (!shape)
		return 0;
	rec.nr = nr;
	if (exit) {
		rec.args[0] = ret;
	} else {
		rec.args[0] = regs->di;
		rec.args[1] = regs->si;
		rec.args[2] = regs->dx;
		rec.args[3] = regs->r10;
		rec.args[4] = regs->r8;
		rec.args[5] = regs->r9;
	}
	size = shape->fixed_size < sizeof(rec) ? shape->fixed_size : sizeof(rec);
	if (record_wanted(&rec, id, shape, TR_FILTER_SLOT_TP_BTF))
		write_record(ctx, &rec, id, size, shape, SCRATCH_RECORD);
	check_trigger(&rec, id, shape, TR_FILTER_SLOT_TP_BTF);
	return 0;
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(tr_sys_enter, struct pt_regs *regs, long nr)
{
	return record_syscall(ctx, regs, nr, false, 0);
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tr_sys_exit, struct pt_regs *regs, long ret)
{
	return record_syscall(ctx, regs, regs->orig_ax, true, ret);
}

/* --- Who is who: the state dump and the task events that follow it ------- */

/* tracer:task_state's event id in this recording (tracer/record.h). */
const volatile __u32 tr_task_state_id;
/*
 * tracer:task_state records made, for the recorder's summary: written,
 * lost, or dropped while frozen, as its loss counters say.
 */
__u64 tr_task_records;

static __always_inline void write_task_state(struct task_struct *task, const char *comm,
					     __u32 reason)
{
	struct tr_task_state rec = {
		.common_type = TR_TASK_STATE_TYPE,
		.common_pid = bpf_get_current_pid_tgid(),
		.pid = BPF_CORE_READ(task, pid),
		.tgid = BPF_CORE_READ(task, tgid),
		.ppid = BPF_CORE_READ(task, real_parent, tgid),
		.reason = reason,
	};

	bpf_probe_read_kernel_str(rec.comm, sizeof(rec.comm), comm);
	/* In the default channel, beside the recording's other records of its own. */
	write_bytes(&rec, tr_task_state_id, sizeof(rec), 0);
}

/*
 * The state dump: run by the recorder (user/record/statedump.c), one call per task.
 * It writes even while --snapshot-on's trigger holds the buffers frozen:
 * the snapshot it precedes needs it.
 */
SEC("iter/task")
int tr_task_dump(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;

	if (!task)
		return 0;
	__sync_fetch_and_add(&tr_task_records, 1);
	write_task_state(task, task->comm, TR_TASK_DUMP);
	return 0;
}

/* Counts a task record to be made; whether it may be written now. */
static __always_inline bool task_record_counted(void)
{
	__sync_fetch_and_add(&tr_task_records, 1);
	return !frozen();
}

/* What a recording's own events would keep: a recorded task's new tasks. */
static __always_inline bool task_change_wanted(void)
{
	return !tr_stopped && wanted() && task_record_counted();
}

SEC("tp_btf/task_newtask")
int BPF_PROG(tr_task_new, struct task_struct *task, unsigned long clone_flags)
{
	if (task_change_wanted())
		write_task_state(task, task->comm, TR_TASK_NEW);
	return 0;
}

/*
 * A recorded task's new name, and with --comm a task's that takes its
 * name: the tracepoint fires before the name changes (an exec's too),
 * so the old name alone would leave out the task entering the filter,
 * and report would name its records by its old name.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(tr_task_rename, struct task_struct *task, const char *comm)
{
	char new_comm[16];

	if (tr_stopped || bpf_get_current_pid_tgid() >> 32 == tr_self_tgid)
		return 0;
	if (!wanted()) {
		if (!tr_filter_comm || !task_and_cpu_wanted())
			return 0;
		bpf_probe_read_kernel_str(new_comm, sizeof(new_comm), comm);
		if (!comm_is_wanted(new_comm))
			return 0;
	}
	if (task_record_counted())
		write_task_state(task, comm, TR_TASK_COMM);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tr_follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 yes = 1;

	if (tr_follow_forks && bpf_map_lookup_elem(&tr_pids, &ptgid))
		bpf_map_update_elem(&tr_pids, &ctgid, &yes, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
