#!/bin/bash
# lab-timeout: 300
# recheck_wwid on an iSCSI SAN (lib.sh, san_iscsi): two LUNs through two
# portals make map A (LUN 0) and map B (LUN 1). Portal 2's TPG is disabled
# on the target (its session goes into recovery, its paths fail) and, while
# it is down, the array maps LUN 1's volume behind portal 2's LUN 0. When
# the portal comes back, the device that was map A's second path answers
# again, with LUN 1's identity. mpathd (recheck_wwid yes) reads it again
# before reinstating the path: the path stays failed, leaves map A, and
# once the kernel and udev have described it anew it joins map B. Writes
# to map A never reach LUN 1: both LUNs read back what was written to
# their own map. Prints how long each step took.
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v iscsiadm >/dev/null || die "open-iscsi is not in the guest"

mapA="" mapB=""
cleanup() {
	local m
	for m in "$mapA" "$mapB"; do
		[ -z "$m" ] || dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
	done
	mpathd_stop TERM
	for m in "$mapA" "$mapB"; do
		[ -z "$m" ] || dmsetup remove --retry "$m" >/dev/null 2>&1
	done
	san_teardown
}
trap cleanup EXIT
diag() {
	{
		date
		san_paths
		for d in /sys/class/iscsi_session/session*; do
			echo "$d state=$(cat "$d/state") recovery_tmo=$(cat "$d/recovery_tmo")"
		done
		dmsetup table
		dmsetup status
		dmesg | tail -n 40
	} >> "$RESULTS/diag.txt" 2>&1
}
fail() { diag; die "$@"; }

san_iscsi 2 2 > "$RESULTS/paths.txt" || fail "san_iscsi failed"
path_of() { san_paths | awk -v p="$1" -v l="$2" '$1 == p && $2 == l { print $3 }'; }
a1=$(path_of 1 0) a2=$(path_of 2 0) b1=$(path_of 1 1) b2=$(path_of 2 1)
[ -n "$a1" ] && [ -n "$a2" ] && [ -n "$b1" ] && [ -n "$b2" ] ||
	fail "expected LUNs 0 and 1 through both portals: $(cat "$RESULTS/paths.txt")"
wA=$(wwid_of "$a1") wB=$(wwid_of "$b1")
[ -n "$wA" ] && [ "$(wwid_of "$a2")" = "$wA" ] && [ "$(wwid_of "$b2")" = "$wB" ] && [ "$wA" != "$wB" ] ||
	fail "unexpected WWIDs: $a1=$wA $a2=$(wwid_of "$a2") $b1=$wB $b2=$(wwid_of "$b2")"
result wwids "A=$wA B=$wB"

conf_only /etc/mpathd/mpathd.conf "$wA" "$wB" <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	path_grouping_policy multibus
	recheck_wwid yes
}
CONF
mpathd_start
dA2=$(devt "$a2")
two_each() {
	[ -n "$(map_of "$wA")" ] && [ -n "$(map_of "$wB")" ] &&
		[ "$(dmsetup table "$(map_of "$wA")" | grep -o ' [0-9]*:[0-9]* ' | wc -l)" -eq 2 ] &&
		[ "$(dmsetup table "$(map_of "$wB")" | grep -o ' [0-9]*:[0-9]* ' | wc -l)" -eq 2 ]
}
wait_until 60 two_each || fail "no maps with two paths each: $(dmsetup table)"
mapA=$(map_of "$wA") mapB=$(map_of "$wB")
result tables "\"A: $(dmsetup table "$mapA"); B: $(dmsetup table "$mapB")\""

# What each LUN holds: a pattern written through its own map.
head -c $((4 << 20)) /dev/urandom > /tmp/patA
head -c $((4 << 20)) /dev/urandom > /tmp/patB
dd if=/tmp/patA of="/dev/mapper/$mapA" bs=1M oflag=direct status=none || fail "writing map A failed"
dd if=/tmp/patB of="/dev/mapper/$mapB" bs=1M oflag=direct status=none || fail "writing map B failed"

# Portal 2 goes down; its path of map A fails.
t0=$(now_ms)
san_tpg_enable 2 0
wait_until 90 path_is "$mapA" "$dA2" F || fail "$a2 was not failed after portal 2 went down: $(dmsetup status "$mapA")"
result path_failed_ms $(($(now_ms) - t0))

# Meanwhile the array puts LUN 1's volume behind portal 2's LUN 0, and
# the portal comes back.
san_lun_remap 2 0 1
t0=$(now_ms)
san_tpg_enable 2 1
changed() { grep -q "path $a2: came back with WWID $wB instead of $wA" "$RESULTS/mpathd.log"; }
wait_until 90 changed || fail "mpathd did not find the other LUN behind $a2: $(grep "$a2" "$RESULTS/mpathd.log" | tail -n 5)"
result wwid_change_found_ms $(($(now_ms) - t0))
left() { ! dmsetup table "$mapA" | grep -q " $dA2 "; }
wait_until 30 left || fail "$a2 stays in map A: $(dmsetup table "$mapA")"
result left_map_a_ms $(($(now_ms) - t0))
[ "$(wwid_of "$a1")" = "$wA" ] || fail "map A's other path changed identity"

# Map A takes writes meanwhile: they must reach LUN 0 only.
head -c $((4 << 20)) /dev/urandom > /tmp/patA2
dd if=/tmp/patA2 of="/dev/mapper/$mapA" bs=1M oflag=direct status=none || fail "writing map A after the remap failed"

# The kernel read the device again, udev gives it LUN 1's WWID: it joins map B.
joined() { dmsetup table "$mapB" | grep -q " $dA2 "; }
wait_until 60 joined || fail "$a2 did not join map B: $(dmsetup table "$mapB"); udev says $(wwid_of "$a2")"
result joined_map_b_ms $(($(now_ms) - t0))
[ "$(wwid_of "$a2")" = "$wB" ] || fail "udev still gives $a2 WWID $(wwid_of "$a2")"
wait_until 30 path_is "$mapB" "$dA2" A || fail "$a2 is not active in map B: $(dmsetup status "$mapB")"

# Each LUN holds what its own map was given.
cmp -n $((4 << 20)) /tmp/patA2 "/dev/mapper/$mapA" || fail "map A does not read back what it was given"
cmp -n $((4 << 20)) /tmp/patB "/dev/mapper/$mapB" || fail "LUN 1 was overwritten through map A"
for i in 1 2 3 4; do # through each of map B's paths, round-robin
	dd if="/dev/mapper/$mapB" bs=1M count=4 iflag=direct status=none | cmp -s - /tmp/patB ||
		fail "map B read (try $i) differs from what it was given"
done
grep -q "$mapA: path $a2: checker .* reinstating" "$RESULTS/mpathd.log" &&
	fail "mpathd reinstated $a2 into map A: $(grep "path $a2" "$RESULTS/mpathd.log" | tail -n 3)"
result map_b_paths "$(dmsetup table "$mapB" | grep -o ' [0-9]*:[0-9]* ' | wc -l)"
exit 0
