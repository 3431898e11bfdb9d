// SPDX-License-Identifier: GPL-2.0
/*
 * race_page: a page reference-count race for qemu/repro to reproduce.
 *
 * A one-slot receive ring in the style of a network driver that recycles
 * its pages: the page in race_page_slot holds one reference, owned by the
 * slot.  Whoever takes the page out of the slot takes that reference over
 * and drops it with race_page_put(); a page whose count falls to zero goes
 * back to the ring's pool (at count zero, as if frozen) and is handed out
 * again by the refill path with page_ref_unfreeze().
 *
 * The reclaim path takes the page out under race_page_lock.  The consume
 * path does not: it loads the slot, validates the frame in the page and
 * only then clears the slot -- a load and a store where an xchg() was
 * needed:
 *
 *	consumer				reclaimer (race_page_lock held)
 *	page = READ_ONCE(race_page_slot);
 *						page = race_page_slot;
 *						race_page_slot = NULL;
 *						race_page_put(page): 1 -> 0, pooled
 *	race_page_sync_for_cpu(page);
 *	WRITE_ONCE(race_page_slot, NULL);
 *	race_page_put(page);			put_page_testzero() on count 0
 *
 * Both paths own the slot's single reference; the second put finds the
 * count at zero and CONFIG_DEBUG_VM's VM_BUG_ON_PAGE() in
 * put_page_testzero() dumps the page and BUGs.  The window is the few
 * instructions between the consumer's load and store.
 *
 * race_page_sync_for_cpu() may fail (a bad frame) and is marked
 * ALLOW_ERROR_INJECTION, so fail_function can delay its entry, inside the
 * window: the targeted delay of races/page-recycle.scenario.
 * The racing paths are kept out of line, so that reports and traces name
 * them.
 *
 * debugfs interface, /sys/kernel/debug/race_page/:
 *	ctl	write "refill" (put a pooled page in the empty slot), "consume"
 *		(take the slot's page and read its frame, without the lock),
 *		"reclaim" (take it back into the pool, with the lock)
 *	stats	read: counters
 *
 * Only ever load this in a test guest: it is a kernel bug on purpose.
 */
#define pr_fmt(fmt) "race_page: " fmt

#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/page_ref.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "race_common.h"

#define RACE_PAGE_POOL_SIZE	4
#define RACE_PAGE_FRAME_MAGIC	0x46524d45U	/* "FRME" */

/* === Data === */

struct race_page_frame {		/* at the start of each ring page */
	u32 magic;
	u32 len;
	u64 seq;
};

static struct page *race_page_slot;	/* the page the ring offers, or NULL */
static LIST_HEAD(race_page_pool);	/* pages at count zero, by page->lru */
static DEFINE_SPINLOCK(race_page_lock);	/* the slot (for refill and reclaim), the pool */
static u64 race_page_seq;

enum race_page_counter {
	RACE_PAGE_REFILLS,
	RACE_PAGE_CONSUMED,
	RACE_PAGE_RECLAIMED,
	RACE_PAGE_RECYCLED,
	RACE_PAGE_EMPTY,
	RACE_PAGE_COUNTER_COUNT,
};

static const char *const race_page_counter_names[] = {
	[RACE_PAGE_REFILLS]	= "refills",
	[RACE_PAGE_CONSUMED]	= "consumed",
	[RACE_PAGE_RECLAIMED]	= "reclaimed",
	[RACE_PAGE_RECYCLED]	= "recycled",
	[RACE_PAGE_EMPTY]	= "slot empty",
};
static atomic_long_t race_page_counter_values[RACE_PAGE_COUNTER_COUNT];
static struct race_stats race_page_stats = RACE_STATS_INIT(race_page_counter_names,
						      race_page_counter_values);

static void race_page_count(enum race_page_counter c)
{
	race_stats_inc(&race_page_stats, c);
}

/* === The ring === */

/* Drop the reference taken out of the slot; recycle the page at zero. */
static void race_page_put(struct page *page)
{
	if (!put_page_testzero(page))	/* VM_BUG_ON_PAGE() if already zero */
		return;
	spin_lock(&race_page_lock);
	list_add(&page->lru, &race_page_pool);
	spin_unlock(&race_page_lock);
	race_page_count(RACE_PAGE_RECYCLED);
}

static int race_page_refill(void)
{
	struct race_page_frame *frame;
	struct page *page;
	int err = 0;

	spin_lock(&race_page_lock);
	page = list_first_entry_or_null(&race_page_pool, struct page, lru);
	if (race_page_slot) {
		err = -EBUSY;
	} else if (!page) {
		err = -ENOMEM;
	} else {
		list_del(&page->lru);
		page_ref_unfreeze(page, 1);	/* VM_BUG_ON_PAGE() unless zero */
		frame = page_address(page);
		frame->magic = RACE_PAGE_FRAME_MAGIC;
		frame->len = 64;
		frame->seq = ++race_page_seq;
		WRITE_ONCE(race_page_slot, page);
	}
	spin_unlock(&race_page_lock);
	if (!err)
		race_page_count(RACE_PAGE_REFILLS);
	return err;
}

/**
 * race_page_sync_for_cpu() - make a received frame readable and check it
 * @page: the ring page holding the frame
 *
 * Return: 0, or -EBADMSG if the page does not hold a valid frame.
 */
static noinline int race_page_sync_for_cpu(struct page *page)
{
	const struct race_page_frame *frame = page_address(page);

	if (READ_ONCE(frame->magic) != RACE_PAGE_FRAME_MAGIC ||
	    frame->len > PAGE_SIZE - sizeof(*frame))
		return -EBADMSG;
	return 0;
}
ALLOW_ERROR_INJECTION(race_page_sync_for_cpu, ERRNO);

/*
 * Take the slot's page and its reference.  The bug: the load and the store
 * that clears the slot are not one atomic step, and race_page_lock is not
 * held, so the reclaim path can take the same reference in between.
 */
static noinline int race_page_consume(u64 *seq)
{
	const struct race_page_frame *frame;
	struct page *page;
	int err;

	page = READ_ONCE(race_page_slot);
	if (!page) {
		race_page_count(RACE_PAGE_EMPTY);
		return -EAGAIN;
	}
	err = race_page_sync_for_cpu(page);
	if (err)
		return err;
	WRITE_ONCE(race_page_slot, NULL);
	frame = page_address(page);
	*seq = frame->seq;
	race_page_put(page);
	race_page_count(RACE_PAGE_CONSUMED);
	return 0;
}

static int race_page_reclaim(void)
{
	struct page *page;

	spin_lock(&race_page_lock);
	page = race_page_slot;
	WRITE_ONCE(race_page_slot, NULL);
	spin_unlock(&race_page_lock);
	if (!page)
		return -ENOENT;
	race_page_put(page);
	race_page_count(RACE_PAGE_RECLAIMED);
	return 0;
}

/* === DebugFS Interface === */

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char cmd[16];
	u64 seq;
	int err;

	err = race_read_cmd(ubuf, count, cmd, sizeof(cmd));
	if (err)
		return err;
	if (!strcmp(cmd, "refill"))
		err = race_page_refill();
	else if (!strcmp(cmd, "consume"))
		err = race_page_consume(&seq);
	else if (!strcmp(cmd, "reclaim"))
		err = race_page_reclaim();
	else
		err = -EINVAL;
	return err ? err : count;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static struct dentry *race_page_dir;

static void race_page_free_pool(void)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, &race_page_pool, lru) {
		list_del(&page->lru);
		set_page_count(page, 1);
		__free_page(page);
	}
}

static int __init race_page_init(void)
{
	int i;

	for (i = 0; i < RACE_PAGE_POOL_SIZE; i++) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!page) {
			race_page_free_pool();
			return -ENOMEM;
		}
		/* Pooled pages sit at count zero until refill unfreezes them. */
		if (!page_ref_freeze(page, 1)) {
			__free_page(page);
			race_page_free_pool();
			return -EBUSY;
		}
		list_add(&page->lru, &race_page_pool);
	}
	race_page_dir = debugfs_create_dir("race_page", NULL);
	debugfs_create_file("ctl", 0200, race_page_dir, NULL, &ctl_fops);
	race_stats_create(race_page_dir, &race_page_stats);
	pr_info("loaded: /sys/kernel/debug/race_page/{ctl,stats}, %d pages\n",
		RACE_PAGE_POOL_SIZE);
	return 0;
}

static void __exit race_page_exit(void)
{
	debugfs_remove_recursive(race_page_dir);
	race_page_reclaim();
	race_page_free_pool();
}

module_init(race_page_init);
module_exit(race_page_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A page reference-count race (VM_BUG_ON_PAGE) for qemu/repro to reproduce");
