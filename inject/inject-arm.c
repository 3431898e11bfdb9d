// SPDX-License-Identifier: GPL-2.0
/*
 * inject arm CAP [options]: arm CAP and leave it armed, for interactive use
 * ('inject reset CAP' disarms it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "inject.h"

int cmd_arm(int argc, char **argv)
{
	struct inject_session *s = xcalloc(1, sizeof(*s));
	struct inject_opts o;

	opts_parse("arm", argc, argv, OPTS_ARM, &o);
	if (o.task_only < 0)
		o.task_only = 0;
	cap_lookup("arm", o.cap, &s->cap);
	refuse_located_cap("arm", &s->cap);
	opts_build_plan(&o, &s->cap, &s->arm);
	s->persistent = true;
	session_arm(s);
	print_cap(&s->cap, false);
	printf("%s: %s armed%s; 'inject reset %s' disarms it\n", argv0, s->cap.name,
	       o.task_only ? " for tasks with /proc/PID/make-it-fail set" : "",
	       s->cap.name);
	fault_plan_free(&s->arm);
	fault_plan_free(&s->restore);
	free(s);
	return 0;
}
