// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report pipeline without the command line: a trace directory made
 * here, with records whose times, tasks and losses are known (written
 * through the ring buffer with a clock the test sets), read by the first
 * pass, fed to the sinks one by one, and run through tr_report() with its
 * filters.  Every output is compared byte for byte.
 *
 * The trace: two CPUs, two event classes (test:sample with a seq field,
 * and the tracer's task_state naming threads).
 *	CPU 0: 1.000 task_state tid 100 "alpha" (of process 100)
 *	       2.000 sample seq=1 by 100
 *	       4.000 sample seq=3 by 100/101
 *	       6.000 task_state tid 100 "omega" (a rename)
 *	       7.000 sample seq=5 by 100
 *	CPU 1: 1.500 task_state tid 101 "alpha-worker" (of process 100)
 *	       3.000 sample seq=2 by 200 (a task never named)
 *	       then one event too big to record: lost, said at the end
 *	       of the packet whose header counts it (8.000)
 *	       5.000 sample seq=4 by 100/101
 * (times in microseconds: 1.000 is 1000 ns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "report/writer.h"
#include "reader/trace.h"
#include "sinks/first_pass.h"
#include "sinks/report.h"
#include "sinks/sink.h"
#include "sinks/tasks.h"

#define NCPU		2
#define SAMPLE_ID	0
#define TASK_STATE_ID	1

static const char sample_format[] =
	"name: sample\nID: 1\nformat:\n" TR_FORMAT_COMMON_FIELDS
	"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"seq=%llu\", REC->seq\n";

static const char task_state_format[] =
	"name: task_state\nID: 2\nformat:\n" TR_FORMAT_COMMON_FIELDS
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t tgid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t ppid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int reason;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:24;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"pid=%d comm=%s\", REC->pid, REC->comm\n";

struct sample {
	__u16 common_type;
	__u8 common_flags, common_preempt_count;
	__s32 common_pid;
	__u64 seq;
};

struct task_state {
	__u16 common_type;
	__u8 common_flags, common_preempt_count;
	__s32 common_pid;
	__s32 pid, tgid, ppid;
	__u32 reason;
	char comm[16];
};

static void write_events(void)
{
	char text[4096];
	int len = snprintf(text, sizeof(text), "event %u test sample %zu\n%sevent %u tracer task_state %zu\n%s",
			   SAMPLE_ID, strlen(sample_format), sample_format, TASK_STATE_ID,
			   strlen(task_state_format), task_state_format);

	write_file(".tracer/events", text, len);
}

static void emit_sample(struct cpu_stream *c, __u64 ts, __u32 pid, __u32 tid, __u64 seq)
{
	struct sample s = { .common_type = SAMPLE_ID, .common_pid = tid, .seq = seq };

	emit(c, ts, SAMPLE_ID, pid, tid, &s, sizeof(s));
}

static void emit_task(struct cpu_stream *c, __u64 ts, __u32 pid, __u32 tid, const char *comm)
{
	struct task_state t = { .common_type = TASK_STATE_ID, .pid = tid, .tgid = pid, .ppid = 1 };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	emit(c, ts, TASK_STATE_ID, 0, 0, &t, sizeof(t));
}

/* The trace of the comment at the top, in dir. */
static void make_trace(void)
{
	struct cpu_stream cpu[NCPU];
	struct trb_slot slot;

	make_dir("report");
	write_events();
	open_stream(&cpu[0], 0);
	open_stream(&cpu[1], 1);
	emit_task(&cpu[0], 1000, 100, 100, "alpha");
	emit_task(&cpu[1], 1500, 100, 101, "alpha-worker");
	emit_sample(&cpu[0], 2000, 100, 100, 1);
	emit_sample(&cpu[1], 3000, 200, 200, 2);
	flush(&cpu[1], 3500);
	/* Too big for a sub-buffer: counted lost, in the next packet's header. */
	fake_now = 3600;
	EXPECT_EQ(trb_reserve(&cpu[1].buf.rb, &slot, SAMPLE_ID, 8192, 0), -ENOSPC);
	emit_sample(&cpu[0], 4000, 100, 101, 3);
	emit_sample(&cpu[1], 5000, 100, 101, 4);
	emit_task(&cpu[0], 6000, 100, 100, "omega");
	emit_sample(&cpu[0], 7000, 100, 100, 5);
	flush(&cpu[0], 8000);
	flush(&cpu[1], 8000);
	close_stream(&cpu[0]);
	close_stream(&cpu[1]);
}

/* Each item the main pass would hand a sink, unfiltered. */
struct feed {
	struct tr_sink sink;
	struct tr_tasks *tasks;
};

static void feed_item(void *data, const struct tr_item *it)
{
	struct feed *f = data;

	EXPECT(it->kind != TR_ITEM_PROBLEM);
	if (it->kind == TR_ITEM_PROBLEM)
		tap_diag("problem: %s", it->problem);
	else if (it->kind == TR_ITEM_LOST)
		f->sink.ops->lost(f->sink.state, it);
	else
		f->sink.ops->record(f->sink.state, it, f->tasks);
}

/*
 * Every item of the trace into format's sink, the tasks named by the
 * first pass only (no renames followed): what it wrote, to free.
 */
static char *through_sink(enum tr_report_format format)
{
	struct tr_report_opts o = { .command = "report", .dir = dir, .format = format };
	struct tr_tasks tasks = { NULL, 0, 0 };
	struct feed f = { .tasks = &tasks };
	struct tr_first_pass seen;
	struct tr_trace *trace;
	char why[256], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	EXPECT_EQ(tr_trace_open(&trace, dir, why, sizeof(why)), 0);
	EXPECT_EQ(tr_sink_of(format)->open(&f.sink, out, trace, &o), 0);
	EXPECT_EQ(tr_first_pass(dir, &tasks, f.sink.symbols, &seen), 0);
	tr_trace_each(trace, feed_item, &f);
	EXPECT_EQ(f.sink.ops->close(f.sink.state, &tasks), 0);
	tr_trace_close(trace);
	tr_tasks_free(&tasks);
	fclose(out);
	return text;
}

/* Expects text to be want, and frees it. */
static void expect_text(char *text, const char *want)
{
	EXPECT(!strcmp(text, want));
	if (strcmp(text, want))
		tap_diag("got:\n%s# want:\n%s", text, want);
	free(text);
}

static const char *comm_of(const struct tr_tasks *tasks, __u32 tid)
{
	const struct tr_task *task = tr_tasks_find(tasks, tid);

	return task ? task->comm : "(none)";
}

static void test_first_pass_counts_items_and_names_threads_by_their_first_state(void)
{
	struct tr_tasks tasks = { NULL, 0, 0 };
	struct tr_first_pass seen;

	EXPECT_EQ(tr_first_pass(dir, &tasks, NULL, &seen), 0);
	/* 8 records and 1 loss; the first record at 1.000 */
	EXPECT_EQ(seen.items, 9);
	EXPECT_EQ(seen.first, 1000);
	EXPECT(!strcmp(comm_of(&tasks, 100), "alpha"));
	EXPECT(!strcmp(comm_of(&tasks, 101), "alpha-worker"));
	EXPECT(!tr_tasks_find(&tasks, 200));
	EXPECT_EQ(tasks.used, 2);
	tr_tasks_free(&tasks);
}

static void test_first_pass_of_no_trace_says_why_and_learns_nothing(void)
{
	struct tr_tasks tasks = { NULL, 0, 0 };
	struct tr_first_pass seen = { 1, 1 };

	EXPECT_EQ(tr_first_pass("/nonexistent/trace", &tasks, NULL, &seen), -ENOENT);
	EXPECT_EQ(seen.items, 0);
	EXPECT_EQ(seen.first, 0);
	EXPECT_EQ(tasks.used, 0);
}

static const char text_all[] =
	"         swapper       0 [000]     0.000001000: tracer:task_state: pid=100 comm=alpha\n"
	"         swapper       0 [001]     0.000001500: tracer:task_state: pid=101 comm=alpha-worker\n"
	"           alpha     100 [000]     0.000002000: test:sample: seq=1\n"
	"                     200 [001]     0.000003000: test:sample: seq=2\n"
	"    alpha-worker 100/101 [000]     0.000004000: test:sample: seq=3\n"
	"    alpha-worker 100/101 [001]     0.000005000: test:sample: seq=4\n"
	"         swapper       0 [000]     0.000006000: tracer:task_state: pid=100 comm=omega\n"
	"           alpha     100 [000]     0.000007000: test:sample: seq=5\n"
	"                         [001]     0.000008000: LOST 1 events (0 buffer full, 0 not yet committed, 1 too big, 0 busy)\n";

static void test_text_sink_prints_a_line_per_record_and_loss(void)
{
	expect_text(through_sink(TR_REPORT_TEXT), text_all);
}

static const char jsonl_all[] =
	"{\"ts\":1000,\"cpu\":0,\"pid\":0,\"tid\":0,\"comm\":\"swapper\",\"event\":\"tracer:task_state\",\"fields\":{\"pid\":100,\"tgid\":100,\"ppid\":1,\"reason\":0,\"comm\":\"alpha\"}}\n"
	"{\"ts\":1500,\"cpu\":1,\"pid\":0,\"tid\":0,\"comm\":\"swapper\",\"event\":\"tracer:task_state\",\"fields\":{\"pid\":101,\"tgid\":100,\"ppid\":1,\"reason\":0,\"comm\":\"alpha-worker\"}}\n"
	"{\"ts\":2000,\"cpu\":0,\"pid\":100,\"tid\":100,\"comm\":\"alpha\",\"event\":\"test:sample\",\"fields\":{\"seq\":1}}\n"
	"{\"ts\":3000,\"cpu\":1,\"pid\":200,\"tid\":200,\"comm\":\"\",\"event\":\"test:sample\",\"fields\":{\"seq\":2}}\n"
	"{\"ts\":4000,\"cpu\":0,\"pid\":100,\"tid\":101,\"comm\":\"alpha-worker\",\"event\":\"test:sample\",\"fields\":{\"seq\":3}}\n"
	"{\"ts\":5000,\"cpu\":1,\"pid\":100,\"tid\":101,\"comm\":\"alpha-worker\",\"event\":\"test:sample\",\"fields\":{\"seq\":4}}\n"
	"{\"ts\":6000,\"cpu\":0,\"pid\":0,\"tid\":0,\"comm\":\"swapper\",\"event\":\"tracer:task_state\",\"fields\":{\"pid\":100,\"tgid\":100,\"ppid\":1,\"reason\":0,\"comm\":\"omega\"}}\n"
	"{\"ts\":7000,\"cpu\":0,\"pid\":100,\"tid\":100,\"comm\":\"alpha\",\"event\":\"test:sample\",\"fields\":{\"seq\":5}}\n"
	"{\"ts\":8000,\"cpu\":1,\"lost\":{\"buffer_full\":0,\"not_committed\":0,\"too_big\":1,\"busy\":0,\"subbuffers_overwritten\":0}}\n";

static void test_jsonl_sink_writes_an_object_per_record_and_loss(void)
{
	expect_text(through_sink(TR_REPORT_JSONL), jsonl_all);
}

static const char stats_all[] =
	"8 events from 0.000001000 to 0.000008000 (0.000007000 s), 1 lost, 0 sub-buffers overwritten\n"
	"\n"
	"      EVENTS  EVENT\n"
	"           5  test:sample\n"
	"           3  tracer:task_state\n"
	"\n"
	"      EVENTS  TASK (COMM PID/TID)\n"
	"           3  swapper 0\n"
	"           2  alpha 100\n"
	"           2  alpha-worker 100/101\n"
	"           1   200\n"
	"\n"
	"      EVENTS          LOST   OVERWRITTEN  CPU\n"
	"           5             0             0  0\n"
	"           3             1             0  1\n";

static void test_stats_sink_counts_by_event_task_and_cpu(void)
{
	expect_text(through_sink(TR_REPORT_STATS), stats_all);
}

/* What tr_report() prints with o's filters (format, dir and command set here): its exit status. */
static int report(struct tr_report_opts *o, char **text)
{
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	int status;

	o->command = "report";
	o->dir = dir;
	status = tr_report(o, out);
	fclose(out);
	return status;
}

static void test_report_follows_renames_and_hides_task_states(void)
{
	struct tr_report_opts o = { .format = TR_REPORT_TEXT };
	char *text;

	EXPECT_EQ(report(&o, &text), 0);
	expect_text(text,
		"           alpha     100 [000]     0.000002000: test:sample: seq=1\n"
		"                     200 [001]     0.000003000: test:sample: seq=2\n"
		"    alpha-worker 100/101 [000]     0.000004000: test:sample: seq=3\n"
		"    alpha-worker 100/101 [001]     0.000005000: test:sample: seq=4\n"
		"           omega     100 [000]     0.000007000: test:sample: seq=5\n"
		"                         [001]     0.000008000: LOST 1 events (0 buffer full, 0 not yet committed, 1 too big, 0 busy)\n");
}

static void test_report_filters_by_time_cpu_and_task(void)
{
	struct tr_report_opts window = {
		.format = TR_REPORT_TEXT, .start = { .ns = 2500, .relative = 1, .given = 1 }, .end = { .ns = 5000, .given = 1 },
	};
	struct tr_report_opts events = {
		.format = TR_REPORT_STATS, .events = (const char *const[]) { "test:*" }, .nevents = 1,
		.end = { .ns = 8000, .given = 1 },
	};
	struct tr_report_opts thread = { .format = TR_REPORT_TEXT, .tid = 101, .cpus = "1" };
	char *text;

	/* +2.5 after the first record (1.000), up to 5.000 */
	EXPECT_EQ(report(&window, &text), 0);
	expect_text(text,
		"    alpha-worker 100/101 [000]     0.000004000: test:sample: seq=3\n"
		"    alpha-worker 100/101 [001]     0.000005000: test:sample: seq=4\n");
	/* a task's records on a CPU, and never a loss */
	EXPECT_EQ(report(&thread, &text), 0);
	expect_text(text,
		"    alpha-worker 100/101 [001]     0.000005000: test:sample: seq=4\n");
	/*
	 * --event and --end, counted: the five samples, and no loss, though
	 * the loss at 8.000 is in the window (it is no event's); tasks by their last names
	 */
	EXPECT_EQ(report(&events, &text), 0);
	expect_text(text,
		"5 events from 0.000002000 to 0.000007000 (0.000005000 s), 0 lost, 0 sub-buffers overwritten\n"
		"\n"
		"      EVENTS  EVENT\n"
		"           5  test:sample\n"
		"\n"
		"      EVENTS  TASK (COMM PID/TID)\n"
		"           2  omega 100\n"
		"           2  alpha-worker 100/101\n"
		"           1   200\n"
		"\n"
		"      EVENTS          LOST   OVERWRITTEN  CPU\n"
		"           3             0             0  0\n"
		"           2             0             0  1\n");
}

static void test_report_of_a_bad_cpu_list_or_no_trace_fails(void)
{
	struct tr_report_opts cpus = { .format = TR_REPORT_TEXT, .cpus = "x" };
	struct tr_report_opts none = { .command = "report", .dir = "/nonexistent/trace" };
	char *text;

	EXPECT_EQ(report(&cpus, &text), 2);
	expect_text(text, "");
	EXPECT_EQ(tr_report(&none, stdout), 2);
}

static void test_folded_refuses_a_trace_without_stacks(void)
{
	struct tr_report_opts o = { .format = TR_REPORT_FOLDED };
	char *text;

	EXPECT_EQ(report(&o, &text), 2);
	expect_text(text, "");
}

int main(void)
{
	make_trace();
	TAP_RUN(test_first_pass_counts_items_and_names_threads_by_their_first_state);
	TAP_RUN(test_first_pass_of_no_trace_says_why_and_learns_nothing);
	TAP_RUN(test_text_sink_prints_a_line_per_record_and_loss);
	TAP_RUN(test_jsonl_sink_writes_an_object_per_record_and_loss);
	TAP_RUN(test_stats_sink_counts_by_event_task_and_cpu);
	TAP_RUN(test_report_follows_renames_and_hides_task_states);
	TAP_RUN(test_report_filters_by_time_cpu_and_task);
	TAP_RUN(test_report_of_a_bad_cpu_list_or_no_trace_fails);
	TAP_RUN(test_folded_refuses_a_trace_without_stacks);
	remove_trace();
	return tap_done();
}
