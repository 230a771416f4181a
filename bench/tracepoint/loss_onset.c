// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Part 4: where loss begins.  tracer record -a of raw_syscalls:sys_enter/
 * sys_exit and the call's own enter/exit while the threads call at an
 * offered rate: 4 events per call, so that the recorder, not the
 * generator, is the limit.  The steps run interleaved, once per round; a
 * step with rate 0 calls as fast as it can.  The lowest rate that loses
 * events, and the loss at twice that rate.
 */
#include <math.h>
#include <stdlib.h>

#include "../bench_csv.h"
#include "configs.h"
#include "peers.h"
#include "workloads.h"

#define LADDER_FULL_SPEED_CALLS	600000	/* per thread and second of --ladder-secs */

/* One offered rate's runs, in round order. */
struct ladder_step {
	double achieved[MAX_ROUNDS];	/* events/s */
	double lost_pct[MAX_ROUNDS];	/* of our events, missing from the trace */
	long long expected, recorded, lost;	/* lost: the tracer's count, all processes */
	int n, disturbed;
	char note[160];
};

static struct ladder_step ladder[MAX_LADDER];
static bool ladder_done;

/* The offered rate of a step: its target, or what the threads reached at full speed. */
static double ladder_offered(int k)
{
	struct ladder_step *e = &ladder[k];

	return opt.ladder[k] > 0 ? opt.ladder[k] : median(e->achieved, e->n);
}

/* Runs step k once with the tracer recording: its rate reached and our events lost. */
static void ladder_run(int k, int threads)
{
	struct ladder_step *e = &ladder[k];
	double rate = opt.ladder[k];
	long calls = (rate > 0 ? rate / LADDER_EVENTS / threads : LADDER_FULL_SPEED_CALLS) *
		     opt.ladder_secs;
	struct run_result r;
	long long expected;

	gen_rate = rate / LADDER_EVENTS / threads;
	if (run_config_quiet(&configs[C_TRACER], threads, calls, &r) || interrupted) {
		gen_rate = 0;
		progress(" %.2fM: %s", rate / 1e6, interrupted ? "interrupted" : r.note);
		snprintf(e->note, sizeof(e->note), "%s", r.note);
		return;
	}
	gen_rate = 0;
	expected = r.expected * LADDER_EVENTS;
	e->achieved[e->n] = threads * LADDER_EVENTS * 1e9 / r.ns;
	e->lost_pct[e->n] = 100.0 * (expected - r.ours) / expected;
	e->expected += expected;
	e->recorded += r.ours;
	e->lost += r.lost;
	e->disturbed += disturbed(&r);
	if (r.note[0])
		snprintf(e->note, sizeof(e->note), "%s", r.note);
	progress(" %.2fM->%.2fM %.2f%%", rate / 1e6, e->achieved[e->n] / 1e6, e->lost_pct[e->n]);
	e->n++;
}

void loss_onset_run(void)
{
	const char *events[LADDER_EVENTS] = { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
					      event_spec, exit_spec };
	const char *measured[] = { event_spec };
	int threads = ncpu < 2 ? 1 : 2, round, i;

	if (!configs[C_TRACER].available || interrupted)
		return;
	tracer_set_events(events, LADDER_EVENTS);
	for (round = 0; round < opt.rounds && !interrupted; round++) {
		progress("loss onset, round %d/%d (offered->achieved events/s, our events lost):",
			 round + 1, opt.rounds);
		for (i = 0; i < opt.nladder && !interrupted; i++)
			ladder_run((i + round) % opt.nladder, threads);
		progress("\n");
	}
	tracer_set_events(measured, 1);
	ladder_done = !interrupted;
}

/* Steps by target rate, lowest first, full speed last: the order of the table. */
static int ladder_order[MAX_LADDER];

/* qsort's order of steps: by target rate, full speed (0) last. */
static int cmp_target(const void *a, const void *b)
{
	double x = opt.ladder[*(const int *)a], y = opt.ladder[*(const int *)b];

	x = x > 0 ? x : INFINITY;
	y = y > 0 ? y : INFINITY;
	return x < y ? -1 : x > y;
}

/* Fills ladder_order: every step, in cmp_target's order. */
static void ladder_sort(void)
{
	int i;

	for (i = 0; i < opt.nladder; i++)
		ladder_order[i] = i;
	qsort(ladder_order, opt.nladder, sizeof(*ladder_order), cmp_target);
}

/* Per round: the lowest offered rate of a step that lost events, INFINITY if none did. */
static int ladder_onsets(double *onset)
{
	int round, k;

	for (round = 0; round < opt.rounds; round++) {
		onset[round] = INFINITY;
		for (k = 0; k < opt.nladder; k++)
			if (round < ladder[k].n && ladder[k].lost_pct[round] > 0 &&
			    ladder_offered(k) < onset[round])
				onset[round] = ladder_offered(k);
	}
	return opt.rounds;
}

/* The step offering twice the onset, or the fastest one when none does; -1 without an onset. */
static int ladder_double(double onset)
{
	int k, fastest = -1;

	if (!isfinite(onset))
		return -1;
	for (k = 0; k < opt.nladder; k++) {
		if (fabs(ladder_offered(k) - 2 * onset) < 0.05 * onset)
			return k;
		if (fastest < 0 || ladder_offered(k) > ladder_offered(fastest))
			fastest = k;
	}
	return fastest;
}

/* The table's row of step k. */
static void print_step(FILE *out, int k)
{
	struct ladder_step *e = &ladder[k];
	char offered[32];

	if (opt.ladder[k] > 0)
		snprintf(offered, sizeof(offered), "%.2f M", opt.ladder[k] / 1e6);
	else
		snprintf(offered, sizeof(offered), "as fast as possible");
	fprintf(out, "| %s | %.2f (%.2f-%.2f) | %.3f (%.3f-%.3f) | %lld / %lld | %lld |\n", offered,
		median(e->achieved, e->n) / 1e6, vmin(e->achieved, e->n) / 1e6,
		vmax(e->achieved, e->n) / 1e6, median(e->lost_pct, e->n), vmin(e->lost_pct, e->n),
		vmax(e->lost_pct, e->n), e->recorded, e->expected, e->lost);
}

/*
 * Where loss begins, and the loss at twice that rate; false (after saying
 * so) when most rounds lost nothing.
 */
static bool print_onset(FILE *out)
{
	double onset[MAX_ROUNDS], at;
	char max[32] = "none (a round without loss)";
	int n, k2;

	n = ladder_onsets(onset);
	at = median(onset, n);
	if (!isfinite(at)) {
		fprintf(out, "- **no loss begins** in most rounds, up to the fastest step\n\n");
		return false;
	}
	if (isfinite(vmax(onset, n)))
		snprintf(max, sizeof(max), "%.2f", vmax(onset, n) / 1e6);
	fprintf(out, "- **loss begins at %.2f M events/s** offered (median over rounds of the lowest step "
		"that lost events; min %.2f, max %s)\n", at / 1e6, vmin(onset, n) / 1e6, max);
	k2 = ladder_double(at);
	if (k2 >= 0) {
		struct ladder_step *e = &ladder[k2];
		double offered = ladder_offered(k2);

		fprintf(out, "- at %s (%.2f M events/s offered, %.2f achieved): **%.3f%% of our events lost** "
			"(median; %.3f-%.3f), %lld of %lld over %d rounds\n",
			fabs(offered - 2 * at) < 0.05 * at ? "twice that rate" :
			"the fastest step (twice the onset is beyond what the threads reach)",
			offered / 1e6, median(e->achieved, e->n) / 1e6, median(e->lost_pct, e->n),
			vmin(e->lost_pct, e->n), vmax(e->lost_pct, e->n), e->expected - e->recorded,
			e->expected, e->n);
	}
	return true;
}

void loss_onset_print(FILE *out)
{
	int i;

	fprintf(out, "## 4. Where loss begins: tracer record -a of %d events per %s() call "
		"(raw_syscalls:sys_enter/sys_exit, %s, %s), threads calling at offered rates\n\n",
		LADDER_EVENTS, sys_name, event_spec, exit_spec);
	if (!ladder_done) {
		fprintf(out, "not run%s%s\n\n", configs[C_TRACER].why[0] ? ": " : "", configs[C_TRACER].why);
		return;
	}
	fprintf(out, "%d rounds, steps interleaved, about %.1f s of calls each; the recorder writes to a file "
		"and shares the 2 CPUs; \"lost\" is our events missing from the trace, and the tracer's own "
		"count (all processes) in the last column.\n\n", opt.rounds, opt.ladder_secs);
	fprintf(out, "| offered events/s | achieved M events/s, median (min-max) | our events lost %%, median (min-max) "
		"| recorded / expected, all rounds | tracer's lost count |\n|---|---|---|---|---|\n");
	ladder_sort();
	for (i = 0; i < opt.nladder; i++)
		if (ladder[ladder_order[i]].n)
			print_step(out, ladder_order[i]);
	fprintf(out, "\n");
	if (!print_onset(out))
		return;
	for (i = 0; i < opt.nladder; i++)
		if (ladder[i].disturbed || ladder[i].note[0])
			fprintf(out, "- step %.2f M: %d run%s kept disturbed%s%s\n", opt.ladder[i] / 1e6,
				ladder[i].disturbed, ladder[i].disturbed == 1 ? "" : "s",
				ladder[i].note[0] ? "; " : "", ladder[i].note);
	fprintf(out, "\n");
}

/* Step k's CSV rows: our events lost, and the rate the threads reached. */
static void csv_step(FILE *f, int k)
{
	struct ladder_step *e = &ladder[k];
	char offered[32];
	struct bench_row row;

	snprintf(offered, sizeof(offered), "%.0f", opt.ladder[k]);
	row = (struct bench_row){ .workload = "saturation", .config = "ladder-lost",
			.label = "our events lost at this offered rate (0: as fast as possible)",
			.threads = 2, .param = offered, .unit = "lost %", .values = e->lost_pct,
			.n = e->n, .median = median(e->lost_pct, e->n),
			.min = vmin(e->lost_pct, e->n), .max = vmax(e->lost_pct, e->n),
			.counted = true, .recorded = e->recorded, .expected = e->expected,
			.lost_known = true, .lost = e->lost, .disturbed = e->disturbed,
			.note = e->note };
	bench_csv_row(f, &row);
	row.config = "ladder-achieved";
	row.label = "events/s the threads reached at this offered rate";
	row.disturbed = 0;	/* counted once, in the row above */
	row.unit = "events/s";
	row.values = e->achieved;
	row.median = median(e->achieved, e->n);
	row.min = vmin(e->achieved, e->n);
	row.max = vmax(e->achieved, e->n);
	bench_csv_row(f, &row);
}

/* The CSV rows of the onset per round, and of the loss at twice the onset. */
static void csv_onset(FILE *f)
{
	double onset[MAX_ROUNDS];
	int n, k2;

	n = ladder_onsets(onset);
	bench_csv_row(f, &(struct bench_row){ .workload = "saturation", .config = "loss-onset",
		.label = "lowest offered rate that lost events (inf: none)", .threads = 2,
		.unit = "events/s", .values = onset, .n = n, .median = median(onset, n),
		.min = vmin(onset, n), .max = vmax(onset, n) });
	k2 = ladder_double(median(onset, n));
	if (k2 >= 0) {
		struct ladder_step *e = &ladder[k2];
		char offered[32];

		snprintf(offered, sizeof(offered), "%.0f", ladder_offered(k2));
		bench_csv_row(f, &(struct bench_row){ .workload = "saturation",
			.config = "lost-at-2x-onset",
			.label = "our events lost at twice the onset (or the fastest step)", .threads = 2,
			.param = offered, .unit = "lost %", .values = e->lost_pct, .n = e->n,
			.median = median(e->lost_pct, e->n), .min = vmin(e->lost_pct, e->n),
			.max = vmax(e->lost_pct, e->n), .counted = true, .recorded = e->recorded,
			.expected = e->expected, .lost_known = true, .lost = e->lost });
	}
}

void loss_onset_csv(FILE *f)
{
	int i;

	if (!ladder_done)
		return;
	ladder_sort();
	for (i = 0; i < opt.nladder; i++)
		if (ladder[ladder_order[i]].n)
			csv_step(f, ladder_order[i]);
	csv_onset(f);
}
