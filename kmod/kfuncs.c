// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kfuncs BPF programs call (declared for them in tracer/kmod.h):
 * write a record into this CPU's buffer of the active session, and read
 * the trace clock.  Both are notrace and NOKPROBE: a probe on them would
 * recurse into the tracer.
 *
 * They are registered for tracing programs (BPF_PROG_TYPE_TRACING:
 * tp_btf, fentry, fexit; the kernel adds LSM programs, and from 6.12 on
 * classic tracepoint programs, which tracer's recorder uses) and, from
 * 6.10 on, where the kernel gives them a kfunc hook of their own, for
 * kprobe programs (kprobes, uprobes and USDT probes: tracer's probes);
 * not for every program type: other programs have no business writing
 * into a recording.  Where tracepoint programs cannot call them (before
 * 6.12), tracepoints.c writes tracepoint records instead; before 6.10,
 * probes record through BPF buffers (the recorder says so).  6.8 made
 * BTF_KFUNCS_START mandatory (before it, BTF_SET8_START).
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/kprobes.h>
#include <linux/version.h>

#include "buffers.h"
#include "clock.h"
#include "kfuncs.h"

#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name) BTF_SET8_START(name)
#define BTF_KFUNCS_END(name) BTF_SET8_END(name)
#endif

__diag_push();
__diag_ignore_all("-Wmissing-prototypes", "kfuncs are called from BPF, not C");

/* __used noinline: what __bpf_kfunc is, on the kernels that have it (6.2+). */
__used noinline notrace int tr_kmod_write(u32 event_id, const void *data, u32 data__sz)
{
	return tr_active_write(event_id, data, data__sz);
}
NOKPROBE_SYMBOL(tr_kmod_write);

__used noinline notrace u64 tr_kmod_clock_ns(void)
{
	return tr_clock_ns();
}
NOKPROBE_SYMBOL(tr_kmod_clock_ns);

__diag_pop();

BTF_KFUNCS_START(tr_kfunc_ids)
BTF_ID_FLAGS(func, tr_kmod_write)
BTF_ID_FLAGS(func, tr_kmod_clock_ns)
BTF_KFUNCS_END(tr_kfunc_ids)

static const struct btf_kfunc_id_set tr_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &tr_kfunc_ids,
};

int tr_kfuncs_register(void)
{
	int err = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING, &tr_kfunc_set);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	/* BTF_KFUNC_HOOK_KPROBE, which kprobe programs lacked before 6.10. */
	if (!err)
		err = register_btf_kfunc_id_set(BPF_PROG_TYPE_KPROBE, &tr_kfunc_set);
#endif
	return err;
}
