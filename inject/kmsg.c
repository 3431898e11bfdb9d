// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg.c: did the kernel complain while a command ran?
 *
 * /dev/kmsg gives one record per read(); opened O_NONBLOCK and moved to
 * the end before the run, it returns exactly the records logged after
 * that point, and EAGAIN once they are all read.
 *
 * Library-like: returns -1 with errno set, never prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

/* What an MM developer wants to hear about: the start of a report. */
static const char *const problems[] = {
	"WARNING:", "BUG:", "Oops", "KASAN", "kernel BUG at",
	"general protection fault", "UBSAN:", "list_add corruption",
	"list_del corruption", "Kernel panic", "INFO: task", "rcu: INFO",
	NULL,
};

/**
 * kmsg_open_at_end() - open /dev/kmsg positioned after the last record
 *
 * Return: the file descriptor, or -1 with errno set.
 */
int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/**
 * kmsg_matching() - read the new records and pick out some messages
 * @fd: from kmsg_open_at_end()
 * @wanted: NULL-terminated; a message is picked if it contains one of them,
 *	or, with @at_start, if it starts with one of them
 * @at_start: see @wanted
 * @lines: set to a malloc()ed array of malloc()ed messages
 * @nr: set to their number
 *
 * Return: 0, or -1 with errno set.
 */
int kmsg_matching(int fd, const char *const *wanted, bool at_start, char ***lines, int *nr)
{
	char rec[8192];
	char **out = NULL;
	int n = 0, i;
	ssize_t len;

	*lines = NULL;
	*nr = 0;
	for (;;) {
		char *msg, *end;

		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (len < 0 && errno == EAGAIN)
			break;
		if (len < 0)
			goto fail;
		if (len == 0)
			break;
		rec[len] = '\0';
		/* "prio,seq,usec,flags;message\n continuation..." */
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		for (i = 0; wanted[i]; i++)
			if (at_start ? !strncmp(msg, wanted[i], strlen(wanted[i])) :
			    !!strstr(msg, wanted[i]))
				break;
		if (!wanted[i])
			continue;
		{
			char **p = realloc(out, (n + 1) * sizeof(*out));

			if (!p)
				goto fail;
			out = p;
			out[n] = strdup(msg);
			if (!out[n])
				goto fail;
			n++;
		}
	}
	*lines = out;
	*nr = n;
	return 0;
fail:
	{
		int err = errno;

		for (i = 0; i < n; i++)
			free(out[i]);
		free(out);
		errno = err;
	}
	return -1;
}

/**
 * kmsg_problems() - read the new records and pick out kernel reports
 * @fd: from kmsg_open_at_end()
 * @lines: set to a malloc()ed array of malloc()ed messages
 * @nr: set to their number
 *
 * Return: 0, or -1 with errno set.
 */
int kmsg_problems(int fd, char ***lines, int *nr)
{
	return kmsg_matching(fd, problems, false, lines, nr);
}
