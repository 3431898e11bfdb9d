/* SPDX-License-Identifier: GPL-2.0 */
/*
 * race_common.h: what the race modules of races/modules share: event
 * counters read from debugfs as "name: value" lines, and the parsing of a
 * command written to a debugfs file.
 */
#ifndef RACE_COMMON_H
#define RACE_COMMON_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* === Counters === */

struct race_stats {
	const char *const *names;
	atomic_long_t *values;
	unsigned int count;
};

/* @_names: the counters' names; @_values: an array with as many entries. */
#define RACE_STATS_INIT(_names, _values) {					\
	.names = (_names),							\
	.values = (_values),							\
	.count = ARRAY_SIZE(_names) +						\
		 BUILD_BUG_ON_ZERO(ARRAY_SIZE(_names) != ARRAY_SIZE(_values)),	\
}

static inline void race_stats_inc(struct race_stats *stats, unsigned int i)
{
	atomic_long_inc(&stats->values[i]);
}

static int race_stats_show(struct seq_file *m, void *v)
{
	const struct race_stats *stats = m->private;
	unsigned int i;

	for (i = 0; i < stats->count; i++)
		seq_printf(m, "%s: %ld\n", stats->names[i],
			   atomic_long_read(&stats->values[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(race_stats);

/* Create DIR/stats, which lists @stats. */
static inline void race_stats_create(struct dentry *dir, struct race_stats *stats)
{
	debugfs_create_file("stats", 0400, dir, stats, &race_stats_fops);
}

/* === Commands === */

/*
 * Copy a command written to a debugfs file into @buf (@size bytes), without
 * the white space around it.  Return: 0, -EINVAL if it is too long, or
 * -EFAULT.
 */
static inline int race_read_cmd(const char __user *ubuf, size_t count,
				char *buf, size_t size)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	memmove(buf, strim(buf), strlen(strim(buf)) + 1);
	return 0;
}

#endif /* RACE_COMMON_H */
