// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One run of a configuration: its peer started, the generator measured
 * with the CPU time others used meanwhile, its peer stopped; repeated once
 * when others disturbed it.
 */
#include <string.h>

#include "harness.h"

/* Runs c once: 0, or the start's -errno (r->note says so). */
static int run_config(struct config *c, int threads, long calls, struct run_result *r)
{
	struct cpu_sample a, b;
	int err;

	memset(r, 0, sizeof(*r));
	r->expected = (long long)threads * calls;
	err = c->start();
	if (err) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "start: %s", strerror(-err));
		return err;
	}
	cpu_sample(&a);
	r->ns = generate(threads, calls);
	cpu_sample(&b);
	cpu_others(&a, &b, &r->others, &r->steal);
	c->stop(r);
	return 0;
}

bool disturbed(const struct run_result *r)
{
	return r->others > DISTURBED || r->steal > DISTURBED;
}

int run_config_quiet(struct config *c, int threads, long calls, struct run_result *r)
{
	int attempt, err = 0;

	for (attempt = 1; attempt <= MAX_ATTEMPTS && !interrupted; attempt++) {
		err = run_config(c, threads, calls, r);
		r->attempts = attempt;
		if (err || !disturbed(r))
			break;
		progress(" [%s disturbed: others %.0f%%, steal %.0f%% of a CPU]", c->key,
			 r->others * 100, r->steal * 100);
	}
	return err;
}
