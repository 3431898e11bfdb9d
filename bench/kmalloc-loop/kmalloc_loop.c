// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc_loop: a benchmark module for the fault-injection hooks.
 *
 * Reading /sys/kernel/debug/kmalloc_loop/run runs `iters` kmalloc()/kfree()
 * pairs of `size` bytes from kmalloc_loop_run() and returns the time per
 * pair in picoseconds of guest time.  Under QEMU's -icount shift=0 guest
 * time counts instructions, so the number is the same in every round.
 */
#define pr_fmt(fmt) "kmalloc_loop: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static unsigned int iters = 200000;
module_param(iters, uint, 0644);
MODULE_PARM_DESC(iters, "kmalloc/kfree pairs per run");

static unsigned int size = 64;
module_param(size, uint, 0644);
MODULE_PARM_DESC(size, "bytes per kmalloc");

static struct dentry *kmalloc_loop_dir;

/* Kept out of line so that fault-inject's caller filter can name it. */
static noinline __noclone u64 kmalloc_loop_run(unsigned int n, unsigned int bytes,
				     unsigned int *failed)
{
	u64 start = ktime_get_ns();
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(bytes, GFP_KERNEL);
		if (!p) {
			(*failed)++;
			continue;
		}
		/* Keep the compiler from dropping the pair. */
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
	}
	return ktime_get_ns() - start;
}

static ssize_t run_read(struct file *file, char __user *buf, size_t len,
			loff_t *ppos)
{
	unsigned int n = READ_ONCE(iters), failed = 0;
	char out[64];
	int count;
	u64 ns;

	if (*ppos)
		return 0;
	if (!n)
		return -EINVAL;
	ns = kmalloc_loop_run(n, READ_ONCE(size), &failed);
	count = scnprintf(out, sizeof(out), "%llu %u\n",
			  div_u64(ns * 1000, n), failed);
	return simple_read_from_buffer(buf, len, ppos, out, count);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.read = run_read,
	.llseek = default_llseek,
};

static int __init kmalloc_loop_init(void)
{
	kmalloc_loop_dir = debugfs_create_dir("kmalloc_loop", NULL);
	debugfs_create_file("run", 0400, kmalloc_loop_dir, NULL, &run_fops);
	return 0;
}

static void __exit kmalloc_loop_exit(void)
{
	debugfs_remove(kmalloc_loop_dir);
}

module_init(kmalloc_loop_init);
module_exit(kmalloc_loop_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmalloc/kfree loop for measuring fault-injection hooks");
