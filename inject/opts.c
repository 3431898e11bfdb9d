// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c: the options of run, arm, sweep, fail-function and delay, and the plan
 * of writes they turn into.  Everything here is checked before anything is
 * written: a bad argument exits 2 with nothing changed.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

enum {
	OPT_PROBABILITY = 256,
	OPT_TIMES,
	OPT_INTERVAL,
	OPT_SKIP,
	OPT_SPACE,
	OPT_VERBOSE,
	OPT_DELAY_US,
	OPT_IGNORE_GFP_WAIT,
	OPT_CALLER,
	OPT_REJECT_CALLER,
	OPT_CACHE,
	OPT_MIN_SIZE,
	OPT_MAX_SIZE,
	OPT_MIN_ORDER,
	OPT_MAX_ORDER,
	OPT_GFP_REQUIRE,
	OPT_GFP_REJECT,
	OPT_PID,
	OPT_COMM,
	OPT_TASK_ONLY,
	OPT_ALL_TASKS,
	OPT_STACKTRACE_DEPTH,
	OPT_RETVAL,
	OPT_STACKS,
	OPT_QUIET,
	OPT_MAX,
	OPT_JSON,
	OPT_SETUP,
	OPT_CLEANUP,
	OPT_CHECK_EVERY,
	OPT_FIND_DAMAGE,
	OPT_US,
	OPT_DEBUGINFO,
	OPT_WHILE_IN,
};

/* Which commands take which options. */
#define LIMITS	OPTS_LIMITS
#define FILTERS	OPTS_ARM
enum { OPTS_LIMITS = 1 << 8 };

static const struct option long_options[] = {
	{ "probability",	required_argument, NULL, OPT_PROBABILITY },
	{ "times",		required_argument, NULL, OPT_TIMES },
	{ "interval",		required_argument, NULL, OPT_INTERVAL },
	{ "skip",		required_argument, NULL, OPT_SKIP },
	{ "space",		required_argument, NULL, OPT_SPACE },
	{ "verbose",		required_argument, NULL, OPT_VERBOSE },
	{ "delay-us",		required_argument, NULL, OPT_DELAY_US },
	{ "ignore-gfp-wait",	no_argument,       NULL, OPT_IGNORE_GFP_WAIT },
	{ "caller",		required_argument, NULL, OPT_CALLER },
	{ "reject-caller",	required_argument, NULL, OPT_REJECT_CALLER },
	{ "cache",		required_argument, NULL, OPT_CACHE },
	{ "min-size",		required_argument, NULL, OPT_MIN_SIZE },
	{ "max-size",		required_argument, NULL, OPT_MAX_SIZE },
	{ "min-order",		required_argument, NULL, OPT_MIN_ORDER },
	{ "max-order",		required_argument, NULL, OPT_MAX_ORDER },
	{ "gfp-require",	required_argument, NULL, OPT_GFP_REQUIRE },
	{ "gfp-reject",		required_argument, NULL, OPT_GFP_REJECT },
	{ "pid",		required_argument, NULL, OPT_PID },
	{ "comm",		required_argument, NULL, OPT_COMM },
	{ "task-only",		no_argument,       NULL, OPT_TASK_ONLY },
	{ "all-tasks",		no_argument,       NULL, OPT_ALL_TASKS },
	{ "stacktrace-depth",	required_argument, NULL, OPT_STACKTRACE_DEPTH },
	{ "retval",		required_argument, NULL, OPT_RETVAL },
	{ "stacks",		no_argument,       NULL, OPT_STACKS },
	{ "quiet",		no_argument,       NULL, OPT_QUIET },
	{ "max",		required_argument, NULL, OPT_MAX },
	{ "json",		no_argument,       NULL, OPT_JSON },
	{ "setup",		required_argument, NULL, OPT_SETUP },
	{ "before",		required_argument, NULL, OPT_SETUP },	/* old name */
	{ "cleanup",		required_argument, NULL, OPT_CLEANUP },
	{ "check-every",	required_argument, NULL, OPT_CHECK_EVERY },
	{ "find-damage",	no_argument,       NULL, OPT_FIND_DAMAGE },
	{ "us",			required_argument, NULL, OPT_US },
	{ "debuginfo",		required_argument, NULL, OPT_DEBUGINFO },
	{ "while-in",		required_argument, NULL, OPT_WHILE_IN },
	{ NULL,			0,		   NULL, 0 },
};

static unsigned int option_set(int id)
{
	switch (id) {
	case OPT_PROBABILITY: case OPT_TIMES: case OPT_INTERVAL: case OPT_SKIP:
	case OPT_SPACE:
		return LIMITS;
	case OPT_ALL_TASKS: case OPT_STACKS: case OPT_QUIET:
		return OPTS_CMD;
	case OPT_MAX: case OPT_JSON: case OPT_SETUP: case OPT_CLEANUP:
	case OPT_CHECK_EVERY: case OPT_FIND_DAMAGE:
		return OPTS_SWEEP;
	case OPT_RETVAL:
		return OPTS_FUNCTION;
	case OPT_US: case OPT_WHILE_IN:
		return OPTS_DELAY;
	case OPT_DEBUGINFO:
		return OPTS_DELAY | OPTS_WHERE;
	default:
		return FILTERS;
	}
}

static const char *option_name(int id)
{
	const struct option *o;

	for (o = long_options; o->name; o++)
		if (o->val == id)
			return o->name;
	return "?";
}

/**
 * parse_number() - a whole decimal (or 0x hex) number within bounds
 * @opt: the option, for the message
 * @s: the text
 * @min: smallest accepted
 * @max: largest accepted
 *
 * Exits 2 naming the option if @s is not such a number.
 */
long long parse_number(const char *opt, const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (!*s || *end || errno || isspace((unsigned char)*s))
		die_usage("--%s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		die_usage("--%s: %s is out of range (%lld..%lld)", opt, s, min, max);
	return v;
}

/* "sym,mod:sym": the syntax the kernel accepts, names checked by kallsyms. */
static void check_callers(const char *opt, const char *list)
{
	char *copy = xstrdup(list), *tok, *save, *p;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *name = strchr(tok, ':') ? strchr(tok, ':') + 1 : tok;

		if (!*name)
			die_usage("--%s: '%s' has an empty function name", opt, tok);
		for (p = tok; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("_.$:-", *p))
				die_usage("--%s: '%s' is not a function name", opt, tok);
		n++;
	}
	if (!n || list[strlen(list) - 1] == ',' || list[0] == ',' || strstr(list, ",,"))
		die_usage("--%s: '%s' is not a comma-separated list of functions", opt, list);
	if (n > 16)
		die_usage("--%s: %d functions given, the kernel takes at most 16", opt, n);
	free(copy);
}

/*
 * Whether @s[0..@len) is a name of letters, digits and @punct: SYMBOL_PUNCT
 * for a kernel function, MODULE_PUNCT for a module ('-' as files have it).
 */
bool is_name(const char *s, size_t len, const char *punct)
{
	size_t i;

	/* strchr() finds the NUL of @punct: a NUL in @s is no name. */
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && (!s[i] || !strchr(punct, s[i])))
			return false;
	return len > 0;
}

/* The kernel names modules with '_' where files have '-'. */
void module_dashes(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/*
 * --while-in [MODULE:]FUNC, as kprobe events name a module's function, into
 * "FUNC [MODULE]" as delay_point's while-in file takes it.
 */
static const char *parse_while_in(const char *arg)
{
	static char buf[640];
	const char *colon = strchr(arg, ':'), *func = colon ? colon + 1 : arg;
	size_t modlen = colon ? (size_t)(colon - arg) : 0;

	if (strchr(arg, '+'))
		die_usage("--while-in: '%s': the window is a whole function, it takes no "
			  "+OFFSET", arg);
	if (strlen(func) > 511 || !is_name(func, strlen(func), SYMBOL_PUNCT))
		die_usage("--while-in: '%s' is not [MODULE:]FUNC", arg);
	if (colon && (!modlen || modlen > 55))
		die_usage("--while-in: '%s': the module name must have 1 to 55 characters",
			  arg);
	if (colon && !is_name(arg, modlen, MODULE_PUNCT))
		die_usage("--while-in: '%.*s' is not a module name", (int)modlen, arg);
	snprintf(buf, sizeof(buf), "%s%s%.*s%s", func, colon ? " [" : "",
		 (int)modlen, arg, colon ? "]" : "");
	module_dashes(buf + strlen(func));
	return buf;
}

/**
 * opts_parse() - parse "CAP [options] [-- CMD ARGS...]"
 * @command: the subcommand, for messages
 * @argc: from the subcommand (argv[0] is its name)
 * @argv: likewise
 * @set: OPTS_* the command takes
 * @o: filled in
 *
 * Exits 2 naming the problem on any bad argument.
 */
void opts_parse(const char *command, int argc, char **argv, unsigned int set,
		struct inject_opts *o)
{
	int c, max_order = -1;
	long long min_size = -1, max_size = -1, min_order = -1, max_ord = -1;

	memset(o, 0, sizeof(*o));
	o->task_only = -1;
	o->max_runs = 1000;
	if (set & OPTS_ARM)
		set |= LIMITS;
	if (set & OPTS_SWEEP)
		set &= ~LIMITS;

	opterr = 0;
	optind = 1;
	/* "-": positional arguments come back as 1, "--" ends the options. */
	while ((c = getopt_long(argc, argv, "-", long_options, NULL)) != -1) {
		if (c == '?') {
			if (optopt)
				die_usage("%s: option '--%s' needs a value", command,
					  option_name(optopt));
			die_usage("%s: unknown option '%s'", command, argv[optind - 1]);
		}
		if (c == 1) {
			if (!o->cap && (set & (OPTS_ARM | OPTS_FUNCTION | OPTS_WHERE))) {
				o->cap = optarg;
				continue;
			}
			/* fail-function FUNC MODULE: a module's function */
			if (!o->module && (set & (OPTS_FUNCTION | OPTS_DELAY | OPTS_WHERE))) {
				if (!is_name(optarg, strlen(optarg), MODULE_PUNCT))
					die_usage("%s: '%s' is not a module name", command, optarg);
				module_dashes(optarg);
				o->module = optarg;
				continue;
			}
			die_usage("%s: unexpected argument '%s'%s", command, optarg,
				  (set & OPTS_CMD) ? " (the command goes after --)" : "");
		}
		if (!(option_set(c) & set))
			die_usage("%s: --%s is not an option of '%s'", command,
				  option_name(c), command);
		switch (c) {
		case OPT_PROBABILITY:
			parse_number("probability", optarg, 1, 100);
			o->probability = optarg;
			break;
		case OPT_TIMES:
			if (parse_number("times", optarg, -1, 0x7fffffff) == 0)
				die_usage("--times: 0 would never inject (use -1 for no limit)");
			o->times = optarg;
			break;
		case OPT_INTERVAL:
			parse_number("interval", optarg, 1, 0x7fffffff);
			o->interval = optarg;
			break;
		case OPT_SKIP:
			parse_number("skip", optarg, 0, 0x7fffffff);
			o->skip = optarg;
			break;
		case OPT_SPACE:
			parse_number("space", optarg, 0, 0x7fffffff);
			o->space = optarg;
			break;
		case OPT_VERBOSE:
			parse_number("verbose", optarg, 0, 2);
			o->verbose = optarg;
			break;
		case OPT_DELAY_US:
		case OPT_US:
			parse_number(option_name(c), optarg, 0, 1000000);
			o->delay_us = optarg;
			o->delay_us_opt = option_name(c);
			break;
		case OPT_DEBUGINFO:
			if (!*optarg)
				die_usage("--debuginfo: empty file name");
			o->debuginfo = optarg;
			break;
		case OPT_WHILE_IN:
			o->while_in = parse_while_in(optarg);
			break;
		case OPT_IGNORE_GFP_WAIT:
			o->ignore_gfp_wait = true;
			break;
		case OPT_CALLER:
			check_callers("caller", optarg);
			o->caller = optarg;
			break;
		case OPT_REJECT_CALLER:
			check_callers("reject-caller", optarg);
			o->reject_caller = optarg;
			break;
		case OPT_CACHE:
			if (!*optarg || strlen(optarg) > 127)
				die_usage("--cache: the pattern must have 1 to 127 characters");
			o->cache = optarg;
			break;
		case OPT_MIN_SIZE:
			min_size = parse_number("min-size", optarg, 0, 0xffffffffLL);
			o->min_size = optarg;
			break;
		case OPT_MAX_SIZE:
			max_size = parse_number("max-size", optarg, 0, 0xffffffffLL);
			o->max_size = optarg;
			break;
		case OPT_MIN_ORDER:
		case OPT_MAX_ORDER:
			if (max_order < 0)
				max_order = fault_max_order();
			if (c == OPT_MIN_ORDER) {
				min_order = parse_number("min-order", optarg, 0, max_order);
				o->min_order = optarg;
			} else {
				max_ord = parse_number("max-order", optarg, 0, max_order);
				o->max_order = optarg;
			}
			break;
		case OPT_GFP_REQUIRE:
		case OPT_GFP_REJECT:
			if (!*optarg)
				die_usage("--%s: empty mask", option_name(c));
			if (c == OPT_GFP_REQUIRE)
				o->gfp_require = optarg;
			else
				o->gfp_reject = optarg;
			break;
		case OPT_PID:
			parse_number("pid", optarg, 1, 4194304);
			o->pid = optarg;
			break;
		case OPT_COMM:
			if (!*optarg || strlen(optarg) > 15)
				die_usage("--comm: '%s': a task name has 1 to 15 characters", optarg);
			o->comm = optarg;
			break;
		case OPT_TASK_ONLY:
			o->task_only = 1;
			break;
		case OPT_ALL_TASKS:
			o->task_only = 0;
			break;
		case OPT_STACKTRACE_DEPTH:
			parse_number("stacktrace-depth", optarg, 1, 32);
			o->stacktrace_depth = optarg;
			break;
		case OPT_RETVAL:
			parse_number("retval", optarg, -4095, 0x7fffffffffffffffLL);
			o->retval = optarg;
			break;
		case OPT_STACKS:
			o->stacks = true;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_MAX:
			o->max_runs = parse_number("max", optarg, 1, 100000);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_SETUP:
			o->setup = optarg;
			break;
		case OPT_CLEANUP:
			o->cleanup = optarg;
			break;
		case OPT_CHECK_EVERY:
			o->check_every = parse_number("check-every", optarg, 1, 100000);
			break;
		case OPT_FIND_DAMAGE:
			o->check_every = 1;
			break;
		}
	}
	if (min_size >= 0 && max_size > 0 && min_size > max_size)
		die_usage("--min-size %lld is larger than --max-size %lld", min_size, max_size);
	if (min_order >= 0 && max_ord >= 0 && min_order > max_ord)
		die_usage("--min-order %lld is larger than --max-order %lld", min_order, max_ord);
	if (o->gfp_require && o->gfp_reject && !strcmp(o->gfp_require, o->gfp_reject))
		die_usage("--gfp-require and --gfp-reject are the same mask");

	if ((set & (OPTS_ARM | OPTS_FUNCTION)) && !o->cap)
		die_usage("%s: no %s given", command,
			  (set & OPTS_FUNCTION) ? "function" :
			  (set & OPTS_DELAY) ? "location (FUNC[+OFFSET])" : "capability");
	if (set & OPTS_CMD) {
		if (optind >= argc)
			die_usage("%s: no command given (inject %s ... -- CMD ARGS...)",
				  command, command);
		o->cmd = argv + optind;
	} else if (optind < argc) {
		die_usage("%s: unexpected argument '%s'", command, argv[optind]);
	}
}

/* A filter's file, the option that sets it, and who has it. */
struct filter_file {
	const char *file;
	const char *option;
	const char *owner;	/* NULL: every capability of a patched kernel */
};

static const struct filter_file filter_files[] = {
	{ "cache",		"cache",		"failslab" },
	{ "min-size",		"min-size",		"failslab" },
	{ "max-size",		"max-size",		"failslab" },
	{ "min-order",		"min-order",		"fail_page_alloc" },
	{ "max-order",		"max-order",		"fail_page_alloc" },
	{ "ignore-gfp-wait",	"ignore-gfp-wait",	"failslab and fail_page_alloc" },
	{ "caller",		"caller",		NULL },
	{ "reject-caller",	"reject-caller",	NULL },
	{ "gfp-require",	"gfp-require",		NULL },
	{ "gfp-reject",		"gfp-reject",		NULL },
	{ "pid",		"pid",			NULL },
	{ "comm",		"comm",			NULL },
	{ "skip",		"skip",			NULL },
	{ "delay-us",		"delay-us",		NULL },
	{ "stacktrace-depth",	"stacktrace-depth",	NULL },
	{ "while-in",		"while-in",		"delay_point" },
	{ NULL, NULL, NULL },
};

static void need_file(const struct fault_cap *cap, const char *file)
{
	const struct filter_file *f;

	if (fault_cap_has(cap, file))
		return;
	for (f = filter_files; f->file; f++) {
		if (strcmp(f->file, file))
			continue;
		if (f->owner && !strstr(f->owner, cap->name))
			die_usage("--%s: %s has no '%s' file (a filter of %s only)", f->option,
				  cap->name, file, f->owner);
		die_usage("--%s: %s/%s is missing: this kernel lacks the filter "
			  "(is the fault-inject series applied?)", f->option, cap->dir, file);
	}
	die_usage("%s/%s is missing: this kernel does not support it", cap->dir, file);
}

/* The value opts give for a knob, or NULL for its arming default. */
static const char *opt_value(const struct inject_opts *o, const char *file,
			     char *buf, size_t size)
{
	if (!strcmp(file, "interval")) return o->interval;
	if (!strcmp(file, "times")) return o->times;
	if (!strcmp(file, "space")) return o->space;
	if (!strcmp(file, "verbose")) return o->verbose;
	if (!strcmp(file, "skip")) return o->skip;
	if (!strcmp(file, "pid")) return o->pid;
	if (!strcmp(file, "comm")) return o->comm;
	if (!strcmp(file, "gfp-require")) return o->gfp_require;
	if (!strcmp(file, "gfp-reject")) return o->gfp_reject;
	if (!strcmp(file, "delay-us")) return o->delay_us;
	if (!strcmp(file, "action")) return o->delay_us ? "delay" : NULL;
	if (!strcmp(file, "stacktrace-depth")) return o->stacktrace_depth;
	if (!strcmp(file, "caller")) return o->caller;
	if (!strcmp(file, "reject-caller")) return o->reject_caller;
	if (!strcmp(file, "ignore-gfp-wait")) return o->ignore_gfp_wait ? "Y" : NULL;
	if (!strcmp(file, "while-in")) return o->while_in;
	if (!strcmp(file, "cache")) return o->cache;
	if (!strcmp(file, "min-size")) return o->min_size;
	if (!strcmp(file, "max-size")) return o->max_size;
	if (!strcmp(file, "min-order")) return o->min_order;
	if (!strcmp(file, "max-order")) return o->max_order;
	if (!strcmp(file, "task-filter")) return o->task_only > 0 ? "Y" : NULL;
	(void)buf;
	(void)size;
	return NULL;
}

/**
 * opts_build_plan() - the writes that arm @cap as @o asks
 * @o: parsed options (task_only already resolved to 0 or 1)
 * @cap: the capability
 * @plan: filled in: probability 0 first; then every knob inject knows that
 *	@cap has, set to the option's value or to its arming default; then
 *	the statistics cleared and the probability written last.
 *
 * Exits 2 if an option needs a file @cap does not have.
 */
void opts_build_plan(const struct inject_opts *o, const struct fault_cap *cap,
		     struct fault_plan *plan)
{
	const struct fault_knob *k;
	char buf[64];

	if (o->caller) need_file(cap, "caller");
	if (o->reject_caller) need_file(cap, "reject-caller");
	if (o->cache) need_file(cap, "cache");
	if (o->min_size) need_file(cap, "min-size");
	if (o->max_size) need_file(cap, "max-size");
	if (o->min_order) need_file(cap, "min-order");
	if (o->max_order) need_file(cap, "max-order");
	if (o->gfp_require) need_file(cap, "gfp-require");
	if (o->gfp_reject) need_file(cap, "gfp-reject");
	if (o->pid) need_file(cap, "pid");
	if (o->comm) need_file(cap, "comm");
	if (o->skip) need_file(cap, "skip");
	if (o->delay_us) need_file(cap, "delay-us");
	if (o->stacktrace_depth) need_file(cap, "stacktrace-depth");
	if (o->ignore_gfp_wait) need_file(cap, "ignore-gfp-wait");
	if (o->while_in) need_file(cap, "while-in");
	if (!fault_cap_has(cap, "calls"))
		die_usage("%s/calls is missing: this kernel lacks the fault-inject "
			  "statistics (is the fault-inject series applied?)", cap->dir);

	fault_plan_init(plan);
	if (fault_plan_add(plan, cap, "probability", "0", 0))
		die("out of memory");
	for (k = fault_knobs; k->file; k++) {
		const char *v;

		if (!fault_cap_has(cap, k->file))
			continue;
		v = opt_value(o, k->file, buf, sizeof(buf));
		if (!v)
			v = k->arm ? k->arm : fault_knob_reset(k);
		if (fault_plan_add(plan, cap, k->file, v, 1))
			die("out of memory");
	}
	if (fault_plan_add(plan, cap, "calls", "0", 2) ||
	    fault_plan_add(plan, cap, "probability",
			   o->probability ? o->probability : "100", 2))
		die("out of memory");
}
