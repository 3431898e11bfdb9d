// SPDX-License-Identifier: GPL-2.0
/*
 * datarace: make a data race on request, so that a test can check that
 * the KCSAN flavour of the guest kernel reports it.  Writing "plain" to
 * /sys/kernel/debug/datarace/run starts two kthreads that increment one
 * counter with plain loads and stores for a while; writing "marked" does the
 * same with READ_ONCE()/WRITE_ONCE() on both sides, which KCSAN must
 * not report as a data race.  The write returns once both threads are done;
 * the counter's address and value are printed, so that a test can tell a
 * report about it from other reports.  Only ever load this in a test guest.
 *
 * The name must not contain "kcsan_" or "tsan_": KCSAN leaves functions
 * whose symbol (module name included) does out of its reports' stacks.
 */
#define pr_fmt(fmt) "datarace: " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* Long enough for KCSAN's sampled watchpoints to see the race under TCG. */
#define RACE_ROUNDS	20000

static unsigned long race_counter;

struct race_arg {
	bool marked;
	struct completion done;
};

static noinline void race_plain_inc(void)
{
	race_counter++;
}

static noinline void race_marked_inc(void)
{
	WRITE_ONCE(race_counter, READ_ONCE(race_counter) + 1);
}

static int race_thread(void *data)
{
	struct race_arg *arg = data;
	unsigned int i;

	for (i = 0; i < RACE_ROUNDS; i++) {
		if (arg->marked)
			race_marked_inc();
		else
			race_plain_inc();
		if (!(i % 256))
			cond_resched();
	}
	complete(&arg->done);
	return 0;
}

static int race_run(bool marked)
{
	struct race_arg args[2];
	struct task_struct *t;
	int i, started = 0;

	race_counter = 0;
	for (i = 0; i < 2; i++) {
		args[i].marked = marked;
		init_completion(&args[i].done);
		t = kthread_run(race_thread, &args[i], "datarace/%d", i);
		if (IS_ERR(t))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		wait_for_completion(&args[i].done);
	if (started < 2)
		return -ENOMEM;
	pr_info("%s: counter at %px is %lu after 2 x %d increments\n",
		marked ? "marked" : "plain", &race_counter,
		READ_ONCE(race_counter), RACE_ROUNDS);
	return 0;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char name[16];
	int ret;

	if (count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	strim(name);
	if (!strcmp(name, "plain"))
		ret = race_run(false);
	else if (!strcmp(name, "marked"))
		ret = race_run(true);
	else
		return -EINVAL;
	return ret ? ret : count;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.llseek = default_llseek,
};

static struct dentry *race_dir;

static int __init datarace_init(void)
{
	race_dir = debugfs_create_dir("datarace", NULL);
	debugfs_create_file("run", 0200, race_dir, NULL, &run_fops);
	return 0;
}

static void __exit datarace_exit(void)
{
	debugfs_remove_recursive(race_dir);
}

module_init(datarace_init);
module_exit(datarace_exit);
MODULE_DESCRIPTION("Make a data race for the KCSAN flavour's tests");
MODULE_LICENSE("GPL");
