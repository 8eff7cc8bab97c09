# SPDX-License-Identifier: MIT
# image_types_sdimg.bbclass: "sdimg", a card image that sdimg builds from a layout file.
#
#   IMAGE_CLASSES += "image_types_sdimg"
#   IMAGE_FSTYPES += "sdimg"            (and/or "sdimg.zst")
#   SDIMG_LAYOUT = "sdimage-raspberrypi.layout"     (in the machine or the image)
#
# The image command writes ${SDIMG_IMAGE_NAME}.sdimg (the name each series gives its images:
# ${IMAGE_NAME}${IMAGE_NAME_SUFFIX} on kirkstone, ${IMAGE_NAME} from 4.3 on) with its block
# map (.sdimg.bmap) and its checksums (.sdimg.sha256) into IMGDEPLOYDIR, beside the other images of the build. The
# layout's relative paths are looked up in IMGDEPLOYDIR (this image's root file system),
# then in DEPLOY_DIR_IMAGE (kernel, device trees, boot loader); it sees ${ROOTFS} (the
# root file system image, built first through IMAGE_TYPEDEP), ${BOOT_FILES} (a layout
# file holding IMAGE_BOOT_FILES, for include("${BOOT_FILES}") inside a FAT partition),
# ${MACHINE} and the VAR=VALUE words of SDIMG_SET. The ROOTFS and BOOT_FILES values do not
# change from build to build, so neither do the ids of a layout without a seed. SOURCE_DATE_EPOCH, which the build
# exports, dates every FAT entry. With "sdimg.zst", sdimg compresses the image while it
# writes it (the same bytes whatever the machine's processors).

# a path, or a name looked up in this recipe's folder and in files/sdimg/ of every layer
SDIMG_LAYOUT ??= ""
SDIMG_LAYOUT_SEARCH_PATH ?= "${THISDIR}:${@':'.join('%s/files/sdimg' % p for p in '${BBPATH}'.split(':'))}"
SDIMG_LAYOUT_PATH = "${@sdimg_layout_path(d)}"
SDIMG_ROOTFS_TYPE ??= "ext4"
# the link without the date, so that the layout's ids (derived from the values of its
# variables when it sets no seed) stay the same from build to build; without links, the
# dated name of this build's rootfs
SDIMG_ROOTFS ??= "${@sdimg_rootfs_name(d)}.${SDIMG_ROOTFS_TYPE}"
SDIMG_INPUT_DIRS ??= "${IMGDEPLOYDIR} ${DEPLOY_DIR_IMAGE}"
SDIMG_SET ??= ""
SDIMG_ZST_LEVEL ??= "3"
SDIMG_BOOT_FILES = "${SDIMG_LAYERDIR}/scripts/sdimg-boot-files"
SDIMG_RAW = "${@bb.utils.contains('IMAGE_FSTYPES', 'sdimg', '1', '', d)}"
SDIMG_ZST = "${@bb.utils.contains('IMAGE_FSTYPES', 'sdimg.zst', '1', '', d)}"

# kirkstone (4.0) names an image ${IMAGE_NAME}${IMAGE_NAME_SUFFIX}.TYPE, and so do its image
# links and conversions; from 4.3 on IMAGE_NAME holds the suffix (IMAGE_LINK_NAME, of which it
# is made, ends with it) and an image is ${IMAGE_NAME}.TYPE. The series is told by whether
# IMAGE_NAME holds the suffix, which stays so when links are turned off.
SDIMG_IMAGE_NAME = "${@sdimg_image_name(d)}"

def sdimg_image_name(d):
    name = d.getVar('IMAGE_NAME')
    suffix = d.getVar('IMAGE_NAME_SUFFIX') or ''
    if suffix and suffix not in name:
        return name + suffix
    return name

# the rootfs by its link name, or by the image's own name where links are turned off
# (IMAGE_LINK_NAME = "")
def sdimg_rootfs_name(d):
    link = d.getVar('IMAGE_LINK_NAME') or ''
    return link if link else sdimg_image_name(d)

# the layout and every file it pulls in with include("NAME"), wherever the call stands (at the
# start of a line or inside a section, not in a comment or a string: docs/LAYOUT.md's
# lexical rules), looked up as sdimg does (the including file's folder first, then each
# SDIMG_INPUT_DIRS folder, the task's -I folders, that exists at parse time), each as a
# "PATH:True" word of the task's file-checksums: a changed include builds a new image. An
# include whose name holds a ${VAR} is made by the task (BOOT_FILES), not a source.
def sdimg_layout_checksums(d):
    import re
    first = d.getVar('SDIMG_LAYOUT_PATH')
    if not first:
        return ''
    dirs = [p for p in (d.getVar('SDIMG_INPUT_DIRS') or '').split() if os.path.isdir(p)]
    token = re.compile(r"""\s+|#[^\n]*|//[^\n]*|/\*.*?(?:\*/|$)|"((?:[^"\\]|\\.)*)"?|'((?:[^'\\]|\\.)*)'?|((?:[^\s#"'=(){}+,*/]|/(?![/*]))+)|(.)""", re.S)
    def includes(text):
        toks = []
        for m in token.finditer(text):
            if m.group(1) is not None:
                toks.append(('s', re.sub(r'\\(.)', r'\1', m.group(1))))
            elif m.group(2) is not None:
                toks.append(('s', re.sub(r"\\([\\'])", r'\1', m.group(2))))
            elif m.group(3) is not None or m.group(4) is not None:
                toks.append(('w', m.group(3) or m.group(4)))
        for i in range(len(toks) - 3):
            if toks[i] == ('w', 'include') and toks[i + 1] == ('w', '(') and toks[i + 2][0] == 's' \
                    and toks[i + 3] == ('w', ')') and '$' not in toks[i + 2][1]:
                yield toks[i + 2][1]
    seen, todo = [], [first]
    while todo and len(seen) < 256:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
        except OSError:
            continue
        for name in includes(text):
            for folder in [os.path.dirname(path)] + dirs:
                cand = os.path.join(folder, name)
                if os.path.isfile(cand):
                    todo.append(cand)
                    break
    return ' '.join('%s:%s' % (p, os.path.exists(p)) for p in seen)

def sdimg_layout_path(d):
    layout = d.getVar('SDIMG_LAYOUT')
    if not layout:
        return ''
    if os.path.isabs(layout):
        return layout
    return bb.utils.which(d.getVar('SDIMG_LAYOUT_SEARCH_PATH'), layout) or ''

IMAGE_TYPES += "sdimg"
IMAGE_TYPEDEP:sdimg = "${SDIMG_ROOTFS_TYPE}"
do_image_sdimg[depends] += "sdimg-native:do_populate_sysroot"
# everything the machine deploys (kernel, device trees, boot loader) is there first
do_image_sdimg[recrdeptask] += "do_deploy"
do_image_sdimg[deptask] += "do_image_complete"
# a new layout or converter makes a new image (a layout that is not found stops the task)
do_image_sdimg[file-checksums] += "${@sdimg_layout_checksums(d)} ${SDIMG_BOOT_FILES}:True"
# the block map and the checksums get IMAGE_LINK_NAME links like the image
do_image_sdimg[subimages] += "sdimg.bmap sdimg.sha256"

IMAGE_CMD:sdimg () {
	layout="${SDIMG_LAYOUT_PATH}"
	if [ -z "$layout" ] || [ ! -f "$layout" ]; then
		bbfatal "sdimg: no layout file for SDIMG_LAYOUT '${SDIMG_LAYOUT}' (a path, or a name in files/sdimg/ of a layer)"
	fi
	out="${IMGDEPLOYDIR}/${SDIMG_IMAGE_NAME}.sdimg"
	work="${WORKDIR}/sdimg"
	rm -rf "$work"
	mkdir -p "$work"
	"${SDIMG_BOOT_FILES}" "${DEPLOY_DIR_IMAGE}" "${IMAGE_BOOT_FILES}" >"$work/sdimg-boot-files.layout"

	set --
	for dir in ${SDIMG_INPUT_DIRS}; do
		set -- "$@" -I "$dir"
	done
	# the boot files' layout by a name that is the same in every build folder
	set -- "$@" -I "$work"
	for word in ${SDIMG_SET}; do
		set -- "$@" --set "$word"
	done
	if [ -n "${SDIMG_ZST}" ]; then
		set -- "$@" --compress "zst:${SDIMG_ZST_LEVEL}"
	fi
	TZ=UTC sdimg build -o "$out" --bmap --sha256 \
		--set ROOTFS="${SDIMG_ROOTFS}" \
		--set BOOT_FILES=sdimg-boot-files.layout \
		--set MACHINE="${MACHINE}" \
		"$@" "$layout"

	# only sdimg.zst asked for: the image is removed after the conversions, and so is
	# its line of the checksums
	if [ -z "${SDIMG_RAW}" ]; then
		sed -i "/  ${SDIMG_IMAGE_NAME}\.sdimg\$/d" "$out.sha256"
	fi
}

# sdimg wrote ${SDIMG_IMAGE_NAME}.sdimg.zst itself: the conversion only checks that it is there
CONVERSION_CMD:zst:sdimg = "test -s ${SDIMG_IMAGE_NAME}.${type}.zst"
