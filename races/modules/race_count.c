// SPDX-License-Identifier: GPL-2.0
/*
 * race_count: a lost update of a page pool's free count, for qemu/repro.
 *
 * A small pool of pages sits on a list under race_count_lock.  Taking a
 * page and giving one back move it under the lock, but the pool's free
 * count is adjusted after the lock is dropped, with a plain load and store:
 *
 *	nr = READ_ONCE(pool.nr_free);		path A: the load
 *						path B: load, add, store
 *	WRITE_ONCE(pool.nr_free, nr + delta);	path A: stores over B's update
 *
 * The window is the add between the load and the store: one or two
 * instructions of race_count_adjust(), which gcc is free to inline, and no
 * function boundary or annotation anywhere near it.  When it is hit, one
 * update is lost and nr_free no longer matches the pages on the list; the
 * "check" command finds that and logs "race_count: lost update".  The fix:
 * adjust the count under the lock, or make it an atomic_long_t.
 *
 * The targeted delay of races/lost-update.scenario is a delay point on the
 * line of the store (inject delay race_count.c:LINE), so that a path holds
 * its stale count for 10 ms while the other path updates it.
 *
 * debugfs interface, /sys/kernel/debug/race_count/:
 *	ctl	write "reset" (a pool of RACE_COUNT_PAGES pages), "cycle" (take
 *		a page and give it back), "grow" (add one page), "check"
 *	stats	read: counters
 *
 * Only ever load this in a test guest: it is a kernel bug on purpose.
 */
#define pr_fmt(fmt) "race_count: " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include "race_common.h"

#define RACE_COUNT_PAGES	8

/* === Data === */

static struct {
	struct list_head pages;		/* under race_count_lock */
	unsigned long on_list;		/* pages on the list, under the lock */
	long nr_free;			/* the count with the bug */
} pool = { .pages = LIST_HEAD_INIT(pool.pages) };
static DEFINE_SPINLOCK(race_count_lock);

enum race_count_counter {
	RACE_COUNT_CYCLES,
	RACE_COUNT_GROWN,
	RACE_COUNT_CHECKS,
	RACE_COUNT_LOST,
	RACE_COUNT_COUNTER_COUNT,
};

static const char *const race_count_counter_names[] = {
	[RACE_COUNT_CYCLES]	= "cycles",
	[RACE_COUNT_GROWN]	= "grown",
	[RACE_COUNT_CHECKS]	= "checks",
	[RACE_COUNT_LOST]	= "lost updates found",
};
static atomic_long_t race_count_counter_values[RACE_COUNT_COUNTER_COUNT];
static struct race_stats race_count_stats =
	RACE_STATS_INIT(race_count_counter_names, race_count_counter_values);

/* === The pool === */

/* The bug: a read-modify-write of a shared count with nothing around it. */
static void race_count_adjust(long delta)
{
	long nr = READ_ONCE(pool.nr_free);

	WRITE_ONCE(pool.nr_free, nr + delta);
}

static struct page *race_count_take(void)
{
	struct page *page;

	spin_lock(&race_count_lock);
	page = list_first_entry_or_null(&pool.pages, struct page, lru);
	if (page) {
		list_del(&page->lru);
		pool.on_list--;
	}
	spin_unlock(&race_count_lock);
	if (page)
		race_count_adjust(-1);
	return page;
}

static void race_count_give(struct page *page)
{
	spin_lock(&race_count_lock);
	list_add(&page->lru, &pool.pages);
	pool.on_list++;
	spin_unlock(&race_count_lock);
	race_count_adjust(1);
}

static int race_count_cycle(void)
{
	struct page *page = race_count_take();

	if (!page)
		return -ENOMEM;
	race_stats_inc(&race_count_stats, RACE_COUNT_CYCLES);
	race_count_give(page);
	return 0;
}

static int race_count_grow(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return -ENOMEM;
	race_stats_inc(&race_count_stats, RACE_COUNT_GROWN);
	race_count_give(page);
	return 0;
}

static void race_count_drain(void)
{
	struct page *page, *next;
	LIST_HEAD(free);

	spin_lock(&race_count_lock);
	list_splice_init(&pool.pages, &free);
	pool.on_list = 0;
	WRITE_ONCE(pool.nr_free, 0);
	spin_unlock(&race_count_lock);
	list_for_each_entry_safe(page, next, &free, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
}

static int race_count_reset(void)
{
	int i, err;

	race_count_drain();
	for (i = 0; i < RACE_COUNT_PAGES; i++) {
		err = race_count_grow();
		if (err)
			return err;
	}
	return 0;
}

/* Run when no path is in the pool: the count must match the list. */
static int race_count_check(void)
{
	unsigned long on_list;
	long nr;

	spin_lock(&race_count_lock);
	on_list = pool.on_list;
	nr = READ_ONCE(pool.nr_free);
	spin_unlock(&race_count_lock);
	race_stats_inc(&race_count_stats, RACE_COUNT_CHECKS);
	if (nr == on_list)
		return 0;
	race_stats_inc(&race_count_stats, RACE_COUNT_LOST);
	pr_err("lost update: nr_free is %ld, but %lu pages are on the pool's list\n",
	       nr, on_list);
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
	if (!strcmp(cmd, "cycle"))
		err = race_count_cycle();
	else if (!strcmp(cmd, "grow"))
		err = race_count_grow();
	else if (!strcmp(cmd, "reset"))
		err = race_count_reset();
	else if (!strcmp(cmd, "check"))
		err = race_count_check();
	else
		err = -EINVAL;
	return err ? err : count;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static struct dentry *race_count_dir;

static int __init race_count_init(void)
{
	race_count_dir = debugfs_create_dir("race_count", NULL);
	debugfs_create_file("ctl", 0200, race_count_dir, NULL, &ctl_fops);
	race_stats_create(race_count_dir, &race_count_stats);
	pr_info("loaded: /sys/kernel/debug/race_count/{ctl,stats}\n");
	return 0;
}

static void __exit race_count_exit(void)
{
	debugfs_remove_recursive(race_count_dir);
	race_count_drain();
}

module_init(race_count_init);
module_exit(race_count_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A lost update of a pool's free count for qemu/repro to reproduce");
