// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trace clock: a wait-free, NMI-safe 64-bit extension of a narrower
 * hardware counter (S1 section 5.3), in nanoseconds on the CLOCK_MONOTONIC
 * time base so that module, BPF (bpf_ktime_get_ns) and user-space events
 * merge.
 *
 * The hardware counter is the TSC, masked to hw_bits bits (a module
 * parameter: narrowing it makes tests see many wraps).  Each CPU keeps
 * two slots holding an extended count and an index naming the current
 * one.  A reader extends the hardware value with the current slot: the
 * slot plus the hardware's distance from the slot's low bits, modulo a
 * wrap.  A distance of more than half a wrap is taken as the hardware
 * having stepped back (a TSC may, slightly, under virtualisation), not as
 * a wrap: counting it as a wrap would jump a whole period forward (S1's
 * objection to cnt32_to_63).  A per-CPU timer refreshes the slot readers
 * are not using and then flips the index, so a reader interrupted at any
 * point (even by an NMI that reads too) uses a consistent slot.  This is
 * correct while no slot is older than half a wrap when it is used: the
 * update period plus the longest time a reader holds a slot must stay
 * below that, which is why readers disable preemption and
 * tr_clock_init() refuses update periods longer than a quarter of the
 * wrap period.  An update that comes more than half a wrap after the
 * previous one (interrupts held off that long, or a hypervisor that did
 * not run the CPU) breaks that condition: until it comes, readings look
 * like the hardware stepping back, and time on that CPU stands still.  The
 * update itself extends from where CLOCK_MONOTONIC says the count should
 * be by now, not from the stale slot, so it counts the wraps it missed and
 * the CPU's time resumes where it should, in step with the other CPUs'.
 * Such updates are counted (late_updates).
 *
 * Time on one CPU never goes back: each CPU keeps the last value it
 * returned, and a reading below it (the hardware stepped back) returns
 * that value instead and is counted; the update is a local compare-and-
 * swap, safe against readers nesting on the CPU.  Each CPU maps its
 * counter nanoseconds onto CLOCK_MONOTONIC with an offset of its own, taken
 * on the CPU when it first comes online with the module loaded: CPUs whose
 * TSCs are not synchronised (the kernel then marks the TSC unstable, as it
 * does for a VM's vCPUs brought up apart) still agree to within the time
 * between the readings, and records from several CPUs merge in the order
 * they were written.  That time is kept short by taking the closest of a
 * few bracketed readings: a hypervisor may stop a vCPU between two
 * readings however interrupts are set, and one such stop would shift the
 * CPU's time against the others' by as long as it lasted.  A CPU keeps its offset across offline spells
 * (its TSC runs on), so its time never goes back.  The clocks then drift
 * from CLOCK_MONOTONIC by the TSC's frequency error, which NTP does not
 * correct here.
 */
#include <linux/clocksource.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <asm/local64.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <asm/tsc.h>

#include "clock.h"

struct tr_clock_cpu {
	u64 slot[2];		/* extended counts as of an update */
	unsigned int index;	/* the slot readers use */
	local64_t last;		/* the latest count returned on this CPU */
	/* Readings below it: the hardware stepped back, or a nested reader read later. */
	local64_t held_back;
	u64 wraps;		/* wraps the updates saw */
	u64 last_update_ns;	/* CLOCK_MONOTONIC at the last update */
	u64 late_updates;	/* updates more than half a wrap apart: time unreliable */
	s64 mono_offset_ns;	/* CLOCK_MONOTONIC - counter ns, on this CPU */
	bool mono_offset_set;
	struct hrtimer update;
};

static DEFINE_PER_CPU(struct tr_clock_cpu, tr_clock_cpus);

static struct {
	u64 hw_mask;
	unsigned int hw_bits;
	ktime_t update_period;
	u32 mult;
	u32 shift;
	u64 wrap_ns;
} tr_clock __read_mostly;

static notrace u64 tr_clock_hw_read(void)
{
	return rdtsc_ordered() & tr_clock.hw_mask;
}

/* The extended count now, given a slot less than half a wrap old. */
static notrace u64 tr_clock_extend(u64 slot)
{
	u64 ahead = (tr_clock_hw_read() - slot) & tr_clock.hw_mask;

	if (ahead <= tr_clock.hw_mask >> 1)
		return slot + ahead;
	return slot - (-ahead & tr_clock.hw_mask);
}

/* count, or the latest count returned on this CPU if that is later. */
static notrace u64 tr_clock_not_before_last(struct tr_clock_cpu *c, u64 count)
{
	u64 last = local64_read(&c->last);

	while ((s64)(count - last) > 0) {
		u64 seen = local64_cmpxchg(&c->last, last, count);

		if (seen == last)
			return count;
		last = seen;
	}
	if (count != last)
		local64_inc(&c->held_back);
	return last;
}

/* The extended count on this CPU, c, with preemption off. */
static notrace u64 tr_clock_count(struct tr_clock_cpu *c)
{
	u64 count = tr_clock_extend(READ_ONCE(c->slot[READ_ONCE(c->index)]));

	return tr_clock_not_before_last(c, count);
}

static notrace u64 tr_clock_count_ns(u64 count)
{
	return mul_u64_u32_shr(count, tr_clock.mult, tr_clock.shift);
}

notrace u64 tr_clock_ns(void)
{
	struct tr_clock_cpu *c;
	u64 ns;

	preempt_disable_notrace();
	c = this_cpu_ptr(&tr_clock_cpus);
	ns = tr_clock_count_ns(tr_clock_count(c)) + c->mono_offset_ns;
	preempt_enable_notrace();
	return ns;
}
NOKPROBE_SYMBOL(tr_clock_ns);

/* Runs on its CPU, interrupts off: fill the unused slot, then publish it. */
static enum hrtimer_restart tr_clock_update(struct hrtimer *timer)
{
	struct tr_clock_cpu *c = this_cpu_ptr(&tr_clock_cpus);
	unsigned int next = !c->index;
	u64 old = c->slot[c->index];
	u64 now = ktime_get_mono_fast_ns();
	u64 expected = old;

	/*
	 * The count should have moved on from the slot as CLOCK_MONOTONIC has
	 * since the update that filled it: extended from there, a late update
	 * still counts the wraps it missed.
	 */
	if (c->last_update_ns) {
		c->late_updates += now - c->last_update_ns > tr_clock.wrap_ns / 2;
		expected += mul_u64_u32_div(now - c->last_update_ns, tsc_khz, NSEC_PER_MSEC);
	}
	c->last_update_ns = now;

	c->slot[next] = tr_clock_extend(expected);
	if (tr_clock.hw_bits < 64)
		c->wraps += (c->slot[next] >> tr_clock.hw_bits) - (old >> tr_clock.hw_bits);
	/* Readers on this CPU must see the slot before the index names it. */
	barrier();
	WRITE_ONCE(c->index, next);
	hrtimer_forward_now(timer, tr_clock.update_period);
	return HRTIMER_RESTART;
}

#define TR_CLOCK_OFFSET_TRIES	16

/* CLOCK_MONOTONIC minus this CPU's counter ns, from the closest bracketed reading. */
static s64 tr_clock_mono_offset(struct tr_clock_cpu *c)
{
	u64 best = U64_MAX, before, count, after;
	s64 offset = 0;
	int i;

	for (i = 0; i < TR_CLOCK_OFFSET_TRIES; i++) {
		before = ktime_get_mono_fast_ns();
		count = tr_clock_count_ns(tr_clock_count(c));
		after = ktime_get_mono_fast_ns();
		if (after - before < best) {
			best = after - before;
			offset = before + best / 2 - count;
		}
	}
	return offset;
}

/*
 * CPU hotplug callbacks, run on the CPU itself.  The first slot is the
 * whole TSC, so the extended count is the TSC itself, and the CPU's offset
 * onto CLOCK_MONOTONIC, taken the first time, holds across offline spells.
 */
static int tr_clock_cpu_online(unsigned int cpu)
{
	struct tr_clock_cpu *c = this_cpu_ptr(&tr_clock_cpus);

	local_irq_disable();
	c->slot[0] = rdtsc_ordered();
	c->index = 0;
	local64_set(&c->last, c->slot[0]);
	c->last_update_ns = 0;	/* an offline spell is no late update */
	if (!c->mono_offset_set) {
		c->mono_offset_ns = tr_clock_mono_offset(c);
		c->mono_offset_set = true;
	}
	local_irq_enable();
	hrtimer_start(&c->update, tr_clock.update_period, HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

static int tr_clock_cpu_offline(unsigned int cpu)
{
	hrtimer_cancel(&per_cpu_ptr(&tr_clock_cpus, cpu)->update);
	return 0;
}

static int tr_clock_hotplug_state;

int tr_clock_init(unsigned int hw_bits, unsigned int update_us)
{
	u64 hz = (u64)tsc_khz * 1000;
	u64 update_ns = (u64)update_us * NSEC_PER_USEC;
	unsigned int cpu;
	int state;

	if (!boot_cpu_has(X86_FEATURE_TSC) || !hz) {
		pr_err("tracer: no usable TSC for the trace clock\n");
		return -ENODEV;
	}
	if (hw_bits < 16 || hw_bits > 64 || !update_us) {
		pr_err("tracer: clock_bits must be 16-64 and clock_update_us > 0\n");
		return -EINVAL;
	}
	tr_clock.hw_bits = hw_bits;
	tr_clock.hw_mask = hw_bits == 64 ? ~0ull : (1ull << hw_bits) - 1;
	/* Counts per ms to ns per ms, exact enough over 10 minutes of counts. */
	clocks_calc_mult_shift(&tr_clock.mult, &tr_clock.shift, tsc_khz, NSEC_PER_MSEC, 600);
	tr_clock.wrap_ns = hw_bits >= 60 ? U64_MAX :
			   mul_u64_u32_shr(tr_clock.hw_mask + 1, tr_clock.mult, tr_clock.shift);
	if (update_ns > tr_clock.wrap_ns / 4) {
		pr_err("tracer: a %u-bit counter at %llu Hz wraps every %llu ns; clock_update_us (%u) must be at most a quarter of that\n",
		       hw_bits, hz, tr_clock.wrap_ns, update_us);
		return -EINVAL;
	}
	tr_clock.update_period = ns_to_ktime(update_ns);
	for_each_possible_cpu(cpu) {
		struct hrtimer *t = &per_cpu_ptr(&tr_clock_cpus, cpu)->update;

		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->function = tr_clock_update;
	}
	state = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tracer/clock:online",
				  tr_clock_cpu_online, tr_clock_cpu_offline);
	if (state < 0)
		return state;
	tr_clock_hotplug_state = state;
	return 0;
}

void tr_clock_exit(void)
{
	cpuhp_remove_state(tr_clock_hotplug_state);
}

void tr_clock_info(struct tr_kmod_clock_info *info)
{
	info->hw_bits = tr_clock.hw_bits;
	info->update_us = ktime_to_us(tr_clock.update_period);
	info->hw_hz = (u64)tsc_khz * 1000;
	info->wrap_ns = tr_clock.wrap_ns;
	preempt_disable();
	info->mono_offset_ns = this_cpu_ptr(&tr_clock_cpus)->mono_offset_ns;
	info->now_ns = tr_clock_ns();
	preempt_enable();
}

u64 tr_clock_wraps(unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(&tr_clock_cpus, cpu)->wraps);
}

u64 tr_clock_late_updates(unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(&tr_clock_cpus, cpu)->late_updates);
}

u64 tr_clock_held_back(unsigned int cpu)
{
	return local64_read(&per_cpu_ptr(&tr_clock_cpus, cpu)->held_back);
}

u64 tr_clock_wrap_ns(void)
{
	return tr_clock.wrap_ns;
}
