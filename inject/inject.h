/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inject: drive the kernel's fault-injection capabilities from the command
 * line.  Shared declarations of the subcommands and the helpers they use.
 */
#ifndef INJECT_H
#define INJECT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define INJECT_VERSION		"1.0"
#define FAULT_DEBUGFS		"/sys/kernel/debug"
#define INJECT_RUN_DIR		"/run/inject"
#define GUEST_MARKER		"mmfi.guest=1"

/* Exit statuses of inject itself (run/sweep otherwise exit like CMD). */
enum {
	EXIT_USAGE	= 2,	/* bad argument or refused value: nothing changed */
	EXIT_TROUBLE	= 1,	/* I/O error, missing kernel support at run time */
};

/* === inject.c: the tool's face === */

extern const char *argv0;

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *errno_name(int err);
bool in_guest(void);
void check_guest(void);

/* === inject-usage.c: all help text === */

struct usage_entry {
	const char *name;	/* command name, NULL for the overview */
	const char *summary;	/* one line */
	const char *help;	/* synopsis and options */
};

extern const struct usage_entry usage_help[];
void usage_print(const char *command, bool to_stderr);
void usage_print_all(void);

/* === fault.c: capabilities in debugfs (library-like: no printing) === */

struct fault_cap {
	char name[128];		/* "failslab", "mmc0/fail_mmc_request" */
	char dir[PATH_MAX];	/* /sys/kernel/debug/failslab */
};

/* One write of a value into a file of a capability's directory. */
struct fault_write {
	char path[PATH_MAX];
	char *value;		/* "" is written as "\n", which clears */
	int phase;		/* 0 first, 1 any order (retried), 2 last */
	/*
	 * Undoes what may not have been done: a missing file, or the kernel
	 * refusing to remove what it does not list, is not an error.
	 */
	bool optional;
};

#define FAULT_PLAN_MAX	96

/* An ordered list of writes: how to arm a capability or restore it. */
struct fault_plan {
	int nr;
	struct fault_write w[FAULT_PLAN_MAX];
	int failed;		/* index of the write that failed, or -1 */
	int failed_errno;
};

int fault_cap_list(struct fault_cap **caps);
int fault_cap_find(const char *name, struct fault_cap *cap);
bool fault_cap_has(const struct fault_cap *cap, const char *file);
int fault_file_read(const char *path, char *buf, size_t size);
char *fault_cap_read(const struct fault_cap *cap, const char *file);
int fault_cap_read_long(const struct fault_cap *cap, const char *file, long long *val);
int fault_file_write(const char *path, const char *value);
void fault_function_entry(char *line, char **func, char **module);
bool fault_function_listed(const struct fault_cap *cap, const char *func, const char *module);

/* A delay point: "FUNC[+OFFSET] [MODULE]" */
struct delay_location {
	char func[512];
	unsigned long offset;
	char module[64];	/* "" for vmlinux */
	bool any_module;	/* none was given */
};

int delay_location_parse(const char *loc, const char *module, struct delay_location *l);
bool delay_point_listed(const struct fault_cap *cap, const char *point);

void fault_plan_init(struct fault_plan *plan);
int fault_plan_add(struct fault_plan *plan, const struct fault_cap *cap,
		   const char *file, const char *value, int phase);
void fault_plan_free(struct fault_plan *plan);
int fault_plan_apply(struct fault_plan *plan);
int fault_plan_save(const struct fault_plan *arm, const struct fault_cap *cap,
		    struct fault_plan *restore);
int fault_plan_store(const struct fault_plan *plan, const struct fault_cap *cap,
		     const char *path);
int fault_plan_load(struct fault_plan *plan, const char *path, pid_t *owner,
		    char *dir, size_t dirsize);

/* Kernel defaults of the knobs inject knows, used by reset and arming. */
struct fault_knob {
	const char *file;
	const char *reset;	/* kernel default; NULL: computed */
	const char *arm;	/* default when arming; NULL: same as reset */
};

extern const struct fault_knob fault_knobs[];
const char *fault_knob_reset(const struct fault_knob *knob);
int fault_max_order(void);

/* === opts.c: options shared by run, arm, sweep and fail-function === */

struct inject_opts {
	const char *cap;
	char **cmd;			/* after "--", NULL terminated */
	/* limits */
	const char *probability, *times, *interval, *skip, *space, *verbose;
	const char *delay_us;
	const char *delay_us_opt;	/* "delay-us" or "us", as typed */
	bool ignore_gfp_wait;
	/* filters */
	const char *caller, *reject_caller, *cache, *min_size, *max_size;
	const char *min_order, *max_order, *gfp_require, *gfp_reject;
	const char *pid, *comm, *stacktrace_depth;
	int task_only;			/* -1: command's default */
	/* fail-function */
	const char *function, *module, *retval;
	/* delay */
	const char *debuginfo;
	const char *while_in;		/* "FUNC [MODULE]", as the kernel takes it */
	/* reporting */
	bool stacks, json, quiet;
	long max_runs;
	const char *setup, *cleanup;	/* sweep: sh -c around every run */
	long check_every;		/* sweep: a clean run after every Nth, 0: none */
};

enum inject_opt_set {
	OPTS_ARM	= 1 << 0,	/* limits and filters */
	OPTS_CMD	= 1 << 1,	/* -- CMD, --all-tasks, --stacks */
	OPTS_SWEEP	= 1 << 2,	/* --max, --json, --setup, --cleanup, --check-every */
	OPTS_FUNCTION	= 1 << 3,	/* --retval */
	OPTS_DELAY	= 1 << 4,	/* --us */
	OPTS_WHERE	= 1 << 5,	/* a location and MODULE, --debuginfo only */
};

void opts_parse(const char *command, int argc, char **argv, unsigned int set,
		struct inject_opts *o);
void opts_build_plan(const struct inject_opts *o, const struct fault_cap *cap,
		     struct fault_plan *plan);
long long parse_number(const char *opt, const char *s, long long min, long long max);
#define SYMBOL_PUNCT	"_.$"
#define MODULE_PUNCT	"_-"
bool is_name(const char *s, size_t len, const char *punct);
void module_dashes(char *s);

/* === session.c: arm, run, restore, with signals handled === */

struct inject_session {
	struct fault_cap cap;
	struct fault_plan arm;
	struct fault_plan restore;
	char saved_path[PATH_MAX];
	bool persistent;		/* keep the armed state (inject arm) */
};

void session_catch_signals(void);
void session_exit(int code) __attribute__((noreturn));
void session_block_signals(sigset_t *old);
void session_arm(struct inject_session *s);
void session_restore(struct inject_session *s);
void session_forget_child(void);
void session_set_child(pid_t pid);
void session_set_trace_dir(const char *dir);
void report_write_error(const struct fault_plan *plan) __attribute__((noreturn));
int saved_path_of(const struct fault_cap *cap, char *buf, size_t size);

/* === child.c: run CMD === */

struct child_result {
	int status;		/* raw wait status */
	int exit_code;		/* status, or 128+signal */
	char *output;		/* captured stdout+stderr, if asked */
	size_t output_len;
};

pid_t child_start(char **cmd, bool make_it_fail, int *output_fd);
int child_wait(pid_t pid, int output_fd, struct child_result *res);
int child_shell(const char *shell_cmd);

/* === trace.c: the fault_inject tracepoint === */

struct trace_hit {
	char site[160];		/* first frame outside the allocator */
	char caller[160];	/* the tracepoint's caller field */
	char comm[17];
	int pid;
	long size;
	unsigned long gfp;
	int action;
	int nr_stack;
	char **stack;		/* symbolized frames */
};

struct trace_session;

struct trace_session *trace_open(const char *cap_name, bool stacks);
int trace_collect(struct trace_session *t, struct trace_hit **hits, int *nr);
void trace_hits_free(struct trace_hit *hits, int nr);
const char *trace_dir(struct trace_session *t);
void trace_close(struct trace_session *t);
int trace_remove_stale(void);
struct trace_session *trace_open_guarded(const char *cap_name, bool stacks);
char *trace_sites_summary(const struct trace_hit *hits, int nr);

/* === kmsg.c: what the kernel logged during a run === */

int kmsg_open_at_end(void);
int kmsg_problems(int fd, char ***lines, int *nr);
int kmsg_matching(int fd, const char *const *wanted, bool at_start, char ***lines, int *nr);

/* === one file per subcommand === */

int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int run_armed(struct inject_session *s, struct inject_opts *o);
int run_session(struct inject_session *s, struct inject_opts *o);
int cmd_arm(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_fail_function(int argc, char **argv);
int cmd_delay(int argc, char **argv);
int cmd_where(int argc, char **argv);
void refuse_located_cap(const char *command, const struct fault_cap *cap);

/* shared by list and status */
void print_cap(const struct fault_cap *cap, bool functions);
bool cap_is_armed(const struct fault_cap *cap);
void cap_lookup(const char *command, const char *name, struct fault_cap *cap);

#endif /* INJECT_H */
