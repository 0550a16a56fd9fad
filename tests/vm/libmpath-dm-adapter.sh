#!/bin/bash
# libmpath's libdevmapper adapter against the real kernel, through
# `mpathctl debug dm`: create with uuid mpath-<wwid> (udev synchronised:
# the node exists when create returns), list, table, status, messages,
# a noflush reload under fio, rename, and deferred removal of an open map.
# lab-timeout: 300
. /lab/lib.sh

# The lab removes the maps and unloads scsi_debug and scsi_dh_alua after
# each scenario (lab/CONTRACT.md).

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
# Three scsi_debug hosts that show one LUN (vpd_use_hostno=0); the standby
# ALUA port is left out (active_paths).
mapfile -t sd < <(scsi_debug_paths add_host=3 vpd_use_hostno=0 | active_paths)
udevadm settle
[ ${#sd[@]} -ge 2 ] || die "expected 2 active scsi_debug paths, got: ${sd[*]}"
a=$(devt "${sd[0]}") b=$(devt "${sd[1]}")
# The WWID is udev's ID_SERIAL, as libmpath and multipath-tools take it.
# It must be: with multipath-tools' 56-dm-mpath.rules, `multipath -U`
# fails every path of an mpath-<wwid> map whose own WWID differs from the
# one in the uuid (the lab's guest now has the project's rules instead).
wwid=$(udevadm info --query=property --name="/dev/${sd[0]}" | sed -n 's/^ID_SERIAL=//p')
[ -n "$wwid" ] || die "no ID_SERIAL for ${sd[0]}"
[ "$(udevadm info --query=property --name="/dev/${sd[1]}" | sed -n 's/^ID_SERIAL=//p')" = "$wwid" ] ||
	die "${sd[0]} and ${sd[1]} have different WWIDs"
modprobe dm-multipath && modprobe dm-round-robin && modprobe dm-queue-length ||
	die "cannot load dm-multipath"
size=$(blockdev --getsz "/dev/${sd[0]}")
dm="mpathctl debug dm"

# The libudev adapter's monitor sees the map's uevents.
mpathctl debug udev monitor 60 block > "$RESULTS/uevents.txt" &
monitor=$!
wait_until 10 grep -q '^monitoring' "$RESULTS/uevents.txt" || die "udev monitor did not start"

$dm create mpt "mpath-$wwid" "0 $size multipath 0 0 1 1 round-robin 0 2 1 $a 1 $b 1" ||
	die "create failed"
# udev synchronisation: no settle needed before the node is there.
[ -b /dev/mapper/mpt ] || die "/dev/mapper/mpt missing right after create returned"
result by_id_link "$([ -e "/dev/disk/by-id/dm-uuid-mpath-$wwid" ] && echo yes || echo no)"

$dm list > "$RESULTS/list.txt" || die "list failed"
grep -q "^mpt mpath-$wwid [0-9]*:[0-9]* multipath$" "$RESULTS/list.txt" ||
	die "list does not show mpt: $(cat "$RESULTS/list.txt")"
# The adapter gives the target's text without the blank the multipath
# target ends its lines with.
dmsetup_text() { dmsetup "$@" | sed 's/ *$//'; }
ours=$($dm table mpt) theirs=$(dmsetup_text table mpt)
[ "$ours" = "$theirs" ] || die "table differs from dmsetup's: '$ours' against '$theirs'"
ours=$($dm status mpt) theirs=$(dmsetup_text status mpt)
[ "$ours" = "$theirs" ] || die "status differs from dmsetup's: '$ours' against '$theirs'"
$dm info mpt | grep -q "^uuid=mpath-$wwid$" || die "info shows the wrong uuid"
$dm info nosuchmap 2>"$RESULTS/info-missing.err" && die "info of a missing map succeeded"

$dm message mpt 0 fail_path "$a" || die "fail_path message failed"
dmsetup status mpt | grep -q "$a F 1" || die "fail_path not in status: $(dmsetup status mpt)"
wait_until 10 grep -q "DM_ACTION=PATH_FAILED" "$RESULTS/uevents.txt" ||
	die "no PATH_FAILED uevent through the udev monitor: $(cat "$RESULTS/uevents.txt")"
grep -q "^add dm-.* DM_UUID=mpath-$wwid" "$RESULTS/uevents.txt" ||
	grep -q "^change dm-.* DM_UUID=mpath-$wwid" "$RESULTS/uevents.txt" ||
	die "no uevent for the new map: $(cat "$RESULTS/uevents.txt")"
kill "$monitor" 2>/dev/null
result udev_monitor ok
mpathctl debug udev properties "$(basename "$(readlink -f /dev/mapper/mpt)")" | grep -q "^DM_NAME=mpt$" ||
	die "udev properties of the map lack DM_NAME"
$dm message mpt 0 reinstate_path "$a" || die "reinstate_path message failed"
dmsetup status mpt | grep -q "$a A 1" || die "reinstate_path not in status: $(dmsetup status mpt)"
$dm message mpt 0 no_such_message 2>/dev/null && die "a bad message was accepted"
$dm message mpt 0 queue_if_no_path || die "queue_if_no_path failed"
dmsetup table mpt | grep -q " 1 queue_if_no_path " || die "queue_if_no_path not in the table"
# No queueing under fio: should a path misbehave, fio must fail, not hang.
$dm message mpt 0 fail_if_no_path || die "fail_if_no_path failed"

# Both paths active before the I/O; a path failing again on its own here
# is a finding, not a flake: say which and what the map shows.
$dm message mpt 0 reinstate_path "$a" 2>/dev/null
$dm message mpt 0 reinstate_path "$b" 2>/dev/null
sleep 1
dmsetup status mpt | grep -q "$a A .*$b A" ||
	die "a path failed again without a message: $(dmsetup status mpt); uevents: $(cat "$RESULTS/uevents.txt")"

# Reload under I/O: noflush suspend/load/resume keeps fio going.
fio_verify reload /dev/mapper/mpt 12 > "$RESULTS/fio.terse" 2> "$RESULTS/fio.err" &
fio=$!
sleep 3
$dm reload mpt "0 $size multipath 0 0 1 1 queue-length 0 2 1 $a 1 $b 1" ||
	die "reload failed"
dmsetup table mpt | grep -q "queue-length" || die "reload did not change the selector"
$dm reload mpt "0 $size multipath 0 0 1 1 round-robin 0 1 1 99:99 1" 2>/dev/null &&
	die "reload with a missing device succeeded"
dmsetup table mpt | grep -q "queue-length" || die "a failed reload changed the live table"
dmsetup info mpt | grep -q "State:.*ACTIVE" || die "map left suspended after a failed reload"
wait_until 60 sh -c "! kill -0 $fio 2>/dev/null" ||
	die "fio still running 60 s after the reload: $(dmsetup status mpt)"
wait "$fio" || die "fio failed across the reload: $(cat "$RESULTS/fio.err")"
errs=$(cut -d';' -f5 "$RESULTS/fio.terse" | head -n 1)
[ "$errs" = 0 ] || die "fio reported $errs errors across the reload"
result reload_under_io ok

$dm rename mpt mpt2 || die "rename failed"
[ -b /dev/mapper/mpt2 ] && [ ! -e /dev/mapper/mpt ] || die "rename did not move the node"

# Deferred removal of an open map.
exec 3</dev/mapper/mpt2
$dm remove mpt2 2>/dev/null && die "removing an open map without --deferred succeeded"
$dm remove mpt2 --deferred || die "deferred remove failed"
dmsetup info mpt2 >/dev/null 2>&1 || die "the open map vanished before its last close"
exec 3<&-
wait_until 10 sh -c '! dmsetup info mpt2 >/dev/null 2>&1' || die "deferred remove never happened"
result deferred_remove ok

$dm create mpt3 "mpath-x$wwid" "0 $size multipath 0 0 1 1 round-robin 0 1 1 $a 1" ||
	die "second create failed"
$dm create mpt3 "mpath-y$wwid" "0 $size multipath 0 0 1 1 round-robin 0 1 1 $a 1" 2>/dev/null &&
	die "a duplicate name was accepted"
$dm remove mpt3 || die "remove failed"
[ ! -e /dev/mapper/mpt3 ] || die "node left behind after remove"

# The same adapter drives the project's target: list reports it, a reload
# swaps the selector under I/O, remove leaves nothing behind.
load_lmpath
$dm create mpl "mpath-$wwid" "0 $size lmpath 0 0 1 1 round-robin 0 2 1 $a 1 $b 1" ||
	die "create over lmpath failed"
$dm list | grep -q "^mpl mpath-$wwid [0-9]*:[0-9]* lmpath$" || die "list does not show mpl as lmpath: $($dm list)"
fio_verify lmreload /dev/mapper/mpl 8 > "$RESULTS/fio-lmpath.terse" 2> "$RESULTS/fio-lmpath.err" &
fio=$!
sleep 2
$dm reload mpl "0 $size lmpath 0 0 1 1 queue-length 0 2 1 $a 1 $b 1" || die "reload of mpl failed"
ours=$($dm table mpl) theirs=$(dmsetup_text table mpl)
[ "$ours" = "$theirs" ] || die "mpl table differs from dmsetup's: '$ours' against '$theirs'"
dmsetup table mpl | grep -q "queue-length" || die "reload did not change mpl's selector"
wait "$fio" || die "fio failed across the lmpath reload: $(cat "$RESULTS/fio-lmpath.err")"
errs=$(cut -d';' -f5 "$RESULTS/fio-lmpath.terse" | head -n 1)
[ "$errs" = 0 ] || die "fio reported $errs errors across the lmpath reload"
# A ready map is probed by udev when fio closes it (the disk is watched):
# the removal waits for the probe, as an administrator's would.
udevadm settle
$dm remove mpl || die "remove of mpl failed"
[ ! -e /dev/mapper/mpl ] || die "mpl node left behind after remove"
result lmpath_reload_under_io ok
