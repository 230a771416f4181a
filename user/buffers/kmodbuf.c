// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tracer/record.h>

#include "buffers/kmodbuf.h"

const char *tr_kmodbuf_unavailable(void)
{
	if (access(TR_KMOD_DEVICE, F_OK) == 0)
		return NULL;
	if (access("/proc/modules", F_OK))
		return "this kernel cannot load modules (built without CONFIG_MODULES)";
	return "the tracer module is not loaded (no " TR_KMOD_DEVICE "): insmod kmod/tracer.ko";
}

int tr_kmodbuf_selftest(void)
{
	FILE *f = fopen("/sys/module/" TR_KMOD_NAME "/parameters/selftest", "r");
	int yes = f && fgetc(f) == 'Y';

	if (f)
		fclose(f);
	return yes;
}

const char tr_kmodbuf_nmi_test_format[] =
"name: nmi_test\n"
"ID: 65535\n"
"format:\n"
TR_FORMAT_COMMON_FIELDS
"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
"\n"
"print fmt: \"seq=%llu\", REC->seq\n";
_Static_assert(TR_KMOD_NMI_TEST_TYPE == 65535 && sizeof(struct tr_kmod_nmi_test) == 16,
	       "tr_kmodbuf_nmi_test_format describes struct tr_kmod_nmi_test");

static int map_regions(struct tr_kmodbuf *kb)
{
	unsigned int cpu;

	kb->region = calloc(kb->ncpu, sizeof(*kb->region));
	kb->cpu = calloc(kb->ncpu, sizeof(*kb->cpu));
	if (!kb->region || !kb->cpu)
		return -ENOMEM;
	for (cpu = 0; cpu < kb->ncpu; cpu++) {
		void *r = mmap(NULL, kb->region_stride, PROT_READ, MAP_SHARED, kb->fd,
			       (off_t)cpu * kb->region_stride);

		if (r == MAP_FAILED)
			return -errno;
		kb->region[cpu] = r;
		if (trb_attach(&kb->cpu[cpu], r, NULL))
			return -EPROTO;
	}
	return 0;
}

/* "64 MiB": sizes here are powers of two, so one unit says them exactly. */
static void print_size(FILE *out, unsigned long long bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	fprintf(out, "%llu %s", bytes, units[u]);
}

/*
 * The module refused the buffers for want of memory (tracer/kmod.h,
 * SETUP): say so, with the geometry it was asked for, and which limit.
 */
static void say_buffers_do_not_fit(const struct tr_kmod_setup *setup, int err)
{
	fputs("tracer record: the buffers (", stderr);
	print_size(stderr, setup->subbuf_size * setup->nsubbuf);
	fprintf(stderr, " per CPU x %u CPUs) do not fit in memory: %s\n", setup->ncpu,
		err == -E2BIG ? "the module takes at most half of the memory available (MemAvailable in /proc/meminfo)"
			      : "the kernel could not allocate them (or the memory cgroup's limit would be exceeded)");
}

int tr_kmodbuf_open(struct tr_kmodbuf *kb, const struct trb_config *cfg,
		    unsigned int flush_ms, __u32 selftest_event_id)
{
	struct tr_kmod_setup setup = {
		.subbuf_size = cfg->subbuf_size, .nsubbuf = cfg->nsubbuf,
		.mode = cfg->mode, .stream_id = cfg->stream_id, .flush_ms = flush_ms,
		.selftest_event_id = selftest_event_id,
	};
	int err;

	*kb = (struct tr_kmodbuf) { .fd = open(TR_KMOD_DEVICE, O_RDWR | O_CLOEXEC) };
	if (kb->fd < 0)
		return -errno;
	if (ioctl(kb->fd, TR_KMOD_IOC_CLOCK, &kb->clock) ||
	    ioctl(kb->fd, TR_KMOD_IOC_SETUP, &setup)) {
		err = -errno;
		if (err == -E2BIG || err == -ENOMEM) {
			say_buffers_do_not_fit(&setup, err);
			err = -ENOMEM;
		}
		tr_kmodbuf_close(kb);
		return err;
	}
	kb->ncpu = setup.ncpu;
	kb->region_stride = setup.region_stride;
	err = map_regions(kb);
	if (err)
		tr_kmodbuf_close(kb);
	return err;
}

void tr_kmodbuf_close(struct tr_kmodbuf *kb)
{
	unsigned int cpu;

	for (cpu = 0; kb->region && cpu < kb->ncpu; cpu++)
		if (kb->region[cpu])
			munmap(kb->region[cpu], kb->region_stride);
	free(kb->region);
	free(kb->cpu);
	if (kb->fd >= 0)
		close(kb->fd);
	*kb = (struct tr_kmodbuf) { .fd = -1 };
}

int tr_kmodbuf_get_subbuf(struct tr_kmodbuf *kb, unsigned int cpu, __u64 *pos,
			  const char **packet)
{
	struct tr_kmod_subbuf sb = { .cpu = cpu };

	if (ioctl(kb->fd, TR_KMOD_IOC_GET_SUBBUF, &sb))
		return -errno;
	if (sb.offset > kb->region_stride - kb->cpu[cpu].subbuf_size)
		return -EPROTO;
	*pos = sb.pos;
	*packet = (const char *)kb->region[cpu] + sb.offset;
	return 0;
}

void tr_kmodbuf_put_subbuf(struct tr_kmodbuf *kb, unsigned int cpu, __u64 pos)
{
	struct tr_kmod_subbuf sb = { .cpu = cpu, .pos = pos };

	ioctl(kb->fd, TR_KMOD_IOC_PUT_SUBBUF, &sb);
}

int tr_kmodbuf_add_tracepoint(struct tr_kmodbuf *kb, __u32 event_id,
			      const struct tr_event_shape *shape)
{
	struct tr_kmod_tracepoint tp = { .event_id = event_id, .shape = *shape };

	return ioctl(kb->fd, TR_KMOD_IOC_ADD_TRACEPOINT, &tp) ? -errno : 0;
}

int tr_kmodbuf_flush(struct tr_kmodbuf *kb)
{
	return ioctl(kb->fd, TR_KMOD_IOC_FLUSH) ? -errno : 0;
}

int tr_kmodbuf_finish(struct tr_kmodbuf *kb)
{
	return ioctl(kb->fd, TR_KMOD_IOC_FINISH) ? -errno : 0;
}
