/* SPDX-License-Identifier: MIT */
/* slot: where a disk sits, and whether a station's --match names it (flash_priv.h). */
#include <fnmatch.h>
#include <stdio.h>

#include "mkimage/flash/flash_priv.h"

const char *flash_slot_name(const struct flash_target *t)
{
	return t->usb_port[0] ? t->usb_port : t->location[0] ? t->location : t->name;
}

bool flash_slot_matches(const char *const *patterns, size_t n, const struct flash_target *t)
{
	char dev[48];

	snprintf(dev, sizeof(dev), "/dev/%s", t->name);
	for (size_t i = 0; i < n; i++) {
		const char *p = patterns[i];
		if ((t->location[0] && fnmatch(p, t->location, 0) == 0) ||
		    (t->usb_port[0] && fnmatch(p, t->usb_port, 0) == 0) ||
		    fnmatch(p, t->name, 0) == 0 || fnmatch(p, dev, FNM_PATHNAME) == 0)
			return true;
	}
	return false;
}
