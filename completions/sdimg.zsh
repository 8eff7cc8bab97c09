#compdef sdimg
# SPDX-License-Identifier: MIT
# zsh completion for sdimg: commands, their options, layout files, images, and the block
# devices `sdimg flash` may write. Installed as $(DATADIR)/zsh/site-functions/_sdimg.

# _sdimg_disks: whole disks a card can be (not loop, RAM, zram, device-mapper, md, optical).
_sdimg_disks() {
    local -a disks
    local d
    for d in /sys/block/*(N); do
        case ${d:t} in
            loop*|ram*|zram*|dm-*|md*|sr*|nbd*) ;;
            *) disks+=(/dev/${d:t}) ;;
        esac
    done
    _describe -t disks 'block device' disks
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
        'ls:list a folder of a FAT partition of an image or card'
        'cat:write a file of a FAT partition to the standard output'
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
                        '(-o --output)'{-o,--output}'[the image to write]:image:_files -g "*.(img|zst|xz|gz)(-.)"' \
                        '*'{-I,--input}'[an input folder]:folder:_files -/' \
                        '*--set[define ${VAR} for the layout]:VAR=VALUE: ' \
                        '--compress[also write a compressed image]:kind:(zst xz gz)' \
                        '--bmap=-[write the block map]::bmap file:_files' \
                        '--sha256=-[write the SHA-256 checksums]::checksum file:_files' \
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
                        '*:target:_sdimg_disks' ;;
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
                        '(- *)'{-h,--help}'[show the help]' \
                        '1:IMAGE\:PART/PATH:_sdimg_images' ;;
            esac ;;
    esac
}

_sdimg "$@"
