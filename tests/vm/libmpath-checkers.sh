#!/bin/bash
# The path checkers on real devices, through `mpathctl debug check`:
# tur on a scsi_debug path reports down within its timeout when the
# device goes offline and up when it returns; directio on a dm device over
# null_blk reports up, down when reads fail (dm-flakey), and timeout -
# on time - when I/O hangs (suspended map); readsector0 like tur.
# lab-timeout: 240
. /lab/lib.sh

# Leave the guest as found: later scenarios load scsi_debug with their
# own parameters.
cleanup() {
	local m
	for m in $(dmsetup ls 2>/dev/null | awk '{print $1}' | grep '^chk'); do
		dmsetup remove --force "$m" 2>/dev/null
	done
	udevadm settle
	modprobe -r scsi_debug null_blk 2>/dev/null
	true
}
trap cleanup EXIT

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
check() { mpathctl debug check "$@"; }
# expect STATE MAXMS CHECKER DEV [--timeout MS]
expect() {
	local want=$1 max=$2 out state ms
	shift 2
	out=$(check "$@") || die "check $* failed to run"
	echo "check $*: $out" >&2
	state=${out%% *}
	ms=$(echo "$out" | awk '{print $2}' | tr -d ms)
	[ "$state" = "$want" ] || die "check $*: expected $want, got: $out"
	[ "$ms" -le "$max" ] || die "check $*: took ${ms}ms, more than ${max}ms"
}

mapfile -t sd < <(scsi_debug_paths)
[ ${#sd[@]} -eq 2 ] || die "expected 2 scsi_debug paths, got: ${sd[*]}"
p=/dev/${sd[0]}
expect up 2000 tur "$p" --timeout 2000
expect up 2000 readsector0 "$p" --timeout 2000
echo offline > "/sys/block/${sd[0]}/device/state"
expect down 2500 tur "$p" --timeout 2000
expect down 2500 readsector0 "$p" --timeout 2000
result tur_offline down
echo running > "/sys/block/${sd[0]}/device/state"
expect up 2000 tur "$p" --timeout 2000
result tur_back up

modprobe null_blk nr_devices=1 gb=1 || die "cannot load null_blk"
udevadm settle
nsz=$(blockdev --getsz /dev/nullb0)
expect up 2000 directio /dev/nullb0 --timeout 2000
modprobe dm-flakey || die "cannot load dm-flakey"
dmsetup create chk --table "0 $nsz linear /dev/nullb0 0" || die "cannot create chk"
udevadm settle
expect up 2000 directio /dev/mapper/chk --timeout 2000
# flakey with no up interval: every read fails.
dmsetup reload chk --table "0 $nsz flakey /dev/nullb0 0 0 1" && dmsetup resume chk ||
	die "cannot switch chk to flakey"
expect down 2500 directio /dev/mapper/chk --timeout 2000
result directio_flakey down
dmsetup reload chk --table "0 $nsz linear /dev/nullb0 0" && dmsetup resume chk ||
	die "cannot switch chk back to linear"
expect up 2000 directio /dev/mapper/chk --timeout 2000
# A suspended map holds I/O: the read never returns while it stays so.
# The answer must come on time; the process itself can only exit once
# the read returns, so it runs in the background until the resume.
dmsetup suspend chk || die "cannot suspend chk"
check directio /dev/mapper/chk --timeout 1000 > "$RESULTS/hung.out" &
hung=$!
wait_until 5 grep -q . "$RESULTS/hung.out" || die "directio gave no answer while I/O hung"
out=$(cat "$RESULTS/hung.out")
echo "check directio (suspended): $out" >&2
dmsetup resume chk
wait "$hung"
[ "${out%% *}" = timeout ] || die "expected timeout on a suspended map, got: $out"
ms=$(echo "$out" | awk '{print $2}' | tr -d ms)
[ "$ms" -le 1500 ] || die "timeout reported after ${ms}ms, more than 1500ms"
result directio_hung "$ms"ms
expect up 2000 directio /dev/mapper/chk --timeout 2000
dmsetup remove chk
