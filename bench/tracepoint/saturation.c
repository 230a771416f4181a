// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Part 3: saturation.  The tracer CLI recording 2 threads calling as fast
 * as they can: events/s sustained, and what it lost.
 */
#include "../bench_csv.h"
#include "configs.h"
#include "workloads.h"

static struct run_result sat;
static bool sat_done;

void saturation_run(void)
{
	if (!configs[C_TRACER].available || interrupted)
		return;
	progress("saturation: tracer record -a, 2 threads x %ld calls...\n", opt.sat_calls);
	if (run_config_quiet(&configs[C_TRACER], ncpu < 2 ? 1 : 2, opt.sat_calls, &sat) == 0)
		sat_done = true;
}

const struct run_result *saturation_result(void)
{
	return sat_done ? &sat : NULL;
}

void saturation_print(FILE *out)
{
	int threads = sat.expected / opt.sat_calls;
	double secs = sat.ns * opt.sat_calls / 1e9, rate = sat.expected / secs;

	fprintf(out, "## 3. Saturation: tracer record -a, %d threads calling %s() as fast as they can\n\n",
		threads, sys_name);
	if (!sat_done) {
		fprintf(out, "not run%s%s\n\n", configs[C_TRACER].why[0] ? ": " : "", configs[C_TRACER].why);
		return;
	}
	fprintf(out, "%lld events in %.2f s = **%.2f M events/s** sustained, recorder consuming to a file "
		"on the same 2 CPUs: %lld of ours recorded, %lld lost%s%s.\n\n",
		sat.expected, secs, rate / 1e6, sat.ours, sat.lost, sat.note[0] ? "; " : "", sat.note);
	if (disturbed(&sat))
		fprintf(out, "DISTURBED: other processes used %.0f%% of a CPU during this run (after %d attempts).\n\n",
			sat.others * 100, sat.attempts);
}

void saturation_csv(FILE *f)
{
	double rate;

	if (!sat_done)
		return;
	rate = sat.expected / (sat.ns * opt.sat_calls / 1e9);
	bench_csv_row(f, &(struct bench_row){ .workload = "saturation", .config = "full-speed",
		.label = "tracer record -a, 1 event per call, threads as fast as they can",
		.threads = sat.expected / opt.sat_calls, .param = event_spec, .unit = "events/s",
		.values = &rate, .n = 1, .median = rate, .min = rate, .max = rate, .counted = true,
		.recorded = sat.ours, .expected = sat.expected, .lost_known = sat.lost_known,
		.lost = sat.lost, .disturbed = disturbed(&sat), .note = sat.note });
}
