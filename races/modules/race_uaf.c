// SPDX-License-Identifier: GPL-2.0
/*
 * race_uaf: a reference-counting bug for qemu/repro to reproduce.
 *
 * One object at a time is published in race_uaf_current.  Writers open and
 * close it under race_uaf_lock; the published pointer holds one reference.
 * Readers look it up without the lock and without RCU, then take a
 * reference of their own:
 *
 *	obj = READ_ONCE(race_uaf_current);	reader: the check
 *	if (!obj)
 *		return -ENOENT;
 *						closer: race_uaf_current = NULL,
 *						kref_put() -> 0 -> object freed
 *	race_uaf_get(obj);			reader: the use, on freed memory
 *
 * The window between the load and the increment is a handful of
 * instructions.  When it is hit, kref_get() finds the count at zero
 * ("refcount_t: addition on 0; use-after-free"), the reader's check of the
 * object's magic finds the poison that the release wrote, and in the KASAN
 * flavour KASAN reports the access.  The fix is the usual one: RCU-protected
 * lookup with kref_get_unless_zero(), or taking race_uaf_lock in the reader.
 *
 * race_uaf_get() may fail (too many readers) and is marked
 * ALLOW_ERROR_INJECTION, so fail_function can delay its entry: that is the
 * targeted delay of races/uaf-refcount.scenario.
 * The racing paths are kept out of line, so that reports and traces name
 * them.
 *
 * debugfs interface, /sys/kernel/debug/race_uaf/:
 *	ctl	write "open" (publish a new object) or "close" (unpublish it)
 *	lookup	read: look the object up as a reader does, print its id
 *	stats	read: counters
 *
 * Only ever load this in a test guest: it is a kernel bug on purpose.
 */
#define pr_fmt(fmt) "race_uaf: " fmt

#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "race_common.h"

#define RACE_UAF_MAGIC		0x52414345U	/* a live object */
#define RACE_UAF_POISON		0x6b6b6b6bU	/* written by the release */
#define RACE_UAF_MAX_READERS	64

/* === Data === */

struct race_uaf_obj {
	struct kref ref;
	u32 magic;
	u64 id;
	char payload[48];
};

static struct kmem_cache *race_uaf_cache;
static struct race_uaf_obj *race_uaf_current;	/* the published object */
static DEFINE_SPINLOCK(race_uaf_lock);		/* serialises open and close */
static u64 race_uaf_next_id;

enum race_uaf_counter {
	RACE_UAF_OPENED,
	RACE_UAF_CLOSED,
	RACE_UAF_FREED,
	RACE_UAF_LOOKUPS,
	RACE_UAF_MISSES,
	RACE_UAF_BAD_OBJECTS,
	RACE_UAF_COUNTER_COUNT,
};

static const char *const race_uaf_counter_names[] = {
	[RACE_UAF_OPENED]	= "opened",
	[RACE_UAF_CLOSED]	= "closed",
	[RACE_UAF_FREED]	= "freed",
	[RACE_UAF_LOOKUPS]	= "lookups",
	[RACE_UAF_MISSES]	= "misses",
	[RACE_UAF_BAD_OBJECTS]	= "bad objects seen",
};
static atomic_long_t race_uaf_counter_values[RACE_UAF_COUNTER_COUNT];
static struct race_stats race_uaf_stats = RACE_STATS_INIT(race_uaf_counter_names,
						      race_uaf_counter_values);

static void race_uaf_count(enum race_uaf_counter c)
{
	race_stats_inc(&race_uaf_stats, c);
}

/* === Objects === */

/*
 * The constructor is never relied on; having one keeps this cache from being
 * merged with kmalloc-64, so only this module reuses a freed object, and it
 * makes SLUB keep its free pointer outside the object, so that a freed object
 * keeps its count (zero) and its poison until it is allocated again.
 */
static void race_uaf_ctor(void *p)
{
	memset(p, 0, sizeof(struct race_uaf_obj));
}

static void race_uaf_release(struct kref *ref)
{
	struct race_uaf_obj *obj = container_of(ref, struct race_uaf_obj, ref);

	WRITE_ONCE(obj->magic, RACE_UAF_POISON);
	kmem_cache_free(race_uaf_cache, obj);
	race_uaf_count(RACE_UAF_FREED);
}

static void race_uaf_put(struct race_uaf_obj *obj)
{
	kref_put(&obj->ref, race_uaf_release);
}

/**
 * race_uaf_get() - take a reader's reference on an object
 * @obj: the object, which the caller found published
 *
 * Return: 0, or -EBUSY when the object already has too many readers.
 */
static noinline int race_uaf_get(struct race_uaf_obj *obj)
{
	if (kref_read(&obj->ref) > RACE_UAF_MAX_READERS)
		return -EBUSY;
	kref_get(&obj->ref);
	return 0;
}
ALLOW_ERROR_INJECTION(race_uaf_get, ERRNO);

/* The poison check: a reader must never hold a released object. */
static bool race_uaf_check(const struct race_uaf_obj *obj)
{
	u32 magic = READ_ONCE(obj->magic);

	if (likely(magic == RACE_UAF_MAGIC))
		return true;
	race_uaf_count(RACE_UAF_BAD_OBJECTS);
	pr_err("use-after-free: object %px (id %llu) has magic %#x, not %#x: it was released while a reader held it\n",
	       obj, obj->id, magic, RACE_UAF_MAGIC);
	WARN_ON_ONCE(1);
	return false;
}

static int race_uaf_open(void)
{
	struct race_uaf_obj *obj = kmem_cache_alloc(race_uaf_cache, GFP_KERNEL);

	if (!obj)
		return -ENOMEM;
	kref_init(&obj->ref);
	obj->magic = RACE_UAF_MAGIC;
	memset(obj->payload, 0x5a, sizeof(obj->payload));

	spin_lock(&race_uaf_lock);
	if (race_uaf_current) {
		spin_unlock(&race_uaf_lock);
		kmem_cache_free(race_uaf_cache, obj);
		return -EBUSY;
	}
	obj->id = ++race_uaf_next_id;
	WRITE_ONCE(race_uaf_current, obj);
	spin_unlock(&race_uaf_lock);
	race_uaf_count(RACE_UAF_OPENED);
	return 0;
}

static int race_uaf_close(void)
{
	struct race_uaf_obj *obj;

	spin_lock(&race_uaf_lock);
	obj = race_uaf_current;
	WRITE_ONCE(race_uaf_current, NULL);
	spin_unlock(&race_uaf_lock);
	if (!obj)
		return -ENOENT;
	race_uaf_count(RACE_UAF_CLOSED);
	race_uaf_put(obj);
	return 0;
}

/*
 * The reader.  The bug: nothing keeps the object alive between the load of
 * race_uaf_current and the reference race_uaf_get() takes.
 */
static noinline int race_uaf_lookup(u64 *id)
{
	struct race_uaf_obj *obj;
	int err;

	race_uaf_count(RACE_UAF_LOOKUPS);
	obj = READ_ONCE(race_uaf_current);
	if (!obj) {
		race_uaf_count(RACE_UAF_MISSES);
		return -ENOENT;
	}
	err = race_uaf_get(obj);
	if (err)
		return err;
	if (!race_uaf_check(obj))
		err = -EIO;
	*id = obj->id;
	race_uaf_put(obj);
	return err;
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
	if (!strcmp(cmd, "open"))
		err = race_uaf_open();
	else if (!strcmp(cmd, "close"))
		err = race_uaf_close();
	else
		err = -EINVAL;
	return err ? err : count;
}

static ssize_t lookup_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char buf[32];
	u64 id = 0;
	int len, err;

	if (*ppos)
		return 0;
	err = race_uaf_lookup(&id);
	if (err)
		return err;
	len = scnprintf(buf, sizeof(buf), "%llu\n", id);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static const struct file_operations lookup_fops = {
	.owner = THIS_MODULE,
	.read = lookup_read,
	.llseek = noop_llseek,
};

static struct dentry *race_uaf_dir;

static int __init race_uaf_init(void)
{
	race_uaf_cache = kmem_cache_create("race_uaf_obj", sizeof(struct race_uaf_obj),
					   0, 0, race_uaf_ctor);
	if (!race_uaf_cache)
		return -ENOMEM;
	race_uaf_dir = debugfs_create_dir("race_uaf", NULL);
	debugfs_create_file("ctl", 0200, race_uaf_dir, NULL, &ctl_fops);
	debugfs_create_file("lookup", 0400, race_uaf_dir, NULL, &lookup_fops);
	race_stats_create(race_uaf_dir, &race_uaf_stats);
	pr_info("loaded: /sys/kernel/debug/race_uaf/{ctl,lookup,stats}\n");
	return 0;
}

static void __exit race_uaf_exit(void)
{
	debugfs_remove_recursive(race_uaf_dir);
	race_uaf_close();
	kmem_cache_destroy(race_uaf_cache);
}

module_init(race_uaf_init);
module_exit(race_uaf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A refcount race (use-after-free) for qemu/repro to reproduce");
