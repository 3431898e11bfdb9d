// SPDX-License-Identifier: GPL-2.0
/*
 * inject status: the armed capabilities, and saved settings waiting to be
 * restored (an inject that is running, or one that was killed).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

static bool in_use(const struct fault_cap *cap)
{
	char *list;
	bool busy;

	if (cap_is_armed(cap))
		return true;
	list = fault_cap_read(cap, "inject");
	busy = list && *list;
	free(list);
	if (busy)
		return true;
	list = fault_cap_read(cap, "points");
	busy = list && *list;
	free(list);
	return busy;
}

int cmd_status(int argc, char **argv)
{
	struct fault_cap *caps;
	struct dirent *d;
	int i, nr, shown = 0;
	DIR *dir;

	if (argc > 1)
		die_usage("status: unexpected argument '%s'", argv[1]);
	nr = fault_cap_list(&caps);
	if (nr < 0)
		die("status: cannot read %s: %s", FAULT_DEBUGFS, strerror(errno));
	for (i = 0; i < nr; i++) {
		if (!in_use(&caps[i]))
			continue;
		if (shown++)
			putchar('\n');
		print_cap(&caps[i], false);
	}
	if (!shown)
		printf("%s: no capability is armed (%d known: 'inject list' shows them)\n",
		       argv0, nr);
	free(caps);

	dir = opendir(INJECT_RUN_DIR);
	while (dir && (d = readdir(dir))) {
		char path[PATH_MAX], cdir[PATH_MAX];
		struct fault_plan plan;
		size_t len = strlen(d->d_name);
		pid_t owner;

		if (len < 7 || strcmp(d->d_name + len - 6, ".saved"))
			continue;
		snprintf(path, sizeof(path), INJECT_RUN_DIR "/%s", d->d_name);
		if (fault_plan_load(&plan, path, &owner, cdir, sizeof(cdir))) {
			printf("%s: %s: unreadable (%s)\n", argv0, path, strerror(errno));
			continue;
		}
		fault_plan_free(&plan);
		if (kill(owner, 0) == 0 || errno == EPERM)
			printf("%s: %s: settings of %s saved by inject pid %d, which is running\n",
			       argv0, path, cdir, (int)owner);
		else
			printf("%s: %s: settings of %s saved by inject pid %d, which is gone: "
			       "'inject reset --restore' puts them back\n",
			       argv0, path, cdir, (int)owner);
	}
	if (dir)
		closedir(dir);
	return 0;
}
