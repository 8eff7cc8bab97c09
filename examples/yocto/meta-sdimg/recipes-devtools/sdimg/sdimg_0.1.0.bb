# SPDX-License-Identifier: MIT
SUMMARY = "Byte-exact SD card images from a declarative layout file"
DESCRIPTION = "sdimg builds the disk image of an SD card from a layout file: \
partitions, alignment, FAT parameters and file trees in, one byte-exact image out, \
offline and without root; it also reads images back and writes them onto cards."
SECTION = "devel"
# HOMEPAGE: NOT YET PUBLISHED; set HOMEPAGE to the project's published address at release
LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://LICENSE;md5=f0fce92aa8335a22df5dcf3c35290b15"

# The release tarball: by default the one `make dist` writes into the top of the sdimg
# checkout that holds this layer (examples/yocto/meta-sdimg; run it there first). For a
# published release set SDIMG_SRC_URI to its address and SRC_URI[sha256sum] to the
# sha256 that `make dist` printed. It unpacks into sdimg-${PV}/, the default S of every
# series (no S assignment: oe-core master refuses S = "${WORKDIR}/git").
SDIMG_SRC_URI ??= "file://${SDIMG_LAYERDIR}/../../../sdimg-${PV}.tar.gz"
SRC_URI = "${SDIMG_SRC_URI}"

# libfdisk (util-linux), libarchive, libcrypto (openssl), jansson (oe-core master; meta-oe
# before), zlib, libzstd, liblzma (xz), libext2fs (e2fsprogs); each with a native and a
# nativesdk variant
DEPENDS = "util-linux libarchive openssl jansson zlib zstd xz e2fsprogs"

inherit pkgconfig bash-completion

EXTRA_OEMAKE = "VERSION=${PV}"

do_compile() {
	oe_runmake all
}

do_install() {
	oe_runmake install DESTDIR=${D} PREFIX=${prefix} BINDIR=${bindir} \
		DATADIR=${datadir} MANDIR=${mandir} DOCDIR=${docdir}/${BPN}
}

FILES:${PN} += "${datadir}/zsh"
# libarchive (archive trees) and libcrypto (every SHA-256: seeds, ids, checksums) are loaded
# with dlopen, so no shlibs dependency names them; a build cannot do without libcrypto
RDEPENDS:${PN} += "libcrypto"
RRECOMMENDS:${PN} += "libarchive"

BBCLASSEXTEND = "native nativesdk"
