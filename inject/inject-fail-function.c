// SPDX-License-Identifier: GPL-2.0
/*
 * inject fail-function FUNC --retval R [options] -- CMD: make FUNC return
 * R (through fail_function's kprobe) while CMD runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

/* The error type of @func from "injectable" ("ERRNO", ...), NULL if absent. */
static char *injectable_type(const struct fault_cap *cap, const char *func)
{
	char *list = fault_cap_read(cap, "injectable"), *line, *save, *type = NULL;

	if (!list)
		die("%s/injectable: %s", cap->dir, strerror(errno));
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		if (!strcmp(line, func)) {
			type = xstrdup(tab + 1);
			break;
		}
	}
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

static bool listed(const struct fault_cap *cap, const char *func)
{
	char *list = fault_cap_read(cap, "inject"), *line, *save;
	bool found = false;

	if (!list)
		return false;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strcmp(line, func))
			found = true;
	free(list);
	return found;
}

int cmd_fail_function(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	char hex[32], file[512];
	struct inject_opts o;
	long long rv;
	char *type;
	int ret;

	opts_parse("fail-function", argc, argv,
		   OPTS_ARM | OPTS_CMD | OPTS_FUNCTION, &o);
	o.function = o.cap;
	if (!o.retval)
		die_usage("fail-function: --retval is required");
	if (o.task_only < 0)
		o.task_only = 1;
	cap_lookup("fail-function", "fail_function", &s->cap);
	if (!fault_cap_has(&s->cap, "inject"))
		die_usage("fail-function: %s/inject is missing (CONFIG_FAIL_FUNCTION?)", s->cap.dir);
	type = injectable_type(&s->cap, o.function);
	if (!type)
		die_usage("fail-function: '%s' is not in %s/injectable (see 'inject list fail_function')",
			  o.function, s->cap.dir);
	rv = parse_number("retval", o.retval, -4095, 0x7fffffffffffffffLL);
	check_retval(o.function, type, rv);
	free(type);

	opts_build_plan(&o, &s->cap, &s->arm);
	if (!listed(&s->cap, o.function) &&
	    fault_plan_add(&s->arm, &s->cap, "inject", o.function, 1))
		die("out of memory");
	snprintf(hex, sizeof(hex), "%#llx", (unsigned long long)rv);
	if (rv == 0)
		snprintf(hex, sizeof(hex), "0");
	snprintf(file, sizeof(file), "%s/retval", o.function);
	if (fault_plan_add(&s->arm, &s->cap, file, hex, 1))
		die("out of memory");

	ret = run_armed(s, &o);
	fault_plan_free(&s->arm);
	fault_plan_free(&s->restore);
	free(s);
	return ret;
}
