/* SPDX-License-Identifier: MIT */
/*
 * hardware: what the kernel says of the hardware under a disk: removable media, a
 * hot-pluggable port, USB, an SD card or eMMC, model, serial and USB port. All of it is
 * read by walking up the device tree from the disk's sysfs folder; udev's database is not
 * used (it is not always there, and sysfs is what it reads too).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mkimage/flash/flash_priv.h"

/* The last component of the target of DIR/LINK ("usb" for DIR/subsystem -> .../bus/usb). */
static bool link_is(const char *dir, const char *link, const char *want)
{
	char path[PATH_MAX], target[PATH_MAX];

	if (flash_path(path, sizeof(path), dir, link) < 0)
		return false;
	ssize_t len = readlink(path, target, sizeof(target) - 1);
	if (len <= 0)
		return false;
	target[len] = '\0';
	const char *base = strrchr(target, '/');
	return strcmp(base ? base + 1 : target, want) == 0;
}

/* A USB device (such as "1-2.3"), not a root hub ("usb1") nor an interface ("1-2.3:1.0"). */
static bool is_usb_device(const char *dir, const char *name)
{
	return strncmp(name, "usb", 3) != 0 && !strchr(name, ':') &&
	       link_is(dir, "subsystem", "usb");
}

/*
 * Walks up the device tree from the disk to SYS/devices. Two kinds of `removable` file
 * answer two questions: the block device's ("0"/"1": removable media, the nearest one
 * decides) and a device's ("removable"/"fixed": the platform's word on the port it sits
 * on, the nearest one that knows decides hot-plugging, as lsblk's HOTPLUG does).
 */
static void walk_up(const struct flash_disk *k, struct flash_target *t, char *usb_dir, size_t n)
{
	char dir[PATH_MAX], v[16], controller[64] = "";
	bool removable_known = false, hotplug_known = false;
	size_t stop = strlen(k->sys) + strlen("/devices");

	snprintf(dir, sizeof(dir), "%s", k->disk_dir);
	for (; strlen(dir) > stop; *strrchr(dir, '/') = '\0') {
		const char *name = strrchr(dir, '/') + 1;
		if (flash_attr(dir, "removable", v, sizeof(v)) == 0) {
			if (!removable_known && (!strcmp(v, "0") || !strcmp(v, "1"))) {
				removable_known = true;
				t->removable = !strcmp(v, "1");
			} else if (!hotplug_known &&
				   (!strcmp(v, "removable") || !strcmp(v, "fixed"))) {
				hotplug_known = true;
				t->hotplug = !strcmp(v, "removable");
			}
		}
		if (link_is(dir, "subsystem", "usb"))
			t->usb = true;
		/* the nearest USB device is the reader itself; above it are hubs */
		if (!t->usb_port[0] && is_usb_device(dir, name) &&
		    strlen(name) < sizeof(t->usb_port)) {
			snprintf(t->usb_port, sizeof(t->usb_port), "%s", name);
			snprintf(usb_dir, n, "%s", dir);
		}
		/* the nearest PCI or platform device is the controller: USB, SD host, SATA */
		if (!controller[0] && strlen(name) < 48 &&
		    (link_is(dir, "subsystem", "pci") || link_is(dir, "subsystem", "platform")))
			snprintf(controller, sizeof(controller), "%s-%s",
				 link_is(dir, "subsystem", "pci") ? "pci" : "platform", name);
	}
	if (controller[0])
		snprintf(t->location, sizeof(t->location), "%s%s%s", controller,
			 t->usb_port[0] ? "-usb-" : "", t->usb_port);
}

/* The first of DIR/ATTR... that is present and not empty, into @buf (@n bytes). */
static void first_attr(char *buf, size_t n, const char *dir, const char *const *attrs)
{
	buf[0] = '\0';
	if (!dir[0])
		return;
	for (; *attrs && !buf[0]; attrs++)
		flash_attr(dir, *attrs, buf, n);
}

void flash_hardware(const struct flash_disk *k, struct flash_target *t)
{
	const char *disk = k->v[0].name;
	char device[PATH_MAX], usb_dir[PATH_MAX] = "", type[16];

	walk_up(k, t, usb_dir, sizeof(usb_dir));
	t->loop = strncmp(disk, "loop", 4) == 0;
	if (flash_path(device, sizeof(device), k->disk_dir, "device") < 0)
		device[0] = '\0';
	/* an MMC host's card says what it is: "SD", "SDcombo" (SD with SDIO), "MMC" (eMMC) */
	if (strncmp(disk, "mmcblk", 6) == 0 && device[0] &&
	    flash_attr(device, "type", type, sizeof(type)) == 0) {
		t->sd = strcmp(type, "SD") == 0 || strcmp(type, "SDcombo") == 0;
		t->emmc = strcmp(type, "MMC") == 0;
	}
	/* SCSI and NVMe say `model`, MMC cards `name`; a USB reader's serial is the reader's */
	first_attr(t->model, sizeof(t->model), device,
		   (const char *const[]){ "model", "name", NULL });
	if (!t->model[0])
		first_attr(t->model, sizeof(t->model), usb_dir,
			   (const char *const[]){ "product", NULL });
	first_attr(t->serial, sizeof(t->serial), device, (const char *const[]){ "serial", NULL });
	if (!t->serial[0])
		first_attr(t->serial, sizeof(t->serial), k->disk_dir,
			   (const char *const[]){ "serial", NULL });
	if (!t->serial[0])
		first_attr(t->serial, sizeof(t->serial), usb_dir,
			   (const char *const[]){ "serial", NULL });
}
