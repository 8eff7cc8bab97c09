#compdef sdimg
# SPDX-License-Identifier: MIT
# zsh completion for sdimg: commands, their options, layout files, images, and the block
# devices `sdimg flash` may write. Installed as $(DATADIR)/zsh/site-functions/_sdimg.

# _sdimg_disks [flash]: whole disks a card can be (not loop, RAM, zram, device-mapper, md,
# optical); for flash only those it would write: none in use (the disk of /, one with a
# mounted or swap partition, a device of a mounted btrfs, one with holders), without a medium or read-only, and, unless
# the command line has --allow-fixed, only removable, USB or SD ones. SDIMG_SYSFS and
# SDIMG_PROCFS stand for /sys and /proc (for tests).
_sdimg_disks() {
    local sys=${SDIMG_SYSFS:-/sys} proc=${SDIMG_PROCFS:-/proc} d n a b id dev rest busy=" "
    local -a disks held
    if [[ $1 == flash ]]; then
        # /proc/self/mountinfo's third field is the MAJ:MIN of what is mounted, anonymous
        # (0:N) for btrfs, ZFS or overlay: the source after " - TYPE " names the device too
        while read -r a b id rest; do
            busy+="$(_sdimg_disk_of $sys $id) "
            rest=${rest#* - }
            rest=${rest#* }
            busy+="$(_sdimg_disk_of_dev $sys ${rest%% *}) "
        done 2>/dev/null <$proc/self/mountinfo
        # every device of a mounted btrfs, as sdimg flash finds them
        for dev in $sys/fs/btrfs/*/devices/*(N); do
            busy+="$(_sdimg_disk_of_dev $sys /dev/${dev:t}) "
        done
        while read -r dev rest; do
            busy+="$(_sdimg_disk_of_dev $sys $dev) "
        done 2>/dev/null <$proc/swaps
    fi
    for d in $sys/block/*(N); do
        n=${d:t}
        case $n in
            loop*|ram*|zram*|dm-*|md*|sr*|nbd*) continue ;;
        esac
        if [[ $1 == flash ]]; then
            [[ $busy == *" $n "* ]] && continue
            { [[ $(<$d/size) != 0 && $(<$d/ro) == 0 ]] } 2>/dev/null || continue
            held=($d/holders/*(N) $d/$n*/holders/*(N))
            (( $#held )) && continue
            (( ${words[(I)--allow-fixed]} )) || _sdimg_portable $d || continue
        fi
        disks+=(/dev/$n)
    done
    _describe -t disks 'block device' disks
}

# _sdimg_flash_disks: the disks flash would write
_sdimg_flash_disks() {
    _sdimg_disks flash
}

# _sdimg_disk_of SYS MAJ:MIN: the name of the whole disk that holds block device MAJ:MIN
_sdimg_disk_of() {
    local p=$1/dev/block/$2
    [[ -d $p ]] || return 0
    p=${p:A}
    [[ -e $p/partition ]] && p=${p:h}
    print -rn -- ${p:t}
}

# _sdimg_disk_of_dev SYS /dev/NAME: the name of the whole disk that holds block device NAME
_sdimg_disk_of_dev() {
    [[ $2 == /dev/* && -r $1/class/block/${2:t}/dev ]] || return 0
    _sdimg_disk_of $1 "$(<$1/class/block/${2:t}/dev)"
}

# _sdimg_portable DIR: the disk of /sys/block/NAME DIR has removable media, sits on USB
# or is an SD card
_sdimg_portable() {
    { [[ $(<$1/removable) == 1 ]] } 2>/dev/null && return 0
    [[ ${1:A} == */usb* ]] && return 0
    { [[ $(<$1/device/type) == SD ]] } 2>/dev/null
}

_sdimg_images() {
    _files -g '*.(img|raw|bin|zst|xz|gz)(-.)'
}

_sdimg() {
    local curcontext=$curcontext state line
    local -a commands
    commands=(
        'build:write the image a layout describes'
        'plan:print the resolved geometry of a layout; writes nothing'
        'import:translate a genimage configuration into a layout'
        'flash:write an image onto cards at once, each read back'
        'personalize:copy an image with one card'"'"'s per-card values'
        'inspect:read an image or card: table, file systems, SD alignment'
        'ls:list a folder of a FAT, exFAT or ext4 partition of an image or card'
        'cat:write a file of a FAT, exFAT or ext4 partition to the standard output'
    )
    _arguments -C \
        '(- *)'{-h,--help}'[show the help]' \
        '(- *)'{-V,--version}'[show the version]' \
        '1: :->command' \
        '*:: :->args' && return
    case $state in
        command) _describe -t commands 'sdimg command' commands ;;
        args)
            curcontext=${curcontext%:*:*}:sdimg-$line[1]:
            case $line[1] in
                build)
                    _arguments \
                        '(-o --output)'{-o,--output}'[the image to write]:image:_files -g "*.(img|zst|xz|gz|simg)(-.)"' \
                        '*'{-I,--input}'[an input folder]:folder:_files -/' \
                        '*--set[define ${VAR} for the layout]:VAR=VALUE: ' \
                        '--compress[also write a compressed image]:kind:(zst xz gz)' \
                        '--bmap=-[write the block map]::bmap file:_files' \
                        '--sha256=-[write the SHA-256 checksums]::checksum file:_files' \
                        '--simg[also write an Android sparse image]' \
                        '--simg-block-size[the sparse image block size]:bytes:(512 4096 4K 64K)' \
                        '--simg-crc[end each sparse file with a CRC32 chunk]' \
                        '--simg-max-size[split the sparse image into files of at most this size]:bytes: ' \
                        '(-q --quiet -v --verbose)'{-q,--quiet}'[print only errors and warnings]' \
                        '(-q --quiet -v --verbose)'{-v,--verbose}'[print the placement of each partition]' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:layout:_files -g "*.layout(-.)"' ;;
                plan)
                    _arguments \
                        '--json[print a JSON document]' \
                        '*'{-I,--input}'[an input folder]:folder:_files -/' \
                        '*--set[define ${VAR} for the layout]:VAR=VALUE: ' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:layout:_files -g "*.layout(-.)"' ;;
                import)
                    _arguments \
                        '(-o --output)'{-o,--output}'[the layout to write]:layout:_files -g "*.layout(-.)"' \
                        '--image[the hdimage image to translate]:image name: ' \
                        '*'{-I,--input}'[where the input files are]:folder:_files -/' \
                        '*--set[define ${VAR} for the configuration]:VAR=VALUE: ' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:configuration:_files -g "*.(cfg|wks)(-.)"' ;;
                flash)
                    _arguments \
                        '--bmap[the block map to use]:bmap file:_files -g "*.bmap(-.)"' \
                        '--no-verify[do not read the cards back]' \
                        '--gaps[what unmapped stretches get]:mode:(keep discard zero)' \
                        '--allow-fixed[also write partitions, eMMC and fixed disks]' \
                        '(--report)--json[the report as JSON on the standard output]' \
                        '(--json)--report[the JSON report into a file]:report file:_files' \
                        '--timeout[give up a target without progress for so long]:seconds: ' \
                        '--check-capacity[write and read back stamps over the whole card first]' \
                        '--dry-run[say what would be done; write nothing]' \
                        '--watch[a station: write each card as it arrives]' \
                        '*--match[only the slots this glob names]:pattern: ' \
                        '--log[append one JSON line per card]:log file:_files' \
                        '*--card-values[each card its own values: a CSV file or NAME=PATTERN]:CSV file or NAME=PATTERN:_files -g "*.csv(-.)"' \
                        '--first-index[the first card'"'"'s number]:number: ' \
                        '(-q --quiet -v --verbose)'{-q,--quiet}'[print only errors and warnings]' \
                        '(-q --quiet -v --verbose)'{-v,--verbose}'[more detail]' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:image:_sdimg_images' \
                        '*:target:_sdimg_flash_disks' ;;
                personalize)
                    _arguments \
                        '*--set[a card'"'"'s value of ${NAME}]:NAME=VALUE: ' \
                        '(-o --output)'{-o,--output}'[the image to write]:image:_files -g "*.img(-.)"' \
                        '--cards[the per-card manifest]:manifest:_files -g "*.json(-.)"' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:image:_sdimg_images' ;;
                inspect)
                    _arguments \
                        '--json[print a JSON document]' \
                        '--erase-block[the grid to check against]:size: ' \
                        '--uboot-env[also the U-Boot environment there]:OFFSET[,SIZE[,OFFSET2]]: ' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:image or device:{_sdimg_images; _sdimg_disks}' ;;
                ls)
                    _arguments \
                        '(-l --long)'{-l,--long}'[attributes, size, time and 8.3 name]' \
                        '(-R --recursive)'{-R,--recursive}'[every folder below as well]' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:IMAGE[\:PART][/PATH]:_sdimg_images' ;;
                cat)
                    _arguments \
                        '--uboot-env[the variables of the U-Boot environment there]:OFFSET[,SIZE[,OFFSET2]]: ' \
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:IMAGE\:PART/PATH:_sdimg_images' ;;
            esac ;;
    esac
}

_sdimg "$@"
