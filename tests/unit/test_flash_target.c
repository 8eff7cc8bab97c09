/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the flash target classifier on fake /sys and /proc trees built here (laid
 * out as this kernel lays them out), and on the real ones for a loop device when losetup
 * can make one; what a station sees in them (disks, slots, --match) and in the kernel's
 * uevents.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "mkimage/flash/flash.h"
#include "mkimage/flash/flash_priv.h"

#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)

/* The root file system of the machine the fake trees describe: vda (254:0), no fake disk. */
#define OTHER_ROOT makedev(254, 0)

/* A fake machine: ROOT/sys and ROOT/proc, each test with its own ROOT. */
struct fake {
	char sys[256], proc[256];
	struct flash_roots r;
};

/* mkdir -p of the folder part of @path (everything before the last '/'). */
static void make_parents(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_true(mkdir(buf, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	make_parents(path);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void putf(const char *root, const char *rel, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	put(root, rel, text);
}

static void mkdir_in(const char *root, const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/", root, rel);
	make_parents(path);
}

/* ROOT/FROM -> ROOT/TO as sysfs makes them: a relative link ("../../devices/..."). */
static void link_in(const char *root, const char *from, const char *to)
{
	char path[1024], target[1024] = "";

	snprintf(path, sizeof(path), "%s/%s", root, from);
	make_parents(path);
	for (const char *p = from; (p = strchr(p, '/')); p++)
		strcat(target, "../");
	strcat(target, to);
	assert_int_equal(symlink(target, path), 0);
}

static void fake_init(struct fake *f, const char *root)
{
	snprintf(f->sys, sizeof(f->sys), "%s/sys", root);
	snprintf(f->proc, sizeof(f->proc), "%s/proc", root);
	f->r.sys = f->sys;
	f->r.proc = f->proc;
	put(f->proc, "self/mountinfo",
	    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	    "29 27 0:45 / /home rw,relatime shared:5 - btrfs /dev/vda2 rw\n");
	put(f->proc, "swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	mkdir_in(f->sys, "bus/usb");
	mkdir_in(f->sys, "bus/scsi");
	mkdir_in(f->sys, "bus/mmc");
	mkdir_in(f->sys, "bus/pci");
}

/* A block device at SYS/devices/DEVPATH: its attributes, holders/, and the class/block
 * and dev/block links. @removable < 0: none (partitions have none); @part: its number. */
static void add_block(struct fake *f, const char *devpath, unsigned maj, unsigned min,
		      uint64_t sectors, int removable, int part)
{
	char dir[512], rel[600], link[600];
	const char *name = strrchr(devpath, '/') + 1;

	snprintf(dir, sizeof(dir), "devices/%s", devpath);
	snprintf(rel, sizeof(rel), "%s/dev", dir);
	putf(f->sys, rel, "%u:%u\n", maj, min);
	snprintf(rel, sizeof(rel), "%s/size", dir);
	putf(f->sys, rel, "%llu\n", (unsigned long long)sectors);
	snprintf(rel, sizeof(rel), "%s/ro", dir);
	put(f->sys, rel, "0\n");
	if (removable >= 0) {
		snprintf(rel, sizeof(rel), "%s/removable", dir);
		putf(f->sys, rel, "%d\n", removable);
	}
	if (part > 0) {
		snprintf(rel, sizeof(rel), "%s/partition", dir);
		putf(f->sys, rel, "%d\n", part);
	}
	snprintf(rel, sizeof(rel), "%s/holders", dir);
	mkdir_in(f->sys, rel);
	snprintf(link, sizeof(link), "class/block/%s", name);
	link_in(f->sys, link, dir);
	snprintf(link, sizeof(link), "dev/block/%u:%u", maj, min);
	link_in(f->sys, link, dir);
}

static void set_attr(struct fake *f, const char *devpath, const char *attr, const char *text)
{
	char rel[600];

	snprintf(rel, sizeof(rel), "devices/%s/%s", devpath, attr);
	put(f->sys, rel, text);
}

static void subsystem(struct fake *f, const char *devpath, const char *bus)
{
	char from[600], to[64];

	snprintf(from, sizeof(from), "devices/%s/subsystem", devpath);
	snprintf(to, sizeof(to), "bus/%s", bus);
	link_in(f->sys, from, to);
}

#define PCI_USB "pci0000:00/0000:00:14.0"
#define HUB PCI_USB "/usb1/1-2"
#define READER HUB "/1-2.3"
#define SCSI READER "/1-2.3:1.0/host6/target6:0:0/6:0:0:0"
#define SDB SCSI "/block/sdb"

/* A USB card reader on port 1-2.3 (behind hub 1-2) holding a 16 GiB card, sdb with
 * partitions sdb1 (8:17) and sdb2 (8:18). */
static void usb_reader(struct fake *f, const char *root)
{
	fake_init(f, root);
	add_block(f, SDB, 8, 16, 16 * GiB / 512, 1, 0);
	add_block(f, SDB "/sdb1", 8, 17, 512 * MiB / 512, -1, 1);
	add_block(f, SDB "/sdb2", 8, 18, 8 * GiB / 512, -1, 2);
	subsystem(f, PCI_USB, "pci");
	subsystem(f, PCI_USB "/usb1", "usb");
	subsystem(f, HUB, "usb");
	subsystem(f, READER, "usb");
	subsystem(f, READER "/1-2.3:1.0", "usb");
	subsystem(f, SCSI, "scsi");
	set_attr(f, HUB, "removable", "fixed\n");        /* a hub built into the laptop */
	set_attr(f, READER, "removable", "removable\n"); /* the reader on an outer port */
	set_attr(f, READER, "serial", "000000001536\n");
	set_attr(f, READER, "product", "USB3.0 Card Reader\n");
	set_attr(f, SCSI, "model", "SD/MMC          \n"); /* SCSI pads with spaces */
	set_attr(f, SCSI, "vendor", "Generic-\n");
	link_in(f->sys, "devices/" SDB "/device", "devices/" SCSI);
}

static int classify(const struct fake *f, unsigned maj, unsigned min, dev_t root, uint64_t image,
		    bool allow_fixed, struct flash_target *t)
{
	struct diag d;

	diag_init(&d);
	int rc = flash_classify(&f->r, maj, min, root, image, allow_fixed, t, &d);
	if (rc < 0) {
		assert_true(d.errors > 0);
		fprintf(stderr, "classify %u:%u: %s\n", maj, min, d.msgs[0].text);
	}
	diag_release(&d);
	return rc;
}

static void expect(const struct flash_target *t, enum flash_verdict v, const char *why)
{
	if (t->verdict != v || !strstr(t->why, why))
		fail_msg("%s: %s (%s), expected %s with '%s'", t->name,
			 flash_verdict_name(t->verdict), t->why, flash_verdict_name(v), why);
}

static void test_usb_reader_accepted(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "reader");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, false, &t), 0);
	assert_string_equal(t.name, "sdb");
	assert_int_equal(t.major, 8);
	assert_int_equal(t.minor, 16);
	assert_true(t.size == 16 * GiB);
	assert_true(t.removable && t.hotplug && t.usb);
	assert_false(t.sd || t.emmc || t.partition || t.loop || t.read_only);
	assert_string_equal(t.model, "SD/MMC");
	assert_string_equal(t.serial, "000000001536");
	assert_string_equal(t.usb_port, "1-2.3");
	expect(&t, FLASH_ACCEPT,
	       "sdb is a USB disk at port 1-2.3 (SD/MMC, serial 000000001536), not in use");
}

#define SD_HOST "platform/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa"
#define EMMC_HOST "platform/fe330000.mmc/mmc_host/mmc1/mmc1:0001"

static void test_builtin_sd_slot_accepted(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	fake_init(&f, "sdslot");
	add_block(&f, SD_HOST "/block/mmcblk0", 179, 0, 32 * GiB / 512, 0, 0);
	subsystem(&f, SD_HOST, "mmc");
	set_attr(&f, SD_HOST, "type", "SD\n");
	set_attr(&f, SD_HOST, "name", "SD32G\n");
	set_attr(&f, SD_HOST, "serial", "0x1234abcd\n");
	link_in(f.sys, "devices/" SD_HOST "/block/mmcblk0/device", "devices/" SD_HOST);
	assert_int_equal(classify(&f, 179, 0, OTHER_ROOT, 2 * GiB, false, &t), 0);
	assert_true(t.sd);
	assert_false(t.removable || t.hotplug || t.usb || t.emmc);
	assert_string_equal(t.model, "SD32G");
	assert_string_equal(t.serial, "0x1234abcd");
	assert_string_equal(t.usb_port, "");
	expect(&t, FLASH_ACCEPT, "mmcblk0 is an SD card in an SD slot (SD32G, serial 0x1234abcd)");
}

static void test_emmc_needs_allow_fixed(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	fake_init(&f, "emmc");
	add_block(&f, EMMC_HOST "/block/mmcblk1", 179, 32, 16 * GiB / 512, 0, 0);
	subsystem(&f, EMMC_HOST, "mmc");
	set_attr(&f, EMMC_HOST, "type", "MMC\n");
	set_attr(&f, EMMC_HOST, "name", "DG4016\n");
	link_in(f.sys, "devices/" EMMC_HOST "/block/mmcblk1/device", "devices/" EMMC_HOST);
	assert_int_equal(classify(&f, 179, 32, OTHER_ROOT, 2 * GiB, false, &t), 0);
	assert_true(t.emmc);
	assert_false(t.sd);
	expect(&t, FLASH_NEEDS_ALLOW_FIXED, "mmcblk1 is eMMC soldered to the board (DG4016)");
	assert_non_null(strstr(t.why, "--allow-fixed"));
	assert_int_equal(classify(&f, 179, 32, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_ACCEPT, "eMMC");
	assert_non_null(strstr(t.why, "--allow-fixed"));
}

#define NVME "pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"

static void nvme(struct fake *f, const char *root)
{
	fake_init(f, root);
	add_block(f, NVME "/nvme0n1", 259, 0, 512 * GiB / 512, 0, 0);
	add_block(f, NVME "/nvme0n1/nvme0n1p1", 259, 1, 512 * MiB / 512, -1, 1);
	add_block(f, NVME "/nvme0n1/nvme0n1p2", 259, 2, 500 * GiB / 512, -1, 2);
	set_attr(f, NVME, "model", "Samsung SSD 980 1TB\n");
	set_attr(f, NVME, "serial", "S64ANS0T123456\n");
	set_attr(f, "pci0000:00/0000:00:1d.0/0000:3d:00.0", "removable", "fixed\n");
	link_in(f->sys, "devices/" NVME "/nvme0n1/device", "devices/" NVME);
}

static void test_root_disk_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	nvme(&f, "nvme");
	assert_int_equal(classify(&f, 259, 0, makedev(259, 2), 2 * GiB, true, &t), 0);
	assert_false(t.removable || t.hotplug || t.usb || t.sd);
	assert_string_equal(t.model, "Samsung SSD 980 1TB");
	expect(&t, FLASH_REFUSE, "nvme0n1 holds the running system: / is on nvme0n1p2");
	/* its other partition too: it is still the disk holding / */
	assert_int_equal(classify(&f, 259, 1, makedev(259, 2), 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "holds the running system");
	/* / on btrfs has an anonymous st_dev: its mount names the device */
	put(f.proc, "self/mountinfo", "27 1 0:31 / / rw,relatime - btrfs /dev/nvme0n1p2 rw\n");
	assert_int_equal(classify(&f, 259, 0, makedev(0, 31), 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "nvme0n1 holds the running system: / is mounted from nvme0n1p2");
	/* the same disk not holding /: a fixed disk */
	put(f.proc, "self/mountinfo", "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
	assert_int_equal(classify(&f, 259, 0, OTHER_ROOT, 2 * GiB, false, &t), 0);
	expect(&t, FLASH_NEEDS_ALLOW_FIXED,
	       "nvme0n1 is a fixed disk (Samsung SSD 980 1TB, serial S64ANS0T123456): neither "
	       "removable, hot-pluggable, USB nor SD");
}

static void test_mounted_card_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "mounted");
	put(f.proc, "self/mountinfo",
	    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	    "120 27 8:17 / /media/my\\040card rw,nosuid shared:60 master:1 - vfat /dev/sdb1 rw\n");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb1 is mounted at /media/my card");
	/* writing sdb2 leaves sdb1 alone: only --allow-fixed is asked for */
	assert_int_equal(classify(&f, 8, 18, OTHER_ROOT, 2 * GiB, false, &t), 0);
	expect(&t, FLASH_NEEDS_ALLOW_FIXED, "sdb2 is a partition of sdb");
	/* btrfs reports major 0: the source names the partition */
	put(f.proc, "self/mountinfo",
	    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	    "121 27 0:52 / /mnt rw,relatime - btrfs /dev/sdb2 rw,space_cache=v2\n");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb2 is mounted at /mnt");
	/* a second device of a multi-device btrfs shows only under /sys/fs/btrfs */
	put(f.proc, "self/mountinfo", "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
	link_in(f.sys, "fs/btrfs/3f0c2a1e-5b7d-4c1e-9a2b-0c1d2e3f4a5b/devices/sdb1",
		"devices/" SDB "/sdb1");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb1 belongs to the mounted btrfs file system 3f0c2a1e");
}

static void test_swap_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "swap");
	put(f.proc, "swaps",
	    "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	    "/dev/sdb2                               partition\t8388604\t\t0\t\t-2\n");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb2 is in use as swap");
	assert_int_equal(classify(&f, 8, 18, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb2 is in use as swap");
}

static void test_holder_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "holder");
	mkdir_in(f.sys, "devices/virtual/block/dm-0");
	link_in(f.sys, "devices/" SDB "/sdb1/holders/dm-0", "devices/virtual/block/dm-0");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb1 is in use by dm-0");
	assert_int_equal(classify(&f, 8, 17, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb1 is in use by dm-0");
	/* held on the whole disk (md over sdb): its partitions are refused too */
	usb_reader(&f, "holder-disk");
	mkdir_in(f.sys, "devices/" SDB "/holders/md127");
	assert_int_equal(classify(&f, 8, 17, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb is in use by md127");
}

static void test_read_only_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "ro");
	set_attr(&f, SDB, "ro", "1\n");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 2 * GiB, true, &t), 0);
	assert_true(t.read_only);
	expect(&t, FLASH_REFUSE, "sdb is read-only");
}

static void test_too_small_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "small");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 16 * GiB + 512, true, &t), 0);
	expect(&t, FLASH_REFUSE,
	       "sdb is too small: it holds 16 GiB (17179869184 bytes), the image needs");
	assert_non_null(strstr(t.why, "(17179869696 bytes)"));
	/* exactly the card's size fits */
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 16 * GiB, false, &t), 0);
	expect(&t, FLASH_ACCEPT, "not in use");
}

static void test_partition_needs_allow_fixed(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "partition");
	assert_int_equal(classify(&f, 8, 17, OTHER_ROOT, 100 * MiB, false, &t), 0);
	assert_string_equal(t.name, "sdb1");
	assert_true(t.partition && t.usb && t.removable);
	assert_true(t.size == 512 * MiB);
	assert_string_equal(t.usb_port, "1-2.3");
	/* its whole disk's numbers: a run refuses a disk given with its own partition */
	assert_true(t.disk_major == 8 && t.disk_minor == 16);
	expect(&t, FLASH_NEEDS_ALLOW_FIXED, "sdb1 is a partition of sdb, not a whole disk");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 100 * MiB, false, &t), 0);
	assert_true(!t.partition && t.disk_major == 8 && t.disk_minor == 16);
	assert_int_equal(classify(&f, 8, 17, OTHER_ROOT, 100 * MiB, false, &t), 0);
	assert_int_equal(classify(&f, 8, 17, OTHER_ROOT, 100 * MiB, true, &t), 0);
	expect(&t, FLASH_ACCEPT, "sdb1 is a partition of sdb");
}

static void test_loop_needs_allow_fixed(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	fake_init(&f, "loop");
	add_block(&f, "virtual/block/loop3", 7, 3, 4 * GiB / 512, 0, 0);
	set_attr(&f, "virtual/block/loop3", "loop/backing_file", "/home/me/card.img\n");
	assert_int_equal(classify(&f, 7, 3, OTHER_ROOT, 2 * GiB, false, &t), 0);
	assert_true(t.loop);
	assert_false(t.removable || t.hotplug || t.usb || t.sd || t.emmc || t.partition);
	expect(&t, FLASH_NEEDS_ALLOW_FIXED, "loop3 is a loop device (over /home/me/card.img)");
	assert_int_equal(classify(&f, 7, 3, OTHER_ROOT, 2 * GiB, true, &t), 0);
	expect(&t, FLASH_ACCEPT, "loop3 is a loop device");
}

static void test_empty_refused(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "empty");
	set_attr(&f, SDB, "size", "0\n");
	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 0, true, &t), 0);
	expect(&t, FLASH_REFUSE, "sdb is empty (size 0): no card in the reader");
}

/* What cannot be read is an error, and the target stays refused. */
static void test_unreadable(void **state)
{
	struct fake f;
	struct flash_target t;
	struct diag d;

	(void)state;
	usb_reader(&f, "unreadable");
	diag_init(&d);
	assert_int_equal(flash_classify(&f.r, 8, 99, OTHER_ROOT, 0, true, &t, &d), -ENODEV);
	assert_true(diag_has(&d, "8:99: no such block device"));
	assert_int_equal(t.verdict, FLASH_REFUSE);
	diag_release(&d);
	assert_int_equal(unlink("unreadable/proc/self/mountinfo"), 0);
	assert_int_equal(flash_classify(&f.r, 8, 16, OTHER_ROOT, 0, true, &t, &d), -ENOENT);
	assert_true(diag_has(&d, "whether sdb is mounted cannot be told"));
	assert_int_equal(t.verdict, FLASH_REFUSE);
	diag_release(&d);
}

/* The real /sys and /proc: a fresh loop device over a 3 MiB file. */
static void test_real_loop(void **state)
{
	char dev[64] = "", cmd[128];
	struct flash_roots r = { "/sys", "/proc" };
	struct flash_target t;
	struct stat st, root;
	struct diag d;

	(void)state;
	FILE *f = fopen("real.img", "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 3 * MiB), 0);
	fclose(f);
	FILE *p = popen("losetup -f --show real.img 2>/dev/null", "r");
	if (!p)
		skip();
	bool made = fgets(dev, sizeof(dev), p) != NULL;
	if (pclose(p) != 0 || !made || strncmp(dev, "/dev/loop", 9) != 0)
		skip(); /* no loop devices here, or not allowed to make one */
	dev[strcspn(dev, "\n")] = '\0';
	diag_init(&d);
	int rc = stat(dev, &st) == 0 && stat("/", &root) == 0
			 ? flash_classify(&r, major(st.st_rdev), minor(st.st_rdev), root.st_dev,
					  MiB, false, &t, &d)
			 : -errno;
	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	assert_int_equal(system(cmd), 0);
	if (rc < 0)
		fail_msg("%s: %d %s", dev, rc, d.n ? d.msgs[0].text : "");
	diag_release(&d);
	assert_string_equal(t.name, dev + 5);
	assert_true(t.loop);
	assert_true(t.size == 3 * MiB);
	expect(&t, FLASH_NEEDS_ALLOW_FIXED, "is a loop device (over ");
	assert_non_null(strstr(t.why, "real.img"));
}

/* ---------------------------------------------------------------- the station */

static bool matches(const char *pattern, const struct flash_target *t)
{
	return flash_slot_matches((const char *const[]){ pattern }, 1, t);
}

/* A USB reader's slot is its port; an SD host's, its controller; a loop device's, its name. */
static void test_station_slots(void **state)
{
	struct fake f;
	struct flash_target t;

	(void)state;
	usb_reader(&f, "slots");
	add_block(&f, SD_HOST "/block/mmcblk0", 179, 0, 32 * GiB / 512, 0, 0);
	subsystem(&f, SD_HOST, "mmc");
	subsystem(&f, "platform/fe340000.mmc", "platform");
	set_attr(&f, SD_HOST, "type", "SD\n");
	link_in(f.sys, "devices/" SD_HOST "/block/mmcblk0/device", "devices/" SD_HOST);
	add_block(&f, "virtual/block/loop3", 7, 3, 4 * GiB / 512, 0, 0);

	assert_int_equal(classify(&f, 8, 16, OTHER_ROOT, 0, false, &t), 0);
	assert_string_equal(t.location, "pci-0000:00:14.0-usb-1-2.3");
	assert_string_equal(flash_slot_name(&t), "1-2.3");
	assert_true(matches("1-2.3", &t));
	assert_true(matches("1-2.[1-4]", &t));
	assert_true(matches("pci-0000:00:14.0-usb-*", &t));
	assert_true(matches("sdb", &t));
	assert_true(matches("/dev/sd?", &t));
	assert_false(matches("1-2", &t));
	assert_false(matches("1-3*", &t));
	assert_false(matches("/dev/sdb1", &t));
	assert_true(flash_slot_matches((const char *const[]){ "1-3", "1-2.3" }, 2, &t));

	assert_int_equal(classify(&f, 179, 0, OTHER_ROOT, 0, false, &t), 0);
	assert_string_equal(t.location, "platform-fe340000.mmc");
	assert_string_equal(flash_slot_name(&t), "platform-fe340000.mmc");
	assert_true(matches("platform-fe340000.mmc", &t));
	assert_false(matches("1-2.3", &t));

	assert_int_equal(classify(&f, 7, 3, OTHER_ROOT, 0, true, &t), 0);
	assert_string_equal(t.location, "");
	assert_string_equal(flash_slot_name(&t), "loop3");
	assert_true(matches("loop[0-9]", &t));
	assert_true(matches("/dev/loop3", &t));
	assert_false(matches("loop", &t));
	assert_false(matches("", &t));
}

static const struct flash_seen *seen(const struct flash_seen *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The whole disks with their sizes and media sequence numbers; partitions are not disks; a disk without its size
 * (going away while it is read) is not listed. */
static void test_station_disks(void **state)
{
	struct fake f;
	struct flash_seen *v;
	size_t n;
	struct diag d;

	(void)state;
	usb_reader(&f, "disks");
	add_block(&f, "virtual/block/loop3", 7, 3, 0, 0, 0);
	add_block(&f, "virtual/block/loop4", 7, 4, 2048, 0, 0);
	add_block(&f, "virtual/block/loop5", 7, 5, 2048, 0, 0);
	set_attr(&f, "virtual/block/loop4", "diskseq", "4131\n");
	assert_int_equal(unlink("disks/sys/devices/virtual/block/loop5/size"), 0);
	diag_init(&d);
	assert_int_equal(flash_disks_scan(&f.r, &v, &n, &d), 0);
	assert_int_equal(n, 3);
	assert_non_null(seen(v, n, "sdb"));
	assert_true(seen(v, n, "sdb")->size == 16 * GiB);
	assert_int_equal(seen(v, n, "sdb")->major, 8);
	assert_int_equal(seen(v, n, "sdb")->minor, 16);
	assert_true(seen(v, n, "loop3")->size == 0);
	assert_true(seen(v, n, "loop4")->size == MiB);
	assert_true(seen(v, n, "loop4")->diskseq == 4131);
	assert_true(seen(v, n, "sdb")->diskseq == 0); /* a kernel without it */
	assert_null(seen(v, n, "sdb1"));
	assert_null(seen(v, n, "loop5"));
	free(v);
	/* no sysfs: an error that names it */
	struct flash_roots none = { "disks/nothing", "disks/proc" };
	assert_int_equal(flash_disks_scan(&none, &v, &n, &d), -EINVAL);
	assert_true(diag_has(&d, "disks/nothing/class/block: No such file or directory"));
	diag_release(&d);
}

/* A uevent message: "ACTION@DEVPATH" then KEY=VALUE strings, each ended by a NUL. */
static size_t message(char *buf, size_t n, const char *const *parts)
{
	size_t len = 0;

	for (; *parts; parts++) {
		size_t l = strlen(*parts) + 1;
		assert_true(len + l <= n);
		memcpy(buf + len, *parts, l);
		len += l;
	}
	return len;
}

static void test_uevent_parse(void **state)
{
	char buf[512];
	struct flash_uevent ev;
	size_t len;

	(void)state;
	/* a loop device given a file, as this kernel says it */
	len = message(buf, sizeof(buf),
		      (const char *const[]){ "change@/devices/virtual/block/loop0", "ACTION=change",
					     "DEVPATH=/devices/virtual/block/loop0",
					     "SUBSYSTEM=block", "MAJOR=7", "MINOR=0",
					     "DEVNAME=loop0", "DEVTYPE=disk", "DISKSEQ=9",
					     "SEQNUM=4242", NULL });
	assert_int_equal(flash_uevent_parse(buf, len, &ev), 1);
	assert_string_equal(ev.action, "change");
	assert_string_equal(ev.name, "loop0");
	assert_int_equal(ev.major, 7);
	assert_int_equal(ev.minor, 0);
	/* a USB reader's disk going away */
	len = message(buf, sizeof(buf),
		      (const char *const[]){ "remove@/devices/pci0000:00/0000:00:14.0/usb1/1-2/"
					     "1-2.3/1-2.3:1.0/host6/target6:0:0/"
					     "6:0:0:0/block/sdb",
					     "ACTION=remove", "SUBSYSTEM=block", "MAJOR=8",
					     "MINOR=16", "DEVNAME=sdb", "DEVTYPE=disk", NULL });
	assert_int_equal(flash_uevent_parse(buf, len, &ev), 1);
	assert_string_equal(ev.action, "remove");
	assert_int_equal(ev.minor, 16);
	/* not a disk's: a partition, a USB device, udev's own message, a cut message */
	len = message(buf, sizeof(buf),
		      (const char *const[]){ "add@/devices/virtual/block/loop0/loop0p1",
					     "ACTION=add", "SUBSYSTEM=block", "MAJOR=259",
					     "MINOR=0", "DEVNAME=loop0p1", "DEVTYPE=partition",
					     NULL });
	assert_int_equal(flash_uevent_parse(buf, len, &ev), 0);
	len = message(buf, sizeof(buf),
		      (const char *const[]){ "add@/devices/pci0000:00/0000:00:14.0/usb1/1-2",
					     "ACTION=add", "SUBSYSTEM=usb", "DEVTYPE=usb_device",
					     NULL });
	assert_int_equal(flash_uevent_parse(buf, len, &ev), 0);
	len = message(buf, sizeof(buf), (const char *const[]){ "libudev", NULL });
	assert_int_equal(flash_uevent_parse(buf, len, &ev), 0);
	len = message(buf, sizeof(buf),
		      (const char *const[]){ "change@/devices/virtual/block/loop0", "ACTION=change",
					     "SUBSYSTEM=block", "MAJOR=7", "MINOR=0",
					     "DEVNAME=loop0", "DEVTYPE=disk", NULL });
	assert_int_equal(flash_uevent_parse(buf, len - 5, &ev), 0); /* "DEVTYPE=" */
	assert_int_equal(flash_uevent_parse(buf, len - 1, &ev), 0); /* "DEVTYPE=disk", no NUL */
	assert_int_equal(flash_uevent_parse(buf, 0, &ev), 0);
	memset(buf, 'x', sizeof(buf)); /* no NUL at all */
	assert_int_equal(flash_uevent_parse(buf, sizeof(buf), &ev), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usb_reader_accepted),
		cmocka_unit_test(test_builtin_sd_slot_accepted),
		cmocka_unit_test(test_emmc_needs_allow_fixed),
		cmocka_unit_test(test_root_disk_refused),
		cmocka_unit_test(test_mounted_card_refused),
		cmocka_unit_test(test_swap_refused),
		cmocka_unit_test(test_holder_refused),
		cmocka_unit_test(test_read_only_refused),
		cmocka_unit_test(test_too_small_refused),
		cmocka_unit_test(test_partition_needs_allow_fixed),
		cmocka_unit_test(test_loop_needs_allow_fixed),
		cmocka_unit_test(test_empty_refused),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_real_loop),
		cmocka_unit_test(test_station_slots),
		cmocka_unit_test(test_station_disks),
		cmocka_unit_test(test_uevent_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
