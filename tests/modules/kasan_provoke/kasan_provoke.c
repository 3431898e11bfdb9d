// SPDX-License-Identifier: GPL-2.0
/*
 * kasan_provoke: make one memory-safety bug of a given kind on request, so
 * that a test can check that the KASAN flavour of the guest kernel reports
 * it as that kind.  Writing a bug's name to
 * /sys/kernel/debug/kasan_provoke/run performs the bad access once:
 *
 *	slab-oob	read one byte past a 24-byte kmalloc object
 *	slab-uaf	read a kmalloc object after kfree()
 *	vmalloc-oob	read one byte past a vmalloc area that ends mid-page
 *	page-uaf	read a page after __free_pages()
 *	stack-oob	read past a local array
 *	global-oob	read past a global array
 *
 * Reading the file lists the names.  Only ever load this in a test guest.
 */
#define pr_fmt(fmt) "kasan_provoke: " fmt

#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* The bad accesses. Each reads through a pointer the compiler cannot see. */

static noinline void provoke_slab_oob(void)
{
	size_t size = 24;
	char *p = kmalloc(size, GFP_KERNEL);

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(p);
	pr_info("slab-oob: reading byte %zu of a %zu-byte object at %px\n", size, size, p);
	(void)READ_ONCE(p[size]);
	kfree(p);
}

static noinline void provoke_slab_uaf(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("slab-uaf: reading a freed 64-byte object at %px\n", p);
	(void)READ_ONCE(p[8]);
}

static noinline void provoke_vmalloc_oob(void)
{
	size_t size = PAGE_SIZE + 100;
	char *p = vmalloc(size);

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(p);
	pr_info("vmalloc-oob: reading byte %zu of a %zu-byte vmalloc area at %px\n",
		size, size, p);
	(void)READ_ONCE(p[size]);
	vfree(p);
}

static noinline void provoke_page_uaf(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	char *p;

	if (!page)
		return;
	p = page_address(page);
	pr_info("page-uaf: reading pfn %#lx after freeing it\n", page_to_pfn(page));
	__free_pages(page, 0);
	OPTIMIZER_HIDE_VAR(p);
	(void)READ_ONCE(p[16]);
}

static noinline void provoke_stack_oob(void)
{
	char buf[8];
	char *p = buf;
	size_t i = sizeof(buf);

	memset(buf, 0, sizeof(buf));
	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(i);
	pr_info("stack-oob: reading byte %zu of an 8-byte local array\n", i);
	(void)READ_ONCE(p[i]);
}

static char provoke_global[10];

static noinline void provoke_global_oob(void)
{
	char *p = provoke_global;
	size_t i = sizeof(provoke_global) + 3;

	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(i);
	pr_info("global-oob: reading byte %zu of a 10-byte global array\n", i);
	(void)READ_ONCE(p[i]);
}

static const struct {
	const char *name;
	void (*fn)(void);
} provokers[] = {
	{ "slab-oob", provoke_slab_oob },
	{ "slab-uaf", provoke_slab_uaf },
	{ "vmalloc-oob", provoke_vmalloc_oob },
	{ "page-uaf", provoke_page_uaf },
	{ "stack-oob", provoke_stack_oob },
	{ "global-oob", provoke_global_oob },
};

/* === DebugFS Interface === */

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char name[32];
	size_t i;

	if (count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	strim(name);
	for (i = 0; i < ARRAY_SIZE(provokers); i++) {
		if (!strcmp(name, provokers[i].name)) {
			provokers[i].fn();
			return count;
		}
	}
	return -EINVAL;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	char buf[128];
	size_t i, len = 0;

	for (i = 0; i < ARRAY_SIZE(provokers); i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s\n",
				 provokers[i].name);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.read = run_read,
	.write = run_write,
	.llseek = default_llseek,
};

static struct dentry *provoke_dir;

static int __init kasan_provoke_init(void)
{
	provoke_dir = debugfs_create_dir("kasan_provoke", NULL);
	debugfs_create_file("run", 0600, provoke_dir, NULL, &run_fops);
	return 0;
}

static void __exit kasan_provoke_exit(void)
{
	debugfs_remove_recursive(provoke_dir);
}

module_init(kasan_provoke_init);
module_exit(kasan_provoke_exit);
MODULE_DESCRIPTION("Provoke memory-safety bugs for KASAN tests");
MODULE_LICENSE("GPL");
