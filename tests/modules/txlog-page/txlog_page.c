// SPDX-License-Identifier: GPL-2.0
/*
 * txlog_page: known histories for the MM transaction log (vm_txlog) to
 * report.  Writing a scenario's name to /sys/kernel/debug/txlog_page/run
 * performs it once, each step in a function of its own so that a test can
 * check which caller every record is charged to:
 *
 *	page	tp_alloc: alloc_page(); tp_get: get_page(); tp_put: put_page();
 *		tp_map: map the page into the writer's address space with
 *		vm_insert_page() and unmap it again; tp_trip_page:
 *		VM_BUG_ON_PAGE(page_ref_count(page) == 1); tp_free: free it
 *	vma	tp_vma_map: map 4 pages of a file of its own into the writer's
 *		address space; tp_vma_split: unmap the first page, which
 *		moves the start of the vma; tp_trip_vma: VM_BUG_ON_VMA() on
 *		that vma; tp_trip_mm: VM_BUG_ON_MM() on the writer's mm; then
 *		unmap the rest
 *	freed	alloc_page(), __free_page(), then dump_page() of the free page
 *
 * There is no scenario for a poisoned struct page: filling a live one
 * would show pfn walkers (compaction, /proc/kpageflags) garbage while it
 * lasts.  The transaction log's KUnit suite checks how it reads poisoned
 * and torn struct pages on private copies.
 *
 * "page" and "vma" trip assertions: load this only with vm_debug_bug=warn
 * (or warn_once) in effect, or the guest BUGs, which is what the policy is
 * for.  Each scenario prints "txlog_page: NAME: pfn 0x... " (or the vma and
 * mm) first, so that a test can find the report that follows.  Only ever
 * load this in a test guest.
 */
#define pr_fmt(fmt) "txlog_page: " fmt

#include <linux/anon_inodes.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static struct page *tp_page;	/* the page tp_mmap() inserts */
static struct dentry *tp_dir;

/* === page ================================================================= */

/*
 * The steps end in barrier(), so that gcc does not turn the call into a
 * tail call: the step's own frame then stays on the stack for the
 * transaction log to find.
 */
static noinline struct page *tp_alloc(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	barrier();
	return page;
}

static noinline void tp_get(struct page *page)
{
	get_page(page);
	barrier();
}

static noinline void tp_put(struct page *page)
{
	put_page(page);
	barrier();
}

static int tp_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_flags |= VM_MIXEDMAP;
	return vm_insert_page(vma, vma->vm_start, tp_page);
}

static const struct file_operations tp_map_fops = {
	.owner = THIS_MODULE,
	.mmap = tp_mmap,
};

/* Map the page into the current task with vm_insert_page(), unmap it. */
static noinline int tp_map(struct page *page)
{
	struct file *file;
	unsigned long addr;
	int ret = 0;

	file = anon_inode_getfile("txlog_page", &tp_map_fops, NULL, O_RDWR);
	if (IS_ERR(file))
		return PTR_ERR(file);
	tp_page = page;
	addr = vm_mmap(file, 0, PAGE_SIZE, PROT_READ, MAP_SHARED, 0);
	if (IS_ERR_VALUE(addr))
		ret = (int)addr;
	else
		ret = vm_munmap(addr, PAGE_SIZE);
	tp_page = NULL;
	fput(file);
	return ret;
}

static noinline void tp_trip_page(struct page *page)
{
	VM_BUG_ON_PAGE(page_ref_count(page) == 1, page);
}

static noinline void tp_free(struct page *page)
{
	__free_page(page);
	barrier();
}

static int tp_run_page(void)
{
	struct page *page = tp_alloc();
	int ret;

	if (!page)
		return -ENOMEM;
	pr_info("page: pfn %#lx\n", page_to_pfn(page));
	tp_get(page);
	tp_put(page);
	ret = tp_map(page);
	if (ret)
		pr_err("page: mapping failed: %d\n", ret);
	else
		tp_trip_page(page);
	tp_free(page);
	pr_info("page: done\n");
	return ret;
}

/* === vma and mm =========================================================== */

/* A mapping of its own file never merges with its neighbours. */
static int tp_vma_mmap(struct file *file, struct vm_area_struct *vma)
{
	return 0;
}

static const struct file_operations tp_vma_fops = {
	.owner = THIS_MODULE,
	.mmap = tp_vma_mmap,
};

static noinline unsigned long tp_vma_map(struct file *file)
{
	unsigned long addr = vm_mmap(file, 0, 4 * PAGE_SIZE, PROT_READ,
				     MAP_SHARED, 0);

	barrier();
	return addr;
}

/* Unmapping the first page moves the start of the vma up by one page. */
static noinline int tp_vma_split(unsigned long addr)
{
	int ret = vm_munmap(addr, PAGE_SIZE);

	barrier();
	return ret;
}

static noinline void tp_trip_vma(struct vm_area_struct *vma)
{
	VM_BUG_ON_VMA(vma_pages(vma) == 3, vma);
}

static noinline void tp_trip_mm(struct mm_struct *mm)
{
	VM_BUG_ON_MM(mm->map_count > 0, mm);
}

static int tp_run_vma(void)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long addr;
	struct file *file;
	int ret;

	if (!mm)
		return -EINVAL;
	file = anon_inode_getfile("txlog_page", &tp_vma_fops, NULL, O_RDWR);
	if (IS_ERR(file))
		return PTR_ERR(file);
	addr = tp_vma_map(file);
	fput(file);
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	ret = tp_vma_split(addr);
	if (ret)
		goto out;
	mmap_read_lock(mm);
	vma = find_vma(mm, addr + PAGE_SIZE);
	if (vma && vma->vm_start == addr + PAGE_SIZE) {
		pr_info("vma: vma %px mm %px start %#lx end %#lx\n", vma, mm,
			vma->vm_start, vma->vm_end);
		tp_trip_vma(vma);
		tp_trip_mm(mm);
	} else {
		ret = -ENOENT;
	}
	mmap_read_unlock(mm);
out:
	vm_munmap(addr, 4 * PAGE_SIZE);
	pr_info("vma: done\n");
	return ret;
}

/* === a freed page ========================================================= */

static noinline int tp_run_freed(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return -ENOMEM;
	__free_page(page);
	pr_info("freed: pfn %#lx\n", page_to_pfn(page));
	dump_page(page, "txlog_page: a freed page");
	pr_info("freed: done\n");
	return 0;
}

/* === debugfs ============================================================== */

static const struct {
	const char *name;
	int (*run)(void);
} tp_scenarios[] = {
	{ "page", tp_run_page },
	{ "vma", tp_run_vma },
	{ "freed", tp_run_freed },
};

static ssize_t tp_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[16];
	unsigned int i;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	for (i = 0; i < ARRAY_SIZE(tp_scenarios); i++) {
		if (strcmp(buf, tp_scenarios[i].name))
			continue;
		ret = tp_scenarios[i].run();
		return ret ? ret : count;
	}
	return -EINVAL;
}

static ssize_t tp_run_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	static const char names[] = "page vma freed\n";

	return simple_read_from_buffer(ubuf, count, ppos, names, sizeof(names) - 1);
}

static const struct file_operations tp_run_fops = {
	.owner = THIS_MODULE,
	.read = tp_run_read,
	.write = tp_run_write,
	.llseek = default_llseek,
};

static int __init tp_init(void)
{
	tp_dir = debugfs_create_dir("txlog_page", NULL);
	debugfs_create_file("run", 0600, tp_dir, NULL, &tp_run_fops);
	return 0;
}

static void __exit tp_exit(void)
{
	debugfs_remove_recursive(tp_dir);
}

module_init(tp_init);
module_exit(tp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Known page, vma and mm histories for the MM transaction log");
