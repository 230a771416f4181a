// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Part 1: the generator's system call, 1 thread and 2, under each
 * available configuration (configs.c), interleaved in rounds whose order
 * rotates; wall ns per call per thread, and each peer's counts of what it
 * recorded and lost.
 */
#include <string.h>

#include "../bench_csv.h"
#include "configs.h"
#include "peers.h"
#include "workloads.h"

/* The runs of one configuration with one number of threads, in round order. */
struct cell {
	double ns[MAX_ROUNDS];
	struct run_result r[MAX_ROUNDS];
	int n;
};

static struct cell cells[NCONFIGS][MAX_THREADS + 1];

/* Runs configuration c with t threads once, keeps its result, says it on stderr. */
static void run_one(int c, int t)
{
	struct run_result r;

	if (run_config_quiet(&configs[c], t, opt.calls, &r) || interrupted) {
		progress(" %s: %s", configs[c].key, interrupted ? "interrupted" : "FAILED: ");
		progress("%s", interrupted ? "" : r.note);
		return;
	}
	cells[c][t].ns[cells[c][t].n] = r.ns;
	cells[c][t].r[cells[c][t].n++] = r;
	progress(" %s %.0f", configs[c].key, r.ns);
	if (r.counted && r.ours != r.expected)
		progress(" (%lld/%lld recorded)", r.ours, r.expected);
	if (r.lost_known && r.lost)
		progress(" (lost %lld)", r.lost);
}

void per_event_run(void)
{
	int round, t, i, c, order[NCONFIGS], n = 0;

	for (c = 0; c < NCONFIGS; c++)
		if (configs[c].available)
			order[n++] = c;
	progress("warm-up...\n");
	generate(1, opt.calls / 4);
	for (round = 0; round < opt.rounds && !interrupted; round++) {
		for (t = 1; t <= MAX_THREADS && t <= ncpu; t++) {
			progress("round %d/%d, %d thread%s:", round + 1, opt.rounds, t, t > 1 ? "s" : "");
			/* Rotate the order so no configuration always follows the same one. */
			for (i = 0; i < n && !interrupted; i++)
				run_one(order[(i + round) % n], t);
			progress("\n");
		}
	}
}

double added(int c, int base, int t)
{
	double d[MAX_ROUNDS];
	int n = cells[c][t].n < cells[base][t].n ? cells[c][t].n : cells[base][t].n, i;

	for (i = 0; i < n; i++)
		d[i] = cells[c][t].ns[i] - cells[base][t].ns[i];
	return median(d, n);
}

bool have(int c, int t)
{
	return configs[c].available && cells[c][t].n > 0;
}

double per_event_median(int c, int t)
{
	return median(cells[c][t].ns, cells[c][t].n);
}

int trace_cmd_row(void)
{
	return configs[C_TRACE_CMD].available ? C_TRACE_CMD : C_FTRACE;
}

/* The table's row of configuration c with t threads. */
static void print_row(FILE *out, int c, int t)
{
	struct cell *e = &cells[c][t];
	long long lost = 0, worst_ours = -1, worst_exp = 0, others = 0;
	bool counted = false, lost_known = false, all = true;
	char rec[96] = "-", losts[64] = "-", xrb[32] = "", over_empty[32] = "";
	int i;

	for (i = 0; i < e->n; i++) {
		struct run_result *r = &e->r[i];

		if (r->counted) {
			counted = true;
			if (r->ours != r->expected)
				all = false;
			if (worst_ours < 0 || r->ours * (double)worst_exp < worst_ours * (double)r->expected) {
				worst_ours = r->ours;
				worst_exp = r->expected;
			}
			others += r->total - r->ours;
		}
		if (r->lost_known) {
			lost_known = true;
			lost += r->lost;
		}
	}
	if (counted && all)
		snprintf(rec, sizeof(rec), "all");
	else if (counted)
		snprintf(rec, sizeof(rec), "%lld/%lld (worst round)", worst_ours, worst_exp);
	if (counted && others)
		snprintf(rec + strlen(rec), sizeof(rec) - strlen(rec), ", +%lld of other processes", others);
	if (c == C_TRACER_PROG)
		snprintf(rec, sizeof(rec), "n/a (overwritten)");
	if (lost_known)
		snprintf(losts, sizeof(losts), "%lld", lost);
	if (c != C_NONE && have(C_EMPTY, t))
		snprintf(over_empty, sizeof(over_empty), "%+.0f", added(c, C_EMPTY, t));
	if (c != C_NONE && c != C_EMPTY && have(C_RINGBUF, t) && have(C_EMPTY, t))
		snprintf(xrb, sizeof(xrb), "%.2f",
			 added(c, C_EMPTY, t) / added(C_RINGBUF, C_EMPTY, t));
	fprintf(out, "| %s | %d | %.0f | %.0f | %.0f | %+.0f | %s | %s | %s | %s |\n",
		configs[c].label, t, median(e->ns, e->n), vmin(e->ns, e->n),
		vmax(e->ns, e->n), added(c, C_NONE, t), over_empty, xrb, rec, losts);
}

/* The runs that stayed disturbed, and how many were repeated. */
static void print_disturbed(FILE *out)
{
	int repeated = 0, kept = 0, runs = 0, c, t, i;

	for (c = 0; c < NCONFIGS; c++)
		for (t = 1; t <= MAX_THREADS; t++)
			for (i = 0; i < cells[c][t].n; i++) {
				runs++;
				repeated += cells[c][t].r[i].attempts > 1;
				if (disturbed(&cells[c][t].r[i])) {
					kept++;
					fprintf(out, "- %s, %d thread%s, round %d: DISTURBED in all %d attempts "
						"(others used %.0f%%, steal %.0f%% of a CPU); kept\n",
						configs[c].key, t, t > 1 ? "s" : "", i + 1,
						cells[c][t].r[i].attempts, cells[c][t].r[i].others * 100,
						cells[c][t].r[i].steal * 100);
				}
			}
	fprintf(out, "- %d of %d runs were repeated because other processes used more than %.0f%% of a CPU "
		"during them; %d stayed disturbed after %d attempts\n", repeated, runs,
		DISTURBED * 100, kept, MAX_ATTEMPTS);
}

/* The configurations not measured and why, the runs' notes, and what stands for trace-cmd. */
static void print_notes(FILE *out)
{
	int c, t, i;

	for (c = 0; c < NCONFIGS; c++) {
		if (!configs[c].available && configs[c].why[0])
			fprintf(out, "- not measured: %s: %s\n", configs[c].key, configs[c].why);
		for (t = 1; t <= MAX_THREADS; t++)
			for (i = 0; i < cells[c][t].n; i++)
				if (cells[c][t].r[i].note[0])
					fprintf(out, "- %s, %d thread%s, round %d: %s\n", configs[c].key, t,
						t > 1 ? "s" : "", i + 1, cells[c][t].r[i].note);
	}
	if (!configs[C_TRACE_CMD].available && trace_cmd_error()[0] && have(C_FTRACE, 1))
		fprintf(out, "- The ftrace row stands in for trace-cmd: %s. It is the kernel ring buffer "
			"trace-cmd would record from, read the way trace-cmd does (one reader per CPU, "
			"trace_pipe_raw pages to a file).\n", configs[C_TRACE_CMD].why);
}

void per_event_print(FILE *out)
{
	int c, t;

	fprintf(out, "## 1. %s() with %s recorded\n\n", sys_name, event_spec);
	fprintf(out, "%ld calls per thread, %d rounds, configurations interleaved; wall ns per call "
		"per thread; \"added\" = median over rounds of (configuration - baseline in the same round); "
		"\"x ringbuf\" = added over empty / BPF ringbuf's added over empty (same threads).\n\n",
		opt.calls, opt.rounds);
	fprintf(out, "| configuration | threads | median ns/call | min | max | added over no tracing | added over empty program | x ringbuf | recorded (ours/expected) | lost |\n");
	fprintf(out, "|---|---|---|---|---|---|---|---|---|---|\n");
	for (c = 0; c < NCONFIGS; c++)
		for (t = 1; t <= MAX_THREADS; t++)
			if (have(c, t))
				print_row(out, c, t);
	fprintf(out, "\n");
	print_disturbed(out);
	print_notes(out);
	fprintf(out, "\n");
}

/* The CSV row of configuration c with t threads. */
static void csv_row(FILE *f, int c, int t)
{
	struct cell *e = &cells[c][t];
	bool counted = false, lost_known = false;
	struct bench_row row;
	int i;

	row = (struct bench_row){ .workload = "events", .config = configs[c].key,
			.label = configs[c].label, .threads = t, .param = event_spec,
			.unit = "ns/call", .values = e->ns, .n = e->n,
			.median = median(e->ns, e->n), .min = vmin(e->ns, e->n),
			.max = vmax(e->ns, e->n), .baseline = c == C_NONE };
	for (i = 0; i < e->n; i++) {
		const struct run_result *r = &e->r[i];

		counted |= r->counted;
		lost_known |= r->lost_known;
		row.recorded += r->ours;
		row.expected += r->expected;
		row.lost += r->lost;
		row.disturbed += disturbed(r);
		if (r->note[0])
			row.note = r->note;
	}
	/* The program alone overwrites: its buffers hold the newest records only. */
	row.counted = counted && c != C_TRACER_PROG;
	row.lost_known = lost_known;
	/* The suite pairs the rows by round (bench/paired.py). */
	if (c != C_NONE && c != C_EMPTY && have(C_RINGBUF, t) && have(C_EMPTY, t))
		row.ratio_to = "ringbuf (added over the empty program)";
	bench_csv_row(f, &row);
}

void per_event_csv(FILE *f)
{
	int c, t;

	for (c = 0; c < NCONFIGS; c++)
		for (t = 1; t <= MAX_THREADS; t++)
			if (have(c, t))
				csv_row(f, c, t);
}
