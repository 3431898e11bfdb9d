// SPDX-License-Identifier: GPL-2.0
/*
 * qemu/stapsh.c: the guest end of `stap --remote`, started by guest-init on
 * the org.systemtap.stapsh.0 virtio-serial port in place of systemtap's
 * own stapsh.
 *
 * It speaks the same line protocol (the client says "stap VERSION", sets
 * options, sends the module with "file SIZE NAME" and starts it with "run
 * ARGS", quoted-printable; with the "data" option every piece of staprun's
 * output goes out as a "data stdout|stderr SIZE" line and SIZE bytes, and
 * "quit" is the last line), but it forwards ALL of staprun's output:
 *
 *  - systemtap 4.8's stapsh leaves as soon as SIGCHLD says staprun ended,
 *    dropping what was still in the pipes: under TCG, where the port
 *    drains slowly, the end of long outputs (the summary of a probe end)
 *    was lost about one run in five;
 *  - on "quit" (the user's Ctrl-C) it signalled staprun and stopped
 *    reading, so a script's probe end output never arrived, and a probe end
 *    writing more than a pipe holds could hang both.
 *
 * Here staprun's pipes are read until they are empty after it exited, and
 * "quit" only signals staprun: its output is still forwarded until it
 * ends.  Only kernel modules are run (no dyninst or bpf back end).
 *
 * Usage: stapsh [-v] [-l PORT] [-S STAPRUN]
 *   -l PORT     serve on this virtio-serial port (else stdin/stdout)
 *   -S STAPRUN  the program "run" starts (default /usr/bin/staprun; the
 *               tests give a stand-in)
 * It loads kernel modules, so it refuses to run unless the kernel command
 * line has mmfi.guest=1 (see qemu/README.md).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILE	(512L << 20)	/* a module with all its debug info fits */
#define MAX_FILES	16
#define MAX_ARGS	256
#define LINE_MAX_LEN	65536	/* a "run" line with a long -c workload fits */

extern char **environ;

static const char *staprun_path = "/usr/bin/staprun";
static int verbose;
static int fd_in = 0, fd_out = 1;	/* the client: the port, or stdin/stdout */
static bool listening;			/* fd_in is a virtio-serial port */
static bool host_gone;			/* the client hung up: nothing more to say */
static bool framed;			/* the "data" option */
static char tmpdir[PATH_MAX];
static int nfiles;
static pid_t child = -1;
static int child_status = -1;		/* exit status once it ended */
static int pipes[2] = { -1, -1 };	/* staprun's stdout, stderr */
static int sigfd = -1;
static bool interrupted;		/* staprun was told to stop */
static int fail_status;			/* the session broke: exit with this */

static char inbuf[LINE_MAX_LEN];
static size_t inlen;
static bool in_eof;
static bool discarding;			/* skipping the rest of an overlong line */

/* ---- talking to the client ---------------------------------------------- */

/* A virtio-serial port reports POLLHUP while no host program holds it. */
static bool host_connected(void)
{
	struct pollfd p = { .fd = fd_in, .events = POLLIN };

	return poll(&p, 1, 0) >= 0 && !(p.revents & POLLHUP);
}

/* The client left: say nothing more, read nothing more, stop staprun. */
static void hang_up(void)
{
	host_gone = true;
	in_eof = true;
}

/*
 * Wait until fd is ready for events (POLLIN or POLLOUT); false if the
 * client hung up.  The client's fds are non-blocking: a writer blocked on
 * a port whose client left would sleep until the next client comes, and
 * then hand it the rest of this session.
 */
static bool wait_client(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return false;
	if (p.revents & events)
		return true;
	return !(p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

static void write_all(const char *buf, size_t len)
{
	while (len && !host_gone) {
		ssize_t n = write(fd_out, buf, len);

		if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
			if (!wait_client(fd_out, POLLOUT))
				hang_up();
			continue;
		}
		if (n <= 0) {
			hang_up();
			return;
		}
		buf += n;
		len -= n;
	}
}

static void __attribute__((format(printf, 1, 2))) reply(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		/* still one line for the client's fgets() */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	write_all(line, n);
}

/* Debug lines start with "stapsh:", which the client prints to stderr. */
#define debug(level, fmt, ...) do {					\
		if (verbose >= (level))					\
			reply("stapsh: " fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* Read what the client sent into inbuf; false at its end. */
static bool fill_input(void)
{
	ssize_t n;

	if (in_eof || inlen == sizeof(inbuf))
		return !in_eof;
	n = read(fd_in, inbuf + inlen, sizeof(inbuf) - inlen);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		in_eof = true;
		return false;
	}
	inlen += n;
	return true;
}

static void consume_input(size_t n)
{
	memmove(inbuf, inbuf + n, inlen - n);
	inlen -= n;
}

static void __attribute__((format(printf, 1, 2))) reply(const char *fmt, ...);

/* Copy a whole line from inbuf (without its newline); false if none yet. */
static bool take_line(char *line, size_t size)
{
	char *nl;
	size_t len;

	for (;;) {
		nl = memchr(inbuf, '\n', inlen);
		if (!nl && inlen == sizeof(inbuf)) {
			/* no command is that long: skip it to its end */
			discarding = true;
			inlen = 0;
			return false;
		}
		if (!nl)
			return false;
		if (!discarding)
			break;
		consume_input(nl - inbuf + 1);
		discarding = false;
		reply("ERROR: command line longer than %d bytes\n", LINE_MAX_LEN);
	}
	len = nl - inbuf;
	if (len >= size)
		len = size - 1;
	memcpy(line, inbuf, len);
	line[len] = '\0';
	consume_input(nl - inbuf + 1);
	return true;
}

/* ---- staprun ----------------------------------------------------------- */

/*
 * stap's client reads the port's socket through stdio but waits for more
 * with poll(), and takes one "data" frame per wake-up: frames that arrived
 * together with the one it took (and "quit") sit in its FILE buffer until
 * more bytes come, or for ever at the end of a session.  Empty lines, which
 * it skips, are those bytes: a few after each burst of output, and after
 * "quit" until it hangs up.  Only once "run" was answered: before that the
 * client reads replies, and an empty line would be one.
 */
static void nudge(void)
{
	if (host_gone || !framed)
		return;
	/* never wait for room: a client that is not reading has bytes to come */
	if (write(fd_out, "\n", 1) < 0 && errno != EAGAIN && errno != EINTR)
		hang_up();
}

#define NUDGES		8	/* after each burst of output */
#define NUDGE_MS	25
static int nudges_left;

/* Forward what one of staprun's pipes holds; false once it is at its end. */
static bool forward(int i)
{
	static const char *const stream[2] = { "stdout", "stderr" };
	char buf[64 + 65536], *p = buf + 64;
	ssize_t n;
	int h;

	do
		n = read(pipes[i], p, sizeof(buf) - 64);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return true;
	if (n <= 0) {
		close(pipes[i]);
		pipes[i] = -1;
		return false;
	}
	if (framed) {
		char head[64];

		/* the frame in one write: fewer pieces for the client to join */
		h = snprintf(head, sizeof(head), "data %s %zd\n", stream[i], n);
		p -= h;
		memcpy(p, head, h);
		n += h;
	}
	write_all(p, n);
	nudges_left = NUDGES;
	return true;
}

/*
 * After staprun ended: what it left in the pipes.  Its -c workload may
 * have left a process behind that still writes; stop at the first moment
 * a pipe is empty, and after 10 s in any case.
 */
static void drain(void)
{
	time_t end = time(NULL) + 10;
	int i;

	for (i = 0; i < 2; i++)
		while (pipes[i] >= 0 && forward(i) && time(NULL) < end) {
			struct pollfd p = { .fd = pipes[i], .events = POLLIN };

			if (poll(&p, 1, 0) <= 0)
				break;
		}
}

static void reap(void)
{
	int status;

	if (child < 0 || waitpid(child, &status, WNOHANG) != child)
		return;
	child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	debug(1, "staprun exited with status %d", child_status);
	child = -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Normally called once staprun has ended (or never started). */
static void __attribute__((noreturn)) finish(int status)
{
	int i;

	if (child > 0) {
		/* an error of our own: do not leave it running */
		kill(child, SIGKILL);
		while (waitpid(child, &i, 0) < 0 && errno == EINTR)
			;
		child = -1;
	}
	drain();
	/* the module and whatever staprun wrote there (stap -o FILE) */
	if (tmpdir[0] && chdir("/") == 0)
		nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (framed && child_status >= 0) {
		reply("quit\n");
		/* until the client hung up, at most 30 s */
		for (i = 0; listening && !host_gone && i < 30000 / NUDGE_MS &&
			    host_connected(); i++) {
			nudge();
			usleep(NUDGE_MS * 1000);
		}
	} else if (framed) {
		reply("quit\n");
	}
	exit(child_status >= 0 ? child_status : status);
}

/* ---- commands ---------------------------------------------------------- */

static void cmd_hello(char *version)
{
	struct utsname u;

	/*
	 * Our protocol is the one of the systemtap installed with this
	 * program (the guest runs the host's root), so answer with the
	 * client's own version: it picks the features it knows we have.
	 */
	if (!version || uname(&u) < 0) {
		reply("ERROR: expected 'stap VERSION'\n");
		return;
	}
	reply("stapsh %s %s %s\n", version, u.machine, u.release);
}

static void cmd_option(char *name)
{
	if (name && strcmp(name, "data") == 0) {
		framed = true;
	} else if (name && strcmp(name, "verbose") == 0) {
		verbose++;
	} else {
		reply("ERROR: option '%s' is not supported by this stapsh\n",
		      name ? name : "");
		return;
	}
	reply("OK\n");
}

static bool good_name(const char *s)
{
	const char *p;

	if (!isalnum((unsigned char)*s) || strlen(s) > NAME_MAX)
		return false;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
			return false;
	return true;
}

/* Copy or skip SIZE bytes of the client's input; false at its end. */
static bool take_bytes(long size, int fd, bool *write_ok)
{
	while (size > 0) {
		size_t n;

		if (!inlen && (!wait_client(fd_in, POLLIN) || !fill_input()))
			return false;
		n = inlen < (size_t)size ? inlen : (size_t)size;
		if (fd >= 0 && *write_ok) {
			const char *p = inbuf;
			size_t left = n;

			while (left) {
				ssize_t w = write(fd, p, left);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					*write_ok = false;
					break;
				}
				p += w;
				left -= w;
			}
		}
		consume_input(n);
		size -= n;
	}
	return true;
}

static void cmd_file(char *size_s, char *name)
{
	bool write_ok = true;
	char *end;
	long size;
	int fd = -1;

	size = size_s ? strtol(size_s, &end, 10) : -1;
	if (!size_s || *end || size <= 0 || size > MAX_FILE) {
		/* the data cannot be skipped without a size: end the session */
		reply("ERROR: bad file size '%s'\n", size_s ? size_s : "");
		in_eof = true;
		fail_status = 2;
		return;
	}
	if (name && good_name(name) && child < 0 && nfiles < MAX_FILES)
		fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		nfiles++;
	else
		write_ok = false;
	if (!take_bytes(size, fd, &write_ok)) {
		if (fd >= 0)
			close(fd);
		in_eof = true;
		fail_status = 2;
		return;
	}
	if (fd >= 0 && close(fd) < 0)
		write_ok = false;
	if (!write_ok)
		reply("ERROR: cannot store file '%s'\n", name ? name : "");
	else
		reply("OK\n");
}

/* Decode quoted-printable in place (=XX is a byte); false if malformed. */
static bool qp_decode(char *s)
{
	char *o = s;

	while (*s) {
		char hex[3];
		char *end;

		if (*s != '=') {
			*o++ = *s++;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
			return false;
		hex[0] = s[1];
		hex[1] = s[2];
		hex[2] = '\0';
		*o++ = (char)strtoul(hex, &end, 16);
		s += 3;
	}
	*o = '\0';
	return true;
}

static void cmd_run(char *args)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	char *argv[MAX_ARGS + 1];
	int out[2], err[2], argc = 0, rc;
	char *tok;

	if (child > 0 || child_status >= 0) {
		reply("ERROR: staprun was already started\n");
		return;
	}
	argv[argc++] = (char *)staprun_path;
	for (tok = strtok(args, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
		if (argc == MAX_ARGS) {
			reply("ERROR: too many arguments\n");
			return;
		}
		if (!qp_decode(tok)) {
			reply("ERROR: bad quoted-printable in argument %d\n", argc);
			return;
		}
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	if (access(staprun_path, X_OK) < 0) {
		reply("ERROR: cannot execute %s: %s\n", staprun_path, strerror(errno));
		return;
	}
	if (pipe2(out, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	/*
	 * Not our blocked signals (SIGHUP is how "quit" reaches it), nor our
	 * ignored SIGPIPE, nor the SIGINT and SIGQUIT that guest-init's
	 * background job left ignored: the -c workload gets them too.
	 */
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGQUIT);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&child, staprun_path, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	if (rc) {
		close(out[0]);
		close(err[0]);
		child = -1;
		errno = rc;
		goto fail;
	}
	pipes[0] = out[0];
	pipes[1] = err[0];
	fcntl(pipes[0], F_SETFL, O_NONBLOCK);
	fcntl(pipes[1], F_SETFL, O_NONBLOCK);
	debug(1, "started %s, pid %d", staprun_path, child);
	reply("OK\n");
	return;
fail:
	reply("ERROR: cannot start %s: %s\n", staprun_path, strerror(errno));
}

/* The user's Ctrl-C, or the client or us going away: ask staprun to stop. */
static void interrupt(void)
{
	interrupted = true;
	if (child > 0) {
		debug(1, "interrupting staprun");
		kill(child, SIGHUP);
	} else {
		finish(fail_status);
	}
}

static void command(char *line)
{
	static bool greeted;
	char *verb = strtok(line, " \t\r");
	char *rest = strtok(NULL, "");
	char *a1, *a2;

	if (!verb)
		return;
	/* a port keeps what an earlier client left unread: skip to "stap" */
	if (!greeted && listening && strcmp(verb, "stap") != 0)
		return;
	greeted = true;
	if (strcmp(verb, "run") == 0) {
		cmd_run(rest ? rest : (char *)"");
		return;
	}
	a1 = rest ? strtok(rest, " \t\r") : NULL;
	a2 = a1 ? strtok(NULL, " \t\r") : NULL;
	if (strcmp(verb, "stap") == 0)
		cmd_hello(a1);
	else if (strcmp(verb, "option") == 0)
		cmd_option(a1);
	else if (strcmp(verb, "file") == 0)
		cmd_file(a1, a2);
	else if (strcmp(verb, "quit") == 0)
		interrupt();
	else
		debug(1, "unknown command '%s'", verb);
}

/* ---- set-up and the loop ----------------------------------------------- */

static bool in_guest(void)
{
	char buf[4096], *tok, *save;
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, "mmfi.guest=1") == 0)
			return true;
	return false;
}

static void __attribute__((noreturn)) usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "stapsh: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nUsage: stapsh [-v] [-l PORT] [-S STAPRUN]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *port = NULL;
	sigset_t sigs;
	int opt;

	opterr = 0;
	while ((opt = getopt(argc, argv, "+:vl:S:h")) != -1) {
		switch (opt) {
		case 'v':
			verbose++;
			break;
		case 'l':
			port = optarg;
			break;
		case 'S':
			staprun_path = optarg;
			break;
		case 'h':
			printf("Usage: stapsh [-v] [-l PORT] [-S STAPRUN]\n"
			       "The guest end of stap --remote (see qemu/stapsh.c).\n");
			return 0;
		case ':':
			usage_error("option -%s needs an argument", (char[]){ (char)optopt, 0 });
			break;
		default:
			usage_error("unknown option -%s", (char[]){ (char)optopt, 0 });
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!in_guest()) {
		fprintf(stderr, "stapsh: not in an mmfi guest (no mmfi.guest=1 on the "
			"kernel command line): it loads kernel modules, so it runs only "
			"in the guest\n");
		return 2;
	}

	/* signals arrive through sigfd; the port's SIGIO says the host came */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGIO);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		perror("stapsh: signalfd");
		return 1;
	}
	if (port) {
		fd_in = fd_out = open(port, O_RDWR | O_CLOEXEC);
		if (fd_in < 0) {
			fprintf(stderr, "stapsh: cannot open %s: %s\n", port, strerror(errno));
			return 1;
		}
		listening = true;
		fcntl(fd_in, F_SETOWN, getpid());
		fcntl(fd_in, F_SETFL, fcntl(fd_in, F_GETFL) | O_ASYNC);
	}
	/* see wait_client() */
	fcntl(fd_in, F_SETFL, fcntl(fd_in, F_GETFL) | O_NONBLOCK);
	fcntl(fd_out, F_SETFL, fcntl(fd_out, F_GETFL) | O_NONBLOCK);

	umask(077);
	snprintf(tmpdir, sizeof(tmpdir), "%s/stapsh.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir) || chdir(tmpdir) < 0) {
		fprintf(stderr, "stapsh: cannot make a directory %s: %s\n", tmpdir,
			strerror(errno));
		return 1;
	}

	/* until a client opens the port, reads would see its end */
	while (listening && !host_connected()) {
		struct pollfd p = { .fd = sigfd, .events = POLLIN };
		struct signalfd_siginfo si;

		poll(&p, 1, 2000);
		while (read(sigfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGIO && si.ssi_signo != SIGCHLD)
				finish(0);
	}

	for (;;) {
		struct pollfd p[4] = {
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = in_eof || host_gone ? -1 : fd_in, .events = POLLIN },
			{ .fd = pipes[0], .events = POLLIN },
			{ .fd = pipes[1], .events = POLLIN },
		};
		struct signalfd_siginfo si;
		char line[LINE_MAX_LEN];
		int i;

		i = poll(p, 4, nudges_left > 0 ? NUDGE_MS : -1);
		if (i < 0) {
			if (errno == EINTR)
				continue;
			perror("stapsh: poll");
			finish(1);
		}
		if (i == 0 && nudges_left > 0) {
			nudges_left--;
			nudge();
			continue;
		}
		while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				reap();
			else if (si.ssi_signo != SIGIO)
				interrupt();
		}
		for (i = 0; i < 2; i++)
			if (p[2 + i].revents)
				forward(i);
		if (p[1].revents & POLLIN)
			fill_input();
		else if (p[1].revents & (POLLHUP | POLLERR))
			in_eof = true;
		while (!fail_status && take_line(line, sizeof(line)))
			command(line);
		if (in_eof && listening)
			host_gone = true;	/* a closed port: nobody to tell */
		if ((in_eof || host_gone) && !interrupted)
			interrupt();		/* the client left: stop the script */
		if (child < 0 && child_status >= 0)
			finish(child_status);
	}
}
