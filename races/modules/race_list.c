// SPDX-License-Identifier: GPL-2.0
/*
 * race_list: a list update race for qemu/repro to reproduce.
 *
 * A queue of requests sorted by start sector, in the style of a block-layer
 * elevator.  Submitting takes race_list_lock, finds the request to queue
 * after, tries to merge into it and, failing that, links the new request
 * after it.  Cancelling the newest request was meant to take the lock too,
 * but does not:
 *
 *	submitter (race_list_lock held)		canceller (no lock)
 *	prev = race_list_find_prev(start);
 *						last = newest request (== prev)
 *						list_del(&last->node);  poisons it
 *						kmem_cache_free(last)
 *	race_list_try_merge(prev, req);		(not mergeable)
 *	list_add(&req->node, &prev->node);	links after a deleted request
 *
 * The window is the few instructions between the lookup and the link.
 * When it is hit, the submitter's checked list_add() (the checks of
 * CONFIG_DEBUG_LIST, which this guest kernel does not enable) finds prev
 * poisoned and reports "list_add corruption" instead of corrupting the
 * queue; a walk of the queue (race_list_check()) reports any other
 * inconsistency.
 *
 * race_list_try_merge() may fail and is marked ALLOW_ERROR_INJECTION, so
 * fail_function can delay its entry, inside the window: the targeted delay
 * of races/list-cancel.scenario.
 * The racing paths are kept out of line, so that reports and traces name
 * them.
 *
 * The request in service (the oldest) cannot be cancelled, so the queue is
 * never emptied by the canceller.
 *
 * debugfs interface, /sys/kernel/debug/race_list/:
 *	ctl	write "submit START LEN", "cancel" (the newest request, without
 *		the lock), "complete" (the oldest, with it), "check", "reset"
 *	queue	read: the queued requests, oldest first
 *	stats	read: counters
 *
 * Only ever load this in a test guest: it is a kernel bug on purpose.
 */
#define pr_fmt(fmt) "race_list: " fmt

#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/poison.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "race_common.h"

#define RACE_LIST_MAX_LEN	256	/* sectors a merged request may span */

/* === Data === */

struct race_list_req {
	struct list_head node;		/* in race_list_queue, by start */
	u64 start;
	u32 len;
};

static struct kmem_cache *race_list_cache;
static LIST_HEAD(race_list_queue);
static DEFINE_SPINLOCK(race_list_lock);

enum race_list_counter {
	RACE_LIST_SUBMITTED,
	RACE_LIST_MERGED,
	RACE_LIST_CANCELLED,
	RACE_LIST_COMPLETED,
	RACE_LIST_CORRUPTIONS,
	RACE_LIST_COUNTER_COUNT,
};

static const char *const race_list_counter_names[] = {
	[RACE_LIST_SUBMITTED]	= "submitted",
	[RACE_LIST_MERGED]	= "merged",
	[RACE_LIST_CANCELLED]	= "cancelled",
	[RACE_LIST_COMPLETED]	= "completed",
	[RACE_LIST_CORRUPTIONS]	= "corruptions",
};
static atomic_long_t race_list_counter_values[RACE_LIST_COUNTER_COUNT];
static struct race_stats race_list_stats = RACE_STATS_INIT(race_list_counter_names,
						      race_list_counter_values);

static void race_list_count(enum race_list_counter c)
{
	race_stats_inc(&race_list_stats, c);
}

/* === Checked list operations (what CONFIG_DEBUG_LIST checks) === */

static bool race_list_corrupt(const char *what, const void *entry,
			      const void *ptr, const void *want)
{
	race_list_count(RACE_LIST_CORRUPTIONS);
	pr_err("%s corruption: %px: found %px, expected %px\n", what, entry, ptr, want);
	WARN_ON_ONCE(1);
	return false;
}

static bool race_list_add_valid(struct list_head *new, struct list_head *prev,
				struct list_head *next)
{
	if (next == LIST_POISON1)
		return race_list_corrupt("list_add (prev->next is LIST_POISON1: prev was deleted)",
					 prev, next, NULL);
	if (READ_ONCE(next->prev) != prev)
		return race_list_corrupt("list_add (next->prev should be prev)", next,
					 next->prev, prev);
	if (new == prev || new == next)
		return race_list_corrupt("list_add (double add)", new, prev, next);
	return true;
}

static bool race_list_del_valid(struct list_head *entry)
{
	struct list_head *prev = entry->prev, *next = entry->next;

	if (next == LIST_POISON1 || prev == LIST_POISON2)
		return race_list_corrupt("list_del (entry already deleted)", entry, next, NULL);
	if (READ_ONCE(prev->next) != entry)
		return race_list_corrupt("list_del (prev->next should be entry)", prev,
					 prev->next, entry);
	if (READ_ONCE(next->prev) != entry)
		return race_list_corrupt("list_del (next->prev should be entry)", next,
					 next->prev, entry);
	return true;
}

/* Link @new after @prev; false (and nothing changed) if the links are bad. */
static bool race_list_link_after(struct list_head *new, struct list_head *prev)
{
	struct list_head *next = READ_ONCE(prev->next);

	if (!race_list_add_valid(new, prev, next))
		return false;
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
	return true;
}

static bool race_list_unlink(struct list_head *entry)
{
	if (!race_list_del_valid(entry))
		return false;
	list_del(entry);
	return true;
}

/* Walk the queue, checking both links of each entry and the order. */
static int race_list_check(void)
{
	struct list_head *p, *head = &race_list_queue;
	u64 start = 0;
	int n = 0;

	for (p = head->next; p != head; p = p->next) {
		struct race_list_req *req = list_entry(p, struct race_list_req, node);

		if (p == LIST_POISON1 || p->next == LIST_POISON1 || p->next->prev != p) {
			race_list_corrupt("queue walk (broken link)", p, p->next, NULL);
			return -EIO;
		}
		if (n && req->start < start) {
			race_list_corrupt("queue walk (out of order)", p, NULL, NULL);
			return -EIO;
		}
		start = req->start;
		if (++n > 1000000) {
			race_list_corrupt("queue walk (cycle)", p, NULL, NULL);
			return -EIO;
		}
	}
	return n;
}

/* === The queue === */

/* The request after which one starting at @start goes, or the list head. */
static struct list_head *race_list_find_prev(u64 start)
{
	struct list_head *p;

	for (p = race_list_queue.prev; p != &race_list_queue; p = p->prev)
		if (list_entry(p, struct race_list_req, node)->start <= start)
			break;
	return p;
}

/**
 * race_list_try_merge() - append @req to @prev if they are contiguous
 * @prev: the request before @req in the queue
 * @req: the new request
 *
 * Return: 0 if @req was merged into @prev, -EAGAIN if it must be queued.
 */
static noinline int race_list_try_merge(struct race_list_req *prev,
					struct race_list_req *req)
{
	if (prev->start + prev->len != req->start ||
	    prev->len + req->len > RACE_LIST_MAX_LEN)
		return -EAGAIN;
	prev->len += req->len;
	return 0;
}
ALLOW_ERROR_INJECTION(race_list_try_merge, ERRNO);

static noinline int race_list_submit(u64 start, u32 len)
{
	struct race_list_req *req = kmem_cache_alloc(race_list_cache, GFP_KERNEL);
	struct list_head *prev;
	int err = 0;

	if (!req)
		return -ENOMEM;
	req->start = start;
	req->len = len;

	spin_lock(&race_list_lock);
	prev = race_list_find_prev(start);
	if (prev != &race_list_queue &&
	    !race_list_try_merge(list_entry(prev, struct race_list_req, node), req)) {
		race_list_count(RACE_LIST_MERGED);
		kmem_cache_free(race_list_cache, req);
	} else if (race_list_link_after(&req->node, prev)) {
		race_list_count(RACE_LIST_SUBMITTED);
	} else {
		kmem_cache_free(race_list_cache, req);
		err = -EIO;
	}
	spin_unlock(&race_list_lock);
	return err;
}

/*
 * Cancel the newest request unless it is the one in service.  The bug: this
 * path does not take race_list_lock.
 */
static noinline int race_list_cancel(void)
{
	struct race_list_req *last;

	last = list_last_entry(&race_list_queue, struct race_list_req, node);
	if (list_empty(&race_list_queue) ||
	    &last->node == READ_ONCE(race_list_queue.next))
		return -EBUSY;
	if (!race_list_unlink(&last->node))
		return -EIO;
	kmem_cache_free(race_list_cache, last);
	race_list_count(RACE_LIST_CANCELLED);
	return 0;
}

static int race_list_complete(void)
{
	struct race_list_req *first;
	int err = 0;

	spin_lock(&race_list_lock);
	first = list_first_entry_or_null(&race_list_queue, struct race_list_req, node);
	if (!first)
		err = -ENOENT;
	else if (!race_list_unlink(&first->node))
		err = -EIO;
	spin_unlock(&race_list_lock);
	if (!err) {
		kmem_cache_free(race_list_cache, first);
		race_list_count(RACE_LIST_COMPLETED);
	}
	return err;
}

/* Free every request, unless the queue is corrupt (then leak them). */
static int race_list_reset(void)
{
	struct race_list_req *req, *tmp;
	int err;

	spin_lock(&race_list_lock);
	err = race_list_check();
	if (err >= 0) {
		list_for_each_entry_safe(req, tmp, &race_list_queue, node) {
			list_del(&req->node);
			kmem_cache_free(race_list_cache, req);
		}
		err = 0;
	}
	spin_unlock(&race_list_lock);
	return err;
}

/* === DebugFS Interface === */

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char cmd[64];
	unsigned long long start;
	unsigned int len;
	int err;

	err = race_read_cmd(ubuf, count, cmd, sizeof(cmd));
	if (err)
		return err;
	if (sscanf(cmd, "submit %llu %u", &start, &len) == 2) {
		err = len && len <= RACE_LIST_MAX_LEN ? race_list_submit(start, len) : -EINVAL;
	} else if (!strcmp(cmd, "cancel")) {
		err = race_list_cancel();
	} else if (!strcmp(cmd, "complete")) {
		err = race_list_complete();
	} else if (!strcmp(cmd, "check")) {
		spin_lock(&race_list_lock);
		err = race_list_check();
		spin_unlock(&race_list_lock);
		err = err < 0 ? err : 0;
	} else if (!strcmp(cmd, "reset")) {
		err = race_list_reset();
	} else {
		err = -EINVAL;
	}
	return err ? err : count;
}

static int queue_show(struct seq_file *m, void *v)
{
	struct race_list_req *req;

	spin_lock(&race_list_lock);
	if (race_list_check() >= 0)
		list_for_each_entry(req, &race_list_queue, node)
			seq_printf(m, "%llu+%u\n", req->start, req->len);
	else
		seq_puts(m, "corrupt\n");
	spin_unlock(&race_list_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(queue);

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static struct dentry *race_list_dir;

/*
 * Never relied on: a constructor keeps the cache from being merged with
 * kmalloc-32 (only this module reuses a freed request) and makes SLUB keep
 * its free pointer outside the object, so a deleted request keeps its
 * poisoned links until it is allocated again.
 */
static void race_list_ctor(void *p)
{
	memset(p, 0, sizeof(struct race_list_req));
}

static int __init race_list_init(void)
{
	race_list_cache = kmem_cache_create("race_list_req", sizeof(struct race_list_req),
					    0, 0, race_list_ctor);
	if (!race_list_cache)
		return -ENOMEM;
	race_list_dir = debugfs_create_dir("race_list", NULL);
	debugfs_create_file("ctl", 0200, race_list_dir, NULL, &ctl_fops);
	debugfs_create_file("queue", 0400, race_list_dir, NULL, &queue_fops);
	race_stats_create(race_list_dir, &race_list_stats);
	pr_info("loaded: /sys/kernel/debug/race_list/{ctl,queue,stats}\n");
	return 0;
}

static void __exit race_list_exit(void)
{
	debugfs_remove_recursive(race_list_dir);
	if (!race_list_reset())
		kmem_cache_destroy(race_list_cache);
}

module_init(race_list_init);
module_exit(race_list_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A list update race (lock missing in one path) for qemu/repro to reproduce");
