// SPDX-License-Identifier: GPL-2.0
/*
 * inject fail-function FUNC [MODULE] --retval R | --delay-us U [options] --
 * CMD: make FUNC return R, or hold each call into it for U microseconds,
 * through fail_function's kprobe, while CMD runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

/* Does the entry FUNC [MODULE] name @want of @want_module (NULL: any)? */
static bool entry_is(const char *func, const char *module, const char *want,
		     const char *want_module)
{
	return !strcmp(func, want) && (!want_module || !strcmp(module, want_module));
}

/*
 * The error type of @func ("ERRNO", ...) in @module (NULL: wherever it is)
 * from "injectable", NULL if it is not there.  A name listed for several
 * modules needs its module.
 */
static char *injectable_type(const struct fault_cap *cap, const char *want,
			     const char *want_module)
{
	char *list = fault_cap_read(cap, "injectable"), *line, *save, *type = NULL;
	char *func, *module, *found_in = NULL;

	if (!list)
		die("%s/injectable: %s", cap->dir, strerror(errno));
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		fault_function_entry(line, &func, &module);
		if (!entry_is(func, module, want, want_module))
			continue;
		if (type)
			die_usage("fail-function: %s is in %s and in %s: name the module "
				  "(inject fail-function %s MODULE ...)", want,
				  found_in[0] ? found_in : "vmlinux", module[0] ? module : "vmlinux",
				  want);
		type = xstrdup(tab + 1);
		found_in = xstrdup(module);
	}
	free(found_in);
	free(list);
	return type;
}

static void check_retval(const char *func, const char *type, long long rv)
{
	bool errno_ok = rv >= -4095 && rv <= -1;

	if (!strcmp(type, "ERRNO") && !errno_ok)
		die_usage("fail-function: --retval %lld: %s returns an errno, use -1..-4095", rv, func);
	if (!strcmp(type, "NULL") && rv != 0)
		die_usage("fail-function: --retval %lld: %s can only be made to return NULL (0)", rv, func);
	if (!strcmp(type, "ERR_NULL") && rv != 0 && !errno_ok)
		die_usage("fail-function: --retval %lld: %s returns NULL or an errno, use 0 or -1..-4095",
			  rv, func);
	if (!strcmp(type, "TRUE") && rv != 1)
		die_usage("fail-function: --retval %lld: %s can only be made to return true (1)", rv, func);
}

int cmd_fail_function(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	char hex[32], file[512], name[256];
	const char *want_module;
	struct inject_opts o;
	long long rv = 0;
	char *type;

	opts_parse("fail-function", argc, argv,
		   OPTS_ARM | OPTS_CMD | OPTS_FUNCTION, &o);
	o.function = o.cap;
	if (!o.retval && !o.delay_us)
		die_usage("fail-function: --retval or --delay-us is required");
	if (o.retval && o.delay_us)
		die_usage("fail-function: --retval and --delay-us exclude each other "
			  "(a delayed call returns what it returns)");
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("fail-function", "fail_function", &s->cap);
	if (!fault_cap_has(&s->cap, "inject"))
		die_usage("fail-function: %s/inject is missing (CONFIG_FAIL_FUNCTION?)", s->cap.dir);
	/* "vmlinux" names the copy outside the modules, listed without one */
	want_module = o.module && !strcmp(o.module, "vmlinux") ? "" : o.module;
	type = injectable_type(&s->cap, o.function, want_module);
	if (!type) {
		if (o.module)
			die_usage("fail-function: '%s [%s]' is not in %s/injectable (is the module "
				  "loaded? see 'inject list fail_function')", o.function, o.module,
				  s->cap.dir);
		die_usage("fail-function: '%s' is not in %s/injectable (see 'inject list fail_function')",
			  o.function, s->cap.dir);
	}
	if (o.retval) {
		rv = parse_number("retval", o.retval, -4095, 0x7fffffffffffffffLL);
		check_retval(o.function, type, rv);
	}
	free(type);

	/*
	 * The kernel looks the name up with kallsyms_lookup_name(): vmlinux
	 * first, then the newest module that has it, unless it is written as
	 * MODULE:FUNC.  Its debugfs directory is named as written.
	 */
	if (want_module && want_module[0])
		snprintf(name, sizeof(name), "%s:%s", want_module, o.function);
	else
		snprintf(name, sizeof(name), "%s", o.function);
	opts_build_plan(&o, &s->cap, &s->arm);
	if (!fault_function_listed(&s->cap, o.function, want_module) &&
	    fault_plan_add(&s->arm, &s->cap, "inject", name, 1))
		die("fail-function: cannot plan the write of %s to %s/inject: %s",
		    name, s->cap.dir, strerror(errno));
	if (o.retval) {
		snprintf(hex, sizeof(hex), "%#llx", (unsigned long long)rv);
		if (rv == 0)
			snprintf(hex, sizeof(hex), "0");
		snprintf(file, sizeof(file), "%s/retval", name);
		if (fault_plan_add(&s->arm, &s->cap, file, hex, 1))
			die("fail-function: cannot plan the write of %s to %s/%s: %s",
			    hex, s->cap.dir, file, strerror(errno));
	}

	return run_session(s, &o);
}
