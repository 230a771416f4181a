/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef TRACER_KMOD_CLOCK_H
#define TRACER_KMOD_CLOCK_H

#include <linux/types.h>
#include <tracer/kmod.h>

int tr_clock_init(unsigned int hw_bits, unsigned int update_us);
void tr_clock_exit(void);
u64 tr_clock_ns(void);
void tr_clock_info(struct tr_kmod_clock_info *info);
/* Wraps of the hardware counter seen by the updates on this CPU. */
u64 tr_clock_wraps(unsigned int cpu);
u64 tr_clock_wrap_ns(void);
/* Updates on this CPU that came too late to keep the clock exact. */
u64 tr_clock_late_updates(unsigned int cpu);
/* Readings on this CPU that came out below one already returned there. */
u64 tr_clock_held_back(unsigned int cpu);

#endif /* TRACER_KMOD_CLOCK_H */
