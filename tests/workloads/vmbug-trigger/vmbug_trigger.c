// SPDX-License-Identifier: GPL-2.0
/*
 * vmbug_trigger: a test module for stap-scripts/vmbug-context.stp.  Writing
 * to a file in /sys/kernel/debug/vmbug_trigger/ makes the writing task do a
 * little MM work and then hit a warning or a VM_BUG_ON_PAGE():
 *
 *   warn      allocate and free a page and a kmalloc object, then WARN()
 *   bug_page  allocate a page, then VM_BUG_ON_PAGE() on it: dump_page() and
 *             a BUG, which kills the writer (the page is leaked)
 *   softirq   the same work as warn, then a tasklet run on the way out of
 *             local_bh_enable() (softirq context, the writer still current)
 *             makes 24 kmalloc/kfree pairs and WARNs; then the writer WARNs:
 *             the tasklet's events must not push the writer's out of its
 *             list, and the tasklet's WARN must show the tasklet's events
 *
 * For the guest only; the kernel keeps running after the BUG (oops, no
 * panic), tainted.
 */
#define pr_fmt(fmt) "vmbug_trigger: " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/mmdebug.h>
#include <linux/module.h>
#include <linux/slab.h>

static struct dentry *vmbug_trigger_dir;

/* Some history for the task, so the report has something to show. */
static noinline struct page *vmbug_trigger_work(bool keep_page)
{
	struct page *page = alloc_page(GFP_KERNEL);
	void *obj = kmalloc(96, GFP_KERNEL);

	kfree(obj);
	if (page && !keep_page) {
		__free_page(page);
		page = NULL;
	}
	return page;
}

static noinline ssize_t vmbug_trigger_warn(struct file *file, const char __user *buf,
					   size_t len, loff_t *ppos)
{
	vmbug_trigger_work(false);
	WARN(1, "vmbug_trigger: a warning on request\n");
	return len;
}

static DECLARE_COMPLETION(vmbug_trigger_tasklet_done);

/* Softirq context: slab churn that no task asked for, then a warning. */
static noinline void vmbug_trigger_tasklet(struct tasklet_struct *t)
{
	int i;

	for (i = 0; i < 24; i++)
		kfree(kmalloc(32, GFP_ATOMIC));
	WARN(1, "vmbug_trigger: a warning from a tasklet\n");
	complete(&vmbug_trigger_tasklet_done);
}

static DECLARE_TASKLET(vmbug_trigger_tasklet_struct, vmbug_trigger_tasklet);

static noinline ssize_t vmbug_trigger_softirq(struct file *file, const char __user *buf,
					      size_t len, loff_t *ppos)
{
	vmbug_trigger_work(false);
	reinit_completion(&vmbug_trigger_tasklet_done);
	local_bh_disable();
	tasklet_schedule(&vmbug_trigger_tasklet_struct);
	local_bh_enable();	/* runs the tasklet here, unless ksoftirqd does */
	wait_for_completion(&vmbug_trigger_tasklet_done);
	WARN(1, "vmbug_trigger: a warning after the tasklet\n");
	return len;
}

static noinline ssize_t vmbug_trigger_bug_page(struct file *file, const char __user *buf,
					       size_t len, loff_t *ppos)
{
	struct page *page = vmbug_trigger_work(true);

	if (!page)
		return -ENOMEM;
	VM_BUG_ON_PAGE(page_ref_count(page) > 0, page);
	/* Only reached without CONFIG_DEBUG_VM. */
	__free_page(page);
	return -EOPNOTSUPP;
}

static const struct file_operations warn_fops = {
	.owner = THIS_MODULE,
	.write = vmbug_trigger_warn,
	.llseek = noop_llseek,
};

static const struct file_operations bug_page_fops = {
	.owner = THIS_MODULE,
	.write = vmbug_trigger_bug_page,
	.llseek = noop_llseek,
};

static const struct file_operations softirq_fops = {
	.owner = THIS_MODULE,
	.write = vmbug_trigger_softirq,
	.llseek = noop_llseek,
};

static int __init vmbug_trigger_init(void)
{
	vmbug_trigger_dir = debugfs_create_dir("vmbug_trigger", NULL);
	debugfs_create_file("warn", 0200, vmbug_trigger_dir, NULL, &warn_fops);
	debugfs_create_file("bug_page", 0200, vmbug_trigger_dir, NULL, &bug_page_fops);
	debugfs_create_file("softirq", 0200, vmbug_trigger_dir, NULL, &softirq_fops);
	return 0;
}

static void __exit vmbug_trigger_exit(void)
{
	debugfs_remove(vmbug_trigger_dir);
	tasklet_kill(&vmbug_trigger_tasklet_struct);
}

module_init(vmbug_trigger_init);
module_exit(vmbug_trigger_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("WARN and VM_BUG_ON_PAGE on request, for testing vmbug-context.stp");
