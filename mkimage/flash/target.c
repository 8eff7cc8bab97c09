/* SPDX-License-Identifier: MIT */
/*
 * target: what a target is and whether it may be written.
 *
 * The rules, gravest first, so that the reason given is the one that matters most:
 *   refused     in use (holds /, mounted, swap, held), no medium, read-only, too small
 *   --allow-fixed only
 *               a partition, a loop device, eMMC, a disk that is neither removable,
 *               hot-pluggable, USB nor SD (an internal SATA or NVMe disk)
 *   accepted    a whole removable, hot-pluggable, USB or SD disk that is not in use
 * A USB or SD disk is accepted even when the kernel calls its media fixed: card readers
 * and SD hosts often do (measured: built-in SD slots report removable 0).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "mkimage/flash/flash_priv.h"

const char *flash_verdict_name(enum flash_verdict v)
{
	switch (v) {
	case FLASH_ACCEPT:
		return "accept";
	case FLASH_NEEDS_ALLOW_FIXED:
		return "needs --allow-fixed";
	case FLASH_REFUSE:
		break;
	}
	return "refuse";
}

/* snprintf for reasons: one cut at the end of its buffer still says what matters first. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

/* " (MODEL, serial SERIAL)", or less when they are unknown. */
static void identity(const struct flash_target *t, char *buf, size_t n)
{
	if (t->model[0] && t->serial[0])
		say(buf, n, " (%s, serial %s)", t->model, t->serial);
	else if (t->model[0] || t->serial[0])
		say(buf, n, " (%s%s)", t->model[0] ? "" : "serial ",
		    t->model[0] ? t->model : t->serial);
	else
		buf[0] = '\0';
}

/* Why the target cannot be written at all, into @why; false when it can. */
static bool refused(const struct flash_target *t, uint64_t image_size, char *why, size_t n)
{
	char has[32], needs[32];

	if (t->size == 0) {
		say(why, n, "%s is empty (size 0): no card in the reader, or nothing attached",
		    t->name);
		return true;
	}
	if (t->read_only) {
		say(why, n, "%s is read-only (a card's lock switch, or the kernel's ro flag)",
		    t->name);
		return true;
	}
	if (t->size < image_size) {
		units_human(t->size, has, sizeof(has));
		units_human(image_size, needs, sizeof(needs));
		say(why, n,
		    "%s is too small: it holds %s (%llu bytes), the image needs %s (%llu bytes)",
		    t->name, has, (unsigned long long)t->size, needs,
		    (unsigned long long)image_size);
		return true;
	}
	return false;
}

/* Why the target needs --allow-fixed, into @why; false when it does not. */
static bool fixed(const struct flash_disk *k, const struct flash_target *t, char *why, size_t n)
{
	char id[160], backing[160];

	identity(t, id, sizeof(id));
	if (t->partition) {
		say(why, n, "%s is a partition of %s, not a whole disk", t->name, k->v[0].name);
	} else if (t->loop) {
		if (flash_attr(k->disk_dir, "loop/backing_file", backing, sizeof(backing)) < 0)
			snprintf(backing, sizeof(backing), "no file");
		say(why, n, "%s is a loop device (over %s), not a card", t->name, backing);
	} else if (t->emmc) {
		say(why, n, "%s is eMMC soldered to the board%s, not a card", t->name, id);
	} else if (!t->removable && !t->hotplug && !t->usb && !t->sd) {
		say(why, n, "%s is a fixed disk%s: neither removable, hot-pluggable, USB nor SD",
		    t->name, id);
	} else {
		return false;
	}
	return true;
}

/* What kind of card or disk an accepted target is, into @why. */
static void accepted(const struct flash_target *t, char *why, size_t n)
{
	char id[160], kind[64];

	identity(t, id, sizeof(id));
	if (t->sd)
		snprintf(kind, sizeof(kind), "an SD card in an SD slot");
	else if (t->usb && t->usb_port[0])
		snprintf(kind, sizeof(kind), "a USB disk at port %s", t->usb_port);
	else if (t->usb)
		snprintf(kind, sizeof(kind), "a USB disk");
	else if (t->removable)
		snprintf(kind, sizeof(kind), "a removable disk");
	else
		snprintf(kind, sizeof(kind), "a hot-pluggable disk");
	say(why, n, "%s is %s%s, not in use", t->name, kind, id);
}

int flash_classify(const struct flash_roots *r, unsigned major, unsigned minor, dev_t root_dev,
		   uint64_t image_size, bool allow_fixed, struct flash_target *t, struct diag *d)
{
	struct flash_disk k = { 0 };
	char why[sizeof(t->why)];

	memset(t, 0, sizeof(*t));
	t->verdict = FLASH_REFUSE; /* whatever happens below, an unchecked target is refused */
	int rc = flash_locate(r, major, minor, &k, t, d);
	if (rc < 0)
		goto out;
	t->disk_major = k.v[0].major;
	t->disk_minor = k.v[0].minor;
	flash_hardware(&k, t);
	rc = flash_in_use(r, &k, t, root_dev, t->why, sizeof(t->why), d);
	if (rc < 0) {
		say(t->why, sizeof(t->why), "whether %s is in use cannot be told", t->name);
		goto out;
	}
	if (rc > 0 || refused(t, image_size, t->why, sizeof(t->why))) {
		t->verdict = FLASH_REFUSE;
	} else if (fixed(&k, t, why, sizeof(why))) {
		t->verdict = allow_fixed ? FLASH_ACCEPT : FLASH_NEEDS_ALLOW_FIXED;
		say(t->why, sizeof(t->why),
		    allow_fixed ? "%s; written as --allow-fixed asks"
				: "%s; --allow-fixed writes it anyway",
		    why);
	} else {
		t->verdict = FLASH_ACCEPT;
		accepted(t, t->why, sizeof(t->why));
	}
	rc = 0;
out:
	flash_disk_release(&k);
	return rc;
}
