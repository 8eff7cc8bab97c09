# SPDX-License-Identifier: MIT
# bash completion for sdimg: commands, their options, layout files, images, and the block
# devices `sdimg flash` may write. Installed as $(DATADIR)/bash-completion/completions/sdimg.

# _sdimg_disks [flash [allow-fixed]]: whole disks a card can be (not loop, RAM, zram,
# device-mapper, md, optical); for flash only those it would write: none in use (the disk
# of /, one with a mounted or swap partition, a device of a mounted btrfs, one with holders), without a medium or
# read-only, and, without --allow-fixed, only removable, USB or SD ones. SDIMG_SYSFS and
# SDIMG_PROCFS stand for /sys and /proc (for tests).
_sdimg_disks()
{
    local sys=${SDIMG_SYSFS:-/sys} proc=${SDIMG_PROCFS:-/proc} d n a b id dev rest busy=" "
    if [[ $1 == flash ]]; then
        # /proc/self/mountinfo's third field is the MAJ:MIN of what is mounted, anonymous
        # (0:N) for btrfs, ZFS or overlay: the source after " - TYPE " names the device too
        while read -r a b id rest; do
            busy+="$(_sdimg_disk_of "$sys" "$id") "
            rest=${rest#* - }
            rest=${rest#* }
            busy+="$(_sdimg_disk_of_dev "$sys" "${rest%% *}") "
        done 2>/dev/null <"$proc/self/mountinfo"
        # every device of a mounted btrfs, as sdimg flash finds them
        for dev in "$sys"/fs/btrfs/*/devices/*; do
            busy+="$(_sdimg_disk_of_dev "$sys" "/dev/${dev##*/}") "
        done
        while read -r dev rest; do
            busy+="$(_sdimg_disk_of_dev "$sys" "$dev") "
        done 2>/dev/null <"$proc/swaps"
    fi
    for d in "$sys"/block/*; do
        n=${d##*/}
        case $n in
            loop*|ram*|zram*|dm-*|md*|sr*|nbd*|'*') continue ;;
        esac
        if [[ $1 == flash ]]; then
            [[ $busy == *" $n "* ]] && continue
            { [[ $(<"$d/size") != 0 && $(<"$d/ro") == 0 ]]; } 2>/dev/null || continue
            compgen -G "$d/holders/*" >/dev/null && continue
            compgen -G "$d/$n*/holders/*" >/dev/null && continue
            [[ $2 == allow-fixed ]] || _sdimg_portable "$d" || continue
        fi
        printf '/dev/%s\n' "$n"
    done
}

# _sdimg_disk_of SYS MAJ:MIN: the name of the whole disk that holds block device MAJ:MIN
_sdimg_disk_of()
{
    local p
    p=$(readlink -f "$1/dev/block/$2" 2>/dev/null) && [[ -d $p ]] || return 0
    [[ -e $p/partition ]] && p=${p%/*}
    printf '%s' "${p##*/}"
}

# _sdimg_disk_of_dev SYS /dev/NAME: the name of the whole disk that holds block device NAME
_sdimg_disk_of_dev()
{
    [[ $2 == /dev/* && -r $1/class/block/${2##*/}/dev ]] || return 0
    _sdimg_disk_of "$1" "$(<"$1/class/block/${2##*/}/dev")"
}

# _sdimg_portable DIR: the disk of /sys/block/NAME DIR has removable media, sits on USB
# or is an SD card
_sdimg_portable()
{
    { [[ $(<"$1/removable") == 1 ]]; } 2>/dev/null && return 0
    [[ $(readlink -f "$1") == */usb* ]] && return 0
    { [[ $(<"$1/device/type") == SD ]]; } 2>/dev/null
}

# _sdimg_files [SUFFIX...]: folders, and files whose names end in .SUFFIX (every file
# without a SUFFIX)
_sdimg_files()
{
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' sfx
    COMPREPLY+=($(compgen -d -- "$cur"))
    if (($# == 0)); then
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
    for sfx in "$@"; do
        COMPREPLY+=($(compgen -f -X "!*.$sfx" -- "$cur"))
    done
    compopt -o filenames 2>/dev/null
}

_sdimg()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="build plan import flash personalize inspect ls cat"
    local cmd="" i nargs=0 word=$cur IFS=$' \t\n'
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) if [[ -z $cmd ]]; then cmd=${COMP_WORDS[i]}; fi ;;
        esac
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands -h --help -V --version" -- "$cur"))
        return
    fi
    # positional arguments after the command (an option's value is not one; after "--"
    # every word is one, and so is the word completed: $word is what it looks like)
    for ((i = 2; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -o|--output|-I|--input|--set|--compress|--gaps|--report|--timeout|--erase-block|--uboot-env|--cards|--card-values|--first-index|--match|--log|--simg-block-size|--simg-max-size) ((i++)) ;;
            --bmap) [[ $cmd == flash ]] && ((i++)) ;;
            --) ((nargs += COMP_CWORD - i - 1)); word=argument; break ;;
            -*) ;;
            *) ((nargs++)) ;;
        esac
    done
    case $cmd in
        build)
            case $prev in
                -o|--output) _sdimg_files img zst xz gz simg; return ;;
                -I|--input) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
                --simg-block-size) COMPREPLY=($(compgen -W "512 4096 4K 64K" -- "$cur")); return ;;
                --simg-max-size) return ;;
                --compress) COMPREPLY=($(compgen -W "zst xz gz" -- "$cur")); return ;;
                --set) return ;;
            esac
            case $word in
                --bmap=*|--sha256=*) COMPREPLY=($(compgen -f -P "${cur%%=*}=" -- "${cur#*=}")); return ;;
                -*) COMPREPLY=($(compgen -W "-o --output -I --input --set --compress --bmap --bmap= --sha256 --sha256= --simg --simg-block-size --simg-crc --simg-max-size -q --quiet -v --verbose -h --help" -- "$cur"))
                    [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
                    return ;;
            esac
            ((nargs == 0)) && _sdimg_files layout
            ;;
        plan)
            case $prev in
                -I|--input) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
                --set) return ;;
            esac
            case $word in
                -*) COMPREPLY=($(compgen -W "--json -I --input --set -h --help" -- "$cur")); return ;;
            esac
            ((nargs == 0)) && _sdimg_files layout
            ;;
        import)
            case $prev in
                -o|--output) _sdimg_files layout; return ;;
                -I|--input) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
                --image|--set) return ;;
            esac
            case $word in
                -*) COMPREPLY=($(compgen -W "-o --output --image -I --input --set -h --help" -- "$cur")); return ;;
            esac
            ((nargs == 0)) && _sdimg_files cfg wks
            ;;
        flash)
            case $prev in
                --bmap) _sdimg_files bmap; return ;;
                --report|--log) _sdimg_files; return ;;
                --gaps) COMPREPLY=($(compgen -W "keep discard zero" -- "$cur")); return ;;
                --card-values) _sdimg_files csv; return ;;
                --timeout|--match|--first-index) return ;;
            esac
            case $word in
                -*) COMPREPLY=($(compgen -W "--bmap --no-verify --gaps --allow-fixed --json --report --timeout --check-capacity --dry-run --watch --match --log --card-values --first-index -q --quiet -v --verbose -h --help" -- "$cur")); return ;;
            esac
            if ((nargs == 0)); then
                _sdimg_files img raw zst xz gz
            else
                local fixed=""
                [[ " ${COMP_WORDS[*]} " == *" --allow-fixed "* ]] && fixed=allow-fixed
                COMPREPLY=($(compgen -W "$(_sdimg_disks flash $fixed)" -- "$cur"))
            fi
            ;;
        personalize)
            case $prev in
                -o|--output) _sdimg_files img; return ;;
                --cards) _sdimg_files json; return ;;
                --set) return ;;
            esac
            case $word in
                -*) COMPREPLY=($(compgen -W "--set -o --output --cards -h --help" -- "$cur")); return ;;
            esac
            ((nargs == 0)) && _sdimg_files img
            ;;
        inspect)
            case $prev in
                --erase-block|--uboot-env) return ;;
            esac
            case $word in
                -*) COMPREPLY=($(compgen -W "--json --erase-block --uboot-env -h --help" -- "$cur")); return ;;
            esac
            if ((nargs == 0)); then
                _sdimg_files img raw bin
                COMPREPLY+=($(compgen -W "$(_sdimg_disks)" -- "$cur"))
            fi
            ;;
        ls|cat)
            [[ $cmd == cat && $prev == --uboot-env ]] && return
            case $word in
                -*) if [[ $cmd == ls ]]; then
                        COMPREPLY=($(compgen -W "-l --long -R --recursive -h --help" -- "$cur"))
                    else
                        COMPREPLY=($(compgen -W "--uboot-env -h --help" -- "$cur"))
                    fi
                    return ;;
            esac
            ((nargs == 0)) && _sdimg_files img raw bin
            ;;
    esac
}
complete -F _sdimg sdimg
