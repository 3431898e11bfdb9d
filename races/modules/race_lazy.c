// SPDX-License-Identifier: GPL-2.0
/*
 * race_lazy: a lazily allocated page published twice, for qemu/repro.
 *
 * A page of scratch space is allocated on first use and published in
 * race_lazy_page for every later user.  The first-use path allocates a page
 * up front (so that it never allocates with the pointer half checked),
 * then checks and publishes with a plain load and store where a
 * cmpxchg() was needed:
 *
 *	new = alloc_page();
 *	page = READ_ONCE(race_lazy_page);	path A: NULL
 *						path B: NULL too, publishes its page
 *	if (!page)
 *		WRITE_ONCE(race_lazy_page, new);	path A: overwrites B's page
 *
 * The window is the test and branch between the load and the store, in the
 * middle of race_lazy_use(): no function boundary, no annotation.  When it
 * is hit, the page published first is overwritten and leaked (a real user
 * would also lose what it wrote there).  The "check" command counts the pages
 * allocated, freed and published, and logs "race_lazy: page leaked" when
 * they do not add up.  The fix: cmpxchg() the pointer and free the loser's
 * page, or publish under a lock.
 *
 * The targeted delay of races/lazy-publish.scenario is a delay point on the
 * line of the store (inject delay race_lazy.c:LINE), which holds a path
 * that found the pointer NULL for 10 ms before it publishes.
 *
 * debugfs interface, /sys/kernel/debug/race_lazy/:
 *	ctl	write "use" (get the page, allocating it on first use), "drop"
 *		(free the published page: the next use allocates again),
 *		"reset" (drop, and count from here), "check"
 *	stats	read: counters
 *
 * Only ever load this in a test guest: it is a kernel bug on purpose.
 */
#define pr_fmt(fmt) "race_lazy: " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include "race_common.h"

/* === Data === */

static struct page *race_lazy_page;	/* published; replaced without a lock */
static DEFINE_SPINLOCK(race_lazy_drop_lock);	/* serialises drops */
/* The page counts at the last reset: a leak is counted once. */
static long race_lazy_base_allocated, race_lazy_base_freed;

enum race_lazy_counter {
	RACE_LAZY_USES,
	RACE_LAZY_ALLOCATED,
	RACE_LAZY_FREED,
	RACE_LAZY_CHECKS,
	RACE_LAZY_LEAKS,
	RACE_LAZY_COUNTER_COUNT,
};

static const char *const race_lazy_counter_names[] = {
	[RACE_LAZY_USES]	= "uses",
	[RACE_LAZY_ALLOCATED]	= "pages allocated",
	[RACE_LAZY_FREED]	= "pages freed",
	[RACE_LAZY_CHECKS]	= "checks",
	[RACE_LAZY_LEAKS]	= "leaks found",
};
static atomic_long_t race_lazy_counter_values[RACE_LAZY_COUNTER_COUNT];
static struct race_stats race_lazy_stats =
	RACE_STATS_INIT(race_lazy_counter_names, race_lazy_counter_values);

static void race_lazy_count(enum race_lazy_counter c)
{
	race_stats_inc(&race_lazy_stats, c);
}

static long race_lazy_read(enum race_lazy_counter c)
{
	return atomic_long_read(&race_lazy_counter_values[c]);
}

/* === The page === */

/* The bug: check and publish are a load and a store, not one cmpxchg(). */
static int race_lazy_use(void)
{
	struct page *new, *page;

	new = alloc_page(GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	race_lazy_count(RACE_LAZY_ALLOCATED);
	page = READ_ONCE(race_lazy_page);
	if (!page) {
		WRITE_ONCE(race_lazy_page, new);
		page = new;
		new = NULL;
	}
	if (new) {
		__free_page(new);
		race_lazy_count(RACE_LAZY_FREED);
	}
	/*
	 * A real user would now work in the page; this one only counts, so
	 * that a drop running meanwhile frees nothing in use.
	 */
	race_lazy_count(RACE_LAZY_USES);
	return 0;
}

static void race_lazy_drop(void)
{
	struct page *page;

	spin_lock(&race_lazy_drop_lock);
	page = xchg(&race_lazy_page, NULL);
	spin_unlock(&race_lazy_drop_lock);
	if (page) {
		__free_page(page);
		race_lazy_count(RACE_LAZY_FREED);
	}
}

/* Start over: no page published, and the pages leaked so far forgotten. */
static void race_lazy_reset(void)
{
	race_lazy_drop();
	race_lazy_base_allocated = race_lazy_read(RACE_LAZY_ALLOCATED);
	race_lazy_base_freed = race_lazy_read(RACE_LAZY_FREED);
}

/*
 * Run when no path is using the page: every page allocated since the last
 * reset is freed or published.
 */
static int race_lazy_check(void)
{
	long allocated = race_lazy_read(RACE_LAZY_ALLOCATED) -
			 race_lazy_base_allocated;
	long freed = race_lazy_read(RACE_LAZY_FREED) - race_lazy_base_freed;
	long published = READ_ONCE(race_lazy_page) ? 1 : 0;

	race_lazy_count(RACE_LAZY_CHECKS);
	if (allocated == freed + published)
		return 0;
	race_lazy_count(RACE_LAZY_LEAKS);
	pr_err("page leaked: since the reset %ld allocated, %ld freed, %ld published: a published page was overwritten\n",
	       allocated, freed, published);
	return -EIO;
}

/* === DebugFS Interface === */

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char cmd[16];
	int err;

	err = race_read_cmd(ubuf, count, cmd, sizeof(cmd));
	if (err)
		return err;
	if (!strcmp(cmd, "use"))
		err = race_lazy_use();
	else if (!strcmp(cmd, "drop"))
		race_lazy_drop();
	else if (!strcmp(cmd, "reset"))
		race_lazy_reset();
	else if (!strcmp(cmd, "check"))
		err = race_lazy_check();
	else
		err = -EINVAL;
	return err ? err : count;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static struct dentry *race_lazy_dir;

static int __init race_lazy_init(void)
{
	race_lazy_dir = debugfs_create_dir("race_lazy", NULL);
	debugfs_create_file("ctl", 0200, race_lazy_dir, NULL, &ctl_fops);
	race_stats_create(race_lazy_dir, &race_lazy_stats);
	pr_info("loaded: /sys/kernel/debug/race_lazy/{ctl,stats}\n");
	return 0;
}

static void __exit race_lazy_exit(void)
{
	debugfs_remove_recursive(race_lazy_dir);
	race_lazy_drop();
}

module_init(race_lazy_init);
module_exit(race_lazy_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A lazily allocated page published twice for qemu/repro to reproduce");
