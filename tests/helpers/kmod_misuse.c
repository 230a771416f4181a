// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Uses /dev/tracer (tracer/kmod.h) the way a careless or hostile program
 * might, inside the test VM (tests/vm/guest/tests), and prints one line
 * per expectation, "ok - WHAT" or "not ok - WHAT", then exits 1 if any
 * failed.  The module must refuse, or survive, all of it.
 *   kmod_misuse shapes       ADD_TRACEPOINT with shapes no tracepoint has
 *   kmod_misuse ioctls       unknown ioctls, bad set-ups, ADD after FINISH
 *   kmod_misuse close        close() ends the session, a mapping stays
 *   kmod_misuse flush-zero   flush_ms 0 flushes nothing (needs selftest=1)
 *   kmod_misuse kfunc-types  which BPF programs may call the kfuncs
 *   kmod_misuse kfunc-ids    a tracing program writing an id the session
 *                            does not have writes nothing
 *   kmod_misuse onlined-cpu  a CPU brought online during a session flushes
 *                            its buffer (needs selftest=1 and CPU 1)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <tracer/kmod.h>

#include "layout/packet.h"

#define SELFTEST_DIR	"/sys/kernel/debug/tracer"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

static int failures;

/* Diagnostics go with the results, as comment lines. */
__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	printf("# kmod_misuse: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

__attribute__((format(printf, 2, 3)))
static void expect(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failures += !ok;
}

/* ioctl's result as 0 or -errno. */
static int ioctl_err(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int open_device(void)
{
	int fd = open(TR_KMOD_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("%s: %s", TR_KMOD_DEVICE, strerror(errno));
	return fd;
}

static struct tr_kmod_setup setup_of(__u32 flush_ms, __u32 selftest_event_id, __u32 nevents)
{
	return (struct tr_kmod_setup) {
		.subbuf_size = 64 << 10, .nsubbuf = 4, .mode = TR_MODE_DISCARD,
		.flush_ms = flush_ms, .selftest_event_id = selftest_event_id,
		.nevents = nevents,
	};
}

/* A session on a new descriptor, or exit. */
static int open_session(struct tr_kmod_setup *setup)
{
	int fd = open_device(), err = ioctl_err(fd, TR_KMOD_IOC_SETUP, setup);

	if (err)
		die("SETUP: %s", strerror(-err));
	return fd;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("%s: %s", path, strerror(errno));
	close(fd);
}

static __u32 tracefs_id(const char *event)
{
	char path[256];
	unsigned int id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id", event);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &id) != 1)
		die("cannot read %s", path);
	fclose(f);
	return id;
}

static void getppid_n(int n)
{
	while (n--)
		syscall(SYS_getppid);
}

/* --- Records in a session's buffers ------------------------------------- */

/*
 * Count the records under each id (ids below max_id) in every sub-buffer
 * ready now, and expect every packet to read to its end.
 */
static void count_records(int fd, const struct tr_kmod_setup *setup, unsigned long *per_id,
			  unsigned int max_id)
{
	unsigned int cpu, bad = 0;

	for (cpu = 0; cpu < setup->ncpu; cpu++) {
		const char *region = mmap(NULL, setup->region_stride, PROT_READ, MAP_SHARED, fd,
					  (off_t)cpu * setup->region_stride);
		struct tr_kmod_subbuf sb = { .cpu = cpu };

		if (region == MAP_FAILED)
			continue;	/* not a possible CPU */
		while (!ioctl_err(fd, TR_KMOD_IOC_GET_SUBBUF, &sb)) {
			const struct tr_event_header *e;
			struct tr_packet_iter it;
			const char *problem;

			tr_packet_iter_init(&it, region + sb.offset);
			while ((e = tr_packet_next(&it, &problem)))
				if (e->id < max_id)
					per_id[e->id]++;
			if (problem)
				printf("# cpu %u, packet at %llu: %s\n", cpu,
				       (unsigned long long)sb.pos, problem);
			bad += !!problem;
			ioctl_err(fd, TR_KMOD_IOC_PUT_SUBBUF, &sb);
		}
		munmap((void *)region, setup->region_stride);
	}
	expect(!bad, "every packet of the session reads to its end (%u do not)", bad);
}

/* --- shapes ---------------------------------------------------------------- */

struct bad_shape {
	const char *what;
	struct tr_kmod_tracepoint tp;
};

static void check_shapes(void)
{
	const __u32 kid = tracefs_id("syscalls/sys_enter_getppid");
#define TP(id, pad_, fixed, n, loc) { .event_id = id, .pad = pad_, .shape = { \
	.kernel_id = kid, .fixed_size = fixed, .ndyn = n, .dyn_offset = { loc } } }
	const struct bad_shape bad[] = {
		{ "fixed_size 0", TP(1, 0, 0, 0, 0) },
		{ "fixed_size 4", TP(1, 0, 4, 0, 0) },
		{ "fixed_size 7", TP(1, 0, 7, 0, 0) },
		{ "fixed_size 65536", TP(1, 0, 65536, 0, 0) },
		{ "fixed_size 0xffffffff", TP(1, 0, 0xffffffff, 0, 0) },
		{ "ndyn 9", TP(1, 0, 64, 9, 0) },
		{ "ndyn 0xffffffff", TP(1, 0, 64, 0xffffffff, 0) },
		{ "a locator among the common fields", TP(1, 0, 16, 1, 4) },
		{ "a locator past the fixed part", TP(1, 0, 16, 1, 14) },
		{ "a __rel_loc locator far past it", TP(1, 0, 16, 1, 0x7fff | TR_DYN_RELATIVE) },
		{ "an event id the session does not have", TP(4, 0, 16, 0, 0) },
		{ "the self-test's event id", TP(3, 0, 16, 0, 0) },
		{ "pad not 0", TP(1, 1, 16, 0, 0) },
	};
#undef TP
	struct tr_kmod_setup setup = setup_of(10, 3, 3);
	struct tr_kmod_tracepoint tp = { .event_id = 1, .shape = { .kernel_id = kid, .fixed_size = 16 } };
	int fd = open_session(&setup), err;
	size_t i;

	/* A shape accepted by mistake would be used at once. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = ioctl_err(fd, TR_KMOD_IOC_ADD_TRACEPOINT, (void *)&bad[i].tp);
		getppid_n(10);
		expect(err == -EINVAL, "ADD_TRACEPOINT refuses %s (%s)", bad[i].what, strerror(-err));
	}
	tp.shape.kernel_id = 0x7fffffff;
	err = ioctl_err(fd, TR_KMOD_IOC_ADD_TRACEPOINT, &tp);
	expect(err, "ADD_TRACEPOINT refuses a tracefs id no event has (%s)", strerror(-err));
	tp.shape.kernel_id = kid;
	err = ioctl_err(fd, TR_KMOD_IOC_ADD_TRACEPOINT, &tp);
	getppid_n(10);
	expect(!err, "ADD_TRACEPOINT takes a sound shape (%s)", strerror(-err));
	err = ioctl_err(fd, TR_KMOD_IOC_ADD_TRACEPOINT, &tp);
	expect(err == -EINVAL, "ADD_TRACEPOINT refuses an event fed already (%s)", strerror(-err));
	close(fd);
}

/* --- ioctls ---------------------------------------------------------------- */

static void check_ioctls(void)
{
	struct tr_kmod_tracepoint tp = {
		.event_id = 0,
		.shape = { tracefs_id("syscalls/sys_enter_getppid"), 16 },
	};
	struct tr_kmod_setup setup;
	int fd = open_device(), err;

	err = ioctl_err(fd, _IO(TR_KMOD_IOC_MAGIC, 99), NULL);
	expect(err == -ENOTTY, "an unknown ioctl before SETUP fails with ENOTTY (%s)", strerror(-err));
	err = ioctl_err(fd, _IO('X', 1), NULL);
	expect(err == -ENOTTY, "another driver's ioctl fails with ENOTTY (%s)", strerror(-err));
	err = ioctl_err(fd, TR_KMOD_IOC_FLUSH, NULL);
	expect(err == -ENODATA, "FLUSH before SETUP fails with ENODATA (%s)", strerror(-err));
	setup = setup_of(10, TR_KMOD_NO_EVENT, 0);
	setup.pad = 1;
	err = ioctl_err(fd, TR_KMOD_IOC_SETUP, &setup);
	expect(err == -EINVAL, "SETUP refuses pad not 0 (%s)", strerror(-err));
	setup = setup_of(10, TR_KMOD_NO_EVENT, TR_MAX_EVENTS + 1);
	err = ioctl_err(fd, TR_KMOD_IOC_SETUP, &setup);
	expect(err == -EINVAL, "SETUP refuses more than TR_MAX_EVENTS events (%s)", strerror(-err));
	setup = setup_of(10, TR_MAX_EVENTS, 0);
	err = ioctl_err(fd, TR_KMOD_IOC_SETUP, &setup);
	expect(err == -EINVAL, "SETUP refuses a self-test id out of range (%s)", strerror(-err));
	setup = setup_of(10, TR_KMOD_NO_EVENT, 2);
	err = ioctl_err(fd, TR_KMOD_IOC_SETUP, &setup);
	expect(!err, "SETUP takes a sound set-up (%s)", strerror(-err));
	err = ioctl_err(fd, _IO(TR_KMOD_IOC_MAGIC, 99), NULL);
	expect(err == -ENOTTY, "an unknown ioctl after SETUP fails with ENOTTY (%s)", strerror(-err));
	err = ioctl_err(fd, TR_KMOD_IOC_ADD_TRACEPOINT, &tp);
	expect(!err, "ADD_TRACEPOINT before FINISH works (%s)", strerror(-err));
	err = ioctl_err(fd, TR_KMOD_IOC_FINISH, NULL);
	expect(!err, "FINISH works (%s)", strerror(-err));
	tp.event_id = 1;
	err = ioctl_err(fd, TR_KMOD_IOC_ADD_TRACEPOINT, &tp);
	getppid_n(10);
	expect(err == -ESHUTDOWN, "ADD_TRACEPOINT after FINISH fails with ESHUTDOWN (%s)",
	       strerror(-err));
	close(fd);
}

/* --- close ------------------------------------------------------------------- */

static void check_close(void)
{
	struct tr_kmod_setup setup = setup_of(10, TR_KMOD_NO_EVENT, 0);
	int fd = open_session(&setup), other, err;
	const struct tr_buf_ctl *ctl;
	pid_t child;

	ctl = mmap(NULL, setup.region_stride, PROT_READ, MAP_SHARED, fd, 0);
	if (ctl == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	/* A child's descriptors are its own: its exit ends nothing. */
	child = fork();
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	setup = setup_of(10, TR_KMOD_NO_EVENT, 0);
	other = open_device();
	err = ioctl_err(other, TR_KMOD_IOC_SETUP, &setup);
	expect(err == -EBUSY, "a session outlives a child's exit (%s)", strerror(-err));
	close(other);

	close(fd);
	setup = setup_of(10, TR_KMOD_NO_EVENT, 0);
	other = open_device();
	err = ioctl_err(other, TR_KMOD_IOC_SETUP, &setup);
	expect(!err, "close() ends the session although its region is still mapped (%s)",
	       strerror(-err));
	expect(ctl->magic == TR_CTL_MAGIC, "the region stays readable until munmap()");
	munmap((void *)ctl, setup.region_stride);
	close(other);
}

/* --- flush-zero ---------------------------------------------------------------- */

static void check_flush_zero(void)
{
	struct tr_kmod_setup setup = setup_of(0, 0, 0);
	int fd = open_session(&setup), ready;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned long nmi_records[1] = { 0 };

	write_file(SELFTEST_DIR "/nmi_storm", "100");
	/* Ten periods of the 100 ms default it used to fall back to. */
	ready = poll(&p, 1, 1000);
	expect(ready == 0, "with flush_ms 0 no partly filled sub-buffer is delivered (poll: %d)",
	       ready);
	expect(!ioctl_err(fd, TR_KMOD_IOC_FLUSH, NULL), "FLUSH works");
	count_records(fd, &setup, nmi_records, 1);
	expect(nmi_records[0] > 0, "FLUSH delivers them (%lu NMI records)", nmi_records[0]);
	close(fd);
}

/* --- onlined-cpu ------------------------------------------------------------------ */

/*
 * Whether CPU 1 delivers a sub-buffer within a second, a hundred of its
 * flush periods; what the other CPUs deliver meanwhile is given back, so
 * that poll() waits for the next delivery.
 */
static int wait_for_cpu1_subbuf(int fd, unsigned int ncpu)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned int cpu;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		for (cpu = 0; cpu < ncpu; cpu++) {
			struct tr_kmod_subbuf sb = { .cpu = cpu };

			while (!ioctl_err(fd, TR_KMOD_IOC_GET_SUBBUF, &sb)) {
				ioctl_err(fd, TR_KMOD_IOC_PUT_SUBBUF, &sb);
				if (cpu == 1)
					return 1;
			}
		}
		poll(&p, 1, 10);
	}
	return 0;
}

static void check_onlined_cpu(void)
{
	struct tr_kmod_setup setup = setup_of(10, 0, 0);
	int fd;

	write_file(CPU1_ONLINE, "0");
	fd = open_session(&setup);
	write_file(CPU1_ONLINE, "1");
	write_file(SELFTEST_DIR "/nmi_storm", "100");
	expect(wait_for_cpu1_subbuf(fd, setup.ncpu),
	       "a CPU brought online during a session flushes its buffer on its timer");
	close(fd);
}

/* --- kfuncs -------------------------------------------------------------------- */

struct kfunc_target {
	struct btf *vmlinux;
	int module_btf_fd;		/* fd_array[1] */
	__u32 write_id;			/* tr_kmod_write in the module's BTF */
};

static int module_btf_fd(const char *name)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		char btf_name[64] = "";
		struct bpf_btf_info info = {
			.name = (__u64)(unsigned long)btf_name, .name_len = sizeof(btf_name),
		};
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(btf_name, name))
			return fd;
		close(fd);
	}
	return -1;
}

static struct kfunc_target find_kfunc(void)
{
	struct kfunc_target t = { .vmlinux = btf__load_vmlinux_btf() };
	struct btf *module = t.vmlinux ? btf__load_module_btf(TR_KMOD_NAME, t.vmlinux) : NULL;
	int id = module ? btf__find_by_name_kind(module, "tr_kmod_write", BTF_KIND_FUNC) : -1;

	t.module_btf_fd = module_btf_fd(TR_KMOD_NAME);
	if (id <= 0 || t.module_btf_fd < 0)
		die("no BTF of tr_kmod_write in module %s", TR_KMOD_NAME);
	t.write_id = id;
	btf__free(module);
	return t;
}

#define INSN(code, dst, src, off, imm) \
	((struct bpf_insn) { code, dst, src, off, imm })

/*
 * tr_kmod_write(id, 16 zero bytes on the stack, 16) for each id, then
 * return 0: what another tool's program would do to inject records.
 */
static int kfunc_program(const struct kfunc_target *t, const __u32 *ids, int nids,
			 struct bpf_insn *insn)
{
	int n = 0, i;

	insn[n++] = INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -16, 0);
	insn[n++] = INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -8, 0);
	for (i = 0; i < nids; i++) {
		insn[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, ids[i]);
		insn[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
		insn[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -16);
		insn[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 16);
		insn[n++] = INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 1, t->write_id);
	}
	insn[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	insn[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* A program of this type calling tr_kmod_write(ids...): its fd, or -errno. */
static int load_kfunc_program(const struct kfunc_target *t, enum bpf_prog_type type,
			      const __u32 *ids, int nids)
{
	int fd_array[2] = { 0, t->module_btf_fd };
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .fd_array = fd_array);
	struct bpf_insn insn[64];
	int n = kfunc_program(t, ids, nids, insn), fd;

	if (type == BPF_PROG_TYPE_TRACING) {
		opts.expected_attach_type = BPF_TRACE_RAW_TP;
		opts.attach_btf_id = btf__find_by_name_kind(t->vmlinux, "btf_trace_sys_enter",
							    BTF_KIND_TYPEDEF);
	}
	if (type == BPF_PROG_TYPE_SYSCALL)
		opts.prog_flags = BPF_F_SLEEPABLE;
	fd = bpf_prog_load(type, "kmod_misuse", "GPL", insn, n, &opts);
	return fd < 0 ? -errno : fd;
}

static const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		die("uname: %s", strerror(errno));
	return u.release;
}

/* The module lets kprobe programs call its kfuncs where the kernel has their hook (6.10+). */
static int kprobes_have_kfuncs(void)
{
	unsigned int major = 0, minor = 0;

	sscanf(kernel_release(), "%u.%u", &major, &minor);
	return major > 6 || (major == 6 && minor >= 10);
}

static void check_kfunc_types(void)
{
	static const struct {
		enum bpf_prog_type type;
		const char *name;
	} others[] = {
		{ BPF_PROG_TYPE_SOCKET_FILTER, "socket filter" },
		{ BPF_PROG_TYPE_SYSCALL, "syscall" },
		{ BPF_PROG_TYPE_SCHED_CLS, "tc" },
	};
	struct kfunc_target t = find_kfunc();
	const __u32 id = 0;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		fd = load_kfunc_program(&t, others[i].type, &id, 1);
		expect(fd < 0, "a %s program cannot call tr_kmod_write (%s)", others[i].name,
		       fd < 0 ? strerror(-fd) : "it loaded");
		if (fd >= 0)
			close(fd);
	}
	fd = load_kfunc_program(&t, BPF_PROG_TYPE_TRACING, &id, 1);
	expect(fd >= 0, "a tp_btf program can call tr_kmod_write (%s)",
	       fd < 0 ? strerror(-fd) : "it loaded");
	if (fd >= 0)
		close(fd);
	fd = load_kfunc_program(&t, BPF_PROG_TYPE_KPROBE, &id, 1);
	expect((fd >= 0) == kprobes_have_kfuncs(),
	       "a kprobe program %s call tr_kmod_write on Linux %s (%s)",
	       kprobes_have_kfuncs() ? "can" : "cannot", kernel_release(),
	       fd < 0 ? strerror(-fd) : "it loaded");
	if (fd >= 0)
		close(fd);
	fd = load_kfunc_program(&t, BPF_PROG_TYPE_TRACEPOINT, &id, 1);
	printf("# a tracepoint program %s call tr_kmod_write on this kernel\n",
	       fd >= 0 ? "can" : "cannot");
	if (fd >= 0)
		close(fd);
	close(t.module_btf_fd);
	btf__free(t.vmlinux);
}

static void check_kfunc_ids(void)
{
	struct tr_kmod_setup setup = setup_of(10, TR_KMOD_NO_EVENT, 2);
	const __u32 ids[] = { 1, 7 };
	struct kfunc_target t = find_kfunc();
	unsigned long per_id[8] = { 0 };
	int fd = open_session(&setup), prog, link;

	prog = load_kfunc_program(&t, BPF_PROG_TYPE_TRACING, ids, 2);
	link = prog < 0 ? prog : bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0)
		die("cannot attach a tp_btf program: %s", strerror(prog < 0 ? -prog : errno));
	getppid_n(100);
	close(link);
	close(prog);
	expect(!ioctl_err(fd, TR_KMOD_IOC_FLUSH, NULL), "FLUSH works");
	count_records(fd, &setup, per_id, 8);
	expect(per_id[1] >= 100, "records under an id of the session are written (%lu)", per_id[1]);
	expect(per_id[7] == 0, "records under an id it does not have are not (%lu)", per_id[7]);
	close(fd);
	close(t.module_btf_fd);
	btf__free(t.vmlinux);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} checks[] = {
		{ "shapes", check_shapes },
		{ "ioctls", check_ioctls },
		{ "close", check_close },
		{ "flush-zero", check_flush_zero },
		{ "kfunc-types", check_kfunc_types },
		{ "kfunc-ids", check_kfunc_ids },
		{ "onlined-cpu", check_onlined_cpu },
	};
	size_t i;

	for (i = 0; argc == 2 && i < sizeof(checks) / sizeof(checks[0]); i++) {
		if (!strcmp(argv[1], checks[i].name)) {
			setvbuf(stdout, NULL, _IOLBF, 0);
			checks[i].run();
			return failures ? 1 : 0;
		}
	}
	die("usage: kmod_misuse shapes|ioctls|close|flush-zero|kfunc-types|kfunc-ids|onlined-cpu");
}
