// SPDX-License-Identifier: GPL-2.0
/*
 * qemu/init1.c: the guest's first stage, /init of the initramfs.
 *
 * Mounts the host's / (virtio-9p, read-only) under a tmpfs overlay, and in
 * it the file systems stage 2 and the tools expect (proc, sysfs, devtmpfs,
 * devpts, /dev/shm, debugfs, tracefs, a tmpfs /run, the control share at
 * /run/mmfi, the out share at /out, the guest kernel's modules at
 * /lib/modules), then makes the overlay the root and executes the stage 2
 * named by mmfi.init= on the kernel command line (qemu/guest-init).
 *
 * A static program rather than a busybox script: under TCG every exec
 * costs tens of milliseconds, and a script doing this took about half a
 * second of each boot.  Any failure is logged to the console and reboots,
 * which makes QEMU (-no-reboot) exit; qemu/run then keeps the console log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEWROOT	"/newroot"
#define CTL	"/run/mmfi"
#define P9OPTS	"trans=virtio,version=9p2000.L,msize=512000"

static const char prog[] = "mmfi-init1";

static void say(const char *fmt, va_list ap, const char *err)
{
	char msg[512];
	bool ok = false;
	size_t n;
	int fd;

	n = snprintf(msg, sizeof(msg), "%s: ", prog);
	n += vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	if (err && n < sizeof(msg))
		n += snprintf(msg + n, sizeof(msg) - n, ": %s", err);
	if (n > sizeof(msg) - 2)
		n = sizeof(msg) - 2;
	msg[n++] = '\n';
	/* one write() is one record for /dev/kmsg */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		ok = write(fd, msg, n) == (ssize_t)n;
		close(fd);
	}
	/* and the console, in case /dev/kmsg is not there or failed */
	if (write(2, msg, n) < 0 && !ok)
		abort();	/* nowhere to say it: the kernel will */
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap, err ? strerror(err) : NULL);
	va_end(ap);
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap, strerror(err));
	va_end(ap);
}

static void mkdirs(const char *path)
{
	char buf[256];
	size_t i, len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		fail("mkdir %s", path);
	}
	memcpy(buf, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			fail("mkdir %s", buf);
		buf[i] = path[i];
	}
}

static void do_mount(const char *src, const char *dir, const char *type,
		     unsigned long flags, const char *opts)
{
	mkdirs(dir);
	errno = 0;
	if (mount(src, dir, type, flags, opts))
		fail("cannot mount %s (%s) on %s", src, type ? type : "bind", dir);
}

/* The value of @key (e.g. "mmfi.init=") on the kernel command line. */
static char *cmdline_arg(const char *key)
{
	static char line[4096];
	char *tok, *save, *val = NULL;
	ssize_t n;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot read /proc/cmdline");
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 0)
		fail("cannot read /proc/cmdline");
	line[n] = '\0';
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strncmp(tok, key, strlen(key)))
			val = tok + strlen(key);	/* the last one counts */
	return val;
}

/* The first line of @path, without its newline, or NULL. */
static char *read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	char *ret = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	char mods[4096], *stage2;
	struct stat st;

	(void)argc;
	if (getpid() != 1) {
		fprintf(stderr, "%s: this is the guest kernel's /init (pid 1), not a command\n",
			argv[0]);
		return 2;
	}

	do_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	do_mount("proc", "/proc", "proc", 0, NULL);
	stage2 = cmdline_arg("mmfi.init=");
	if (!stage2 || !*stage2) {
		errno = 0;
		fail("no mmfi.init= on the kernel command line");
	}
	stage2 = strdup(stage2);
	if (!stage2 || umount("/proc"))
		fail("cannot set up stage 2");

	/*
	 * The host's root, read-only, under a tmpfs overlay, becomes /.
	 * cache=none: with cache=mmap (mapped files read ahead, the first
	 * bash twice as fast) page-history.stp lost the end of its output
	 * in CI; see qemu/README.md.
	 */
	do_mount("hostroot", "/lower", "9p", MS_RDONLY, P9OPTS ",ro");
	do_mount("rw", "/rw", "tmpfs", 0, "mode=0755");
	mkdirs("/rw/upper");
	mkdirs("/rw/work");
	do_mount("overlay", NEWROOT, "overlay", 0,
		 "lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work");
	do_mount("/dev", NEWROOT "/dev", NULL, MS_MOVE, NULL);
	unlink("/init");	/* the initramfs keeps nothing else */
	if (chdir(NEWROOT) || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") ||
	    chdir("/"))
		fail("cannot switch to the new root");

	/* what stage 2 and the tools use */
	do_mount("proc", "/proc", "proc", 0, NULL);
	do_mount("sysfs", "/sys", "sysfs", 0, NULL);
	do_mount("devpts", "/dev/pts", "devpts", 0, "gid=5,mode=620,ptmxmode=666");
	do_mount("shm", "/dev/shm", "tmpfs", 0, "mode=1777");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	do_mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	/* the host's /run means nothing here */
	do_mount("run", "/run", "tmpfs", 0, "mode=0755");
	do_mount("ctl", CTL, "9p", 0, P9OPTS);
	do_mount("out", "/out", "9p", 0, P9OPTS);
	/* the guest kernel's modules, so that modprobe finds them */
	if (read_line(CTL "/modules", mods, sizeof(mods)) && *mods) {
		if (!stat(mods, &st) && S_ISDIR(st.st_mode))
			do_mount(mods, "/lib/modules", NULL, MS_BIND, NULL);
		else
			note("no modules directory %s", mods);
	}
	if ((unlink("/dev/fd") && errno != ENOENT) || symlink("/proc/self/fd", "/dev/fd"))
		note("cannot link /dev/fd");
	if (sethostname("mmfi-guest", strlen("mmfi-guest")))
		note("sethostname");

	execl(stage2, stage2, (char *)NULL);
	fail("cannot execute %s", stage2);
}
