# SPDX-License-Identifier: MIT
SUMMARY = "Byte-exact SD card images from a declarative layout file"
DESCRIPTION = "sdimg builds the disk image of an SD card from a layout file: \
partitions, alignment, FAT parameters and file trees in, one byte-exact image out, \
offline and without root; it also reads images back and writes them onto cards."
SECTION = "devel"
# The sdimg tree holds no licence file, so there is no LIC_FILES_CHKSUM to give.
LICENSE = "CLOSED"

# The sdimg checkout that holds this layer (examples/yocto/meta-sdimg); set SDIMG_GIT_URI,
# SDIMG_BRANCH and SRCREV to build from another clone or a fixed commit.
SDIMG_GIT_URI ??= "git://${SDIMG_LAYERDIR}/../../..;protocol=file"
SDIMG_BRANCH ??= "main"
SRC_URI = "${SDIMG_GIT_URI};branch=${SDIMG_BRANCH}"
SRCREV ??= "${AUTOREV}"
PV = "0.1.0+git"
S = "${WORKDIR}/git"

# libfdisk (util-linux), libarchive, libcrypto (openssl), jansson (meta-oe), zlib, libzstd,
# liblzma (xz): all in oe-core but jansson, each with a native and a nativesdk variant
DEPENDS = "util-linux libarchive openssl jansson zlib zstd xz e2fsprogs"

inherit pkgconfig

EXTRA_OEMAKE = "VERSION=${PV}"

do_compile() {
	oe_runmake all
}

do_install() {
	oe_runmake install DESTDIR=${D} PREFIX=${prefix} BINDIR=${bindir} \
		DATADIR=${datadir} MANDIR=${mandir}
}

FILES:${PN} += "${datadir}/bash-completion ${datadir}/zsh"
# libarchive (archive trees) and libcrypto (every SHA-256: seeds, ids, checksums) are loaded
# with dlopen, so no shlibs dependency names them; a build cannot do without libcrypto
RDEPENDS:${PN} += "libcrypto"
RRECOMMENDS:${PN} += "libarchive"

BBCLASSEXTEND = "native nativesdk"
