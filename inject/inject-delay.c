// SPDX-License-Identifier: GPL-2.0
/*
 * inject delay FUNC[+OFFSET] [MODULE] --us U [options] -- CMD: stall the
 * code at one instruction of the kernel for U microseconds each time the
 * filters pick a pass there, through a delay point (a kprobe), while CMD
 * runs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

/* Check FUNC[+OFFSET] and MODULE as the kernel will parse them. */
static void check_location(const char *loc, const char *module)
{
	const char *plus = strchr(loc, '+'), *p;
	size_t len = plus ? (size_t)(plus - loc) : strlen(loc);
	struct delay_location l;

	if (!len)
		die_usage("delay: '%s' has no function name (FUNC[+OFFSET])", loc);
	for (p = loc; p < loc + len; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.$", *p))
			die_usage("delay: '%s' is not a function name (FUNC[+OFFSET])", loc);
	if (len > 511)
		die_usage("delay: '%s' is longer than a kernel symbol can be", loc);
	if (plus) {
		char *end;

		errno = 0;
		if (!plus[1] || strtol(plus + 1, &end, 0) < 0 || *end || errno ||
		    !isdigit((unsigned char)plus[1]))
			die_usage("delay: offset '%s' of '%s' is not a number", plus + 1, loc);
	}
	if (module && strlen(module) > 55)
		die_usage("delay: module name '%s' is too long", module);
	if (delay_location_parse(loc, module, &l))
		die_usage("delay: '%s' is not FUNC[+OFFSET]", loc);
}

int cmd_delay(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	struct inject_opts o;
	char point[640];

	opts_parse("delay", argc, argv, OPTS_ARM | OPTS_CMD | OPTS_DELAY, &o);
	if (!o.delay_us)
		die_usage("delay: --us is required (microseconds per delay, at most "
			  "10000 are waited: the delay busy-waits)");
	parse_number("us", o.delay_us, 1, 1000000);
	check_location(o.cap, o.module);
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("delay", "delay_point", &s->cap);
	if (!fault_cap_has(&s->cap, "points"))
		die_usage("delay: %s/points is missing (CONFIG_FAULT_DELAY_POINT?)", s->cap.dir);
	snprintf(point, sizeof(point), "%s%s%s", o.cap, o.module ? " " : "",
		 o.module ? o.module : "");

	opts_build_plan(&o, &s->cap, &s->arm);
	/* A point listed already stays, as it was: the kernel takes it once. */
	if (!delay_point_listed(&s->cap, point) &&
	    fault_plan_add(&s->arm, &s->cap, "points", point, 1))
		die("out of memory");
	return run_session(s, &o);
}
