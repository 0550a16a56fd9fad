#!/bin/bash
# lab-timeout: 240
# ghost_delay on an iSCSI SAN (lib.sh, san_iscsi): one LUN through two
# portals whose ALUA groups are both standby when mpathd starts. mpathd
# makes the map at once but udev marks it not ready (MPATH_DEVICE_READY=0:
# no probe, so no I/O makes the hardware handler switch a group). Group A
# becomes active/optimized on the array: the map is ready within a few
# checks, long before its 60 s delay ends. Prints how long it took.
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v sg_turs >/dev/null || die "sg3-utils is not in the guest"

map=""
cleanup() {
	[ -z "$map" ] || dmsetup message "$map" 0 fail_if_no_path >/dev/null 2>&1
	mpathd_stop TERM
	[ -z "$map" ] || dmsetup remove --retry "$map" >/dev/null 2>&1
	san_teardown
}
trap cleanup EXIT
fail() {
	{
		san_paths
		dmsetup table
		dmsetup status
		[ -z "$map" ] || udevadm info "/dev/mapper/$map"
		dmesg | tail -n 30
	} >> "$RESULTS/diag.txt" 2>&1
	die "$@"
}

san_iscsi 1 2 > "$RESULTS/paths.txt" || fail "san_iscsi failed"
p1=$(san_paths 1) p2=$(san_paths 2)
[ -n "$p1" ] && [ -n "$p2" ] || fail "expected one path a portal: $(cat "$RESULTS/paths.txt")"
w=$(wwid_of "$p1")

# Both groups standby; a TUR through each path lets the initiator hear it.
san_alua_state A standby
san_alua_state B standby
access() { cat "/sys/block/$1/device/access_state" 2>/dev/null; }
standby() {
	sg_turs "/dev/$p1" > /dev/null 2>&1
	sg_turs "/dev/$p2" > /dev/null 2>&1
	[ "$(access "$p1")" = standby ] && [ "$(access "$p2")" = standby ]
}
wait_until 30 standby || fail "the paths do not say standby: $p1 $(access "$p1"), $p2 $(access "$p2")"

conf_only /etc/mpathd/mpathd.conf "$w" <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	ghost_delay 60
}
CONF
mpathd_start
wait_until 60 sh -c "[ -n \"\$(dmsetup info -c --noheadings -o name,uuid --separator ' ' | awk '\$2 == \"mpath-$w\"')\" ]" ||
	fail "no map for $w: $(dmsetup table)"
map=$(map_of "$w")
ready() { udevadm info --query=property --name="/dev/mapper/$map" | sed -n 's/^MPATH_DEVICE_READY=//p'; }
udevadm settle
[ "$(ready)" = 0 ] || fail "a map of standby paths is ready: MPATH_DEVICE_READY=$(ready)"
grep -q "only standby paths: not ready for other software for up to 60 s" "$RESULTS/mpathd.log" ||
	fail "mpathd did not say it waits: $(tail -n 5 "$RESULTS/mpathd.log")"
result waiting "MPATH_DEVICE_READY=$(ready) $p1=$(access "$p1") $p2=$(access "$p2")"

# The array makes group A active: the map is ready, well before 60 s.
t0=$(now_ms)
san_alua_state A optimized
is_ready() { [ "$(ready)" = 1 ]; }
wait_until 40 is_ready || fail "the map is not ready once group A is active: MPATH_DEVICE_READY=$(ready); $p1 $(access "$p1")"
result ready_after_active_ms $(($(now_ms) - t0))
grep -q "ready: an active path came (ghost_delay)" "$RESULTS/mpathd.log" ||
	fail "the wait did not end on the active path: $(grep -i ghost "$RESULTS/mpathd.log" | tail -n 3)"
grep -q "no active path came" "$RESULTS/mpathd.log" && fail "the delay ran out instead"
dd if="/dev/mapper/$map" of=/dev/null bs=1M count=4 iflag=direct status=none || fail "the ready map cannot be read"
exit 0
