/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The companion kernel module's interfaces: the misc device /dev/tracer
 * that user space opens, maps and drives with ioctls, and the kfuncs BPF
 * programs call.  Included by kmod/, bpf/ and user/.
 *
 * One recording session at a time owns the device: TR_KMOD_IOC_SETUP
 * allocates one region per possible CPU, laid out as layout.h says, and
 * starts writing; the regions are mapped read-only at offset
 * cpu * region_stride.  The reader takes and gives back sub-buffers with
 * GET_SUBBUF / PUT_SUBBUF (the module runs ringbuf.h's reader steps, which
 * write the control block).  close() by the process that set the session
 * up ends it: nothing is written any more and another session may start;
 * its regions stay mapped, and readable, until munmap().
 *
 * Ioctls other than these fail with ENOTTY; those that need a session,
 * before SETUP, with ENODATA.
 */
#ifndef TRACER_KMOD_H
#define TRACER_KMOD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <linux/ioctl.h>
#endif
#include "record.h"

#define TR_KMOD_DEVICE		"/dev/tracer"
#define TR_KMOD_NAME		"tracer"

/*
 * The self-test's NMI record (kmod/selftest.c), shaped like a tracepoint
 * record so that the same decoders read it; common_type is this id, which
 * no tracefs event has.  The recorder declares it as tracer:nmi_test.
 */
#define TR_KMOD_NMI_TEST_TYPE	0xffff
#define TR_KMOD_NO_EVENT	0xffffffffu

struct tr_kmod_nmi_test {
	__u16 common_type;		/* TR_KMOD_NMI_TEST_TYPE */
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__u64 seq;			/* this CPU's NMIs so far */
};

/*
 * SETUP fails with E2BIG when the regions would take more than half of the
 * memory available (MemAvailable in /proc/meminfo), with ENOMEM when they
 * cannot be allocated (they are charged to the caller's memory cgroup);
 * ncpu and region_stride are written back then too, to say what was asked.
 */
struct tr_kmod_setup {
	__u64 subbuf_size;		/* in: power of two */
	__u32 nsubbuf;			/* in: power of two */
	__u32 mode;			/* in: enum tr_buf_mode */
	__u32 stream_id;		/* in */
	/*
	 * in: per-CPU period in ms of the flush of partly filled sub-buffers;
	 * 0 for none (full ones are still announced to poll(), every 100 ms)
	 */
	__u32 flush_ms;
	__u32 selftest_event_id;	/* in: id for NMI self-test records, or TR_KMOD_NO_EVENT */
	/*
	 * in: the session's event ids are 0..nevents-1 (at most TR_MAX_EVENTS)
	 * and selftest_event_id; writes under other ids are refused (ENOENT).
	 * 0: any id below TR_MAX_EVENTS.
	 */
	__u32 nevents;
	__u32 ncpu;			/* out: regions, one per possible CPU */
	__u32 pad;			/* 0 */
	__u64 region_stride;		/* out: mmap offset of CPU n's region / n */
};

struct tr_kmod_subbuf {
	__u32 cpu;			/* in */
	__u32 pad;
	__u64 pos;			/* GET: out; PUT: in, as GET gave it */
	__u64 offset;			/* GET: out, the packet's offset in the region */
};

/* The synthetic clock (kmod/clock.c) and how it maps onto CLOCK_MONOTONIC. */
struct tr_kmod_clock_info {
	__u32 hw_bits;			/* width of the hardware counter used */
	__u32 update_us;		/* period of the per-CPU extension update */
	__u64 hw_hz;			/* hardware counter frequency */
	__u64 wrap_ns;			/* period of the hardware counter */
	__s64 mono_offset_ns;		/* CLOCK_MONOTONIC - counter ns: the answering CPU's (each has its own) */
	__u64 now_ns;			/* the clock when the ioctl ran */
};

/*
 * Feed one tracepoint's records into the session from an in-kernel perf
 * event per online CPU, for kernels whose tracepoint programs cannot call
 * the kfuncs (6.1): the tracepoint's BPF program then only filters, by its
 * return value, and the module writes what passes.  Refused with EINVAL
 * unless event_id is one of the session's (not its self-test's) and not
 * fed yet, and the shape is one a tracepoint can have: fixed_size from 8
 * (the common fields) to 65535, ndyn at most TR_MAX_DYN, each locator
 * inside the fixed part after the common fields; with ESHUTDOWN after
 * FINISH.
 */
struct tr_kmod_tracepoint {
	__u32 event_id;			/* ours, for the records */
	__u32 pad;			/* 0 */
	struct tr_event_shape shape;	/* shape.kernel_id: the tracefs event id */
};

#define TR_KMOD_IOC_MAGIC	'T'
#define TR_KMOD_IOC_SETUP	_IOWR(TR_KMOD_IOC_MAGIC, 1, struct tr_kmod_setup)
/* -EAGAIN when no sub-buffer of that CPU is ready. */
#define TR_KMOD_IOC_GET_SUBBUF	_IOWR(TR_KMOD_IOC_MAGIC, 2, struct tr_kmod_subbuf)
#define TR_KMOD_IOC_PUT_SUBBUF	_IOW(TR_KMOD_IOC_MAGIC, 3, struct tr_kmod_subbuf)
/* Flush every CPU's buffer, on its own CPU (ringbuf.h, I8). */
#define TR_KMOD_IOC_FLUSH	_IO(TR_KMOD_IOC_MAGIC, 4)
#define TR_KMOD_IOC_CLOCK	_IOR(TR_KMOD_IOC_MAGIC, 5, struct tr_kmod_clock_info)
/* Stop accepting records; poll() then reports POLLHUP once all is read. */
#define TR_KMOD_IOC_FINISH	_IO(TR_KMOD_IOC_MAGIC, 6)
#define TR_KMOD_IOC_ADD_TRACEPOINT _IOW(TR_KMOD_IOC_MAGIC, 7, struct tr_kmod_tracepoint)

#ifdef __VMLINUX_H__
/*
 * The kfuncs (kmod/kfuncs.c), for BPF programs.  Weak, so one object loads
 * with or without the module; calls are guarded by a load-time constant.
 * tr_kmod_write() copies data__sz bytes from data into a record of this
 * CPU's buffer: 0, or -errno with the loss counted by cause (-ENOENT, not
 * counted: event_id is not one of the session's).  Tracing programs
 * (tp_btf, fentry) may call them, and on 6.12 and later tracepoint
 * programs too.
 */
extern int tr_kmod_write(__u32 event_id, const void *data, __u32 data__sz) __ksym __weak;
extern __u64 tr_kmod_clock_ns(void) __ksym __weak;
#endif

#endif /* TRACER_KMOD_H */
