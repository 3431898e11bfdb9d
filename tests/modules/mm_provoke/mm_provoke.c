// SPDX-License-Identifier: GPL-2.0
/*
 * mm_provoke: commit one memory-management mistake on request, in a way
 * the kernel survives, so that txlog's tests see the anomaly in a real
 * trace.  Write a name to /sys/kernel/debug/mm_provoke/do:
 *
 *	slab-double-free   kmem_cache_free() an object twice.  Without
 *	                   slub_debug on the command line SLUB does not notice:
 *	                   the object is on the freelist twice (a loop).  So the
 *	                   cache is the module's own (a constructor keeps it from
 *	                   being merged with another), two more objects stay
 *	                   allocated so the slab is never freed, and the cache
 *	                   is never used or destroyed again, not even at rmmod
 *	page-ref-underflow take a page's refcount from 1 to -1 and back, then
 *	                   free the page normally
 *	page-use-after-free free a page, then take and drop a reference on it
 *	                   with interrupts off (the page waits on this CPU's
 *	                   per-cpu list meanwhile)
 *	slab-leak          kmalloc() 200 bytes and keep them until rmmod
 *
 * Each prints the object it used ("mm_provoke: slab-double-free ptr=...",
 * "... pfn=0x...") to the kernel log.  Reading the file lists the names.
 * Only ever load this in a test guest.
 */
#define pr_fmt(fmt) "mm_provoke: " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/page_ref.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static struct kmem_cache *provoke_cache;
static bool cache_broken;
static void *kept[2];
static void *leaked;
static struct dentry *provoke_dir;

static void provoke_ctor(void *obj)
{
	memset(obj, 0, 64);
}

static noinline int provoke_slab_double_free(void)
{
	void *obj;
	int i;

	if (cache_broken)
		return -EBUSY;
	for (i = 0; i < ARRAY_SIZE(kept); i++) {
		kept[i] = kmem_cache_alloc(provoke_cache, GFP_KERNEL);
		if (!kept[i])
			return -ENOMEM;
	}
	obj = kmem_cache_alloc(provoke_cache, GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	cache_broken = true;
	pr_info("slab-double-free ptr=0x%lx\n", (unsigned long)obj);
	kmem_cache_free(provoke_cache, obj);
	kmem_cache_free(provoke_cache, obj);
	return 0;
}

static noinline int provoke_page_ref_underflow(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return -ENOMEM;
	pr_info("page-ref-underflow pfn=0x%lx\n", page_to_pfn(page));
	page_ref_sub(page, 2);		/* 1 -> -1 */
	page_ref_add(page, 2);		/* -1 -> 1 */
	__free_page(page);
	return 0;
}

static noinline int provoke_page_use_after_free(void)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long flags;

	if (!page)
		return -ENOMEM;
	pr_info("page-use-after-free pfn=0x%lx\n", page_to_pfn(page));
	local_irq_save(flags);
	__free_page(page);
	page_ref_inc(page);		/* 0 -> 1 on a free page */
	page_ref_dec(page);		/* back to 0 before anyone can allocate it */
	local_irq_restore(flags);
	return 0;
}

static noinline int provoke_slab_leak(void)
{
	if (leaked)
		return -EBUSY;
	leaked = kmalloc(200, GFP_KERNEL);
	if (!leaked)
		return -ENOMEM;
	pr_info("slab-leak ptr=0x%lx\n", (unsigned long)leaked);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} provocations[] = {
	{ "slab-double-free",		provoke_slab_double_free },
	{ "page-ref-underflow",		provoke_page_ref_underflow },
	{ "page-use-after-free",	provoke_page_use_after_free },
	{ "slab-leak",			provoke_slab_leak },
};

/*
 * How often "do" was written and read: the line of the increment is
 * inlined twice (tests/guest/inject-delay.sh puts a delay on both copies).
 */
static unsigned long provoke_writes, provoke_reads;

static inline void provoke_note(unsigned long *n)
{
	WRITE_ONCE(*n, READ_ONCE(*n) + 1);
}

static ssize_t provoke_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	char buf[32];
	size_t i;
	int ret;

	provoke_note(&provoke_writes);
	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	for (i = 0; i < ARRAY_SIZE(provocations); i++) {
		if (strcmp(buf, provocations[i].name))
			continue;
		ret = provocations[i].fn();
		return ret ? ret : count;
	}
	return -EINVAL;
}

static ssize_t provoke_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char buf[128];
	size_t i, n = 0;

	provoke_note(&provoke_reads);
	for (i = 0; i < ARRAY_SIZE(provocations); i++)
		n += scnprintf(buf + n, sizeof(buf) - n, "%s\n", provocations[i].name);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations provoke_fops = {
	.owner	= THIS_MODULE,
	.read	= provoke_read,
	.write	= provoke_write,
	.llseek	= default_llseek,
};

static int __init mm_provoke_init(void)
{
	provoke_cache = kmem_cache_create("mm_provoke", 64, 0, 0, provoke_ctor);
	if (!provoke_cache)
		return -ENOMEM;
	provoke_dir = debugfs_create_dir("mm_provoke", NULL);
	debugfs_create_file("do", 0600, provoke_dir, NULL, &provoke_fops);
	return 0;
}

static void __exit mm_provoke_exit(void)
{
	debugfs_remove_recursive(provoke_dir);
	kfree(leaked);
	/* A freelist with a loop cannot be flushed: keep the cache. */
	if (!cache_broken)
		kmem_cache_destroy(provoke_cache);
}

module_init(mm_provoke_init);
module_exit(mm_provoke_exit);
MODULE_DESCRIPTION("Commit one MM mistake on request, for txlog's tests");
MODULE_LICENSE("GPL");
