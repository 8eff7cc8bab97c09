/* SPDX-License-Identifier: MIT */
/*
 * uevent: the kernel's uevents, read from a NETLINK_KOBJECT_UEVENT socket (no udev needed):
 * a block device added, removed or changed (a card reader's medium, a loop device's file)
 * tells a station to look at the disks again (flash_priv.h). Each message is
 * "ACTION@DEVPATH" then KEY=VALUE strings, each ended by a NUL.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mkimage/flash/flash_priv.h"

#define KERNEL_GROUP 1 /* the kernel's own messages; udev's go to another group */

int flash_uevent_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = KERNEL_GROUP };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);
	int size = 1 << 20;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* The value of KEY in the message's KEY=VALUE strings (each ended by a NUL within @len),
 * or NULL. */
static const char *value(const char *buf, size_t len, const char *key)
{
	size_t klen = strlen(key);

	for (size_t i = strnlen(buf, len) + 1; i < len;) {
		size_t l = strnlen(buf + i, len - i);
		if (l == len - i) /* not ended within the message */
			return NULL;
		if (l > klen && memcmp(buf + i, key, klen) == 0 && buf[i + klen] == '=')
			return buf + i + klen + 1;
		i += l + 1;
	}
	return NULL;
}

int flash_uevent_parse(const char *buf, size_t len, struct flash_uevent *ev)
{
	const char *action, *subsystem, *devtype, *devname, *major, *minor;

	memset(ev, 0, sizeof(*ev));
	if (len == 0 || !memchr(buf, '\0', len) || !strchr(buf, '@'))
		return 0; /* not a kernel message (udev's begin with "libudev") */
	action = value(buf, len, "ACTION");
	subsystem = value(buf, len, "SUBSYSTEM");
	devtype = value(buf, len, "DEVTYPE");
	devname = value(buf, len, "DEVNAME");
	major = value(buf, len, "MAJOR");
	minor = value(buf, len, "MINOR");
	if (!action || !subsystem || strcmp(subsystem, "block") != 0 || !devtype ||
	    strcmp(devtype, "disk") != 0 || !devname || !major || !minor)
		return 0;
	if (strlen(action) >= sizeof(ev->action) || strlen(devname) >= sizeof(ev->name) ||
	    sscanf(major, "%u", &ev->major) != 1 || sscanf(minor, "%u", &ev->minor) != 1)
		return 0;
	snprintf(ev->action, sizeof(ev->action), "%s", action);
	snprintf(ev->name, sizeof(ev->name), "%s", devname);
	return 1;
}

int flash_uevent_drain(int fd)
{
	char buf[8192];
	int disks = 0;

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr m = { .msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1 };
		struct flash_uevent ev;
		ssize_t n = recvmsg(fd, &m, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) /* events were lost: look at everything again */
			return disks + 1;
		if (n < 0)
			return errno == EAGAIN ? disks : -errno;
		buf[n] = '\0';
		if (from.nl_pid == 0 && flash_uevent_parse(buf, (size_t)n, &ev))
			disks++;
	}
}
