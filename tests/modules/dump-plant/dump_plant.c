// SPDX-License-Identifier: GPL-2.0
/*
 * dump_plant: known values for the memory-dump tests to find.  At load it
 * makes a slab cache "dump_plant" (a constructor keeps it from being merged
 * with another cache), allocates PLANT_OBJECTS objects there, each starting
 * with PLANT_MAGIC + its index, and starts a kernel thread "dump-plant"
 * that sleeps in dump_plant_wait() until the module is removed.  The log
 * line "dump_plant: cache dump_plant objects N first ADDR magic 0x..."
 * names what a test must find in a dump (crash, drgn) of this guest.
 * Only ever load this in a test guest.
 */
#define pr_fmt(fmt) "dump_plant: " fmt

#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>

#define PLANT_OBJECTS	5
#define PLANT_MAGIC	0x6d6d66692d706c00ULL	/* "mmfi-pl" and an index */

struct plant {
	u64 magic;
	u32 index;
	char tag[20];
};

static struct kmem_cache *plant_cache;
static struct plant *plants[PLANT_OBJECTS];
static struct task_struct *plant_thread;
static DECLARE_WAIT_QUEUE_HEAD(plant_wq);

static void plant_ctor(void *obj)
{
	memset(obj, 0, sizeof(struct plant));
}

/* The function the thread's stack must show. */
static noinline int dump_plant_wait(void)
{
	return wait_event_interruptible(plant_wq, kthread_should_stop());
}

static int plant_thread_fn(void *unused)
{
	while (!kthread_should_stop())
		dump_plant_wait();
	return 0;
}

static void plant_free(void)
{
	int i;

	for (i = 0; i < PLANT_OBJECTS; i++)
		if (plants[i])
			kmem_cache_free(plant_cache, plants[i]);
	kmem_cache_destroy(plant_cache);
}

static int __init plant_init(void)
{
	int i;

	plant_cache = kmem_cache_create("dump_plant", sizeof(struct plant), 0, 0, plant_ctor);
	if (!plant_cache)
		return -ENOMEM;
	for (i = 0; i < PLANT_OBJECTS; i++) {
		plants[i] = kmem_cache_alloc(plant_cache, GFP_KERNEL);
		if (!plants[i]) {
			plant_free();
			return -ENOMEM;
		}
		plants[i]->magic = PLANT_MAGIC + i;
		plants[i]->index = i;
		snprintf(plants[i]->tag, sizeof(plants[i]->tag), "plant-%d", i);
	}
	plant_thread = kthread_run(plant_thread_fn, NULL, "dump-plant");
	if (IS_ERR(plant_thread)) {
		plant_free();
		return PTR_ERR(plant_thread);
	}
	pr_info("cache dump_plant objects %d first %px magic 0x%llx thread %d\n",
		PLANT_OBJECTS, plants[0], plants[0]->magic, plant_thread->pid);
	return 0;
}

static void __exit plant_exit(void)
{
	kthread_stop(plant_thread);
	plant_free();
}

module_init(plant_init);
module_exit(plant_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Known objects and a sleeping thread for memory-dump tests");
