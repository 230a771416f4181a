// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The targets, PASS or FAIL with the numbers, from parts 1 and 3:
 * the tracer's added cost against BPF ringbuf's, its total cost against
 * trace-cmd's (or the ftrace buffer's), and no loss at 1 M events/s.
 */
#include "configs.h"
#include "workloads.h"

/* Added cost over the empty program <= limit x BPF ringbuf's, t producers; 1 if it fails. */
static int target_vs_ringbuf(FILE *out, int t, double limit)
{
	double tr, rb;
	bool pass;

	if (!have(C_TRACER, t) || !have(C_RINGBUF, t) || !have(C_EMPTY, t)) {
		fprintf(out, "- added cost over the empty program <= %.2fx BPF ringbuf's, %d producer%s: NOT MEASURED\n",
			limit, t, t > 1 ? "s" : "");
		return 1;
	}
	tr = added(C_TRACER, C_EMPTY, t);
	rb = added(C_RINGBUF, C_EMPTY, t);
	pass = tr <= limit * rb;
	fprintf(out, "- **%s**: added cost over the empty program <= %.2fx BPF ringbuf's, %d producer%s: "
		"tracer %+.0f ns, ringbuf %+.0f ns, ratio %.2f",
		pass ? "PASS" : "FAIL", limit, t, t > 1 ? "s" : "", tr, rb, tr / rb);
	if (have(C_TRACER_PROG, t))
		fprintf(out, " (the tracer's BPF program alone, no consumer: %+.0f ns, ratio %.2f)",
			added(C_TRACER_PROG, C_EMPTY, t), added(C_TRACER_PROG, C_EMPTY, t) / rb);
	fprintf(out, "\n");
	return !pass;
}

/* Total cost per event <= trace-cmd's (or the ftrace buffer's), t threads; 1 if it fails. */
static int target_vs_trace_cmd(FILE *out, int t)
{
	int tc = trace_cmd_row();
	double tr, ref;
	bool pass;

	if (!have(C_TRACER, t) || !have(tc, t)) {
		fprintf(out, "- total cost per event <= trace-cmd's, %d thread%s: NOT MEASURED\n", t,
			t > 1 ? "s" : "");
		return 1;
	}
	tr = added(C_TRACER, C_NONE, t);
	ref = added(tc, C_NONE, t);
	pass = tr <= ref;
	fprintf(out, "- **%s**: total cost per event <= %s, %d thread%s: tracer %+.0f ns "
		"over no tracing (%.0f ns/call), %s %+.0f ns (%.0f ns/call)\n",
		pass ? "PASS" : "FAIL",
		tc == C_TRACE_CMD ? "trace-cmd's" :
		"trace-cmd's (trace-cmd cannot run here; compared with the ftrace ring buffer it records from)",
		t, t > 1 ? "s" : "", tr, per_event_median(C_TRACER, t),
		configs[tc].key, ref, per_event_median(tc, t));
	return !pass;
}

/* No loss at >= 1 M events/s sustained to disk (part 3); 1 if it fails. */
static int target_no_loss(FILE *out)
{
	const struct run_result *sat = saturation_result();
	double rate;
	bool complete, pass;

	if (!sat) {
		fprintf(out, "- no loss at 1 M events/s sustained to disk: NOT MEASURED\n");
		return 1;
	}
	rate = sat->expected / (sat->ns * opt.sat_calls / 1e9);
	complete = sat->ours == sat->expected && sat->lost == 0 && !sat->failed;
	pass = complete && rate >= 1e6;
	fprintf(out, "- **%s**: no loss at >= 1 M events/s sustained to disk, consumer sharing the CPUs: "
		"%.2f M events/s, %lld lost, %lld/%lld recorded%s\n",
		pass ? "PASS" : "FAIL", rate / 1e6, sat->lost, sat->ours, sat->expected,
		complete && rate < 1e6 ? " (no loss, but the generator stays below 1 M events/s)" : "");
	return !pass;
}

int targets_print(FILE *out)
{
	const double limit[MAX_THREADS + 1] = { 0, 0.75, 0.5 };
	int t, fails = 0;

	fprintf(out, "## Targets\n\n");
	if (foreign_program || loadavg_start > 0.5)
		fprintf(out, "**This run is not a valid measurement:%s%s%s. Rerun on a quiet machine.**\n\n",
			foreign_program ? " another process's BPF program runs on the measured tracepoint" : "",
			foreign_program && loadavg_start > 0.5 ? ";" : "",
			loadavg_start > 0.5 ? " the machine was busy at the start (load > 0.5)" : "");
	for (t = 1; t <= MAX_THREADS; t++)
		fails += target_vs_ringbuf(out, t, limit[t]);
	for (t = 1; t <= MAX_THREADS; t++)
		fails += target_vs_trace_cmd(out, t);
	fails += target_no_loss(out);
	fprintf(out, "\n");
	return fails;
}
