#!/bin/bash
# lab-timeout: 420
# ghost_delay and recheck_wwid under Debian's multipathd, on the iSCSI SAN
# of san-ghost-delay.sh and san-recheck-wwid.sh, with their faults, so
# their timings can be read side by side with mpathd's (those scenarios
# print them). Two LUNs through two portals.
# (1) ghost_delay 60, both ALUA groups standby when multipathd starts:
#     is the map made at once and not ready (MPATH_DEVICE_READY=0), and
#     how long after group A becomes active is it ready?
# (2) recheck_wwid yes: portal 2's TPG goes down, the array maps LUN 1's
#     volume behind portal 2's LUN 0, the portal comes back. Does the
#     path leave map A, and join map B? Does map A ever reach LUN 1?
# Asserts only what would lose data (a write to map A read back from
# LUN 1); the rest is reported, since the comparison must not fail for
# multipathd's choices.
# Not in scripts/check (about 3 minutes): lab/run
# tests/vm/san/san-settings-multipathd.sh.
. /lab/lib.sh

command -v iscsiadm >/dev/null || die "open-iscsi is not in the guest"

mapA="" mapB=""
cleanup() {
	local m
	for m in "$mapA" "$mapB"; do
		[ -z "$m" ] || dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
	done
	multipathd_stop
	for m in "$mapA" "$mapB"; do
		[ -z "$m" ] || dmsetup remove --retry "$m" >/dev/null 2>&1
	done
	rm -f /etc/multipath.conf
	san_teardown
}
trap cleanup EXIT

san_iscsi 2 2 > "$RESULTS/paths.txt" || die "san_iscsi failed"
path_of() { san_paths | awk -v p="$1" -v l="$2" '$1 == p && $2 == l { print $3 }'; }
a1=$(path_of 1 0) a2=$(path_of 2 0) b1=$(path_of 1 1) b2=$(path_of 2 1)
[ -n "$a1" ] && [ -n "$a2" ] && [ -n "$b1" ] && [ -n "$b2" ] ||
	die "expected LUNs 0 and 1 through both portals: $(cat "$RESULTS/paths.txt")"
wA=$(wwid_of "$a1") wB=$(wwid_of "$b1")
[ -n "$wA" ] && [ "$wA" != "$wB" ] || die "unexpected WWIDs: $a1=$wA $b1=$wB"

# (1) ghost_delay: every path standby first.
san_alua_state A standby
san_alua_state B standby
access() { cat "/sys/block/$1/device/access_state" 2>/dev/null; }
standby() {
	local p
	for p in "$a1" "$a2" "$b1" "$b2"; do
		sg_turs "/dev/$p" > /dev/null 2>&1
		[ "$(access "$p")" = standby ] || return 1
	done
}
wait_until 30 standby || die "the paths do not say standby"
conf_only /etc/multipath.conf "$wA" "$wB" <<CONF
defaults {
	find_multipaths no
	polling_interval 2
	path_grouping_policy multibus
	ghost_delay 60
	recheck_wwid yes
}
CONF
t0=$(now_ms)
multipathd_start || die "multipathd did not start"
made() { [ -n "$(map_of "$wA")" ]; }
if wait_until 60 made; then
	result ghost_map_made_ms $(($(now_ms) - t0))
else
	result ghost_map_made "\"not within 60 s\""
fi
mapA=$(map_of "$wA")
udevadm settle
ready() { udevadm info --query=property --name="/dev/mapper/$1" 2>/dev/null | sed -n 's/^MPATH_DEVICE_READY=//p'; }
result ghost_waiting "\"MPATH_DEVICE_READY=$( [ -z "$mapA" ] || ready "$mapA")\""
t0=$(now_ms)
san_alua_state A optimized
is_ready() { [ -n "$(map_of "$wA")" ] && [ "$(ready "$(map_of "$wA")")" = 1 ]; }
if wait_until 70 is_ready; then
	result ghost_ready_after_active_ms $(($(now_ms) - t0))
else
	result ghost_ready_after_active "\"not within 70 s: MPATH_DEVICE_READY=$(ready "$(map_of "$wA")")\""
fi
result ghost_log "\"$(grep -m 1 -E 'timed out waiting for active path' "$RESULTS/multipathd.log")\""
san_alua_state B optimized

# (2) recheck_wwid: both maps with both paths active.
mapA=$(map_of "$wA") mapB=$(map_of "$wB")
dA2=$(devt "$a2")
active4() {
	mapA=$(map_of "$wA") mapB=$(map_of "$wB")
	[ -n "$mapA" ] && [ -n "$mapB" ] &&
		path_is "$mapA" "$dA2" A && path_is "$mapA" "$(devt "$a1")" A &&
		path_is "$mapB" "$(devt "$b1")" A && path_is "$mapB" "$(devt "$b2")" A
}
wait_until 60 active4 || die "multipathd made no maps with both paths active: $(dmsetup status)"
result tables "\"A: $(dmsetup table "$mapA"); B: $(dmsetup table "$mapB")\""
head -c $((4 << 20)) /dev/urandom > /tmp/patA
head -c $((4 << 20)) /dev/urandom > /tmp/patB
dd if=/tmp/patA of="/dev/mapper/$mapA" bs=1M oflag=direct status=none || die "writing map A failed"
dd if=/tmp/patB of="/dev/mapper/$mapB" bs=1M oflag=direct status=none || die "writing map B failed"

t0=$(now_ms)
san_tpg_enable 2 0
if wait_until 90 path_is "$mapA" "$dA2" F; then
	result path_failed_ms $(($(now_ms) - t0))
else
	result path_failed "\"not within 90 s\""
fi
san_lun_remap 2 0 1
t0=$(now_ms)
san_tpg_enable 2 1
left() { ! dmsetup table "$mapA" | grep -q " $dA2 "; }
if wait_until 60 left; then
	result left_map_a_ms $(($(now_ms) - t0))
else
	result left_map_a "\"not within 60 s: $(dmsetup status "$mapA")\""
fi
# Which of multipathd's two ways saw it: recheck_wwid's check before a
# reinstate ("change detected"), or the udev change event of the rescan.
result wwid_change_log "\"$(grep -m 1 -E "$a2: path wwid change( detected|d from)" "$RESULTS/multipathd.log")\""
head -c $((4 << 20)) /dev/urandom > /tmp/patA2
dd if=/tmp/patA2 of="/dev/mapper/$mapA" bs=1M oflag=direct status=none || die "writing map A after the remap failed"
joined() { dmsetup table "$mapB" | grep -q " $dA2 "; }
if wait_until 60 joined; then
	result joined_map_b_ms $(($(now_ms) - t0))
else
	result joined_map_b "\"not within 60 s: $(dmsetup table "$mapB")\""
fi
cmp -n $((4 << 20)) /tmp/patA2 "/dev/mapper/$mapA" || die "map A does not read back what it was given"
cmp -n $((4 << 20)) /tmp/patB "/dev/mapper/$mapB" || die "LUN 1 was overwritten through map A"
result map_b_paths "$(dmsetup table "$mapB" | grep -o ' [0-9]*:[0-9]* ' | wc -l)"
exit 0
