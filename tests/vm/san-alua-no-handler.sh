#!/bin/bash
# lab-timeout: 300
# Runtime ALUA changes on the iSCSI SAN without scsi_dh_alua (lib.sh,
# san_iscsi with SAN_SCSI_DH=none; hardware_handler "0"): no device
# handler reads the port groups' states for the kernel, only mpathd's alua
# prioritizer (REPORT TARGET PORT GROUPS through the path's sg node) does.
# One LUN through two portals, group A behind portal 1 and B behind 2,
# both active/optimized: one group of both paths. Under fio --verify the
# array makes B standby (portal 2's path goes to a second group), moves
# its optimized port to B (B optimized, then A standby: portal 2's path
# alone in the map's first group, and active), and back; then both
# optimized again (one group). fio sees no error. Prints how long each
# step took. A standby port refuses reads: the path of one is failed by
# device-mapper and its directio check, and is regrouped all the same.
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v iscsiadm >/dev/null || die "open-iscsi is not in the guest"

map="" fio_pid=""
cleanup() {
	[ -z "$fio_pid" ] || kill "$fio_pid" 2>/dev/null
	[ -z "$map" ] || dmsetup message "$map" 0 fail_if_no_path >/dev/null 2>&1
	mpathd_stop TERM
	[ -z "$map" ] || dmsetup remove --retry "$map" >/dev/null 2>&1
	san_teardown
}
trap cleanup EXIT
fail() {
	{
		date
		dmsetup table
		dmsetup status
		sg_rtpg -d "/dev/$p1" 2>&1
		dmesg | tail -n 40
	} >> "$RESULTS/diag.txt" 2>&1
	die "$@"
}

SAN_SCSI_DH=none san_iscsi 1 2 > "$RESULTS/paths.txt" || die "san_iscsi failed"
p1=$(san_paths 1) p2=$(san_paths 2)
wwid=$(wwid_of "$p1")
[ -n "$p2" ] && [ -n "$wwid" ] && [ "$(wwid_of "$p2")" = "$wwid" ] ||
	die "expected one path through each portal: $(cat "$RESULTS/paths.txt")"
conf_only /etc/mpathd/mpathd.conf "$wwid" <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	no_path_retry queue
}
devices {
	device {
		vendor "LIO-ORG"
		product ".*"
		hardware_handler "0"
	}
}
CONF
mpathd_start
d1=$(devt "$p1") d2=$(devt "$p2")
one_group() {
	map=$(map_of "$wwid")
	[ -n "$map" ] && [ "$(group_of "$map" "$d1")" = 1 ] && [ "$(group_of "$map" "$d2")" = 1 ] &&
		path_is "$map" "$d1" A && path_is "$map" "$d2" A
}
wait_until 60 one_group || fail "no map of one group with both paths active: $(dmsetup table)"
result table "\"$(dmsetup table "$map")\""
dmsetup table "$map" | grep -q ' 0 1 ' || fail "the map has a hardware handler: $(dmsetup table "$map")"
grep -q '^scsi_dh_alua ' /proc/modules && fail "scsi_dh_alua was loaded"

fio_verify alua "/dev/mapper/$map" 600 > "$RESULTS/fio.txt" 2>&1 &
fio_pid=$!
sleep 2

# first_alone DEVT OTHER: DEVT alone in the map's first group and active,
# OTHER in the second.
first_alone() {
	[ "$(group_of "$map" "$1")" = 1 ] && [ "$(group_of "$map" "$2")" = 2 ] && path_is "$map" "$1" A
}
t0=$(now_ms)
san_alua_state B standby
wait_until 60 first_alone "$d1" "$d2" || fail "$p2 (B, standby) still in the first group: $(dmsetup table "$map"); $(dmsetup status "$map")"
result b_standby_ms $(($(now_ms) - t0))

t0=$(now_ms)
san_alua_state B optimized
san_alua_state A standby
wait_until 60 first_alone "$d2" "$d1" || fail "$p2 (B, optimized) not alone first: $(dmsetup table "$map"); $(dmsetup status "$map")"
result moved_to_b_ms $(($(now_ms) - t0))

t0=$(now_ms)
san_alua_state A optimized
san_alua_state B standby
wait_until 60 first_alone "$d1" "$d2" || fail "$p1 (A, optimized) not alone first: $(dmsetup table "$map"); $(dmsetup status "$map")"
result moved_back_to_a_ms $(($(now_ms) - t0))

t0=$(now_ms)
san_alua_state B optimized
wait_until 60 one_group || fail "not one group of both paths active again: $(dmsetup table "$map"); $(dmsetup status "$map")"
result both_optimized_ms $(($(now_ms) - t0))
grep -q '^scsi_dh_alua ' /proc/modules && fail "scsi_dh_alua was loaded"
result priority_changes "$(grep -cE "path ($p1|$p2): priority" "$RESULTS/mpathd.log")"
result reloads "$(grep -c "$map: reloading" "$RESULTS/mpathd.log")"
# Without a device handler the kernel fails a path on the unit attention
# that announces a new state, so a path coming back may be failed once
# more just after it was reinstated: I/O may queue a moment (no error).
result no_usable_path_moments "$(grep -c "$map: no usable path" "$RESULTS/mpathd.log")"

fio_stop "$fio_pid" "$RESULTS/fio.txt" || fail "fio saw errors: $(tail -n 5 "$RESULTS/fio.txt")"
fio_pid=
result fio errors=0
exit 0
