// SPDX-License-Identifier: GPL-2.0
/*
 * tp_floor: the part of the MM transaction log's cost that no recording
 * code can save, for bench/txlog-kernel.
 *
 * On load, attaches a probe that returns at once to each tracepoint named
 * in the `tracepoints` parameter (the ones the log attaches to); on unload,
 * detaches them.  A loop measured with these probes attached, against the
 * same loop without, gives what the dispatch to a probe costs: the static
 * call, the preemption count and the __page_ref_*() helpers that
 * CONFIG_DEBUG_PAGE_REF calls once a page_ref tracepoint has a probe.
 *
 * Tracepoints are found by name through for_each_kernel_tracepoint(), so
 * that none of them needs to be exported.  The probe takes only the data
 * pointer: the x86-64 calling convention lets a function ignore the
 * arguments it is called with, and this module is built for the guest
 * kernel only (no CFI checking of indirect calls there).
 */
#define pr_fmt(fmt) "tp_floor: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#define TP_FLOOR_MAX	32

static char *tracepoints;
module_param(tracepoints, charp, 0444);
MODULE_PARM_DESC(tracepoints, "comma-separated tracepoint names");

static struct tracepoint *tp_floor_tps[TP_FLOOR_MAX];
static unsigned int tp_floor_nr;

static noinline void tp_floor_probe(void *data)
{
}

struct tp_floor_find {
	const char *name;
	struct tracepoint *tp;
};

static void tp_floor_match(struct tracepoint *tp, void *priv)
{
	struct tp_floor_find *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

static void tp_floor_detach(void)
{
	while (tp_floor_nr)
		tracepoint_probe_unregister(tp_floor_tps[--tp_floor_nr],
					    tp_floor_probe, NULL);
	tracepoint_synchronize_unregister();
}

static int __init tp_floor_init(void)
{
	char *list, *name, *p;
	int ret = 0;

	if (!tracepoints || !*tracepoints) {
		pr_err("no tracepoints= given\n");
		return -EINVAL;
	}
	list = kstrdup(tracepoints, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	p = list;
	while ((name = strsep(&p, ",")) != NULL) {
		struct tp_floor_find f = { .name = name };

		if (!*name)
			continue;
		if (tp_floor_nr == TP_FLOOR_MAX) {
			pr_err("more than %d tracepoints\n", TP_FLOOR_MAX);
			ret = -E2BIG;
			break;
		}
		for_each_kernel_tracepoint(tp_floor_match, &f);
		if (!f.tp) {
			pr_err("no tracepoint %s in this kernel\n", name);
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register(f.tp, tp_floor_probe, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", name, ret);
			break;
		}
		tp_floor_tps[tp_floor_nr++] = f.tp;
	}
	kfree(list);
	if (ret)
		tp_floor_detach();
	else
		pr_info("attached to %u tracepoints\n", tp_floor_nr);
	return ret;
}

static void __exit tp_floor_exit(void)
{
	tp_floor_detach();
}

module_init(tp_floor_init);
module_exit(tp_floor_exit);
MODULE_DESCRIPTION("Empty probes on named tracepoints, for benchmarks");
MODULE_LICENSE("GPL");
