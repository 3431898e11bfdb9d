// SPDX-License-Identifier: GPL-2.0
/*
 * inject reset [--all | CAP...]: the kernel's defaults (disarmed).
 * inject reset --restore [CAP...]: put back settings saved by an inject
 * that was killed (/run/inject/CAP.saved).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

enum {
	OPT_ALL = 256,
	OPT_RESTORE,
};

static const struct option reset_options[] = {
	{ "all",	no_argument, NULL, OPT_ALL },
	{ "restore",	no_argument, NULL, OPT_RESTORE },
	{ NULL,		0,	     NULL, 0 },
};

static bool alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* The saved file of @cap: 1 if none, 0 if stale (owner gone); exits if in use. */
static int check_saved(const struct fault_cap *cap, char *path, size_t size, pid_t *owner)
{
	char dir[PATH_MAX];
	struct fault_plan plan;

	saved_path_of(cap, path, size);
	if (access(path, F_OK))
		return 1;
	*owner = 0;
	if (fault_plan_load(&plan, path, owner, dir, sizeof(dir)) == 0)
		fault_plan_free(&plan);
	if (alive(*owner))
		die_usage("reset: %s is in use by inject pid %d (see %s)", cap->name,
			  (int)*owner, path);
	return 0;
}

static void reset_cap(const struct fault_cap *cap)
{
	const struct fault_knob *k;
	struct fault_plan plan;

	fault_plan_init(&plan);
	if (fault_plan_add(&plan, cap, "probability", "0", 0))
		die("out of memory");
	for (k = fault_knobs; k->file; k++)
		if (fault_cap_has(cap, k->file) &&
		    fault_plan_add(&plan, cap, k->file, fault_knob_reset(k), 1))
			die("out of memory");
	if (fault_cap_has(cap, "inject") && fault_plan_add(&plan, cap, "inject", "", 1))
		die("out of memory");
	if (fault_cap_has(cap, "points") && fault_plan_add(&plan, cap, "points", "", 1))
		die("out of memory");
	if (fault_cap_has(cap, "calls") && fault_plan_add(&plan, cap, "calls", "0", 1))
		die("out of memory");
	if (fault_plan_apply(&plan))
		report_write_error(&plan);
	fault_plan_free(&plan);
}

static int restore_file(const char *path, const char *want_dir)
{
	char dir[PATH_MAX];
	struct fault_plan plan;
	pid_t owner;

	if (fault_plan_load(&plan, path, &owner, dir, sizeof(dir)))
		die("reset: %s: %s", path, errno == EINVAL ? "malformed" : strerror(errno));
	if (want_dir && strcmp(dir, want_dir))
		die("reset: %s is about %s, not %s", path, dir, want_dir);
	if (alive(owner))
		die_usage("reset: inject pid %d is still running and will restore %s itself",
			  (int)owner, dir);
	if (fault_plan_apply(&plan))
		report_write_error(&plan);
	fault_plan_free(&plan);
	unlink(path);
	printf("%s: %s: restored the settings saved by inject pid %d\n", argv0, dir, (int)owner);
	return 0;
}

int cmd_reset(int argc, char **argv)
{
	struct fault_cap *caps = NULL, cap;
	bool all = false, restore = false;
	int c, i, nr = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+", reset_options, NULL)) != -1) {
		switch (c) {
		case OPT_ALL:
			all = true;
			break;
		case OPT_RESTORE:
			restore = true;
			break;
		default:
			die_usage("reset: unknown option '%s'", argv[optind - 1]);
		}
	}
	for (i = optind; i < argc; i++) {
		if (argv[i][0] == '-')
			die_usage("reset: options go before capabilities ('%s')", argv[i]);
		cap_lookup("reset", argv[i], &cap);
	}
	if (all && optind < argc)
		die_usage("reset: --all and a capability name exclude each other");

	if (trace_remove_stale() > 0)
		warning("removed the tracefs instances of inject processes that were killed");
	if (restore) {
		char path[PATH_MAX];
		struct dirent *d;
		DIR *dir;
		int done = 0;

		if (all)
			die_usage("reset: --restore restores what was saved; it takes capability names, not --all");
		for (i = optind; i < argc; i++) {
			cap_lookup("reset", argv[i], &cap);
			saved_path_of(&cap, path, sizeof(path));
			if (access(path, F_OK))
				die_usage("reset: nothing saved for %s (no %s)", cap.name, path);
		}
		for (i = optind; i < argc; i++) {
			cap_lookup("reset", argv[i], &cap);
			saved_path_of(&cap, path, sizeof(path));
			done += !restore_file(path, cap.dir);
		}
		if (optind < argc)
			return 0;
		dir = opendir(INJECT_RUN_DIR);
		while (dir && (d = readdir(dir))) {
			size_t len = strlen(d->d_name);

			if (len < 7 || strcmp(d->d_name + len - 6, ".saved"))
				continue;
			snprintf(path, sizeof(path), INJECT_RUN_DIR "/%s", d->d_name);
			done += !restore_file(path, NULL);
		}
		if (dir)
			closedir(dir);
		if (!done)
			printf("%s: nothing to restore (no saved settings in %s)\n", argv0,
			       INJECT_RUN_DIR);
		return 0;
	}

	if (optind < argc) {
		nr = argc - optind;
		caps = xcalloc(nr, sizeof(*caps));
		for (i = 0; i < nr; i++)
			cap_lookup("reset", argv[optind + i], &caps[i]);
	} else {
		nr = fault_cap_list(&caps);
		if (nr < 0)
			die("reset: cannot read %s: %s", FAULT_DEBUGFS, strerror(errno));
	}
	/* Refuse before changing anything if a running inject owns one. */
	for (i = 0; i < nr; i++) {
		char path[PATH_MAX];
		pid_t owner;

		check_saved(&caps[i], path, sizeof(path), &owner);
	}
	for (i = 0; i < nr; i++) {
		char path[PATH_MAX];
		pid_t owner;

		reset_cap(&caps[i]);
		if (check_saved(&caps[i], path, sizeof(path), &owner) == 0) {
			unlink(path);
			warning("%s: discarded the settings saved by inject pid %d, which was killed",
				caps[i].name, (int)owner);
		}
		printf("%s: %s: reset to the kernel defaults\n", argv0, caps[i].name);
	}
	free(caps);
	return 0;
}
