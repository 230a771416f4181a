// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer export --format lttng -o DIR: a CTF 1.8 trace laid out as
 * lttng-modules 2.13 writes one (lttng-analyses and Trace Compass read
 * only that layout):
 *   - the env names the tracer lttng-modules 2.13, domain "kernel";
 *   - DIR/kernel/ as lttng-tools lays out a session's kernel trace: one
 *     stream class, a stream per CPU (channel0_CPU), cpu_id in the packet
 *     context, packets as LTTng's packet header and context;
 *   - events named as lttng-modules names them, without the system, with
 *     its field names and types (lttng_events[] below, from lttng-modules'
 *     include/instrumentation/events/); system calls as
 *     syscall_entry_NAME (the arguments tracefs names) and
 *     syscall_exit_NAME (ret), from syscalls:sys_enter_NAME and
 *     sys_exit_NAME, or from raw_syscalls by number where the trace has no
 *     event of that call's name (a call is exported once); the state dump's tracer:task_state records
 *     as lttng_statedump_process_state between lttng_statedump_start and
 *     lttng_statedump_end;
 *   - an event lttng-modules records with the kernel's own fields takes its
 *     LTTng name (lttng_names.c: ext4, jbd2, kvm, x86 IRQ vectors...);
 *   - any other event keeps its own name (system:name) and its fields.
 * Event classes are numbered as they first come; the metadata, written
 * last, declares those that came.  A record is written field by field,
 * byte-aligned, into its CPU's packet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include <tracer/cpus.h>
#include <tracer/record.h>

#include "sinks/sink.h"
#include "sinks/by_class.h"
#include "sinks/lttng_names.h"
#include "sinks/tasks.h"
#include "common/syscalls.h"
#include "layout/ctf.h"
#include "reader/trace.h"
#include "reader/trace_dir.h"

/* Packets: at least this much, more for a record that needs it. */
#define PACKET_BYTES	(64 * 1024)
/* A packet's size is a multiple of a page, as LTTng's: babeltrace 1 maps each packet. */
#define PACKET_ALIGN	4096
/* LTTng's priorities are the kernel's less MAX_RT_PRIO. */
#define MAX_RT_PRIO	100
/* The most fields of an event of lttng_events[], and of one exported as its format has them. */
#define MAX_FIELDS	10
#define MAX_FORMAT_FIELDS	128
/* The system call numbers raw_syscalls records are told apart by. */
#define MAX_SYSCALL_NR	1024

/* What a field is in the export (its CTF type). */
enum lt_kind {
	LT_S32, LT_U32, LT_S64, LT_U64, LT_HEX64,
	LT_TEXT,			/* char[size], NUL-padded */
	LT_BYTES,			/* uint8_t[size] */
	LT_STRING,			/* NUL-terminated */
};

/* Where its value comes from. */
enum lt_source {
	FROM_FIELD,			/* field `from` of the record, plus `value` */
	FROM_VALUE,			/* the constant `value` */
	FROM_TGID_OF,			/* the process of the thread field `from` names */
	FROM_WRITER_TGID,		/* the process of the thread that wrote the record */
	FROM_CPU,			/* the CPU the record was written on */
	FROM_ARG,			/* argument `value` of a raw_syscalls:sys_enter record */
	FROM_WRITER_TID,		/* the thread that wrote the record (LTTng's current->pid) */
	FROM_RWBS,			/* the text field `from` ("WS"), as lttng-modules' RWBS flags */
};

struct lt_field {
	const char *name;
	enum lt_kind kind;
	enum lt_source source;
	const char *from;
	__s64 value;
	__u32 size;			/* LT_TEXT, LT_BYTES: bytes */
};

/* An event lttng-modules instruments: tracer's system:name, LTTng's name, its fields. */
struct lt_event {
	const char *system, *name, *lttng_name;
	const char *when;		/* only records whose field `when` is when_value */
	__u64 when_value;
	struct lt_field fields[MAX_FIELDS];
};

#define INT(n, f)	{ n, LT_S32, FROM_FIELD, f, 0, 0 }
#define UINT(n, f)	{ n, LT_U32, FROM_FIELD, f, 0, 0 }
#define LONG(n, f)	{ n, LT_S64, FROM_FIELD, f, 0, 0 }
#define ULONG(n, f)	{ n, LT_U64, FROM_FIELD, f, 0, 0 }
#define HEX(n, f)	{ n, LT_HEX64, FROM_FIELD, f, 0, 0 }
#define COMM(n, f)	{ n, LT_TEXT, FROM_FIELD, f, 0, 16 }
#define PRIO(n, f)	{ n, LT_S32, FROM_FIELD, f, -MAX_RT_PRIO, 0 }
#define CONST(n, v)	{ n, LT_S32, FROM_VALUE, NULL, v, 0 }
/* a pointer tracefs's format does not have (struct page *): 0 */
#define NO_POINTER(n)	{ n, LT_HEX64, FROM_VALUE, NULL, 0, 0 }
#define STRING(n, f)	{ n, LT_STRING, FROM_FIELD, f, 0, 0 }
#define WRITER_TID(n)	{ n, LT_S32, FROM_WRITER_TID, NULL, 0, 0 }
#define RWBS(n, f)	{ n, LT_U32, FROM_RWBS, f, 0, 0 }
#define TASK_FIELDS	COMM("comm", "comm"), INT("tid", "pid"), PRIO("prio", "prio")
#define STAT_FIELDS	COMM("comm", "comm"), INT("tid", "pid"), ULONG("delay", "delay")
#define WAKEUP_FIELDS	TASK_FIELDS, INT("target_cpu", "target_cpu")
#define SECTORS_FIELDS	UINT("dev", "dev"), ULONG("sector", "sector"), UINT("nr_sector", "nr_sector")
#define BLOCK_RQ_FIELDS	SECTORS_FIELDS, UINT("bytes", "bytes"), WRITER_TID("tid"), RWBS("rwbs", "rwbs"), \
			COMM("comm", "comm")
#define BLOCK_BIO_FIELDS SECTORS_FIELDS, RWBS("rwbs", "rwbs"), WRITER_TID("tid"), COMM("comm", "comm")
#define BLOCK_DONE_FIELDS SECTORS_FIELDS, INT("error", "error"), RWBS("rwbs", "rwbs")
#define BUFFER_FIELDS	UINT("dev", "dev"), ULONG("sector", "sector"), ULONG("size", "size")
#define POWER_FIELDS	UINT("state", "state"), UINT("cpu_id", "cpu_id")
#define WORK_FIELDS	HEX("work", "work"), HEX("function", "function")
#define PACKET_FIELDS	HEX("skbaddr", "skbaddr"), UINT("len", "len"), STRING("name", "name")
#define SIGINFO_FIELDS	INT("sig", "sig"), INT("errno", "errno"), INT("code", "code")

/* lttng-modules' rwbs: the flags of blk_fill_rwbs()'s letters (include/instrumentation/events/block.h). */
enum {
	RWBS_FLAG_WRITE = 1 << 0, RWBS_FLAG_DISCARD = 1 << 1, RWBS_FLAG_READ = 1 << 2, RWBS_FLAG_RAHEAD = 1 << 3,
	RWBS_FLAG_SYNC = 1 << 5, RWBS_FLAG_META = 1 << 6, RWBS_FLAG_SECURE = 1 << 7, RWBS_FLAG_FLUSH = 1 << 8,
	RWBS_FLAG_FUA = 1 << 9, RWBS_FLAG_PREFLUSH = 1 << 10,
};

/* lttng-modules 2.13's statedump enums (src/lttng-statedump-impl.c). */
enum { LTTNG_USER_THREAD = 0, LTTNG_MODE_UNKNOWN = 5, LTTNG_SUBMODE_UNKNOWN = 1, LTTNG_WAIT = 5 };

/*
 * lttng-modules 2.13's events for tracer's tracepoints, field for field
 * (include/instrumentation/events/sched.h, irq.h, timer.h, kmem.h, block.h,
 * power.h, workqueue.h, net.h, napi.h, signal.h,
 * lttng-statedump.h).  tracefs's pid fields hold thread ids: LTTng's tid.
 */
static const struct lt_event lttng_events[] = {
	{ "sched", "sched_switch", "sched_switch", NULL, 0, {
		COMM("prev_comm", "prev_comm"), INT("prev_tid", "prev_pid"),
		PRIO("prev_prio", "prev_prio"), LONG("prev_state", "prev_state"),
		COMM("next_comm", "next_comm"), INT("next_tid", "next_pid"),
		PRIO("next_prio", "next_prio") } },
	{ "sched", "sched_waking", "sched_waking", NULL, 0, { WAKEUP_FIELDS } },
	{ "sched", "sched_wakeup", "sched_wakeup", NULL, 0, { WAKEUP_FIELDS } },
	{ "sched", "sched_wakeup_new", "sched_wakeup_new", NULL, 0, { WAKEUP_FIELDS } },
	{ "sched", "sched_migrate_task", "sched_migrate_task", NULL, 0, {
		TASK_FIELDS, INT("orig_cpu", "orig_cpu"), INT("dest_cpu", "dest_cpu") } },
	{ "sched", "sched_process_free", "sched_process_free", NULL, 0, { TASK_FIELDS } },
	{ "sched", "sched_process_exit", "sched_process_exit", NULL, 0, { TASK_FIELDS } },
	{ "sched", "sched_wait_task", "sched_wait_task", NULL, 0, { TASK_FIELDS } },
	{ "sched", "sched_process_wait", "sched_process_wait", NULL, 0, { TASK_FIELDS } },
	{ "sched", "sched_process_fork", "sched_process_fork", NULL, 0, {
		COMM("parent_comm", "parent_comm"), INT("parent_tid", "parent_pid"),
		{ "parent_pid", LT_S32, FROM_WRITER_TGID, NULL, 0, 0 },
		COMM("child_comm", "child_comm"), INT("child_tid", "child_pid"),
		{ "child_pid", LT_S32, FROM_TGID_OF, "child_pid", 0, 0 } } },
	{ "sched", "sched_process_exec", "sched_process_exec", NULL, 0, {
		{ "filename", LT_STRING, FROM_FIELD, "filename", 0, 0 }, INT("tid", "pid"),
		INT("old_tid", "old_pid") } },
	{ "sched", "sched_stat_wait", "sched_stat_wait", NULL, 0, { STAT_FIELDS } },
	{ "sched", "sched_stat_sleep", "sched_stat_sleep", NULL, 0, { STAT_FIELDS } },
	{ "sched", "sched_stat_iowait", "sched_stat_iowait", NULL, 0, { STAT_FIELDS } },
	{ "sched", "sched_stat_blocked", "sched_stat_blocked", NULL, 0, { STAT_FIELDS } },
	{ "sched", "sched_stat_runtime", "sched_stat_runtime", NULL, 0, {
		COMM("comm", "comm"), INT("tid", "pid"), ULONG("runtime", "runtime") } },
	{ "sched", "sched_pi_setprio", "sched_pi_setprio", NULL, 0, {
		COMM("comm", "comm"), INT("tid", "pid"), PRIO("oldprio", "oldprio"),
		PRIO("newprio", "newprio") } },
	{ "sched", "sched_kthread_stop", "sched_kthread_stop", NULL, 0, {
		COMM("comm", "comm"), INT("tid", "pid") } },
	{ "sched", "sched_kthread_stop_ret", "sched_kthread_stop_ret", NULL, 0, {
		INT("ret", "ret") } },
	{ "irq", "irq_handler_entry", "irq_handler_entry", NULL, 0, {
		INT("irq", "irq"), { "name", LT_STRING, FROM_FIELD, "name", 0, 0 } } },
	{ "irq", "irq_handler_exit", "irq_handler_exit", NULL, 0, {
		INT("irq", "irq"), INT("ret", "ret") } },
	{ "irq", "softirq_entry", "irq_softirq_entry", NULL, 0, { UINT("vec", "vec") } },
	{ "irq", "softirq_exit", "irq_softirq_exit", NULL, 0, { UINT("vec", "vec") } },
	{ "irq", "softirq_raise", "irq_softirq_raise", NULL, 0, { UINT("vec", "vec") } },
	{ "timer", "timer_init", "timer_init", NULL, 0, { HEX("timer", "timer") } },
	{ "timer", "timer_start", "timer_start", NULL, 0, {
		HEX("timer", "timer"), HEX("function", "function"), ULONG("expires", "expires"),
		ULONG("bucket_expiry", "bucket_expiry"), ULONG("now", "now"),
		UINT("flags", "flags") } },
	{ "timer", "timer_expire_entry", "timer_expire_entry", NULL, 0, {
		HEX("timer", "timer"), ULONG("now", "now"), HEX("function", "function"),
		ULONG("baseclk", "baseclk") } },
	{ "timer", "timer_expire_exit", "timer_expire_exit", NULL, 0, { HEX("timer", "timer") } },
	{ "timer", "timer_cancel", "timer_cancel", NULL, 0, { HEX("timer", "timer") } },
	{ "timer", "hrtimer_init", "timer_hrtimer_init", NULL, 0, {
		HEX("hrtimer", "hrtimer"), INT("clockid", "clockid"), INT("mode", "mode") } },
	{ "timer", "hrtimer_start", "timer_hrtimer_start", NULL, 0, {
		HEX("hrtimer", "hrtimer"), HEX("function", "function"),
		LONG("expires", "expires"), LONG("softexpires", "softexpires"),
		INT("mode", "mode") } },
	{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry", NULL, 0, {
		HEX("hrtimer", "hrtimer"), LONG("now", "now"), HEX("function", "function") } },
	{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit", NULL, 0, {
		HEX("hrtimer", "hrtimer") } },
	{ "timer", "hrtimer_cancel", "timer_hrtimer_cancel", NULL, 0, { HEX("hrtimer", "hrtimer") } },
	{ "kmem", "kmalloc", "kmem_kmalloc", NULL, 0, {
		HEX("call_site", "call_site"), HEX("ptr", "ptr"), ULONG("bytes_req", "bytes_req"),
		ULONG("bytes_alloc", "bytes_alloc"), UINT("gfp_flags", "gfp_flags"), INT("node", "node") } },
	{ "kmem", "kfree", "kmem_kfree", NULL, 0, { HEX("call_site", "call_site"), HEX("ptr", "ptr") } },
	{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc", NULL, 0, {
		NO_POINTER("page"), ULONG("pfn", "pfn"), UINT("order", "order"),
		UINT("gfp_flags", "gfp_flags"), INT("migratetype", "migratetype") } },
	{ "kmem", "mm_page_free", "kmem_mm_page_free", NULL, 0, {
		NO_POINTER("page"), ULONG("pfn", "pfn"), UINT("order", "order") } },
	/* task_state has no state, mode or CPU of the task: unknown mode, waiting, the dump's CPU */
	{ "block", "block_rq_issue", "block_rq_issue", NULL, 0, { BLOCK_RQ_FIELDS } },
	{ "block", "block_rq_insert", "block_rq_insert", NULL, 0, { BLOCK_RQ_FIELDS } },
	{ "block", "block_rq_merge", "block_rq_merge", NULL, 0, { BLOCK_RQ_FIELDS } },
	{ "block", "block_rq_complete", "block_rq_complete", NULL, 0, { BLOCK_DONE_FIELDS } },
	{ "block", "block_rq_requeue", "block_rq_requeue", NULL, 0, { SECTORS_FIELDS, RWBS("rwbs", "rwbs") } },
	{ "block", "block_rq_remap", "block_rq_remap", NULL, 0, {
		SECTORS_FIELDS, UINT("old_dev", "old_dev"), ULONG("old_sector", "old_sector"), RWBS("rwbs", "rwbs") } },
	{ "block", "block_bio_complete", "block_bio_complete", NULL, 0, { BLOCK_DONE_FIELDS } },
	{ "block", "block_bio_bounce", "block_bio_bounce", NULL, 0, { BLOCK_BIO_FIELDS } },
	{ "block", "block_bio_backmerge", "block_bio_backmerge", NULL, 0, { BLOCK_BIO_FIELDS } },
	{ "block", "block_bio_frontmerge", "block_bio_frontmerge", NULL, 0, { BLOCK_BIO_FIELDS } },
	{ "block", "block_bio_queue", "block_bio_queue", NULL, 0, { BLOCK_BIO_FIELDS } },
	{ "block", "block_getrq", "block_getrq", NULL, 0, { BLOCK_BIO_FIELDS } },
	{ "block", "block_bio_remap", "block_bio_remap", NULL, 0, {
		SECTORS_FIELDS, RWBS("rwbs", "rwbs"), UINT("old_dev", "old_dev"), ULONG("old_sector", "old_sector") } },
	{ "block", "block_split", "block_split", NULL, 0, {
		UINT("dev", "dev"), ULONG("sector", "sector"), RWBS("rwbs", "rwbs"), ULONG("new_sector", "new_sector"),
		WRITER_TID("tid"), COMM("comm", "comm") } },
	{ "block", "block_plug", "block_plug", NULL, 0, { WRITER_TID("tid"), COMM("comm", "comm") } },
	{ "block", "block_unplug", "block_unplug", NULL, 0, {
		INT("nr_rq", "nr_rq"), WRITER_TID("tid"), COMM("comm", "comm") } },
	{ "block", "block_touch_buffer", "block_touch_buffer", NULL, 0, { BUFFER_FIELDS } },
	{ "block", "block_dirty_buffer", "block_dirty_buffer", NULL, 0, { BUFFER_FIELDS } },
	{ "power", "cpu_idle", "power_cpu_idle", NULL, 0, { POWER_FIELDS } },
	{ "power", "cpu_frequency", "power_cpu_frequency", NULL, 0, { POWER_FIELDS } },
	{ "workqueue", "workqueue_queue_work", "workqueue_queue_work", NULL, 0, {
		WORK_FIELDS, INT("req_cpu", "req_cpu") } },
	{ "workqueue", "workqueue_activate_work", "workqueue_activate_work", NULL, 0, { HEX("work", "work") } },
	{ "workqueue", "workqueue_execute_start", "workqueue_execute_start", NULL, 0, { WORK_FIELDS } },
	{ "workqueue", "workqueue_execute_end", "workqueue_execute_end", NULL, 0, { WORK_FIELDS } },
	{ "net", "net_dev_xmit", "net_dev_xmit", NULL, 0, {
		HEX("skbaddr", "skbaddr"), INT("rc", "rc"), UINT("len", "len"), STRING("name", "name") } },
	{ "net", "net_dev_queue", "net_dev_queue", NULL, 0, { PACKET_FIELDS } },
	{ "net", "netif_receive_skb", "net_if_receive_skb", NULL, 0, { PACKET_FIELDS } },
	{ "net", "netif_rx", "net_if_rx", NULL, 0, { PACKET_FIELDS } },
	{ "napi", "napi_poll", "napi_poll", NULL, 0, {
		HEX("napi", "napi"), STRING("dev_name", "dev_name"), INT("work", "work"), INT("budget", "budget") } },
	{ "signal", "signal_generate", "signal_generate", NULL, 0, {
		SIGINFO_FIELDS, COMM("comm", "comm"), INT("pid", "pid"), INT("group", "group"), INT("result", "result") } },
	{ "signal", "signal_deliver", "signal_deliver", NULL, 0, {
		SIGINFO_FIELDS, ULONG("sa_handler", "sa_handler"), ULONG("sa_flags", "sa_flags") } },
	{ "tracer", "task_state", "lttng_statedump_process_state", "reason", TR_TASK_DUMP, {
		INT("tid", "pid"), INT("pid", "tgid"), INT("ppid", "ppid"), COMM("name", "comm"),
		CONST("type", LTTNG_USER_THREAD), CONST("mode", LTTNG_MODE_UNKNOWN),
		CONST("submode", LTTNG_SUBMODE_UNKNOWN), CONST("status", LTTNG_WAIT),
		{ "cpu", LT_U32, FROM_CPU, NULL, 0, 0 },
		{ "file_table_address", LT_HEX64, FROM_VALUE, NULL, 0, 0 } } },
};

/* An event class of the export: its name and fields, its id its place in the list. */
struct lt_class {
	char *name;
	const struct lt_field *fields;
	unsigned int nfields;
	struct lt_field *own;		/* fields worked out from a format (freed with it) */
};

/* How a trace class's records become the export's: worked out on its first record. */
enum lt_rule { RULE_UNSEEN, RULE_FIXED, RULE_RAW_SYSCALL };

struct class_map {
	enum lt_rule rule;
	const struct lt_event *event;	/* RULE_FIXED: its row, or NULL */
	__s32 id, other_id;		/* its export class; other_id: records not `when` */
	__s32 *by_nr;			/* RULE_RAW_SYSCALL: export class by number, -1: none yet */
	int exit;			/* RULE_RAW_SYSCALL: sys_exit */
};

/* A CPU's stream: the packet it is filling. */
struct lt_stream {
	int fd;				/* -1 until its first packet */
	char *packet;
	size_t room, used;
	__u64 seq, discarded, begin, end;
};

/*
 * The export is a session directory as lttng-tools lays one out: DIR
 * holds the kernel trace in DIR/kernel (lttng-analyses looks for it
 * there).
 */
struct lttng {
	const struct tr_trace *trace;
	const char *path;		/* DIR */
	char *kernel_path;		/* DIR/kernel */
	struct tr_trace_dir top, dir;	/* DIR, DIR/kernel */
	__u8 uuid[16];
	struct lt_stream *streams;	/* [TR_MAX_CPUS] */
	struct lt_class *classes;
	unsigned int nclasses, room;
	struct tr_by_class maps;	/* struct class_map by the trace's class id */
	char *formats;			/* .tracer/events: which syscalls:* events the trace has */
	__s32 start_id, end_id;		/* the state dump's bounds' classes, -1 until needed */
	/*
	 * Every stream spans the whole export, as LTTng's do (babeltrace 1
	 * takes the span all streams share as the trace's): first packets
	 * begin at the first item, last packets end at the last.
	 */
	__u64 first_ts, last_ts;
	int in_dump;			/* a state dump is open: it ends before the next record */
	__u32 dump_cpu;
	__u64 dump_end;
	int err;			/* the first write's -errno */
};

/* LTTng's packet header and context (metadata_stream below), little-endian, packed. */
struct __attribute__((packed)) lt_packet_header {
	__u32 magic;
	__u8 uuid[16];
	__u32 stream_id;
	__u64 stream_instance_id;
	__u64 timestamp_begin, timestamp_end, content_size, packet_size, packet_seq_num;
	__u64 events_discarded;
	__u32 cpu_id;
};

/* The event header: id, then time. */
#define EVENT_HEADER_BYTES	12

/*
 * A new export class named name (copied) with fields: its id, -ENOMEM,
 * or -EINVAL for a name the metadata cannot hold as it is (a damaged
 * trace's: a quote, a backslash, a control character).
 */
static __s32 add_class(struct lttng *l, const char *name, const struct lt_field *fields,
		       unsigned int nfields, struct lt_field *own)
{
	struct lt_class *c;

	if (!tr_ctf_is_quotable(name))
		return -EINVAL;
	if (l->nclasses == l->room) {
		unsigned int room = l->room ? 2 * l->room : 64;
		struct lt_class *more = realloc(l->classes, room * sizeof(*more));

		if (!more)
			return -ENOMEM;
		l->classes = more;
		l->room = room;
	}
	c = &l->classes[l->nclasses];
	*c = (struct lt_class) { strdup(name), fields, nfields, own };
	if (!c->name)
		return -ENOMEM;
	return l->nclasses++;
}

/*
 * C types of 32 bits that tracefs gives 8 bytes (a system call's
 * arguments, each a register): LTTng's type, as the register's low half.
 */
static const struct {
	const char *type;
	enum lt_kind kind;
} narrow_types[] = {
	{ "int", LT_S32 }, { "pid_t", LT_S32 }, { "unsigned int", LT_U32 }, { "umode_t", LT_U32 },
	{ "uid_t", LT_U32 }, { "gid_t", LT_U32 }, { "u32", LT_U32 }, { "key_serial_t", LT_S32 },
	{ "clockid_t", LT_S32 }, { "timer_t", LT_S32 }, { "mqd_t", LT_S32 }, { "qid_t", LT_U32 },
};

/* The kind of a scalar field of type, when narrow_types[] has it; else kind. */
static enum lt_kind narrowed(const char *type, enum lt_kind kind)
{
	unsigned int i;

	for (i = 0; i < sizeof(narrow_types) / sizeof(narrow_types[0]); i++)
		if (!strcmp(narrow_types[i].type, type))
			return narrow_types[i].kind;
	return kind;
}

/* The export's field for a field of a tracefs format. */
static struct lt_field field_of_format(const struct tep_format_field *f)
{
	struct lt_field out = { .name = f->name, .from = f->name, .source = FROM_FIELD };

	if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
		out.kind = (f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) ?
			   LT_TEXT : LT_STRING;
	else if (f->flags & TEP_FIELD_IS_ARRAY)
		out.kind = LT_BYTES;
	else if (f->flags & TEP_FIELD_IS_POINTER)
		out.kind = LT_HEX64;
	else if (f->size == 8)
		out.kind = narrowed(f->type, f->flags & TEP_FIELD_IS_SIGNED ? LT_S64 : LT_U64);
	else
		out.kind = f->flags & TEP_FIELD_IS_SIGNED ? LT_S32 : LT_U32;
	if (out.kind == LT_TEXT || out.kind == LT_BYTES)
		out.size = f->size;
	return out;
}

/*
 * A class named name whose fields are the format's (but skip's): its id,
 * or add_class()'s -errno.  A format that could not be parsed gives none.
 */
static __s32 add_format_class(struct lttng *l, const char *name, const struct tep_event *ev,
			      const char *skip)
{
	struct tep_format_field *f;
	struct lt_field *fields;
	unsigned int n = 0;
	__s32 id;

	fields = calloc(MAX_FORMAT_FIELDS, sizeof(*fields));
	if (!fields)
		return -ENOMEM;
	/* a field the metadata cannot name (no C identifier) is left out */
	for (f = ev ? ev->format.fields : NULL; f && n < MAX_FORMAT_FIELDS; f = f->next)
		if (strcmp(f->name, skip) && tr_ctf_is_identifier(f->name))
			fields[n++] = field_of_format(f);
	id = add_class(l, name, fields, n, fields);
	if (id < 0)
		free(fields);
	return id;
}

/* The row of lttng_events[] for system:name, or NULL. */
static const struct lt_event *lttng_event(const char *system, const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(lttng_events) / sizeof(lttng_events[0]); i++)
		if (!strcmp(lttng_events[i].system, system) && !strcmp(lttng_events[i].name, name))
			return &lttng_events[i];
	return NULL;
}

/* A row's fields: how many it has. */
static unsigned int event_nfields(const struct lt_event *e)
{
	unsigned int n = 0;

	while (n < MAX_FIELDS && e->fields[n].name)
		n++;
	return n;
}

/* Whether a name starts with prefix: what follows it, or NULL. */
static const char *after(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);

	return strncmp(name, prefix, len) ? NULL : name + len;
}

/*
 * Works out m for class c: its export class (or classes) made.  0, or
 * add_class()'s -errno.  System calls: syscall_entry_NAME with the arguments,
 * syscall_exit_NAME with ret; an event lttng-modules records with the
 * kernel's fields: its LTTng name (lttng_names.c); any other: system:name.
 */
static int map_class(struct lttng *l, struct class_map *m, const struct tr_trace_class *c)
{
	const char *sys_enter = after(c->name, "sys_enter_"), *sys_exit = after(c->name, "sys_exit_");
	char name[256];

	m->rule = RULE_FIXED;
	m->other_id = -1;
	m->event = lttng_event(c->system, c->name);
	if (!strcmp(c->system, "raw_syscalls")) {
		m->rule = RULE_RAW_SYSCALL;
		m->exit = !strcmp(c->name, "sys_exit");
		m->by_nr = malloc(MAX_SYSCALL_NR * sizeof(*m->by_nr));
		if (m->by_nr)
			memset(m->by_nr, 0xff, MAX_SYSCALL_NR * sizeof(*m->by_nr));
		return m->by_nr ? 0 : -ENOMEM;
	}
	if (m->event)
		m->id = add_class(l, m->event->lttng_name, m->event->fields, event_nfields(m->event), NULL);
	else if (!strcmp(c->system, "syscalls") && (sys_enter || sys_exit))
		m->id = add_format_class(l, (snprintf(name, sizeof(name), "syscall_%s_%s",
						      sys_enter ? "entry" : "exit",
						      sys_enter ? sys_enter : sys_exit), name),
					 c->tep, "__syscall_nr");
	else if (lt_lttng_name(c->system, c->name))
		m->id = add_format_class(l, lt_lttng_name(c->system, c->name), c->tep, "");
	else
		m->id = add_format_class(l, (snprintf(name, sizeof(name), "%s:%s", c->system, c->name),
					     name), c->tep, "");
	if (m->id >= 0 && m->event && m->event->when)
		m->other_id = add_format_class(l, (snprintf(name, sizeof(name), "%s:%s", c->system,
							    c->name), name), c->tep, "");
	return m->id < 0 ? m->id : m->event && m->event->when && m->other_id < 0 ? m->other_id : 0;
}

/* The fields of a raw_syscalls record's export class: ret for an exit. */
static const struct lt_field raw_exit_fields[] = { LONG("ret", "ret") };

/*
 * ... and for an entry, the arguments of the calls lttng-analyses' I/O
 * analysis reads, by their names in the kernel's SYSCALL_DEFINEs (LTTng's
 * names): numbers, from the record's args; a path, which the raw record
 * has only the address of, as "".  Other calls' entries have none.
 */
struct raw_syscall {
	const char *name;
	struct lt_field args[6];
};

/* An int argument (its register's low half), a size or offset, an address. */
#define INT_ARG(n, i)	{ n, LT_S32, FROM_ARG, NULL, i, 0 }
#define SIZE_ARG(n, i)	{ n, LT_U64, FROM_ARG, NULL, i, 0 }
#define ADDR_ARG(n, i)	{ n, LT_HEX64, FROM_ARG, NULL, i, 0 }
#define PATH(n)		{ n, LT_STRING, FROM_VALUE, NULL, 0, 0 }
#define RW_ARGS(count)	INT_ARG("fd", 0), ADDR_ARG("buf", 1), SIZE_ARG(count, 2)
#define FD_ONLY		{ INT_ARG("fd", 0) }

static const struct raw_syscall raw_syscalls[] = {
	{ "read", { RW_ARGS("count") } }, { "write", { RW_ARGS("count") } },
	{ "pread64", { RW_ARGS("count"), SIZE_ARG("pos", 3) } },
	{ "pwrite64", { RW_ARGS("count"), SIZE_ARG("pos", 3) } },
	{ "readv", { INT_ARG("fd", 0), ADDR_ARG("vec", 1), SIZE_ARG("vlen", 2) } },
	{ "writev", { INT_ARG("fd", 0), ADDR_ARG("vec", 1), SIZE_ARG("vlen", 2) } },
	{ "preadv", { INT_ARG("fd", 0), ADDR_ARG("vec", 1), SIZE_ARG("vlen", 2),
		      SIZE_ARG("pos_l", 3), SIZE_ARG("pos_h", 4) } },
	{ "pwritev", { INT_ARG("fd", 0), ADDR_ARG("vec", 1), SIZE_ARG("vlen", 2),
		       SIZE_ARG("pos_l", 3), SIZE_ARG("pos_h", 4) } },
	{ "recvfrom", { INT_ARG("fd", 0), ADDR_ARG("ubuf", 1), SIZE_ARG("size", 2),
			INT_ARG("flags", 3) } },
	{ "sendto", { INT_ARG("fd", 0), ADDR_ARG("buff", 1), SIZE_ARG("len", 2),
		      INT_ARG("flags", 3) } },
	{ "recvmsg", { INT_ARG("fd", 0), ADDR_ARG("msg", 1), INT_ARG("flags", 2) } },
	{ "sendmsg", { INT_ARG("fd", 0), ADDR_ARG("msg", 1), INT_ARG("flags", 2) } },
	{ "close", FD_ONLY }, { "dup", { INT_ARG("fildes", 0) } },
	{ "dup2", { INT_ARG("oldfd", 0), INT_ARG("newfd", 1) } },
	{ "dup3", { INT_ARG("oldfd", 0), INT_ARG("newfd", 1), INT_ARG("flags", 2) } },
	{ "fcntl", { INT_ARG("fd", 0), INT_ARG("cmd", 1), SIZE_ARG("arg", 2) } },
	{ "socket", { INT_ARG("family", 0), INT_ARG("type", 1), INT_ARG("protocol", 2) } },
	{ "open", { PATH("filename"), INT_ARG("flags", 1), INT_ARG("mode", 2) } },
	{ "openat", { INT_ARG("dfd", 0), PATH("filename"), INT_ARG("flags", 2), INT_ARG("mode", 3) } },
	{ "splice", { INT_ARG("fd_in", 0), ADDR_ARG("off_in", 1), INT_ARG("fd_out", 2),
		      ADDR_ARG("off_out", 3), SIZE_ARG("len", 4), INT_ARG("flags", 5) } },
	{ "sendfile64", { INT_ARG("out_fd", 0), INT_ARG("in_fd", 1), ADDR_ARG("offset", 2),
			  SIZE_ARG("count", 3) } },
	{ "fsync", FD_ONLY }, { "fdatasync", FD_ONLY },
	{ "sync_file_range", { INT_ARG("fd", 0), SIZE_ARG("offset", 1), SIZE_ARG("nbytes", 2),
			       INT_ARG("flags", 3) } },
};

/* A raw sys_enter's fields for call name, into *fields: how many. */
static unsigned int raw_entry_fields(const char *name, const struct lt_field **fields)
{
	unsigned int i, n = 0;

	for (i = 0; name && i < sizeof(raw_syscalls) / sizeof(raw_syscalls[0]); i++)
		if (!strcmp(raw_syscalls[i].name, name)) {
			*fields = raw_syscalls[i].args;
			while (n < 6 && raw_syscalls[i].args[n].name)
				n++;
		}
	return n;
}

/* Whether the trace has syscalls:sys_enter_NAME (or sys_exit_NAME, if exit). */
static int has_syscall_event(const struct lttng *l, const char *name, int exit)
{
	char line[256];

	snprintf(line, sizeof(line), "\nname: sys_%s_%s\n", exit ? "exit" : "enter", name);
	return l->formats && strstr(l->formats, line);
}

/*
 * The export class of a raw_syscalls record, made on its number's first
 * record: id, -ENOENT for a call the trace has its own event for (its
 * records are exported from that), or -errno.
 */
static __s32 raw_syscall_class(struct lttng *l, struct class_map *m, const struct tr_item *it)
{
	__u64 nr = tr_item_number(it, "id");
	const char *name = nr < MAX_SYSCALL_NR ? tr_syscall_name(nr) : NULL;
	char full[256];
	__s32 *slot = nr < MAX_SYSCALL_NR ? &m->by_nr[nr] : NULL, id;

	if (slot && *slot != -1)
		return *slot;
	snprintf(full, sizeof(full), "syscall_%s_%s", m->exit ? "exit" : "entry",
		 name ? name : "unknown");
	const struct lt_field *fields = raw_exit_fields;
	unsigned int nfields = m->exit ? 1 : raw_entry_fields(name, &fields);

	id = name && has_syscall_event(l, name, m->exit) ? -ENOENT :
	     add_class(l, full, fields, nfields, NULL);
	if (slot && id != -ENOMEM)
		*slot = id;
	return id;
}

/* The export class of a record: its id, or -errno. */
static __s32 class_of(struct lttng *l, const struct tr_item *it)
{
	struct class_map *m = tr_by_class(&l->maps, it->record->id);
	int err;

	if (!m)
		return -ENOMEM;
	if (m->rule == RULE_UNSEEN && (err = map_class(l, m, it->class)))
		return err;
	if (m->rule == RULE_RAW_SYSCALL)
		return raw_syscall_class(l, m, it);
	if (m->event && m->event->when && tr_item_number(it, m->event->when) != m->event->when_value)
		return m->other_id;
	return m->id;
}

/* Bytes field f takes in the record (strings: their text and its NUL). */
static size_t field_bytes(const struct lt_field *f, const struct tr_item *it)
{
	static const size_t ints[] = {
		[LT_S32] = 4, [LT_U32] = 4, [LT_S64] = 8, [LT_U64] = 8, [LT_HEX64] = 8,
	};
	const char *text;
	int len = 0;

	if (f->kind == LT_TEXT || f->kind == LT_BYTES)
		return f->size;
	if (f->kind != LT_STRING)
		return ints[f->kind];
	text = it && f->source == FROM_FIELD ? tr_item_field(it, f->from, &len) : NULL;
	return (text && len > 0 ? strnlen(text, len) : 0) + 1;
}

/* Argument i of a raw_syscalls:sys_enter record (its args[6] of unsigned long), 0 if none. */
static __u64 raw_argument(const struct tr_item *it, unsigned int i)
{
	int len = 0;
	const char *args = tr_item_field(it, "args", &len);
	__u64 arg = 0;

	if (args && len >= (int)(8 * (i + 1)))
		memcpy(&arg, args + 8 * i, sizeof(arg));
	return le64toh(arg);
}

/*
 * The text of rwbs as lttng-modules' flags: blk_fill_rwbs() writes F for a
 * preflush, then the operation (W, D or DE, F, R, N), then F for FUA, A,
 * S, M.
 */
static __u32 rwbs_flags(const char *rwbs, int len)
{
	static const char letters[] = "FASM";
	static const __u32 flags[] = { RWBS_FLAG_FUA, RWBS_FLAG_RAHEAD, RWBS_FLAG_SYNC, RWBS_FLAG_META };
	__u32 out = 0;
	int i = 0;
	const char *at;

	if (len > 1 && rwbs[0] == 'F' && rwbs[1] && strchr("WDFRN", rwbs[1])) {
		out |= RWBS_FLAG_PREFLUSH;
		i = 1;
	}
	if (i < len && rwbs[i]) {
		out |= rwbs[i] == 'W' ? RWBS_FLAG_WRITE : rwbs[i] == 'D' ? RWBS_FLAG_DISCARD :
		       rwbs[i] == 'F' ? RWBS_FLAG_FLUSH : rwbs[i] == 'R' ? RWBS_FLAG_READ : 0;
		if (rwbs[i++] == 'D' && i < len && rwbs[i] == 'E') {
			out |= RWBS_FLAG_SECURE;
			i++;
		}
	}
	for (; i < len && rwbs[i]; i++)
		if ((at = strchr(letters, rwbs[i])))
			out |= flags[at - letters];
	return out;
}

/* Field f's number for record it. */
static __u64 field_number(const struct lt_field *f, const struct tr_item *it,
			  const struct tr_tasks *tasks)
{
	const struct tr_task *task;
	const char *text;
	int len = 0;
	__u64 tid;

	switch (f->source) {
	case FROM_VALUE:
		return f->value;
	case FROM_WRITER_TGID:
		return it->record->pid;
	case FROM_WRITER_TID:
		return it->record->tid;
	case FROM_RWBS:
		text = tr_item_field(it, f->from, &len);
		return text && len > 0 ? rwbs_flags(text, len) : 0;
	case FROM_CPU:
		return it->cpu;
	case FROM_ARG:
		return raw_argument(it, f->value);
	case FROM_TGID_OF:
		tid = tr_item_number(it, f->from);
		task = tr_tasks_find(tasks, tid);
		return task && task->pid ? task->pid : tid;
	case FROM_FIELD:
		break;
	}
	return tr_item_number(it, f->from) + f->value;
}

/* Field f of record it at to (field_bytes() of room). */
static void write_field(char *to, const struct lt_field *f, const struct tr_item *it,
			const struct tr_tasks *tasks, size_t bytes)
{
	const char *data;
	int len = 0;
	__u64 number;

	memset(to, 0, bytes);
	if (f->kind == LT_TEXT || f->kind == LT_BYTES || f->kind == LT_STRING) {
		data = f->source == FROM_FIELD ? tr_item_field(it, f->from, &len) : NULL;
		if (data && len > 0)
			memcpy(to, data, (size_t)len < bytes - (f->kind == LT_STRING) ?
			       (size_t)len : bytes - (f->kind == LT_STRING));
		return;
	}
	number = htole64(field_number(f, it, tasks));
	memcpy(to, &number, bytes);	/* little-endian: the low bytes first */
}

/* The CPU's stream; NULL for a CPU beyond TR_MAX_CPUS. */
static struct lt_stream *stream_of(struct lttng *l, __u32 cpu)
{
	return cpu < TR_MAX_CPUS ? &l->streams[cpu] : NULL;
}

/* The stream's packet onto its file, and a new one begun at its end. */
static void flush_packet(struct lttng *l, struct lt_stream *s, __u32 cpu)
{
	struct lt_packet_header *h = (void *)s->packet;
	size_t size = (s->used + PACKET_ALIGN - 1) & ~(size_t)(PACKET_ALIGN - 1);

	if (!s->packet)
		return;
	if (size > s->room) {	/* room to pad to: PACKET_BYTES is a multiple of PACKET_ALIGN */
		char *bigger = realloc(s->packet, size);

		if (!bigger) {
			l->err = l->err ?: -ENOMEM;
			return;
		}
		s->packet = bigger;
		s->room = size;
		h = (void *)s->packet;
	}
	memset(s->packet + s->used, 0, size - s->used);
	if (s->fd < 0 && !l->err)
		s->fd = tr_trace_dir_stream_file(&l->dir, "channel0", cpu);
	if (s->fd < 0) {
		l->err = l->err ?: s->fd;
		return;
	}
	*h = (struct lt_packet_header) {
		.magic = htole32(TR_PACKET_MAGIC), .stream_instance_id = htole64(cpu),
		.timestamp_begin = htole64(s->begin), .timestamp_end = htole64(s->end),
		.content_size = htole64(8 * s->used), .packet_size = htole64(8 * size),
		.packet_seq_num = htole64(s->seq++), .events_discarded = htole64(s->discarded),
		.cpu_id = htole32(cpu),
	};
	memcpy(h->uuid, l->uuid, sizeof(h->uuid));
	l->err = l->err ?: tr_ctf_write_all(s->fd, s->packet, size);
	s->used = sizeof(*h);
	s->begin = s->end;
}

/* Room for bytes more in the CPU's packet at ts: where they go, or NULL (l->err set). */
static char *reserve(struct lttng *l, __u32 cpu, __u64 ts, size_t bytes)
{
	struct lt_stream *s = stream_of(l, cpu);
	char *at;

	if (!s) {
		l->err = l->err ?: -ERANGE;
		return NULL;
	}
	if (!l->first_ts)
		l->first_ts = ts;
	l->last_ts = ts > l->last_ts ? ts : l->last_ts;
	if (s->packet && s->used > sizeof(struct lt_packet_header) && s->used + bytes > s->room)
		flush_packet(l, s, cpu);
	if (!s->packet || s->used + bytes > s->room) {
		size_t room = s->used + bytes > PACKET_BYTES ? s->used + bytes : PACKET_BYTES;
		char *bigger = realloc(s->packet, room);

		if (!bigger) {
			l->err = l->err ?: -ENOMEM;
			return NULL;
		}
		if (!s->packet) {
			s->used = sizeof(struct lt_packet_header);
			s->begin = l->first_ts;
		}
		s->packet = bigger;
		s->room = room;
	}
	at = s->packet + s->used;
	s->used += bytes;
	s->end = ts;
	return at;
}

/* An event of class id at ts on cpu, its fields from record it (NULL: it has none). */
static void write_event(struct lttng *l, __s32 id, __u32 cpu, __u64 ts, const struct tr_item *it,
			const struct tr_tasks *tasks)
{
	const struct lt_class *c = &l->classes[id];
	size_t bytes = EVENT_HEADER_BYTES, sizes[MAX_FORMAT_FIELDS];
	unsigned int i;
	__u32 le_id = htole32(id);
	__u64 le_ts = htole64(ts);
	char *at;

	for (i = 0; i < c->nfields; i++)	/* at most MAX_FORMAT_FIELDS */
		bytes += sizes[i] = field_bytes(&c->fields[i], it);
	at = reserve(l, cpu, ts, bytes);
	if (!at)
		return;
	memcpy(at, &le_id, 4);
	memcpy(at + 4, &le_ts, 8);
	at += EVENT_HEADER_BYTES;
	for (i = 0; i < c->nfields; i++) {
		write_field(at, &c->fields[i], it, tasks, sizes[i]);
		at += sizes[i];
	}
}

/* A class without fields made on first use (*id: -1 until then): its id, or -ENOMEM. */
static __s32 bare_class(struct lttng *l, __s32 *id, const char *name)
{
	if (*id < 0)
		*id = add_class(l, name, NULL, 0, NULL);
	return *id;
}

/*
 * The state dump's bounds: lttng_statedump_start before its first record,
 * lttng_statedump_end after its last, both on the dump's CPU (its records
 * are written on one); dumping says whether it is a dump record.
 */
static void statedump_bounds(struct lttng *l, const struct tr_item *it, int dumping)
{
	__s32 id;

	if (dumping && !l->in_dump) {
		id = bare_class(l, &l->start_id, "lttng_statedump_start");
		if (id >= 0)
			write_event(l, id, it->cpu, it->ts, NULL, NULL);
		l->in_dump = 1;
	} else if (!dumping && l->in_dump) {
		id = bare_class(l, &l->end_id, "lttng_statedump_end");
		if (id >= 0)
			write_event(l, id, l->dump_cpu, l->dump_end, NULL, NULL);
		l->in_dump = 0;
	}
	if (dumping) {
		l->dump_cpu = it->cpu;
		l->dump_end = it->ts;
	}
}

static void lttng_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct lttng *l = state;
	__s32 id;

	if (l->err)
		return;
	tr_tasks_learn_pid(tasks, it);
	id = class_of(l, it);
	if (id < 0) {
		l->err = id == -ENOENT ? 0 : id;
		return;
	}
	statedump_bounds(l, it, tr_is_tracer_class(it->class, "task_state") &&
				tr_item_number(it, "reason") == TR_TASK_DUMP);
	write_event(l, id, it->cpu, it->ts, it, tasks);
}

/* A loss ends its CPU's packet, which counts it in events_discarded. */
static void lttng_lost(void *state, const struct tr_item *it)
{
	struct lttng *l = state;
	struct lt_stream *s = stream_of(l, it->cpu);

	if (!s)
		return;
	if (!s->packet && !reserve(l, it->cpu, it->ts, 0))
		return;
	s->discarded += tr_item_lost(it);	/* cumulative, as of the end of the packet it ends */
	flush_packet(l, s, it->cpu);
	s->seq += it->lost_packets;
	s->begin = s->end = it->ts > s->end ? it->ts : s->end;
}

/* The metadata's fixed part: types, and the trace's packet header (struct lt_packet_header). */
static const char metadata_head[] =
"/* CTF 1.8 */\n"
"\n"
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
"typealias integer { size = 64; align = 8; signed = false; base = 16; } := hex64_t;\n"
"typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;\n"
"\n"
"trace {\n"
"\tmajor = 1;\n"
"\tminor = 8;\n"
"\tbyte_order = le;\n"
"\tpacket.header := struct {\n"
"\t\tuint32_t magic;\n"
"\t\tuint8_t  uuid[16];\n"
"\t\tuint32_t stream_id;\n"
"\t\tuint64_t stream_instance_id;\n"
"\t};\n";

/* After the clock: its type, the packet context (lt_packet_header's rest), the stream class. */
static const char metadata_stream[] =
"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
" := uint64_clock_monotonic_t;\n"
"\n"
"stream {\n"
"\tid = 0;\n"
"\tevent.header := struct {\n"
"\t\tuint32_t id;\n"
"\t\tuint64_clock_monotonic_t timestamp;\n"
"\t};\n"
"\tpacket.context := struct {\n"
"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
"\t\tuint64_clock_monotonic_t timestamp_end;\n"
"\t\tuint64_t content_size;\n"
"\t\tuint64_t packet_size;\n"
"\t\tuint64_t packet_seq_num;\n"
"\t\tuint64_t events_discarded;\n"
"\t\tuint32_t cpu_id;\n"
"\t};\n"
"};\n"
"\n";

/* What the export says of the recording, from the trace's own metadata where it has it. */
struct lt_env {
	char hostname[256];
	long long offset_s, offset;	/* the clock's (tr_trace_clock_offset()) */
};

/*
 * The hostname of the trace's metadata into env, if it has one.  It keeps
 * only the characters that need no escaping.
 */
static void env_from(struct lt_env *env, const char *meta)
{
	const char *at = strstr(meta, "\thostname = \"");
	size_t n = 0;

	for (at = at ? at + strlen("\thostname = \"") : NULL; at && *at && *at != '"' &&
	     n + 1 < sizeof(env->hostname); at++)
		if (*at != '\\' && (unsigned char)*at >= ' ')
			env->hostname[n++] = *at;
	if (n)
		env->hostname[n] = 0;
}

/* At most max bytes of file fd (which it closes), NUL-terminated: malloc'd, or NULL. */
static char *read_text(int fd, size_t max)
{
	char *text = fd < 0 ? NULL : malloc(max + 1);
	ssize_t len = text ? tr_read_all(fd, text, max) : -1;

	if (fd >= 0)
		close(fd);
	if (len < 0) {
		free(text);
		return NULL;
	}
	text[len] = 0;
	return text;
}

/* The env and the clock come first in the trace's metadata, before the event classes. */
#define METADATA_HEAD_BYTES	(64 * 1024)
/* The most of .tracer/events read: the formats of the events recorded. */
#define FORMATS_BYTES		(64 * 1024 * 1024)

/* What the trace's metadata says into env: 0, or -ENOMEM (or -errno) when it cannot be read. */
static int read_env(const struct tr_trace *trace, struct lt_env *env)
{
	char *head = read_text(tr_trace_open_file(trace, "metadata"), METADATA_HEAD_BYTES);

	__s64 offset_ns;

	*env = (struct lt_env) { .hostname = "unknown" };
	if (!head)
		return -EIO;
	env_from(env, head);
	free(head);
	tr_trace_clock_offset(trace, &offset_ns);
	env->offset_s = offset_ns / 1000000000;
	env->offset = offset_ns % 1000000000;
	return 0;
}

/* A field's declaration. */
static void write_field_type(FILE *out, const struct lt_field *f)
{
	static const char *const types[] = {
		[LT_S32] = "int32_t", [LT_U32] = "uint32_t", [LT_S64] = "int64_t",
		[LT_U64] = "uint64_t", [LT_HEX64] = "hex64_t", [LT_TEXT] = "char_t",
		[LT_BYTES] = "uint8_t", [LT_STRING] = "string",
	};

	if (f->kind == LT_TEXT || f->kind == LT_BYTES)
		fprintf(out, "\t\t%s _%s[%u];\n", types[f->kind], f->name, f->size);
	else
		fprintf(out, "\t\t%s _%s;\n", types[f->kind], f->name);
}

/* The export's metadata (LTTng's names its fields with a leading _, as here): 0 or -errno. */
static int write_metadata(struct lttng *l, FILE *out)
{
	struct lt_env env;
	unsigned int i, f;
	int err = read_env(l->trace, &env);

	fputs(metadata_head, out);
	fputs("\tuuid = \"", out);
	for (i = 0; i < 16; i++)
		fprintf(out, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", l->uuid[i]);
	fputs("\";\n};\n\n", out);
	fprintf(out, "env {\n\thostname = \"%s\";\n\tdomain = \"kernel\";\n"
		"\tsysname = \"Linux\";\n\tkernel_release = \"unknown\";\n"
		"\tkernel_version = \"unknown\";\n\ttracer_name = \"lttng-modules\";\n"
		"\ttracer_major = 2;\n\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n"
		"\ttrace_buffering_scheme = \"global\";\n\ttrace_name = \"tracer\";\n"
		"\ttrace_producer = \"tracer export --format lttng\";\n};\n\n", env.hostname);
	fprintf(out, "clock {\n\tname = \"monotonic\";\n\tdescription = \"Monotonic Clock\";\n"
		"\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = %lld;\n\toffset = %lld;\n"
		"\tabsolute = FALSE;\n};\n\n", env.offset_s, env.offset);
	fputs(metadata_stream, out);
	for (i = 0; i < l->nclasses; i++) {
		const struct lt_class *c = &l->classes[i];

		fprintf(out, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n"
			"\tfields := struct {\n", c->name, i);
		for (f = 0; f < c->nfields; f++)
			write_field_type(out, &c->fields[f]);
		fputs("\t};\n};\n\n", out);
	}
	if (fflush(out) && !err)
		err = -errno;
	return fclose(out) && !err ? -errno : err;
}

/* Frees l and all it holds (its directory closed, not removed). */
static void lttng_free(struct lttng *l)
{
	unsigned int i;

	for (i = 0; i < TR_MAX_CPUS; i++) {
		if (l->streams[i].fd >= 0)
			close(l->streams[i].fd);
		free(l->streams[i].packet);
	}
	for (i = 0; i < l->nclasses; i++) {
		free(l->classes[i].name);
		free(l->classes[i].own);
	}
	for (i = 0; i < l->maps.n; i++)
		free(((struct class_map *)tr_by_class(&l->maps, i))->by_nr);
	tr_by_class_free(&l->maps);
	tr_trace_dir_close(&l->dir);
	tr_trace_dir_close(&l->top);
	free(l->kernel_path);
	free(l->formats);
	free(l->classes);
	free(l->streams);
	free(l);
}

/* DIR/kernel and DIR, if they hold only what the export wrote: what cannot be removed stays. */
static void remove_dirs(struct lttng *l)
{
	if (l->dir.fd >= 0)
		tr_trace_dir_remove(&l->dir, l->kernel_path);
	if (l->top.fd >= 0)
		tr_trace_dir_remove(&l->top, l->path);
}

/* An export cut short (a signal, a damaged trace): DIR removed, l freed. */
static void lttng_abandon(void *state)
{
	remove_dirs(state);
	lttng_free(state);
}

/*
 * Ends the state dump if open, writes the packets left and the metadata,
 * frees l: 0, or the first write's -errno, and then DIR is removed (an
 * export cut short is no export).
 */
static int lttng_close(void *state, const struct tr_tasks *tasks)
{
	struct lttng *l = state;
	FILE *meta;
	unsigned int i;
	int err;

	(void)tasks;
	if (l->in_dump)
		statedump_bounds(l, NULL, 0);
	for (i = 0; i < TR_MAX_CPUS; i++)
		if (l->streams[i].packet) {
			l->streams[i].end = l->last_ts;
			flush_packet(l, &l->streams[i], i);
		}
	if (!l->err) {
		meta = tr_trace_dir_metadata(&l->dir);
		l->err = meta ? write_metadata(l, meta) : -errno;
	}
	err = l->err;
	if (err)
		remove_dirs(l);
	lttng_free(l);
	return err;
}

/* export --format lttng: DIR created, or why not (-EINVAL: one that exists). */
static int lttng_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		      const struct tr_report_opts *o)
{
	struct lttng *l = calloc(1, sizeof(*l));
	char why[1024], host[256];
	struct tr_ctf_trace ids;
	unsigned int i;
	int err;

	(void)out;
	if (!l || !(l->streams = calloc(TR_MAX_CPUS, sizeof(*l->streams)))) {
		free(l);
		fprintf(stderr, "tracer %s: out of memory\n", o->command);
		return -ENOMEM;
	}
	for (i = 0; i < TR_MAX_CPUS; i++)
		l->streams[i].fd = -1;
	*l = (struct lttng) {
		.trace = trace, .path = o->output_dir, .top = TR_TRACE_DIR_CLOSED,
		.dir = TR_TRACE_DIR_CLOSED,
		.streams = l->streams, .maps = { .size = sizeof(struct class_map) },
		.start_id = -1, .end_id = -1,
	};
	tr_ctf_identify(&ids, host, sizeof(host));
	l->formats = read_text(tr_trace_open_meta(trace, TR_TRACE_FORMATS), FORMATS_BYTES);
	memcpy(l->uuid, ids.uuid, sizeof(l->uuid));
	err = tr_trace_dir_create(&l->top, o->output_dir, 0, why, sizeof(why));
	if (!err && asprintf(&l->kernel_path, "%s/kernel", o->output_dir) < 0) {
		l->kernel_path = NULL;
		err = -ENOMEM;
		snprintf(why, sizeof(why), "out of memory");
	}
	if (!err)
		err = tr_trace_dir_create(&l->dir, l->kernel_path, 0, why, sizeof(why));
	if (err) {
		fprintf(stderr, "tracer %s: %s\n", o->command, why);
		remove_dirs(l);
		lttng_free(l);
		return err == -EEXIST ? -EINVAL : err;
	}
	*sink = (struct tr_sink) { .ops = &tr_lttng_sink, .state = l };
	return 0;
}

const struct tr_sink_ops tr_lttng_sink = {
	.open = lttng_open, .record = lttng_record, .lost = lttng_lost, .close = lttng_close,
	.abandon = lttng_abandon, .keeps_state = true, .whole_or_nothing = true,
};
