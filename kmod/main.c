// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tracer's companion module: per-CPU buffers written through kfuncs by
 * tracer's BPF programs (buffers.c, kfuncs.c), a synthetic trace clock
 * (clock.c), and /dev/tracer, through which user space sets up a
 * recording session, maps the buffers read-only and reads sub-buffers
 * (tracer/kmod.h).  selftest.c adds NMI and clock checks for the tests.
 *
 * While a session is open, the device file holds a reference on the
 * module and BPF programs that call the kfuncs hold another, so the
 * module cannot be unloaded under a recording.  A mapping holds the file:
 * the session's memory lives until the last close or munmap (release),
 * while the session itself ends at its owner's close() (flush).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "buffers.h"
#include "clock.h"
#include "kfuncs.h"
#include "selftest.h"

static unsigned int clock_bits = 64;
module_param(clock_bits, uint, 0444);
MODULE_PARM_DESC(clock_bits, "TSC bits the trace clock extends (16-64; fewer make it wrap often, for tests)");

static unsigned int clock_update_us = 10000;
module_param(clock_update_us, uint, 0444);
MODULE_PARM_DESC(clock_update_us, "Period of the per-CPU clock extension update, in us");

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "Register the NMI and timer self-tests (debugfs tracer/)");

static DEFINE_MUTEX(tr_setup_lock);

static long tr_dev_setup(struct file *file, struct tr_kmod_setup __user *arg)
{
	struct tr_kmod_setup setup;
	struct tr_session *s;
	int err;

	if (copy_from_user(&setup, arg, sizeof(setup)))
		return -EFAULT;
	mutex_lock(&tr_setup_lock);
	if (file->private_data) {
		mutex_unlock(&tr_setup_lock);
		return -EBUSY;
	}
	s = tr_session_create(&setup);
	err = PTR_ERR_OR_ZERO(s);
	if (!err) {
		err = tr_session_publish(s);
		if (err)
			tr_session_destroy(s);
		else
			file->private_data = s;
	}
	mutex_unlock(&tr_setup_lock);
	/* The geometry says what did not fit in memory too. */
	if ((!err || err == -E2BIG || err == -ENOMEM) &&
	    copy_to_user(arg, &setup, sizeof(setup)))
		return -EFAULT;
	return err;
}

static long tr_dev_subbuf(struct tr_session *s, unsigned int cmd, void __user *arg)
{
	struct tr_kmod_subbuf sb;
	int err;

	if (copy_from_user(&sb, arg, sizeof(sb)))
		return -EFAULT;
	if (cmd == TR_KMOD_IOC_PUT_SUBBUF)
		return tr_session_put_subbuf(s, &sb);
	err = tr_session_get_subbuf(s, &sb);
	if (err)
		return err;
	return copy_to_user(arg, &sb, sizeof(sb)) ? -EFAULT : 0;
}

static long tr_dev_add_tracepoint(struct tr_session *s, void __user *arg)
{
	struct tr_kmod_tracepoint tp;

	if (copy_from_user(&tp, arg, sizeof(tp)))
		return -EFAULT;
	if (tp.pad || !tr_session_has_event(s, tp.event_id) ||
	    tp.event_id == s->selftest_event_id)
		return -EINVAL;
	return tr_tracepoints_add(&s->tracepoints, &tp);
}

static long tr_dev_session_ioctl(struct tr_session *s, unsigned int cmd, void __user *arg)
{
	switch (cmd) {
	case TR_KMOD_IOC_GET_SUBBUF:
	case TR_KMOD_IOC_PUT_SUBBUF:
		return tr_dev_subbuf(s, cmd, arg);
	case TR_KMOD_IOC_FLUSH:
		tr_session_flush(s);
		return 0;
	case TR_KMOD_IOC_FINISH:
		tr_session_finish(s);
		return 0;
	case TR_KMOD_IOC_ADD_TRACEPOINT:
		return tr_dev_add_tracepoint(s, arg);
	}
	return -ENOTTY;
}

static long tr_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tr_session *s = READ_ONCE(file->private_data);
	struct tr_kmod_clock_info clock;

	switch (cmd) {
	case TR_KMOD_IOC_SETUP:
		return tr_dev_setup(file, (void __user *)arg);
	case TR_KMOD_IOC_CLOCK:
		tr_clock_info(&clock);
		return copy_to_user((void __user *)arg, &clock, sizeof(clock)) ? -EFAULT : 0;
	case TR_KMOD_IOC_GET_SUBBUF:
	case TR_KMOD_IOC_PUT_SUBBUF:
	case TR_KMOD_IOC_FLUSH:
	case TR_KMOD_IOC_FINISH:
	case TR_KMOD_IOC_ADD_TRACEPOINT:
		return s ? tr_dev_session_ioctl(s, cmd, (void __user *)arg) : -ENODATA;
	}
	return -ENOTTY;
}

/* CPU n's region at offset n * region_stride, read-only. */
static int tr_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tr_session *s = READ_ONCE(file->private_data);
	unsigned long stride_pages, cpu;

	if (!s)
		return -ENODATA;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	stride_pages = s->region_stride >> PAGE_SHIFT;
	cpu = vma->vm_pgoff / stride_pages;
	if (vma->vm_pgoff % stride_pages || cpu >= s->ncpu || !cpu_possible(cpu) ||
	    vma->vm_end - vma->vm_start > s->region_stride)
		return -EINVAL;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
	return remap_vmalloc_range(vma, s->cpu[cpu].region, 0);
}

static __poll_t tr_dev_poll(struct file *file, poll_table *wait)
{
	struct tr_session *s = READ_ONCE(file->private_data);

	if (!s)
		return EPOLLERR;
	poll_wait(file, &s->readers, wait);
	return tr_session_poll_mask(s);
}

/* misc_open() left the miscdevice here; a session takes its place at setup. */
static int tr_dev_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return 0;
}

static void tr_dev_end_session(struct tr_session *s)
{
	tr_session_end(s);
	tr_selftest_session_ended(s);
}

/* Every close(): the one by the process that set the session up ends it. */
static int tr_dev_flush(struct file *file, fl_owner_t id)
{
	struct tr_session *s = READ_ONCE(file->private_data);

	if (s && id == s->owner)
		tr_dev_end_session(s);
	return 0;
}

static int tr_dev_release(struct inode *inode, struct file *file)
{
	struct tr_session *s = file->private_data;

	if (s) {
		tr_dev_end_session(s);
		tr_session_destroy(s);
	}
	return 0;
}

static const struct file_operations tr_dev_fops = {
	.owner = THIS_MODULE,
	.open = tr_dev_open,
	.unlocked_ioctl = tr_dev_ioctl,
	.mmap = tr_dev_mmap,
	.poll = tr_dev_poll,
	.flush = tr_dev_flush,
	.release = tr_dev_release,
	.llseek = noop_llseek,
};

static struct miscdevice tr_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = TR_KMOD_NAME,
	.fops = &tr_dev_fops,
	.mode = 0600,
};

static int __init tr_init(void)
{
	int err = tr_clock_init(clock_bits, clock_update_us);

	if (err)
		return err;
	err = tr_kfuncs_register();
	if (err) {
		pr_err("tracer: cannot register the kfuncs (%d): built without BTF?\n", err);
		goto out_clock;
	}
	err = tr_buffers_init();
	if (err)
		goto out_clock;
	err = tr_tracepoints_module_init();
	if (err)
		goto out_buffers;
	err = selftest ? tr_selftest_init() : 0;
	if (err)
		goto out_tracepoints;
	err = misc_register(&tr_dev);
	if (err)
		goto out_selftest;
	return 0;
out_selftest:
	if (selftest)
		tr_selftest_exit();
out_tracepoints:
	tr_tracepoints_module_exit();
out_buffers:
	tr_buffers_exit();
out_clock:
	tr_clock_exit();
	return err;
}

static void __exit tr_exit(void)
{
	misc_deregister(&tr_dev);
	if (selftest)
		tr_selftest_exit();
	tr_tracepoints_module_exit();
	tr_buffers_exit();
	tr_clock_exit();
}

module_init(tr_init);
module_exit(tr_exit);
MODULE_DESCRIPTION("tracer: per-CPU lockless trace buffers and a trace clock for BPF programs");
MODULE_LICENSE("Dual BSD/GPL");
