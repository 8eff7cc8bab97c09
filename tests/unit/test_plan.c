/* SPDX-License-Identifier: MIT */
/* Unit tests of the plan: every byte range a layout resolves to. */
#include "layout_test_util.h"
#include "common/sdcard.h"
#include "plan/plan.h"

#include <stdlib.h>
#include <time.h>

#define MiB (1ull << 20)

static struct plan *plan_ok(struct layout *l, const struct plan_inputs *in, struct diag *d)
{
	struct plan *p = NULL;

	diag_init(d);
	if (plan_resolve(l, in, d, &p) != 0)
		dump_diag(d);
	assert_non_null(p);
	return p;
}

static void expect_plan_error(const char *text, const char *needle)
{
	struct layout *l = load_ok(text);
	struct plan *p = NULL;
	struct diag d;

	diag_init(&d);
	int rc = plan_resolve(l, NULL, &d, &p);
	if (rc == 0 || !diag_has(&d, needle)) {
		fprintf(stderr, "  expected a plan error containing: %s\n  got:\n", needle);
		dump_diag(&d);
	}
	assert_int_not_equal(rc, 0);
	assert_null(p);
	assert_true(diag_has(&d, needle));
	diag_release(&d);
	layout_free(l);
}

static const struct plan_region *find(const struct plan *p, enum plan_kind kind, const char *name)
{
	for (size_t i = 0; i < p->n_regions; i++)
		if (p->regions[i].kind == kind && (!name || strcmp(p->regions[i].name, name) == 0))
			return &p->regions[i];
	fail_msg("no region %s '%s'", plan_kind_name(kind), name ? name : "");
	return NULL;
}

static void assert_disk_order(const struct plan *p)
{
	for (size_t i = 1; i < p->n_regions; i++)
		if (!p->regions[i].start_pending)
			assert_true(p->regions[i - 1].start <= p->regions[i].start);
}

static void test_two_partition_mbr(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok("image { size = 2G }\n"
				   "raw spl { offset = 8K from = \"spl.bin\" size = 1000K }\n"
				   "partition boot { type = fat32 size = 256M bootable = true }\n"
				   "partition rootfs { from = \"rootfs.ext4\" size = grow }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(p->image_size, 2ull << 30);
	assert_int_equal(p->n_regions, 4);
	assert_disk_order(p);
	const struct plan_region *mbr = find(p, PLAN_MBR, NULL);
	assert_int_equal(mbr->start, 440);
	assert_int_equal(mbr->size, 72);
	const struct plan_region *spl = find(p, PLAN_RAW, "spl");
	assert_int_equal(spl->start, 8192);
	assert_int_equal(spl->size, 1000 * 1024);
	const struct plan_region *boot = find(p, PLAN_PARTITION, "boot");
	assert_int_equal(boot->number, 1);
	assert_int_equal(boot->start, 4 * MiB);
	assert_int_equal(boot->size, 256 * MiB);
	const struct plan_region *root = find(p, PLAN_PARTITION, "rootfs");
	assert_int_equal(root->number, 2);
	assert_int_equal(root->start, 260 * MiB);
	assert_int_equal(root->size, (2ull << 30) - 260 * MiB);
	assert_int_equal(d.n, 0);
	plan_free(p);
	layout_free(l);
}

static void test_six_partition_mbr_logicals(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok("image { size = 1G }\n"
				   "partition p1 { size = 16M }\npartition p2 { size = 16M }\n"
				   "partition p3 { size = 16M }\npartition p4 { size = 16M }\n"
				   "partition p5 { size = 16M }\npartition p6 { size = grow }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_true(p->has_extended);
	assert_int_equal(find(p, PLAN_PARTITION, "p3")->number, 3);
	const struct plan_region *p4 = find(p, PLAN_PARTITION, "p4");
	const struct plan_region *p5 = find(p, PLAN_PARTITION, "p5");
	const struct plan_region *p6 = find(p, PLAN_PARTITION, "p6");
	assert_true(p4->logical && p5->logical && p6->logical);
	assert_int_equal(p4->number, 5);
	assert_int_equal(p5->number, 6);
	assert_int_equal(p6->number, 7);
	/* p3 ends at 52M; p4 needs its EBR before it, so it starts at the next grid line */
	assert_int_equal(p4->start, 56 * MiB);
	assert_int_equal(p5->start, 76 * MiB);
	assert_int_equal(p6->start, 96 * MiB);
	assert_int_equal(p6->size, 1024 * MiB - 96 * MiB);
	size_t ebrs = 0;
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		if (r->kind != PLAN_EBR)
			continue;
		ebrs++;
		assert_int_equal(r->size, 512);
	}
	assert_int_equal(ebrs, 3);
	assert_int_equal(p->extended_start, 56 * MiB - 512);
	assert_int_equal(p->extended_start + p->extended_size, 1024 * MiB);
	assert_disk_order(p);
	plan_free(p);
	layout_free(l);
}

static void test_gpt_moved_entries_and_raw(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok(
		"image { size = 64M table = gpt gpt-entries = 1M }\n"
		"raw spl { offset = 8K from = \"u-boot-sunxi-with-spl.bin\" size = 900K }\n"
		"partition boot { type = fat size = 16M }\n"
		"partition root { size = grow }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(find(p, PLAN_MBR, NULL)->start, 440);
	assert_int_equal(find(p, PLAN_GPT_HEADER, NULL)->start, 512);
	const struct plan_region *e = find(p, PLAN_GPT_ENTRIES, NULL);
	assert_int_equal(e->start, 1 * MiB);
	assert_int_equal(e->size, 16384);
	assert_int_equal(p->first_usable, MiB + 16384);
	assert_int_equal(find(p, PLAN_RAW, "spl")->start, 8192);
	assert_int_equal(find(p, PLAN_PARTITION, "boot")->start, 4 * MiB);
	const struct plan_region *b = find(p, PLAN_GPT_BACKUP, NULL);
	assert_int_equal(b->start, 64 * MiB - 33 * 512);
	assert_int_equal(b->size, 33 * 512);
	const struct plan_region *root = find(p, PLAN_PARTITION, "root");
	assert_int_equal(root->start + root->size, 64 * MiB - 33 * 512);
	assert_disk_order(p);
	plan_free(p);
	layout_free(l);
	/* without a size the image ends at the last partition, rounded, plus the backup */
	l = load_ok("image { table = gpt }\npartition a { size = 6M }\n");
	p = plan_ok(l, NULL, &d);
	assert_int_equal(p->image_size, 12 * MiB + 33 * 512);
	plan_free(p);
	layout_free(l);
}

static void test_gpt_without_backup(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok(
		"image { size = 64M table = gpt gpt-backup = false }\n"
		"partition boot { size = 16M }\npartition root { size = grow }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	for (size_t i = 0; i < p->n_regions; i++)
		assert_int_not_equal(p->regions[i].kind, PLAN_GPT_BACKUP);
	assert_false(p->gpt_backup);
	assert_int_equal(p->last_usable, 64 * MiB);
	const struct plan_region *root = find(p, PLAN_PARTITION, "root");
	assert_int_equal(root->start + root->size, 64 * MiB);
	plan_free(p);
	layout_free(l);
	/* without a size the image ends at the last partition, rounded, and nothing more */
	l = load_ok("image { table = gpt gpt-backup = false }\npartition a { size = 6M }\n");
	p = plan_ok(l, NULL, &d);
	assert_int_equal(p->image_size, 12 * MiB);
	plan_free(p);
	layout_free(l);
}

static void test_mbr_extended_entry_and_primary(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok(
		"image { size = 1G extended-partition = 2 }\n"
		"partition p1 { size = 16M }\npartition p2 { size = 16M }\n"
		"partition p3 { size = 16M }\npartition p4 { size = 16M primary = true }\n"
		"partition p5 { size = grow primary = true }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	static const struct {
		const char *name;
		unsigned number;
		bool logical;
	} want[] = {
		{ "p1", 1, false }, { "p2", 5, true },  { "p3", 6, true },
		{ "p4", 3, false }, { "p5", 4, false },
	};
	assert_true(p->has_extended);
	assert_int_equal(p->extended_number, 2);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct plan_region *r = find(p, PLAN_PARTITION, want[i].name);
		assert_int_equal(r->number, want[i].number);
		assert_int_equal(r->logical, want[i].logical);
	}
	const struct plan_region *p3 = find(p, PLAN_PARTITION, "p3");
	assert_int_equal(p->extended_start + p->extended_size, p3->start + p3->size);
	assert_disk_order(p);
	plan_free(p);
	layout_free(l);
	/* four partitions and fewer have no extended partition unless the layout asks */
	l = load_ok("image { size = 64M }\npartition a { size = 4M }\npartition b { size = 4M }\n");
	p = plan_ok(l, NULL, &d);
	assert_false(p->has_extended);
	assert_int_equal(find(p, PLAN_PARTITION, "b")->number, 2);
	plan_free(p);
	layout_free(l);
}

static void test_hybrid(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok("image { size = 64M table = hybrid hybrid-ee = last }\n"
				   "partition boot { type = fat size = 16M hybrid = true "
				   "mbr-type = 0x0b }\npartition root { size = grow }\n");
	assert_int_equal(l->image.table, LAYOUT_TABLE_GPT);
	assert_true(l->image.hybrid && l->image.hybrid_ee_last);
	assert_true(l->parts[0].hybrid);
	assert_int_equal(l->parts[0].mbr_type, 0x0b);
	assert_false(l->parts[1].hybrid);
	struct plan *p = plan_ok(l, NULL, &d);
	assert_true(p->hybrid);
	assert_string_equal(find(p, PLAN_MBR, NULL)->name, "hybrid-mbr");
	assert_non_null(find(p, PLAN_GPT_BACKUP, NULL));
	plan_free(p);
	layout_free(l);
	expect_plan_error("image { size = 3T table = hybrid }\n"
			  "partition a { start = 2047G size = 2G hybrid = true }\n",
			  "t.layout:2: partition 'a' (bytes 2197949513728-2200096997375) ends "
			  "beyond "
			  "2 TiB, which the hybrid MBR cannot describe");
}

static void test_table_none(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok(
		"image { table = none size = 32M }\npartition vol { type = fat size = grow }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(p->n_regions, 1);
	assert_int_equal(p->regions[0].start, 0);
	assert_int_equal(p->regions[0].size, 32 * MiB);
	assert_int_equal(p->regions[0].number, 1);
	plan_free(p);
	layout_free(l);
	l = load_ok("image { table = none }\nraw a { offset = 0 from = \"a\" size = 1K }\n");
	p = plan_ok(l, NULL, &d);
	assert_int_equal(p->image_size, 4 * MiB);
	plan_free(p);
	layout_free(l);
}

static void test_pending_auto(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok("partition boot { type = fat extra = 1M }\n"
				   "partition root { from = \"r.img\" }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	const struct plan_region *boot = find(p, PLAN_PARTITION, "boot");
	assert_true(boot->size_pending);
	assert_false(boot->start_pending);
	assert_true(find(p, PLAN_PARTITION, "root")->start_pending);
	assert_true(p->image_size_pending);
	plan_free(p);
	/* once the builder has measured the contents, everything resolves */
	const uint64_t sizes[] = { 5 * MiB, 9 * MiB };
	const struct plan_inputs in = { .part_sizes = sizes };
	p = plan_ok(l, &in, &d);
	boot = find(p, PLAN_PARTITION, "boot");
	assert_int_equal(boot->size, 8 * MiB); /* 5M + extra 1M, rounded up to 4M */
	assert_int_equal(find(p, PLAN_PARTITION, "root")->start, 12 * MiB);
	assert_int_equal(find(p, PLAN_PARTITION, "root")->size, 12 * MiB);
	assert_int_equal(p->image_size, 24 * MiB);
	plan_free(p);
	layout_free(l);
}

static void test_raw_in_boot_code_and_default_start_skips_raws(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok("raw code { offset = 0 from = \"mbr.bin\" size = 440 }\n"
				   "raw loader { offset = 4M from = \"l.bin\" size = 3M }\n"
				   "partition a { size = 8M }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(find(p, PLAN_PARTITION, "a")->start, 8 * MiB);
	plan_free(p);
	layout_free(l);
}

/* The start of partition @name in the plan of @text (with @in), which must resolve. */
static uint64_t start_of(const char *text, const struct plan_inputs *in, const char *name)
{
	struct layout *l = load_ok(text);
	struct diag d;
	struct plan *p = plan_ok(l, in, &d);
	const struct plan_region *r = find(p, PLAN_PARTITION, name);
	assert_false(r->start_pending);
	uint64_t start = r->start;
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	plan_free(p);
	layout_free(l);
	return start;
}

/* Whether the start of partition @name is pending in the plan of @text (with @in). */
static bool start_pending(const char *text, const struct plan_inputs *in, const char *name)
{
	struct layout *l = load_ok(text);
	struct diag d;
	struct plan *p = plan_ok(l, in, &d);
	bool pending = find(p, PLAN_PARTITION, name)->start_pending;
	diag_release(&d);
	plan_free(p);
	layout_free(l);
	return pending;
}

static void test_automatic_start_skips_fixed_regions(void **state)
{
	(void)state;
	/* a loader at 8M (Rockchip): the partition would overlap it, so it starts after it */
	assert_int_equal(start_of("image { table = mbr }\n"
				  "raw r { offset = 8M from = \"small.bin\" size = 30M }\n"
				  "partition p { size = 60M }\n",
				  NULL, "p"),
			 40 * MiB);
	/* and on the next grid line of its own alignment */
	assert_int_equal(start_of("raw r { offset = 8M from = \"x\" size = 30M }\n"
				  "partition p { size = 7M align = 1M }\n",
				  NULL, "p"),
			 1 * MiB);
	assert_int_equal(start_of("raw r { offset = 8M from = \"x\" size = 30M }\n"
				  "partition p { size = 60M align = 1M }\n",
				  NULL, "p"),
			 38 * MiB);
	assert_int_equal(start_of("raw r { offset = 2M from = \"x\" size = 30M }\n"
				  "partition p { size = 60M align = 1M }\n",
				  NULL, "p"),
			 32 * MiB);
	/* one that fits before a fixed region stays in front of it */
	assert_int_equal(start_of("raw r { offset = 40M from = \"x\" size = 1M }\n"
				  "partition p { size = 36M }\npartition q { size = 8M }\n",
				  NULL, "q"),
			 44 * MiB);
	/* a partition with a start, listed later, is fixed too; the next one goes on after */
	const char *fixed = "partition a { size = 8M }\npartition b { start = 8M size = 8M }\n"
			    "partition c { size = 4M }\n";
	assert_int_equal(start_of(fixed, NULL, "a"), 16 * MiB);
	assert_int_equal(start_of(fixed, NULL, "c"), 24 * MiB);
	/* an out-of-table partition is a fixed region like any other */
	assert_int_equal(start_of("image { table = gpt }\n"
				  "partition env { start = 8M size = 1M in-table = false }\n"
				  "partition p { size = 8M }\n",
				  NULL, "p"),
			 12 * MiB);
	/* a logical partition keeps the sector before it free for its EBR */
	assert_int_equal(start_of("image { size = 256M }\npartition p1 { size = 4M }\npartition p2 "
				  "{ size = 4M }\n"
				  "partition p3 { size = 4M }\npartition l1 { size = 4M "
				  "}\npartition l2 { size = 4M }\n"
				  "raw r { offset = 19968K from = \"x\" size = 512K }\n",
				  NULL, "l1"),
			 24 * MiB);
	/* a raw region of the size of its file: known from the inputs (9,000,000 bytes at 32K) */
	const char *loader = "raw loader { offset = 32K from = \"big.bin\" }\n"
			     "partition boot { type = fat size = 8M }\n";
	const uint64_t raw_sizes[] = { 9000000 };
	const struct plan_inputs in = { .raw_sizes = raw_sizes };
	assert_int_equal(start_of(loader, &in, "boot"), 12 * MiB);
	/* unknown, the partition's start waits for it */
	assert_true(start_pending(loader, NULL, "boot"));
	assert_false(start_pending("raw loader { offset = 32M from = \"big.bin\" }\n"
				   "partition boot { type = fat size = 8M }\n",
				   NULL, "boot"));
	/* a size that waits for the contents decides the start only when a fixed region lies ahead */
	assert_false(start_pending("raw r { offset = 8K from = \"x\" size = 1M }\n"
				   "partition boot { type = fat }\n",
				   NULL, "boot"));
	assert_true(start_pending("raw r { offset = 10M from = \"x\" size = 1M }\n"
				  "partition boot { type = fat }\n",
				  NULL, "boot"));
	/* ... and is skipped past when the start would be inside it whatever the size */
	assert_true(start_pending("raw r { offset = 4M from = \"x\" size = 1M }\n"
				  "raw s { offset = 64M from = \"x\" size = 1M }\n"
				  "partition boot { type = fat }\n",
				  NULL, "boot"));
	const uint64_t sizes[] = { 3 * MiB };
	const struct plan_inputs measured = { .part_sizes = sizes };
	assert_int_equal(start_of("raw r { offset = 10M from = \"x\" size = 1M }\n"
				  "partition boot { type = fat }\n",
				  &measured, "boot"),
			 4 * MiB);
	const uint64_t big[] = { 7 * MiB };
	const struct plan_inputs measured_big = { .part_sizes = big };
	assert_int_equal(start_of("raw r { offset = 10M from = \"x\" size = 1M }\n"
				  "partition boot { type = fat }\n",
				  &measured_big, "boot"),
			 12 * MiB);
	/* size = grow starts past what its first sector would overlap, and grows from there */
	assert_int_equal(start_of("image { size = 64M }\nraw r { offset = 1M from = \"x\" size = "
				  "4M }\n"
				  "partition root { size = grow }\n",
				  NULL, "root"),
			 8 * MiB);
}

static void test_automatic_start_errors(void **state)
{
	(void)state;
	/* a fixed region in the space a grow partition grows into is an overlap, not a move */
	expect_plan_error("image { size = 64M }\nraw env { offset = 60M from = \"x\" size = 1M }\n"
			  "partition root { size = grow }\n",
			  "t.layout:2: raw 'env' (bytes 62914560-63963135) overlaps partition "
			  "'root' (bytes 4194304-67108863)");
	/* a start moved past the end of the image is reported there */
	expect_plan_error("image { size = 64M }\nraw r { offset = 8M from = \"x\" size = 50M }\n"
			  "partition p { size = 8M }\n",
			  "t.layout:3: partition 'p' (bytes 62914560-71303167) runs past the end "
			  "of the image");
}

static void test_gpt_first_usable_protects_loaders(void **state)
{
	struct diag d;
	(void)state;
	/* i.MX8M: flash.bin at 33K; a partition added later must not land on it */
	struct layout *l = load_ok("image { table = gpt size = 64M }\n"
				   "raw flash { offset = 33K from = \"flash.bin\" size = 2000K }\n"
				   "partition boot { start = 8M size = 8M }\n"
				   "raw late { offset = 20M from = \"x\" size = 1M }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(p->first_usable, 33 * 1024 + 2000 * 1024);
	plan_free(p);
	layout_free(l);
	/* an out-of-table partition before the first partition too */
	l = load_ok("image { table = gpt size = 1G }\n"
		    "partition uboot { start = 8M size = 1000001s in-table = false }\n"
		    "partition boot { size = 8M }\n");
	p = plan_ok(l, NULL, &d);
	assert_int_equal(p->first_usable, 8 * MiB + 1000001ull * 512);
	assert_int_equal(find(p, PLAN_PARTITION, "boot")->start, 500 * MiB);
	plan_free(p);
	layout_free(l);
	/* a raw region of its file's size (from the inputs), rounded up to a sector */
	l = load_ok("image { table = gpt size = 64M }\nraw spl { offset = 32K from = \"x\" }\n"
		    "partition boot { size = 8M }\n");
	const uint64_t raw_sizes[] = { 1000 };
	const struct plan_inputs in = { .raw_sizes = raw_sizes };
	p = plan_ok(l, &in, &d);
	assert_int_equal(p->first_usable, 33792);
	plan_free(p);
	layout_free(l);
	/* nothing before the first partition: right after the entry array */
	l = load_ok("image { table = gpt size = 64M }\npartition boot { size = 8M }\n"
		    "raw late { offset = 20M from = \"x\" size = 1M }\n");
	p = plan_ok(l, NULL, &d);
	assert_int_equal(p->first_usable, 1024 + 16384);
	plan_free(p);
	layout_free(l);
}

static void test_partition_align(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok(
		"image { size = 64M }\n"
		"partition a { type = fat size = 1M align = 1M }\n"
		"partition b { from = \"b.img\" align = 512K }\n"
		"partition c { size = 4M }\n"
		"partition d { start = 2M size = 512K align = 512K in-table = false }\n");
	assert_int_equal(l->parts[0].align, MiB);
	assert_true(l->parts[0].align_set);
	assert_int_equal(l->parts[0].fat.data_align, MiB); /* the partition's align */
	assert_int_equal(l->parts[2].align, 4 * MiB);
	assert_false(l->parts[2].align_set);
	const uint64_t sizes[] = { 0, 100 * 1024, 0, 0 };
	const struct plan_inputs in = { .part_sizes = sizes };
	struct plan *p = plan_ok(l, &in, &d);
	assert_int_equal(find(p, PLAN_PARTITION, "a")->start, 1 * MiB);
	const struct plan_region *b = find(p, PLAN_PARTITION, "b");
	assert_int_equal(b->start, 2560 * 1024); /* d holds 2M-2.5M */
	assert_int_equal(b->size, 512 * 1024);   /* its file's 100K, rounded up to its align */
	assert_int_equal(find(p, PLAN_PARTITION, "c")->start, 4 * MiB);
	assert_int_equal(d.n, 0); /* d's start is on its own grid: no warning */
	plan_free(p);
	layout_free(l);
	expect_error("partition a { size = 1M align = 3T }",
		     "t.layout:1: partition 'a': align: 3298534883328 is larger than 1 TiB");
	expect_error("partition a { size = 1M align = 100 }", "align");
	expect_error("image { size = 16G }\npartition a { type = fat size = grow align = 1M\n fat "
		     "{ sd-format = true } }",
		     "sd-format = true: it chooses the partition start itself; remove 'align'");
}

static void test_plan_errors(void **state)
{
	(void)state;
	expect_plan_error("raw spl { offset = 400 from = \"x\" size = 100 }",
			  "t.layout:1: raw 'spl' (bytes 400-499) overlaps the mbr (bytes 440-511)");
	/* a file over the MBR's bytes is told the holes that leave them to the table */
	expect_plan_error("raw spl { offset = 0 from = \"x\" size = 1K }",
			  "overlaps the mbr (bytes 440-511); if the file leaves those bytes to the "
			  "partition table, say so with holes = \"440-512\"");
	expect_plan_error("raw spl { offset = 400 from = \"x\" size = 100 }", "holes = \"40-100\"");
	expect_plan_error("image { size = 64M }\nraw spl { offset = 5M from = \"x\" size = 1M }\n"
			  "partition a {\n start = 4M\n size = 8M }",
			  "t.layout:2: raw 'spl' (bytes 5242880-6291455) overlaps partition 'a' "
			  "(bytes 4194304-12582911)");
	expect_plan_error("raw a { offset = 64K from = \"x\" size = 8K }\nraw b { offset = 68K "
			  "from = \"y\" size = 8K }",
			  "t.layout:2: raw 'b' (bytes 69632-77823) overlaps raw 'a' (bytes "
			  "65536-73727)");
	expect_plan_error("partition a { start = 4M size = 8M }\npartition b { start = 8M size = "
			  "8M }",
			  "t.layout:2: partition 'b' (bytes 8388608-16777215) overlaps partition "
			  "'a' (bytes 4194304-12582911)");
	expect_plan_error("image { table = gpt }\nraw spl { offset = 8K from = \"x\" size = 100K }",
			  "raw 'spl' (bytes 8192-110591) overlaps the gpt-entries (bytes "
			  "1024-17407)");
	expect_plan_error("image { size = 32M }\npartition a { size = 64M }",
			  "t.layout:2: partition 'a' (bytes 4194304-71303167) runs past the end of "
			  "the image (33554432 bytes)");
	expect_plan_error("image { size = 32M table = gpt }\npartition a { size = 28M }",
			  "partition 'a' (bytes 4194304-33554431) overlaps the gpt-backup");
	expect_plan_error("image { table = gpt gpt-entries = 8M }\npartition a { start = 4M size = "
			  "4M }",
			  "t.layout:2: partition 'a' (bytes 4194304-8388607) starts before byte "
			  "8404992");
	expect_plan_error("image { size = 4T }\npartition a { size = 3T }",
			  "t.layout:2: partition 'a' (bytes 4194304-3298539077631) ends beyond 2 "
			  "TiB, which an MBR cannot describe");
	expect_plan_error("image { size = 8M }\npartition a { start = 8M size = grow }\n",
			  "t.layout:2: partition 'a': size = grow leaves it no room");
	expect_plan_error("image { size = 4M }\npartition a { size = grow }\n",
			  "size = grow leaves it no room");
	expect_plan_error("image { size = 256M }\npartition p1 { size = 8M }\npartition p2 { size "
			  "= 8M }\n"
			  "partition p3 { size = 8M }\npartition l1 { start = 40M size = 8M }\n"
			  "partition l2 { start = 20M size = 8M }\n",
			  "t.layout:6: logical partition 'l2' starts at byte 20971520, before 'l1' "
			  "(listed before it) ends");
	expect_plan_error("image { size = 256M }\npartition p1 { size = 8M }\npartition p2 { size "
			  "= 8M }\n"
			  "partition p3 { start = 60M size = 8M }\npartition l1 { start = 40M size "
			  "= 8M }\n"
			  "partition l2 { start = 80M size = 8M }\n",
			  "t.layout:4: partition 'p3' (bytes 62914560-71303167) lies inside the "
			  "extended partition");
	expect_plan_error("image { table = gpt }\npartition a { size = 1000000T }\n"
			  "partition b { size = 1000000T }\npartition c { size = 1000000T }\n"
			  "partition d { size = 1000000T }\npartition e { size = 1000000T }\n",
			  "t.layout:6: partition 'e' would end beyond 4 EiB");
}

static char *many_partitions(unsigned n)
{
	size_t cap = 64 + n * 64;
	char *text = malloc(cap);
	size_t len = (size_t)snprintf(text, cap, "image { table = gpt align = 1M }\n");

	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "partition p%u { size = 1M }\n", i);
	return text;
}

static void test_gpt_limits_and_speed(void **state)
{
	struct diag d;
	struct timespec t0, t1;
	(void)state;
	char *text = many_partitions(129);
	expect_error(text, "129 partitions in the table: a GPT holds 128 at most");
	free(text);
	/* out of the table: raw regions and partitions with in-table = false together */
	text = calloc(1100, 64);
	assert_non_null(text);
	for (unsigned i = 0, len = 0; i < 1025; i++)
		len += (unsigned)sprintf(text + len,
					 i % 2 ? "raw r%u { offset = %uK from = \"x\" }\n"
					       : "partition p%u { size = 1M in-table = false }\n",
					 i, 8 * (i + 1));
	expect_error(text, "1025 raw regions and partitions out of the table: a layout holds 1024 "
			   "at most");
	free(text);
	/* parsing and planning 100 partitions: measured, and far below 10 ms unsanitised */
	text = many_partitions(100);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct layout *l = load_ok(text);
	struct plan *p = plan_ok(l, NULL, &d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("  100-partition GPT layout: parsed and planned in %.2f ms\n", ms);
	assert_true(ms < 250); /* generous: sanitizers and busy CI machines are slower */
	assert_int_equal(find(p, PLAN_PARTITION, "p99")->number, 100);
	plan_free(p);
	layout_free(l);
	free(text);
}

/* An image whose size makes it an SDXC card gets the SD allocation unit of that capacity as
 * its default align (16, 32 or 64 MiB), the grid inspect judges it against; 32 GiB or less,
 * more than 2 TiB, no size, or an align of its own keep theirs. */
static void test_sdxc_default_align(void **state)
{
	static const struct {
		const char *image;
		uint64_t start;
	} cases[] = {
		{ "size = 32G", 4 * MiB },
		{ "size = 33554433K", 16 * MiB },
		{ "size = 64G", 16 * MiB },
		{ "size = 128G", 16 * MiB },
		{ "size = 134217729K", 32 * MiB },
		{ "size = 512G", 32 * MiB },
		{ "size = 1T", 64 * MiB },
		{ "size = 2T", 64 * MiB },
		{ "size = 3T", 4 * MiB },
		{ "size = 64G align = 4M", 4 * MiB },
		{ "size = 64G align = 1M", 1 * MiB },
		{ "", 4 * MiB },
	};
	char text[200];
	struct diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
			 "image { %s }\npartition a { size = 1G }\npartition b { size = 1M }\n",
			 cases[i].image);
		struct layout *l = load_ok(text);
		struct plan *p = plan_ok(l, NULL, &d);
		const struct plan_region *a = find(p, PLAN_PARTITION, "a");
		const struct plan_region *b = find(p, PLAN_PARTITION, "b");
		if (a->start != cases[i].start)
			fail_msg("image { %s }: partition a at %llu", cases[i].image,
				 (unsigned long long)a->start);
		assert_int_equal(b->start, cases[i].start + 1024 * MiB);
		plan_free(p);
		diag_release(&d);
		layout_free(l);
	}
}

/* The grid of a card by its capacity, at each boundary of SD Part 2's SDXC table. */
static void test_sdcard_grid_boundaries(void **state)
{
	static const struct {
		uint64_t bytes, unit, align;
	} cases[] = {
		{ 0, 0, 4 * MiB },
		{ 32ull << 30, 0, 4 * MiB },
		{ (32ull << 30) + 512, 16 * MiB, 16 * MiB },
		{ 64ull << 30, 16 * MiB, 16 * MiB },
		{ 128ull << 30, 16 * MiB, 16 * MiB },
		{ (128ull << 30) + 512, 32 * MiB, 32 * MiB },
		{ 512ull << 30, 32 * MiB, 32 * MiB },
		{ (512ull << 30) + 512, 64 * MiB, 64 * MiB },
		{ 2ull << 40, 64 * MiB, 64 * MiB },
		{ (2ull << 40) + 512, 0, 4 * MiB },
		{ 8ull << 40, 0, 4 * MiB },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (sdcard_allocation_unit(cases[i].bytes) != cases[i].unit ||
		    sdcard_default_align(cases[i].bytes) != cases[i].align)
			fail_msg("%llu bytes: unit %llu, align %llu",
				 (unsigned long long)cases[i].bytes,
				 (unsigned long long)sdcard_allocation_unit(cases[i].bytes),
				 (unsigned long long)sdcard_default_align(cases[i].bytes));
	}
}

static void test_off_grid_start_warns(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok(
		"image { size = 64M }\npartition a {\n start = 63s\n size = 8M }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(d.errors, 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.msgs[0].level, DIAG_WARNING);
	assert_non_null(strstr(d.msgs[0].text,
			       "t.layout:3: partition 'a': start 32256 is off the 4194304-byte"));
	diag_release(&d);
	plan_free(p);
	layout_free(l);
}

/* A table structure may lie in the holes of a raw region, and only there. */
static void test_tables_in_holes(void **state)
{
	struct diag d;
	(void)state;
	struct layout *l = load_ok("image { table = gpt }\n"
				   "raw boot { offset = 0 from = \"boot.img\" size = 32K holes = "
				   "\"440-512, 512-1K, 1K-17K, 24K-28K\" }\n"
				   "raw env { offset = 24K fill = true size = 4K }\n"
				   "partition a { size = 8M fill = true }\n");
	struct plan *p = plan_ok(l, NULL, &d);
	assert_int_equal(find(p, PLAN_RAW, "boot")->size, 32 * 1024);
	assert_int_equal(find(p, PLAN_PARTITION, "a")->start, 4 * MiB);
	plan_free(p);
	layout_free(l);
	/* the holes end one byte short of the entry array's end */
	expect_plan_error("image { table = gpt }\nraw boot { offset = 0 from = \"b\" size = 32K "
			  "holes = \"440-17407\" }",
			  "t.layout:2: raw 'boot' (bytes 0-32767) overlaps the gpt-entries (bytes "
			  "1024-17407)");
	expect_plan_error("raw boot { offset = 0 from = \"b\" size = 512 holes = \"446-512\" }",
			  "t.layout:1: raw 'boot' (bytes 0-511) overlaps the mbr (bytes 440-511)");
	/* a hole of a partition may not fall past its end once `grow` is resolved */
	expect_plan_error("image { size = 16M }\npartition a { size = grow fill = true\n holes = "
			  "\"0-13M\" }",
			  "t.layout:3: partition 'a': holes: 0-13631488 ends past the 12582912 "
			  "bytes of the partition");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_partition_mbr),
		cmocka_unit_test(test_six_partition_mbr_logicals),
		cmocka_unit_test(test_gpt_moved_entries_and_raw),
		cmocka_unit_test(test_gpt_without_backup),
		cmocka_unit_test(test_mbr_extended_entry_and_primary),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_table_none),
		cmocka_unit_test(test_pending_auto),
		cmocka_unit_test(test_raw_in_boot_code_and_default_start_skips_raws),
		cmocka_unit_test(test_automatic_start_skips_fixed_regions),
		cmocka_unit_test(test_automatic_start_errors),
		cmocka_unit_test(test_gpt_first_usable_protects_loaders),
		cmocka_unit_test(test_partition_align),
		cmocka_unit_test(test_plan_errors),
		cmocka_unit_test(test_tables_in_holes),
		cmocka_unit_test(test_gpt_limits_and_speed),
		cmocka_unit_test(test_off_grid_start_warns),
		cmocka_unit_test(test_sdxc_default_align),
		cmocka_unit_test(test_sdcard_grid_boundaries),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
