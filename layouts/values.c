/* SPDX-License-Identifier: MIT */
/* values: sizes, numbers, booleans, GUIDs and attribute lists of the layout language. */
#include "layouts/values.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/utf8.h"

static int fail(struct why *why, const char *fmt, const char *arg)
{
	char shown[200];

	snprintf(why->text, sizeof(why->text), fmt, utf8_shown(arg, shown, sizeof(shown)));
	return -EINVAL;
}

/* Decimal digits at *s into *ret; returns the number of digits, or -1 on overflow. */
static int parse_decimal(const char **s, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	for (; isdigit((unsigned char)**s); (*s)++, n++) {
		unsigned d = (unsigned)(**s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*ret = v;
	return n;
}

int layout_value_size(const char *s, uint64_t *ret, struct why *why)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {
		{ "", 0 },   { "s", 9 },    { "K", 10 },   { "M", 20 },   { "G", 30 },
		{ "T", 40 }, { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 },
	};
	const char *p = s;
	uint64_t v;
	int n = parse_decimal(&p, &v);

	if (n < 0)
		return fail(why, "'%s' is too large", s);
	if (n == 0)
		return fail(why,
			    "'%s' is not a size (a whole number with an optional unit: 512, "
			    "8K, 4M, 2G, 1T, 4MiB, 8192s)",
			    s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit) != 0)
			continue;
		if (v > (LAYOUT_MAX_BYTES >> units[i].shift))
			return fail(why, "'%s' is too large (sdimg handles up to 1 EiB)", s);
		*ret = v << units[i].shift;
		return 0;
	}
	return fail(why, "unknown unit in '%s' (use K, M, G, T, KiB, MiB, GiB, TiB or s)", s);
}

int layout_value_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct why *why)
{
	const char *p = s;
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		for (p += 2; isxdigit((unsigned char)*p); p++) {
			if (v >> 60)
				return fail(why, "'%s' is too large", s);
			v = v * 16 + (uint64_t)(isdigit((unsigned char)*p)
							? *p - '0'
							: tolower((unsigned char)*p) - 'a' + 10);
		}
	} else if (parse_decimal(&p, &v) <= 0) {
		return fail(why, "'%s' is not a whole number", s);
	}
	if (*p)
		return fail(why, "'%s' is not a whole number", s);
	if (v < min || v > max) {
		snprintf(why->text, sizeof(why->text), "%s is out of range (%llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int layout_value_seconds(const char *s, uint64_t max, uint64_t *ret, struct why *why)
{
	size_t digits = strspn(s, "0123456789");
	const char *p = s;
	uint64_t v;

	/* the Reproducible Builds specification of SOURCE_DATE_EPOCH: "an ASCII representation
	 * of an integer with no fractional component, identical to the output format of
	 * date +%s"; anything else (0x10, 010, +5, " 5") is a mistake, not another spelling */
	if (digits == 0 || s[digits] != '\0' || (s[0] == '0' && digits > 1))
		return fail(why,
			    "'%s' is not a whole number of seconds as date +%%s prints it "
			    "(decimal digits, no leading zero)",
			    s);
	if (parse_decimal(&p, &v) < 0 || v > max) {
		snprintf(why->text, sizeof(why->text), "'%.40s' is too large (at most %llu)", s,
			 (unsigned long long)max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int layout_value_bool(const char *s, bool *ret, struct why *why)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };

	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return fail(why, "'%s' is not a boolean (true or false)", s);
}

int layout_value_guid(const char *s, struct layout_guid *ret, struct why *why)
{
	static const int dashes[] = { 8, 13, 18, 23 };
	struct layout_guid g;
	size_t k = 0, d = 0;

	if (strlen(s) != 36)
		return fail(why, "'%s' is not a GUID (like 0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
			    s);
	for (int i = 0; i < 36; i++) {
		if (d < 4 && i == dashes[d]) {
			if (s[i] != '-')
				return fail(why,
					    "'%s' is not a GUID (like "
					    "0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
					    s);
			d++;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]))
			return fail(why,
				    "'%s' is not a GUID (like "
				    "0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
				    s);
		unsigned nib = (unsigned)(isdigit((unsigned char)s[i])
						  ? s[i] - '0'
						  : tolower((unsigned char)s[i]) - 'a' + 10);
		if (k % 2 == 0)
			g.b[k / 2] = (uint8_t)(nib << 4);
		else
			g.b[k / 2] |= (uint8_t)nib;
		k++;
	}
	*ret = g;
	return 0;
}

/*
 * GPT partition type aliases. The first name of a GUID is the one messages show.
 * UEFI 2.10, 5.3.3 (the EFI System Partition, C12A7328-...); Microsoft's basic data
 * partition (EBD0A0A2-...); the Discoverable Partitions Specification of the UAPI group
 * (uapi-group.org, "Defined Partition Type UUIDs": the generic Linux data, root and /usr
 * partitions of each architecture, home, srv, var, var/tmp, swap, XBOOTLDR; the architecture
 * names are systemd's); Linux RAID and LVM as sfdisk(8) lists them. Then the specification's
 * dm-verity partitions (data and signature) of root and /usr, its per-user home; barebox's
 * state and environment partitions and U-Boot's environment (U-Boot's include/part_efi.h).
 * Then the other words genimage takes for partition-type-uuid (its README), where they are
 * not sdimg's: its root-ARCH and usr-ARCH forms are found as linux-root-ARCH and
 * linux-usr-ARCH (gpt_type_guid()). Last, the one-letter shortcuts of sfdisk(8) and
 * genimage (L, S, H, U, R, V, F).
 */
static const struct {
	const char *alias;
	const char *guid;
} gpt_aliases[] = {
	{ "esp", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" },
	{ "msdata", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" },
	{ "linux", "0FC63DAF-8483-4772-8E79-3D69D8477DE4" },
	{ "swap", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F" },
	{ "linux-home", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915" },
	{ "linux-srv", "3B8F8425-20E0-4F3B-907F-1A25A76F98E8" },
	{ "linux-var", "4D21B016-B534-45C2-A9FB-5C16E091FD2D" },
	{ "linux-var-tmp", "7EC6F557-3BC5-4ACA-B293-16EF5DF639D1" },
	{ "xbootldr", "BC13C2FF-59E6-4262-A352-B275FD6F7172" },
	{ "raid", "A19D880F-05FC-4D3B-A006-743F0F84911E" },
	{ "lvm", "E6D6D379-F507-44C2-A23C-238F2A3DF928" },
	{ "linux-root-alpha", "6523F8AE-3EB1-4E2A-A05A-18B695AE656F" },
	{ "linux-root-arc", "D27F46ED-2919-4CB8-BD25-9531F3C16534" },
	{ "linux-root-arm", "69DAD710-2CE4-4E3C-B16C-21A1D49ABED3" },
	{ "linux-root-arm64", "B921B045-1DF0-41C3-AF44-4C6F280D3FAE" },
	{ "linux-root-ia64", "993D8D3D-F80E-4225-855A-9DAF8ED7EA97" },
	{ "linux-root-loongarch64", "77055800-792C-4F94-B39A-98C91B762BB6" },
	{ "linux-root-mips-le", "37C58C8A-D913-4156-A25F-48B1B64E07F0" },
	{ "linux-root-mips64-le", "700BDA43-7A34-4507-B179-EEB93D7A7CA3" },
	{ "linux-root-parisc", "1AACDB3B-5444-4138-BD9E-E5C2239B2346" },
	{ "linux-root-ppc", "1DE3F1EF-FA98-47B5-8DCD-4A860A654D78" },
	{ "linux-root-ppc64", "912ADE1D-A839-4913-8964-A10EEE08FBD2" },
	{ "linux-root-ppc64-le", "C31C45E6-3F39-412E-80FB-4809C4980599" },
	{ "linux-root-riscv32", "60D5A7FE-8E7D-435C-B714-3DD8162144E1" },
	{ "linux-root-riscv64", "72EC70A6-CF74-40E6-BD49-4BDA08E8F224" },
	{ "linux-root-s390", "08A7ACEA-624C-4A20-91E8-6E0FA67D23F9" },
	{ "linux-root-s390x", "5EEAD9A9-FE09-4A1E-A1D7-520D00531306" },
	{ "linux-root-tilegx", "C50CDD70-3862-4CC3-90E1-809A8C93EE2C" },
	{ "linux-root-x86", "44479540-F297-41B2-9AF7-D131D5F0458A" },
	{ "linux-root-x86-64", "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709" },
	{ "linux-usr-alpha", "E18CF08C-33EC-4C0D-8246-C6C6FB3DA024" },
	{ "linux-usr-arc", "7978A683-6316-4922-BBEE-38BFF5A2FECC" },
	{ "linux-usr-arm", "7D0359A3-02B3-4F0A-865C-654403E70625" },
	{ "linux-usr-arm64", "B0E01050-EE5F-4390-949A-9101B17104E9" },
	{ "linux-usr-ia64", "4301D2A6-4E3B-4B2A-BB94-9E0B2C4225EA" },
	{ "linux-usr-loongarch64", "E611C702-575C-4CBE-9A46-434FA0BF7E3F" },
	{ "linux-usr-mips-le", "0F4868E9-9952-4706-979F-3ED3A473E947" },
	{ "linux-usr-mips64-le", "C97C1F32-BA06-40B4-9F22-236061B08AA8" },
	{ "linux-usr-parisc", "DC4A4480-6917-4262-A4EC-DB9384949F25" },
	{ "linux-usr-ppc", "7D14FEC5-CC71-415D-9D6C-06BF0B3C3EAF" },
	{ "linux-usr-ppc64", "2C9739E2-F068-46B3-9FD0-01C5A9AFBCCA" },
	{ "linux-usr-ppc64-le", "15BB03AF-77E7-4D4A-B12B-C0D084F7491C" },
	{ "linux-usr-riscv32", "B933FB22-5C3F-4F91-AF90-E2BB0FA50702" },
	{ "linux-usr-riscv64", "BEAEC34B-8442-439B-A40B-984381ED097D" },
	{ "linux-usr-s390", "CD0F869B-D0FB-4CA0-B141-9EA87CC78D66" },
	{ "linux-usr-s390x", "8A4F5770-50AA-4ED3-874A-99B710DB6FEA" },
	{ "linux-usr-tilegx", "55497029-C7C1-44CC-AA39-815ED1558630" },
	{ "linux-usr-x86", "75250D76-8CC6-458E-BD66-BD47CC81A812" },
	{ "linux-usr-x86-64", "8484680C-9521-48C6-9C11-B0720656F69E" },
	{ "linux-root-mipsel", "37C58C8A-D913-4156-A25F-48B1B64E07F0" },
	{ "linux-root-mips64el", "700BDA43-7A34-4507-B179-EEB93D7A7CA3" },
	{ "linux-root-ppc64le", "C31C45E6-3F39-412E-80FB-4809C4980599" },
	{ "linux-usr-mipsel", "0F4868E9-9952-4706-979F-3ED3A473E947" },
	{ "linux-usr-mips64el", "C97C1F32-BA06-40B4-9F22-236061B08AA8" },
	{ "linux-usr-ppc64le", "15BB03AF-77E7-4D4A-B12B-C0D084F7491C" },
	{ "linux-root-mips", "E9434544-6E2C-47CC-BAE2-12D6DEAFB44C" },
	{ "linux-root-mips64", "D113AF76-80EF-41B4-BDB6-0CFF4D3D4A25" },
	{ "linux-usr-mips", "773B2ABC-2A99-4398-8BF5-03BAAC40D02B" },
	{ "linux-usr-mips64", "57E13958-7331-4365-8E6E-35EEEE17C61B" },
	{ "linux-root-alpha-verity", "FC56D9E9-E6E5-4C06-BE32-E74407CE09A5" },
	{ "linux-root-arc-verity", "24B2D975-0F97-4521-AFA1-CD531E421B8D" },
	{ "linux-root-arm-verity", "7386CDF2-203C-47A9-A498-F2ECCE45A2D6" },
	{ "linux-root-arm64-verity", "DF3300CE-D69F-4C92-978C-9BFB0F38D820" },
	{ "linux-root-ia64-verity", "86ED10D5-B607-45BB-8957-D350F23D0571" },
	{ "linux-root-loongarch64-verity", "F3393B22-E9AF-4613-A948-9D3BFBD0C535" },
	{ "linux-root-mips-verity", "7A430799-F711-4C7E-8E5B-1D685BD48607" },
	{ "linux-root-mips64-verity", "579536F8-6A33-4055-A95A-DF2D5E2C42A8" },
	{ "linux-root-mips-le-verity", "D7D150D2-2A04-4A33-8F12-16651205FF7B" },
	{ "linux-root-mips64-le-verity", "16B417F8-3E06-4F57-8DD2-9B5232F41AA6" },
	{ "linux-root-parisc-verity", "D212A430-FBC5-49F9-A983-A7FEEF2B8D0E" },
	{ "linux-root-ppc-verity", "98CFE649-1588-46DC-B2F0-ADD147424925" },
	{ "linux-root-ppc64-verity", "9225A9A3-3C19-4D89-B4F6-EEFF88F17631" },
	{ "linux-root-ppc64-le-verity", "906BD944-4589-4AAE-A4E4-DD983917446A" },
	{ "linux-root-riscv32-verity", "AE0253BE-1167-4007-AC68-43926C14C5DE" },
	{ "linux-root-riscv64-verity", "B6ED5582-440B-4209-B8DA-5FF7C419EA3D" },
	{ "linux-root-s390-verity", "7AC63B47-B25C-463B-8DF8-B4A94E6C90E1" },
	{ "linux-root-s390x-verity", "B325BFBE-C7BE-4AB8-8357-139E652D2F6B" },
	{ "linux-root-tilegx-verity", "966061EC-28E4-4B2E-B4A5-1F0A825A1D84" },
	{ "linux-root-x86-verity", "D13C5D3B-B5D1-422A-B29F-9454FDC89D76" },
	{ "linux-root-x86-64-verity", "2C7357ED-EBD2-46D9-AEC1-23D437EC2BF5" },
	{ "linux-usr-alpha-verity", "8CCE0D25-C0D0-4A44-BD87-46331BF1DF67" },
	{ "linux-usr-arc-verity", "FCA0598C-D880-4591-8C16-4EDA05C7347C" },
	{ "linux-usr-arm-verity", "C215D751-7BCD-4649-BE90-6627490A4C05" },
	{ "linux-usr-arm64-verity", "6E11A4E7-FBCA-4DED-B9E9-E1A512BB664E" },
	{ "linux-usr-ia64-verity", "6A491E03-3BE7-4545-8E38-83320E0EA880" },
	{ "linux-usr-loongarch64-verity", "F46B2C26-59AE-48F0-9106-C50ED47F673D" },
	{ "linux-usr-mips-verity", "6E5A1BC8-D223-49B7-BCA8-37A5FCCEB996" },
	{ "linux-usr-mips64-verity", "81CF9D90-7458-4DF4-8DCF-C8A3A404F09B" },
	{ "linux-usr-mips-le-verity", "46B98D8D-B55C-4E8F-AAB3-37FCA7F80752" },
	{ "linux-usr-mips64-le-verity", "3C3D61FE-B5F3-414D-BB71-8739A694A4EF" },
	{ "linux-usr-parisc-verity", "5843D618-EC37-48D7-9F12-CEA8E08768B2" },
	{ "linux-usr-ppc-verity", "DF765D00-270E-49E5-BC75-F47BB2118B09" },
	{ "linux-usr-ppc64-verity", "BDB528A5-A259-475F-A87D-DA53FA736A07" },
	{ "linux-usr-ppc64-le-verity", "EE2B9983-21E8-4153-86D9-B6901A54D1CE" },
	{ "linux-usr-riscv32-verity", "CB1EE4E3-8CD0-4136-A0A4-AA61A32E8730" },
	{ "linux-usr-riscv64-verity", "8F1056BE-9B05-47C4-81D6-BE53128E5B54" },
	{ "linux-usr-s390-verity", "B663C618-E7BC-4D6D-90AA-11B756BB1797" },
	{ "linux-usr-s390x-verity", "31741CC4-1A2A-4111-A581-E00B447D2D06" },
	{ "linux-usr-tilegx-verity", "2FB4BF56-07FA-42DA-8132-6B139F2026AE" },
	{ "linux-usr-x86-verity", "8F461B0D-14EE-4E81-9AA9-049B6FB97ABD" },
	{ "linux-usr-x86-64-verity", "77FF5F63-E7B6-4633-ACF4-1565B864C0E6" },
	{ "linux-root-alpha-verity-sig", "D46495B7-A053-414F-80F7-700C99921EF8" },
	{ "linux-root-arc-verity-sig", "143A70BA-CBD3-4F06-919F-6C05683A78BC" },
	{ "linux-root-arm-verity-sig", "42B0455F-EB11-491D-98D3-56145BA9D037" },
	{ "linux-root-arm64-verity-sig", "6DB69DE6-29F4-4758-A7A5-962190F00CE3" },
	{ "linux-root-ia64-verity-sig", "E98B36EE-32BA-4882-9B12-0CE14655F46A" },
	{ "linux-root-loongarch64-verity-sig", "5AFB67EB-ECC8-4F85-AE8E-AC1E7C50E7D0" },
	{ "linux-root-mips-verity-sig", "BBA210A2-9C5D-45EE-9E87-FF2CCBD002D0" },
	{ "linux-root-mips64-verity-sig", "43CE94D4-0F3D-4999-8250-B9DEAFD98E6E" },
	{ "linux-root-mips-le-verity-sig", "C919CC1F-4456-4EFF-918C-F75E94525CA5" },
	{ "linux-root-mips64-le-verity-sig", "904E58EF-5C65-4A31-9C57-6AF5FC7C5DE7" },
	{ "linux-root-parisc-verity-sig", "15DE6170-65D3-431C-916E-B0DCD8393F25" },
	{ "linux-root-ppc-verity-sig", "1B31B5AA-ADD9-463A-B2ED-BD467FC857E7" },
	{ "linux-root-ppc64-verity-sig", "F5E2C20C-45B2-4FFA-BCE9-2A60737E1AAF" },
	{ "linux-root-ppc64-le-verity-sig", "D4A236E7-E873-4C07-BF1D-BF6CF7F1C3C6" },
	{ "linux-root-riscv32-verity-sig", "3A112A75-8729-4380-B4CF-764D79934448" },
	{ "linux-root-riscv64-verity-sig", "EFE0F087-EA8D-4469-821A-4C2A96A8386A" },
	{ "linux-root-s390-verity-sig", "3482388E-4254-435A-A241-766A065F9960" },
	{ "linux-root-s390x-verity-sig", "C80187A5-73A3-491A-901A-017C3FA953E9" },
	{ "linux-root-tilegx-verity-sig", "B3671439-97B0-4A53-90F7-2D5A8F3AD47B" },
	{ "linux-root-x86-verity-sig", "5996FC05-109C-48DE-808B-23FA0830B676" },
	{ "linux-root-x86-64-verity-sig", "41092B05-9FC8-4523-994F-2DEF0408B176" },
	{ "linux-usr-alpha-verity-sig", "5C6E1C76-076A-457A-A0FE-F3B4CD21CE6E" },
	{ "linux-usr-arc-verity-sig", "94F9A9A1-9971-427A-A400-50CB297F0F35" },
	{ "linux-usr-arm-verity-sig", "D7FF812F-37D1-4902-A810-D76BA57B975A" },
	{ "linux-usr-arm64-verity-sig", "C23CE4FF-44BD-4B00-B2D4-B41B3419E02A" },
	{ "linux-usr-ia64-verity-sig", "8DE58BC2-2A43-460D-B14E-A76E4A17B47F" },
	{ "linux-usr-loongarch64-verity-sig", "B024F315-D330-444C-8461-44BBDE524E99" },
	{ "linux-usr-mips-verity-sig", "97AE158D-F216-497B-8057-F7F905770F54" },
	{ "linux-usr-mips64-verity-sig", "05816CE2-DD40-4AC6-A61D-37D32DC1BA7D" },
	{ "linux-usr-mips-le-verity-sig", "3E23CA0B-A4BC-4B4E-8087-5AB6A26AA8A9" },
	{ "linux-usr-mips64-le-verity-sig", "F2C2C7EE-ADCC-4351-B5C6-EE9816B66E16" },
	{ "linux-usr-parisc-verity-sig", "450DD7D1-3224-45EC-9CF2-A43A346D71EE" },
	{ "linux-usr-ppc-verity-sig", "7007891D-D371-4A80-86A4-5CB875B9302E" },
	{ "linux-usr-ppc64-verity-sig", "0B888863-D7F8-4D9E-9766-239FCE4D58AF" },
	{ "linux-usr-ppc64-le-verity-sig", "C8BFBD1E-268E-4521-8BBA-BF314C399557" },
	{ "linux-usr-riscv32-verity-sig", "C3836A13-3137-45BA-B583-B16C50FE5EB4" },
	{ "linux-usr-riscv64-verity-sig", "D2F9000A-7A18-453F-B5CD-4D32F77A7B32" },
	{ "linux-usr-s390-verity-sig", "17440E4F-A8D0-467F-A46E-3912AE6EF2C5" },
	{ "linux-usr-s390x-verity-sig", "3F324816-667B-46AE-86EE-9B0C0C6C11B4" },
	{ "linux-usr-tilegx-verity-sig", "4EDE75E2-6CCC-4CC8-B9C7-70334B087510" },
	{ "linux-usr-x86-verity-sig", "974A71C0-DE41-43C3-BE5D-5C5CCD1AD2C0" },
	{ "linux-usr-x86-64-verity-sig", "E7BB33FB-06CF-4E81-8273-E543B413E2E2" },
	{ "linux-user-home", "773F91EF-66D4-49B5-BD83-D683BF40AD16" },
	{ "barebox-state", "4778ED65-BF42-45FA-9C5B-287A1DC4AAB1" },
	{ "barebox-env", "6C3737F2-07F8-45D1-AD45-15D260AAB24D" },
	{ "u-boot-env", "3DE21764-95BD-54BD-A5C3-4ABE786F38A8" },
	{ "home", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915" },
	{ "uefi", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" },
	{ "fat32", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" },
	{ "linux-generic", "0FC63DAF-8483-4772-8E79-3D69D8477DE4" },
	{ "srv", "3B8F8425-20E0-4F3B-907F-1A25A76F98E8" },
	{ "var", "4D21B016-B534-45C2-A9FB-5C16E091FD2D" },
	{ "tmp", "7EC6F557-3BC5-4ACA-B293-16EF5DF639D1" },
	{ "user-home", "773F91EF-66D4-49B5-BD83-D683BF40AD16" },
	{ "U", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" },
	{ "L", "0FC63DAF-8483-4772-8E79-3D69D8477DE4" },
	{ "S", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F" },
	{ "H", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915" },
	{ "R", "A19D880F-05FC-4D3B-A006-743F0F84911E" },
	{ "V", "E6D6D379-F507-44C2-A23C-238F2A3DF928" },
	{ "F", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" },
};

#define N_GPT_ALIASES (sizeof(gpt_aliases) / sizeof(gpt_aliases[0]))

/* The GUID text of the alias @s: one of the table, or genimage's root-ARCH and usr-ARCH
 * (and their -verity, -verity-sig forms), the table's linux-root-ARCH and linux-usr-ARCH. */
static const char *gpt_type_guid(const char *s)
{
	char linux_form[80];
	bool genimage_form = strncmp(s, "root-", 5) == 0 || strncmp(s, "usr-", 4) == 0;

	if (genimage_form &&
	    (size_t)snprintf(linux_form, sizeof(linux_form), "linux-%s", s) < sizeof(linux_form))
		s = linux_form;
	for (size_t i = 0; i < N_GPT_ALIASES; i++)
		if (strcmp(s, gpt_aliases[i].alias) == 0)
			return gpt_aliases[i].guid;
	return NULL;
}

/* How far @s is from the alias @alias, as typed: its edits, 0 for a difference in case
 * only (genimage compares them without case); *@shown the form to suggest (genimage's
 * root-ARCH when it is nearer than linux-root-ARCH). */
static unsigned gpt_alias_distance(const char *s, const char *alias, const char **shown)
{
	unsigned d = strcasecmp(s, alias) == 0 ? 0 : layout_edit_distance(s, alias);

	*shown = alias;
	if (strncmp(alias, "linux-root-", 11) == 0 || strncmp(alias, "linux-usr-", 10) == 0) {
		const char *short_form = alias + 6;
		unsigned e = strcasecmp(s, short_form) == 0 ? 0
							    : layout_edit_distance(s, short_form);
		if (e < d) {
			d = e;
			*shown = short_form;
		}
	}
	return d;
}

int layout_value_gpt_type(const char *s, struct layout_guid *ret, struct why *why)
{
	const char *guid = gpt_type_guid(s), *near = NULL;
	unsigned best = 3; /* suggest an alias within two edits */

	if (guid)
		return layout_value_guid(guid, ret, why);
	if (strlen(s) == 36)
		return layout_value_guid(s, ret, why);
	for (size_t i = 0; i < N_GPT_ALIASES; i++) {
		const char *shown;
		unsigned d = gpt_alias_distance(s, gpt_aliases[i].alias, &shown);
		/* a one-letter alias is suggested only for its other case */
		if ((strlen(gpt_aliases[i].alias) > 1 || d == 0) && d < best) {
			best = d;
			near = shown;
		}
	}
	snprintf(why->text, sizeof(why->text),
		 "'%.40s' is neither a GUID nor a type alias "
		 "(esp, linux, msdata, swap, linux-root-ARCH, U, L, ...)%s%s%s",
		 s, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	return -EINVAL;
}

const char *layout_gpt_type_alias(const struct layout_guid *g)
{
	struct layout_guid a;
	struct why why;

	for (size_t i = 0; i < N_GPT_ALIASES; i++)
		if (layout_value_guid(gpt_aliases[i].guid, &a, &why) == 0 &&
		    memcmp(&a, g, sizeof(a)) == 0)
			return gpt_aliases[i].alias;
	return NULL;
}

/*
 * MBR type words: sfdisk(8)'s shortcuts and aliases with their MBR meaning (L linux 0x83,
 * S swap 0x82, U uefi 0xef, R raid 0xfd, V lvm 0x8e; E, Ex, extended 0x05 and X 0x85, the
 * extended types, which the reader of the partition refuses).
 */
static const struct {
	const char *word;
	uint8_t type;
} mbr_words[] = {
	{ "L", 0x83 },    { "linux", 0x83 }, { "S", 0x82 },  { "swap", 0x82 },     { "U", 0xef },
	{ "uefi", 0xef }, { "esp", 0xef },   { "R", 0xfd },  { "raid", 0xfd },     { "V", 0x8e },
	{ "lvm", 0x8e },  { "E", 0x05 },     { "Ex", 0x05 }, { "extended", 0x05 }, { "X", 0x85 },
};

int layout_value_mbr_type(const char *s, uint64_t *ret, struct why *why)
{
	for (size_t i = 0; i < sizeof(mbr_words) / sizeof(mbr_words[0]); i++)
		if (strcmp(s, mbr_words[i].word) == 0) {
			*ret = mbr_words[i].type;
			return 0;
		}
	if (isdigit((unsigned char)s[0]))
		return layout_value_uint(s, 1, 255, ret, why);
	return fail(why,
		    "'%s' is not an MBR type (a number from 1 to 255, like 0x83, or one of "
		    "L, S, U, R, V, linux, swap, uefi, raid, lvm)",
		    s);
}

void layout_guid_text(const struct layout_guid *g, char out[37])
{
	const uint8_t *b = g->b;

	snprintf(out, 37, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

/* One "START-END" of @n bytes at @p. */
static int parse_range(const char *p, size_t n, struct layout_range *ret, struct why *why)
{
	char text[80], *dash;
	struct why inner;

	snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) - 1 ? n : sizeof(text) - 1), p);
	dash = strchr(text, '-');
	if (!dash || n >= sizeof(text))
		return fail(why, "'%.60s' is not a range START-END in bytes (like 440-512)", text);
	*dash = '\0';
	if (layout_value_size(text, &ret->start, &inner) < 0 ||
	    layout_value_size(dash + 1, &ret->end, &inner) < 0) {
		*dash = '-';
		snprintf(why->text, sizeof(why->text), "in '%.40s': %.100s", text, inner.text);
		return -EINVAL;
	}
	*dash = '-';
	if (ret->end <= ret->start)
		return fail(why, "'%.60s' is empty: END (excluded) must be after START", text);
	return 0;
}

static int range_order(const void *a, const void *b)
{
	const struct layout_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int layout_value_ranges(const char *s, struct layout_range **ret, size_t *ret_n, struct why *why)
{
	struct layout_range *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = s;
	int rc = 0;

	while (rc == 0 && *p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t len = strcspn(p, " ,");
		if (len == 0)
			break;
		if (n == cap) {
			struct layout_range *bigger = realloc(v, (cap = cap ? 2 * cap : 4) *
									 sizeof(*v));
			if (!bigger) {
				free(v);
				snprintf(why->text, sizeof(why->text), "out of memory");
				return -ENOMEM;
			}
			v = bigger;
		}
		rc = parse_range(p, len, &v[n++], why);
		p += len;
	}
	if (rc == 0 && n == 0)
		rc = fail(why, "'%.60s' holds no range START-END (like 440-512)", s);
	if (rc == 0)
		qsort(v, n, sizeof(*v), range_order);
	for (size_t i = 1; rc == 0 && i < n; i++)
		if (v[i].start < v[i - 1].end) {
			snprintf(why->text, sizeof(why->text),
				 "the ranges %llu-%llu and %llu-%llu overlap",
				 (unsigned long long)v[i - 1].start,
				 (unsigned long long)v[i - 1].end, (unsigned long long)v[i].start,
				 (unsigned long long)v[i].end);
			rc = -EINVAL;
		}
	if (rc == 0 && ret) {
		*ret = v;
		*ret_n = n;
		return 0;
	}
	free(v);
	return rc;
}

int layout_value_attrs(const char *s, unsigned *ret, struct why *why)
{
	static const struct {
		const char *name;
		unsigned bit;
	} attrs[] = {
		{ "readonly", LAYOUT_ATTR_READONLY },
		{ "hidden", LAYOUT_ATTR_HIDDEN },
		{ "system", LAYOUT_ATTR_SYSTEM },
		{ "archive", LAYOUT_ATTR_ARCHIVE },
	};
	unsigned bits = 0;
	const char *p = s;

	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, " ,");
		if (n == 0)
			break;
		size_t i;
		for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
			if (strlen(attrs[i].name) == n && strncmp(p, attrs[i].name, n) == 0)
				break;
		if (i == sizeof(attrs) / sizeof(attrs[0])) {
			snprintf(why->text, sizeof(why->text),
				 "'%.*s' is not an attribute (readonly, hidden, system, archive)",
				 (int)(n > 40 ? 40 : n), p);
			return -EINVAL;
		}
		bits |= attrs[i].bit;
		p += n;
	}
	*ret = bits;
	return 0;
}

unsigned layout_edit_distance(const char *a, const char *b)
{
	unsigned row[65];
	size_t la = strlen(a), lb = strlen(b);

	if (la > 64)
		la = 64;
	if (lb > 64)
		lb = 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

int layout_parse_size(const char *text, uint64_t *ret, char *why, size_t n)
{
	struct why w;
	int rc = layout_value_size(text, ret, &w);

	if (rc < 0)
		snprintf(why, n, "%s", w.text);
	return rc;
}
