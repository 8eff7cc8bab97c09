# SPDX-License-Identifier: MIT
# examples/yocto/meta-sdimg as yocto-check-layer and oe-core would judge it, without bitbake:
# the series it is compatible with (every maintained one), LAYERDEPENDS on meta-oe only
# where oe-core has no jansson (the layer.conf expression evaluated over a fake COREBASE
# with and without one); the recipe: MIT with the LICENSE file's md5, a release tarball (no
# AUTOREV, no git URL, no S = "${WORKDIR}/git", which oe-core master refuses), completions
# through bash-completion; the class: each series' image name (kirkstone's
# ${IMAGE_NAME}${IMAGE_NAME_SUFFIX}, later IMAGE_NAME alone) and every layout include() in
# the task's file-checksums (its Python run with a stand-in datastore); README.md names
# maintainers and where patches go, SECURITY.md for the layer and the project.
. "$TOP/tests/e2e-lib.sh"
need python3 md5sum

LAYER=$TOP/examples/yocto/meta-sdimg
CONF=$LAYER/conf/layer.conf
RECIPE=$(ls "$LAYER"/recipes-devtools/sdimg/sdimg_*.bb)
CLASS=$LAYER/classes/image_types_sdimg.bbclass

compat=$(sed -n 's/^LAYERSERIES_COMPAT_sdimg = "\(.*\)"$/\1/p' "$CONF")
for s in kirkstone scarthgap walnascar whinlatter wrynose; do
    case " $compat " in *" $s "*) ;; *) fail "LAYERSERIES_COMPAT_sdimg lacks $s: $compat" ;; esac
done

# the recipe
grep -q '^LICENSE = "MIT"$' "$RECIPE" || fail "the recipe's LICENSE is not MIT"
md5=$(md5sum "$TOP/LICENSE" | cut -d' ' -f1)
grep -q "^LIC_FILES_CHKSUM = \"file://LICENSE;md5=$md5\"$" "$RECIPE" || fail "LIC_FILES_CHKSUM is not LICENSE's md5 ($md5)"
! grep -q 'AUTOREV' "$RECIPE" || fail "the recipe asks git at parse time (AUTOREV)"
! grep -q '^S = "\${WORKDIR}/git"' "$RECIPE" || fail "S = \"\${WORKDIR}/git\" (refused on oe-core master)"
! grep -q 'git://' "$RECIPE" || fail "the recipe fetches a git URL"
grep -q 'sdimg-\${PV}\.tar\.gz' "$RECIPE" || fail "the recipe fetches no release tarball"
grep -q '^inherit .*bash-completion' "$RECIPE" || fail "the completions are not packaged with bash-completion"
grep -q 'DOCDIR=' "$RECIPE" || fail "the recipe does not say where the documents go"

# README and SECURITY
grep -qi '^## Maintainers' "$LAYER/README.md" || fail "README.md names no maintainers"
grep -qi 'patch' "$LAYER/README.md" || fail "README.md does not say where patches go"
# yocto-check-layer's test_readme also wants an email address (unless the README points to
# another README): none is published yet, so the line that will hold it must be there,
# marked, until it does
if ! grep -qE '[^@ ]+@[^@ ]+\.[a-z]+' "$LAYER/README.md"; then
    grep -q "^Maintainer's address: NOT YET PUBLISHED" "$LAYER/README.md" ||
        fail "README.md has no maintainer's email address and no marked line for it"
fi
grep -q '^HOMEPAGE = \|^# HOMEPAGE: NOT YET PUBLISHED' "$RECIPE" ||
    fail "the recipe has no HOMEPAGE and no marked line for it"
[ -s "$LAYER/SECURITY.md" ] || fail "the layer has no SECURITY.md"
[ -s "$TOP/SECURITY.md" ] || fail "the project has no SECURITY.md"

# the Python of layer.conf and the class, with a stand-in datastore
sed -n 's/^SDIMG_CORE_HAS_JANSSON = "\${@\(.*\)}"$/\1/p' "$CONF" >has_jansson.py
[ -s has_jansson.py ] || fail "layer.conf has no SDIMG_CORE_HAS_JANSSON expression"
sed -n 's/^LAYERDEPENDS_sdimg = "\(.*\)"$/\1/p' "$CONF" >depends.txt
awk '/^def sdimg_image_name\(d\):$/ { on = 1 } on && /^$/ { on = 0 } on' "$CLASS" >funcs.py
awk '/^def sdimg_rootfs_name\(d\):$/ { on = 1 } on && /^$/ { on = 0 } on' "$CLASS" >>funcs.py
awk '/^def sdimg_layout_checksums\(d\):$/ { on = 1 } on && /^$/ { on = 0 } on' "$CLASS" >>funcs.py
mkdir -p core/meta/recipes-devtools core2/meta/recipes-support/jansson lay/sub other
# includes at the start of a line, inside a section (as LAYOUT.md allows), after a comment
# that spans lines, in single quotes; none from a comment or a string
cat >lay/main.layout <<'LAYOUT'
include("sub/parts.layout")
image { table = mbr } # include("no-comment.layout")
partition boot { type = fat size = 32M fat { include("lab.layout") } }
// include("no-line-comment.layout")
/* include("no-block.layout")
 */ partition root { type = ext4 size = 8M label = "x include(\"no-string.layout\")" }
LAYOUT
printf '  include ( "more.layout" )\ninclude("${BOOT_FILES}")\ninclude(/* a */ \047shared.layout\047)\n' >lay/sub/parts.layout
: >lay/sub/more.layout
: >lay/lab.layout
: >other/shared.layout
for f in no-comment no-line-comment no-block no-string; do : >"lay/$f.layout"; done
cat >run.py <<'PY'
import os, sys
class D:
    def __init__(self, v): self.v = v
    def getVar(self, k): return self.v.get(k)
has = open('has_jansson.py').read()
for core, want in (('core', ''), ('core2', '1')):
    got = eval(has, {'os': os, 'd': D({'COREBASE': os.path.abspath(core)})})
    assert got == want, (core, got)
assert eval(has, {'os': os, 'd': D({})}) == ''
exec(open('funcs.py').read())
kirk = D({'IMAGE_NAME': 'core-image-minimal-rpi4-20240101', 'IMAGE_NAME_SUFFIX': '.rootfs',
          'IMAGE_LINK_NAME': 'core-image-minimal-rpi4'})
assert sdimg_image_name(kirk) == 'core-image-minimal-rpi4-20240101.rootfs', sdimg_image_name(kirk)
scar = D({'IMAGE_NAME': 'core-image-minimal-rpi4.rootfs-20240101', 'IMAGE_NAME_SUFFIX': '.rootfs',
          'IMAGE_LINK_NAME': 'core-image-minimal-rpi4.rootfs'})
assert sdimg_image_name(scar) == 'core-image-minimal-rpi4.rootfs-20240101', sdimg_image_name(scar)
none = D({'IMAGE_NAME': 'img-1', 'IMAGE_NAME_SUFFIX': '', 'IMAGE_LINK_NAME': 'img'})
assert sdimg_image_name(none) == 'img-1'
# links turned off (IMAGE_LINK_NAME = "", 4.3 on): the series is still told, the rootfs is the dated one
nolink = D({'IMAGE_NAME': 'core-image-minimal-rpi4.rootfs-20240101', 'IMAGE_NAME_SUFFIX': '.rootfs',
            'IMAGE_LINK_NAME': ''})
assert sdimg_image_name(nolink) == 'core-image-minimal-rpi4.rootfs-20240101', sdimg_image_name(nolink)
assert sdimg_rootfs_name(nolink) == 'core-image-minimal-rpi4.rootfs-20240101', sdimg_rootfs_name(nolink)
assert sdimg_rootfs_name(scar) == 'core-image-minimal-rpi4.rootfs'
kirk_nolink = D({'IMAGE_NAME': 'core-image-minimal-rpi4-20240101', 'IMAGE_NAME_SUFFIX': '.rootfs',
                 'IMAGE_LINK_NAME': ''})
assert sdimg_image_name(kirk_nolink) == 'core-image-minimal-rpi4-20240101.rootfs'
lay = os.path.abspath('lay')
got = sdimg_layout_checksums(D({'SDIMG_LAYOUT_PATH': lay + '/main.layout',
                                'SDIMG_INPUT_DIRS': '/nonexistent ' + os.path.abspath('other')})).split()
want = [lay + '/main.layout:True', lay + '/sub/parts.layout:True', lay + '/lab.layout:True',
        lay + '/sub/more.layout:True', os.path.abspath('other') + '/shared.layout:True']
assert got == want, got
assert sdimg_layout_checksums(D({'SDIMG_LAYOUT_PATH': ''})) == ''
print('ok')
PY
python3 run.py >py.txt 2>&1 || { cat py.txt; fail "the layer's Python gives other answers"; }
grep -q "openembedded-layer" depends.txt || fail "LAYERDEPENDS never names openembedded-layer"
grep -q 'SDIMG_CORE_HAS_JANSSON' depends.txt || fail "LAYERDEPENDS does not depend on where jansson is"
grep -q '^do_image_sdimg\[file-checksums\] += "\${@sdimg_layout_checksums(d)}' "$CLASS" ||
    fail "the task's file-checksums do not hold the layout's includes"
echo "yocto_layer: ok"
