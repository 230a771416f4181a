// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer analyze's figures on a trace made here (report/writer.h), whose
 * latencies are known to the nanosecond:
 *	CPU 0:	task 300 woken 100 times, its switch in i us after the i-th
 *		wake-up (i = 1..100), 10 us on the CPU each time;
 *		task 500: 10 getppid of 1 to 10 us, 2 openat failing ENOENT
 *		(5 us each), one exit whose entry the trace lacks;
 *		IRQ 36 "virtio" handled for 2, 4 and 6 us.
 *	CPU 1:	task 400 woken, then a loss (an event too big for a
 *		sub-buffer), then its switch in: no latency for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "report/writer.h"
#include "sinks/report.h"

enum { SWITCH_ID, WAKING_ID, ENTER_ID, EXIT_ID, IRQ_ENTRY_ID, IRQ_EXIT_ID };

#define US		1000ull
#define MS		1000000ull

static const char *const formats[][3] = {
	{ "sched", "sched_switch",
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n" },
	{ "sched", "sched_waking",
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"pid=%d\", REC->pid\n" },
	{ "raw_syscalls", "sys_enter",
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	  "print fmt: \"NR %ld\", REC->id\n" },
	{ "raw_syscalls", "sys_exit",
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	  "print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n" },
	{ "irq", "irq_handler_entry",
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n" },
	{ "irq", "irq_handler_exit",
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"irq=%d ret=%d\", REC->irq, REC->ret\n" },
};

static void write_events(void)
{
	char text[8192], format[2048];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		int n = snprintf(format, sizeof(format), "name: %s\nID: %u\nformat:\n" TR_FORMAT_COMMON_FIELDS "%s",
				 formats[i][1], i + 1, formats[i][2]);

		len += snprintf(text + len, sizeof(text) - len, "event %u %s %s %d\n%s", i, formats[i][0],
				formats[i][1], n, format);
	}
	write_file(".tracer/events", text, len);
}

/* A payload: the common fields, then up to 56 bytes of the event's own. */
struct payload {
	__u16 common_type;
	__u8 common_flags, common_preempt_count;
	__s32 common_pid;
	unsigned char fields[56];
};

static void put(struct payload *p, unsigned int offset, const void *value, size_t size)
{
	memcpy(p->fields + offset - 8, value, size);
}

static void emit_switch(struct cpu_stream *c, __u64 ts, __s32 prev, __s32 next)
{
	struct payload p = { .common_type = SWITCH_ID + 1, .common_pid = prev };

	put(&p, 24, &prev, 4);
	put(&p, 56, &next, 4);
	emit(c, ts, SWITCH_ID, prev, prev, &p, 64);
}

static void emit_waking(struct cpu_stream *c, __u64 ts, __s32 pid)
{
	struct payload p = { .common_type = WAKING_ID + 1 };

	put(&p, 24, &pid, 4);
	emit(c, ts, WAKING_ID, 0, 0, &p, 36);
}

static void emit_call(struct cpu_stream *c, __u64 enter, __u64 exit, __s32 tid, __s64 nr, __s64 ret)
{
	struct payload p = { .common_type = ENTER_ID + 1, .common_pid = tid };

	put(&p, 8, &nr, 8);
	if (enter)
		emit(c, enter, ENTER_ID, tid, tid, &p, 64);
	p.common_type = EXIT_ID + 1;
	put(&p, 16, &ret, 8);
	emit(c, exit, EXIT_ID, tid, tid, &p, 24);
}

static void emit_irq(struct cpu_stream *c, __u64 entry, __u64 exit, __s32 irq)
{
	struct payload p = { .common_type = IRQ_ENTRY_ID + 1 };
	__u32 name_loc = 7u << 16 | 16;	/* 7 bytes at offset 16 */

	put(&p, 8, &irq, 4);
	put(&p, 12, &name_loc, 4);
	put(&p, 16, "virtio", 7);
	emit(c, entry, IRQ_ENTRY_ID, 0, 0, &p, 24);
	p.common_type = IRQ_EXIT_ID + 1;
	memset(p.fields + 4, 0, 8);
	emit(c, exit, IRQ_EXIT_ID, 0, 0, &p, 16);
}

/* The trace of the comment at the top, in dir. */
/* The clock offset of the trace's metadata: LAMI's timestamps are the trace's plus it. */
#define OFFSET		1700000000000000005ull

static void write_metadata(void)
{
	static const char text[] = "/* CTF 1.8 */\ntrace {\n};\n\nenv {\n};\n\n"
				   "clock {\n\tname = \"monotonic\";\n\tfreq = 1000000000;\n"
				   "\toffset_s = 1700000000;\n\toffset = 5;\n};\n\n";

	write_file("metadata", text, sizeof(text) - 1);
}

static void make_trace(void)
{
	struct cpu_stream cpu[2];
	struct trb_slot slot;
	__u64 t;
	int i;

	make_dir("analyze");
	write_events();
	write_metadata();
	open_stream(&cpu[0], 0);
	open_stream(&cpu[1], 1);
	for (i = 1; i <= 100; i++) {
		t = i * MS;
		emit_waking(&cpu[0], t, 300);
		emit_switch(&cpu[0], t + i * US, 0, 300);
		emit_switch(&cpu[0], t + i * US + 10 * US, 300, 0);
		flush(&cpu[0], t + i * US + 10 * US);
	}
	for (i = 1; i <= 10; i++)
		emit_call(&cpu[0], 300 * MS + i * 20 * US, 300 * MS + i * 20 * US + i * US, 500, 110, 1);
	emit_call(&cpu[0], 0, 301 * MS, 500, 110, 1);		/* its entry before the trace */
	emit_call(&cpu[0], 302 * MS, 302 * MS + 5 * US, 500, 257, -2);
	emit_call(&cpu[0], 303 * MS, 303 * MS + 5 * US, 500, 257, -2);
	emit_irq(&cpu[0], 400 * MS, 400 * MS + 2 * US, 36);
	emit_irq(&cpu[0], 401 * MS, 401 * MS + 4 * US, 36);
	emit_irq(&cpu[0], 402 * MS, 402 * MS + 6 * US, 36);
	flush(&cpu[0], 403 * MS);
	emit_waking(&cpu[1], 200 * MS, 400);
	flush(&cpu[1], 200 * MS);
	fake_now = 200 * MS + 100;
	EXPECT_EQ(trb_reserve(&cpu[1].buf.rb, &slot, SWITCH_ID, 8192, 0), -ENOSPC);
	emit_switch(&cpu[1], 200 * MS + 200, 0, 0);
	flush(&cpu[1], 201 * MS);		/* the loss, said at 201 ms */
	emit_switch(&cpu[1], 202 * MS, 0, 400);
	flush(&cpu[1], 203 * MS);
	close_stream(&cpu[0]);
	close_stream(&cpu[1]);
}

/* tracer analyze's JSON of format (--timehist if timehist): its exit status, the text in *text (to free). */
static int analyze_with(enum tr_report_format format, int timehist, char **text)
{
	struct tr_report_opts o = { .command = "analyze", .dir = dir, .format = format, .json = 1,
				    .timehist = timehist };
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	int status = tr_report(&o, out);

	fclose(out);
	return status;
}

static int analyze(enum tr_report_format format, char **text)
{
	return analyze_with(format, 0, text);
}

/* The LAMI results of format from start on (since the epoch, if given): the exit status, the text in *text. */
static int analyze_lami(enum tr_report_format format, __u64 start, char **text)
{
	struct tr_report_opts o = { .command = "analyze", .dir = dir, .format = format, .lami = 1,
				    .start = { .ns = start, .epoch = 1, .given = start != 0 } };
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	int status = tr_report(&o, out);

	fclose(out);
	return status;
}

/* Expects text to hold each of the NULL-ended want, and frees it. */
static void expect_has(char *text, const char *const *want)
{
	for (; *want; want++) {
		EXPECT(strstr(text, *want) != NULL);
		if (!strstr(text, *want))
			tap_diag("no %s in:\n%s", *want, text);
	}
	free(text);
}

static void test_sched_latencies_and_their_percentiles(void)
{
	static const char *const want[] = {
		"{\"tid\":300,\"pid\":300,\"comm\":\"\",\"runtime_ns\":1000000,\"switches\":100,\"wakeup_latency\":"
		"{\"count\":100,\"total_ns\":5050000,\"min_ns\":1000,\"avg_ns\":50500.0,\"max_ns\":100000,",
		"\"p50_ns\":50000,\"p99_ns\":99000,\"p99_9_ns\":100000,\"max_at_ns\":100100000}",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze(TR_REPORT_ANALYZE_SCHED, &text), 0);
	expect_has(text, want);
}

/* The second run of 300: 991 us after its first, woken 2 us before, 10 us on the CPU. */
static void test_timehist_waits_delays_and_runs(void)
{
	static const char *const want[] = {
		"{\"analysis\":\"timehist\",\"runs\":[",
		"{\"ts_ns\":2012000,\"cpu\":0,\"tid\":300,\"pid\":300,\"comm\":\"\",\"wait_ns\":991000,"
		"\"delay_ns\":2000,\"run_ns\":10000}",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze_with(TR_REPORT_ANALYZE_SCHED, 1, &text), 0);
	expect_has(text, want);
}

static void test_sched_drops_the_wakeup_a_loss_may_cut(void)
{
	static const char *const want[] = {
		"\"wakeups_dropped_by_losses\":1,",
		"{\"tid\":400,\"pid\":0,\"comm\":\"\",\"runtime_ns\":200006000,\"switches\":1,"
		"\"wakeup_latency\":{\"count\":0,",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze(TR_REPORT_ANALYZE_SCHED, &text), 0);
	expect_has(text, want);
}

static void test_syscalls_counts_errors_and_latencies(void)
{
	static const char *const want[] = {
		"{\"name\":\"getppid\",\"nr\":110,\"count\":10,\"total_ns\":55000,\"min_ns\":1000,\"avg_ns\":5500.0,"
		"\"max_ns\":10000,\"stdev_ns\":3027.7,\"errors\":0,\"errnos\":{}}",
		"{\"name\":\"openat\",\"nr\":257,\"count\":2,\"total_ns\":10000,\"min_ns\":5000,\"avg_ns\":5000.0,"
		"\"max_ns\":5000,\"stdev_ns\":0.0,\"errors\":2,\"errnos\":{\"ENOENT\":2}}",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze(TR_REPORT_ANALYZE_SYSCALLS, &text), 0);
	expect_has(text, want);
}

static void test_irq_durations(void)
{
	static const char *const want[] = {
		"\"hard\":[{\"irq\":36,\"name\":\"virtio\",\"count\":3,\"total_ns\":12000,\"min_ns\":2000,"
		"\"avg_ns\":4000.0,\"max_ns\":6000,\"stdev_ns\":2000.0}]",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze(TR_REPORT_ANALYZE_IRQ, &text), 0);
	expect_has(text, want);
}

#define DURATION(ns)	"{\"class\":\"duration\",\"value\":" #ns "}"
#define NUMBER(n)	"{\"class\":\"number\",\"value\":" #n "}"

/* Task 300's row: its latencies, the longest at 100.1 ms of the trace, the offset added. */
static void test_lami_sched_row_and_time_range(void)
{
	static const char *const want[] = {
		"{\"results\":[{\"time-range\":{\"class\":\"time-range\",\"begin\":{\"class\":\"timestamp\","
		"\"value\":1700000000001000005},\"end\":{\"class\":\"timestamp\",\"value\":1700000000402006005}},"
		"\"class\":\"per-tid\",\"data\":[[",
		"[{\"class\":\"process\",\"name\":\"\",\"pid\":300,\"tid\":300}," DURATION(1000000) "," NUMBER(100) ","
		NUMBER(100) "," DURATION(1000) "," DURATION(50500) "," DURATION(50000) "," DURATION(99000) ","
		DURATION(100000) "," DURATION(100000) ",{\"class\":\"timestamp\",\"value\":1700000000100100005},"
		DURATION(29011.5) "]",
		"[{\"class\":\"process\",\"name\":\"\",\"tid\":400}," DURATION(200006000) "," NUMBER(1) "," NUMBER(0)
		",null,null,null,null,null,null,null,null]",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze_lami(TR_REPORT_ANALYZE_SCHED, 0, &text), 0);
	expect_has(text, want);
}

static void test_lami_syscalls_tables_per_task(void)
{
	static const char *const want[] = {
		"\"class\":{\"inherit\":\"per-tid\",\"title\":\"System call statistics [? 500]\"}",
		"[{\"class\":\"syscall\",\"name\":\"getppid\"}," NUMBER(10) "," NUMBER(0) "," DURATION(55000) ","
		DURATION(1000) "," DURATION(5500) "," DURATION(10000) ",",
		"[{\"class\":\"syscall\",\"name\":\"openat\"}," NUMBER(2) "," NUMBER(2) "," DURATION(10000) ","
		DURATION(5000) "," DURATION(5000) "," DURATION(5000) "," DURATION(0) ","
		"{\"class\":\"string\",\"value\":\"ENOENT 2\"}]",
		"\"class\":\"total\",\"data\":[[{\"class\":\"process\",\"name\":\"\",\"pid\":500,\"tid\":500}," NUMBER(12) ","
		DURATION(65000) "]]}]}\n",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze_lami(TR_REPORT_ANALYZE_SYSCALLS, 0, &text), 0);
	expect_has(text, want);
}

/* From 401 ms of the trace on, as ns since the epoch: the last two IRQs only. */
static void test_lami_irq_from_a_time_since_the_epoch(void)
{
	static const char *const want[] = {
		"\"class\":\"hard-stats\",\"data\":[[{\"class\":\"irq\",\"hard\":true,\"nr\":36,\"name\":\"virtio\"},"
		NUMBER(2) "," DURATION(4000) "," DURATION(5000) "," DURATION(6000) "," DURATION(1414.2) "]]}",
		"\"class\":\"soft-stats\",\"data\":[]}]}\n",
		NULL,
	};
	char *text;

	EXPECT_EQ(analyze_lami(TR_REPORT_ANALYZE_IRQ, OFFSET + 401 * MS, &text), 0);
	expect_has(text, want);
}

static void test_lami_metadata(void)
{
	static const char *const want[] = {
		"{\"mi-version\":{\"major\":1,\"minor\":0},\"version\":{\"major\":",
		"\"table-classes\":{\"hard-stats\":{\"title\":\"Hardware interrupt statistics\",\"column-descriptions\":"
		"[{\"title\":\"Interrupt\",\"class\":\"irq\"},{\"title\":\"Interrupt count\",\"class\":\"number\","
		"\"unit\":\"interrupts\"},",
		NULL,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	EXPECT_EQ(tr_analyze_lami_metadata(TR_REPORT_ANALYZE_IRQ, out), 0);
	EXPECT_EQ(tr_analyze_lami_metadata(TR_REPORT_ANALYZE_OFFCPU, out), -ENOENT);
	fclose(out);
	expect_has(text, want);
}

int main(void)
{
	make_trace();
	TAP_RUN(test_sched_latencies_and_their_percentiles);
	TAP_RUN(test_timehist_waits_delays_and_runs);
	TAP_RUN(test_sched_drops_the_wakeup_a_loss_may_cut);
	TAP_RUN(test_syscalls_counts_errors_and_latencies);
	TAP_RUN(test_irq_durations);
	TAP_RUN(test_lami_sched_row_and_time_range);
	TAP_RUN(test_lami_syscalls_tables_per_task);
	TAP_RUN(test_lami_irq_from_a_time_since_the_epoch);
	TAP_RUN(test_lami_metadata);
	remove_trace();
	return tap_done();
}
