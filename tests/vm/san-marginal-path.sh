#!/bin/bash
# lab-timeout: 600
# check-kernels: 6.1
# check-long: two marginal_path_err_sample_time samples of 120 s, multipath-tools' floor
# marginal_path_* on an iSCSI SAN (lib.sh, san_iscsi): one LUN through two
# portals, one map of both paths (multibus), fio writing and verifying
# through it the whole time. Portal 2 flaps: its TPG is disabled on the
# target until device-mapper fails its path, enabled until the path is
# back, and disabled again. Failed twice within marginal_path_double_failed_time, the
# path is held failed (Shaky on D-Bus and in mpathctl). While portal 2
# keeps flapping, the first sample of its direct reads fails more than
# marginal_path_err_rate_threshold per thousand: it stays held. Portal 2
# stops flapping; the next sample, recheck_gap_time later, is good and the
# path is reinstated. While held it carries none of fio's writes; after,
# it does again. fio sees no error. Prints how long each step took.
# The daemon's behaviour only: on 6.1 (the SAN is proven on both kernels
# by the other SAN scenarios).
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
command -v iscsiadm >/dev/null || die "open-iscsi is not in the guest"

map="" fio_pid="" flap_pid="" mon=""
cleanup() {
	[ -z "$flap_pid" ] || kill "$flap_pid" 2>/dev/null
	[ -z "$fio_pid" ] || kill "$fio_pid" 2>/dev/null
	[ -z "$mon" ] || kill "$mon" 2>/dev/null
	[ -z "$map" ] || dmsetup message "$map" 0 fail_if_no_path >/dev/null 2>&1
	mpathd_stop TERM
	[ -z "$map" ] || dmsetup remove --retry "$map" >/dev/null 2>&1
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

san_iscsi 1 2 > "$RESULTS/paths.txt" || fail "san_iscsi failed"
p1=$(san_paths 1) p2=$(san_paths 2)
[ -n "$p1" ] && [ -n "$p2" ] || fail "expected one path through each portal: $(cat "$RESULTS/paths.txt")"
wwid=$(wwid_of "$p1")
[ -n "$wwid" ] && [ "$(wwid_of "$p2")" = "$wwid" ] || fail "unexpected WWIDs: $p1=$wwid $p2=$(wwid_of "$p2")"

# Sample time 120 s, multipath-tools' least; a path failed twice within a
# minute is suspect; 10 failed reads per thousand are too many; a bad
# sample is followed by the next 5 s later. fast_io_fail_tmo 5 (the
# sessions' recovery_tmo) makes a portal that went away fail its I/O fast.
conf_only /etc/mpathd/mpathd.conf "$wwid" <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	path_grouping_policy multibus
	no_path_retry queue
	fast_io_fail_tmo 5
	marginal_path_double_failed_time 60
	marginal_path_err_sample_time 120
	marginal_path_err_rate_threshold 10
	marginal_path_err_recheck_gap_time 5
}
CONF
mpathd_start
d1=$(devt "$p1") d2=$(devt "$p2")
both() {
	map=$(map_of "$wwid")
	[ -n "$map" ] && path_is "$map" "$d1" A && path_is "$map" "$d2" A
}
wait_until 60 both || fail "no map with both paths active: $(dmsetup table)"
result table "\"$(dmsetup table "$map")\""
[ "$(cat "$(san_session_of "$p2")/recovery_tmo")" = 5 ] ||
	fail "$p2's session has recovery_tmo $(cat "$(san_session_of "$p2")/recovery_tmo"), not fast_io_fail_tmo 5"

udevadm monitor --kernel --property --subsystem-match=block > "$RESULTS/uevents.txt" 2>&1 &
mon=$!
fio_verify marginal "/dev/mapper/$map" 900 > "$RESULTS/fio.txt" 2>&1 &
fio_pid=$!
# written_sectors DEV: sectors written to a path device so far.
written_sectors() { awk '{ print $7 }' "/sys/block/$1/stat"; }
shaky() { mpathctl show path "$p2" --json 2>/dev/null | grep -q "\"shaky\": *$1"; }
said() { [ "$(grep -c "$1" "$RESULTS/mpathd.log")" -ge "${2:-1}" ]; }

# Two failures within a minute: portal 2 goes away, its path fails; it
# comes back, its path too; it goes away again. (The second failure may
# come by itself: a command the target aborted when the portal went away
# can fail the path again just after it was reinstated.)
held="path $p2: failed twice within 60 s"
t0=$(now_ms)
san_tpg_enable 2 0
wait_until 60 path_is "$map" "$d2" F || fail "$p2 was not failed 60 s after portal 2 went away"
result first_failure_ms $(($(now_ms) - t0))
san_tpg_enable 2 1
back_or_held() { path_is "$map" "$d2" A || said "$held"; }
wait_until 90 back_or_held || fail "$p2 was not reinstated 90 s after portal 2 came back"
result back_ms $(($(now_ms) - t0))
down=0
said "$held" || { san_tpg_enable 2 0; down=1; }
wait_until 60 said "$held" ||
	fail "$p2 was not held after its second failure: $(grep "$p2" "$RESULTS/mpathd.log" | tail -n 5)"
result held_ms $(($(now_ms) - t0))
wait_until 10 shaky true || fail "mpathctl does not show $p2 as shaky while it is held"

# Portal 2 comes back and keeps flapping (up 15 s, down 15 s): the held
# path is sampled and its reads fail while the portal is down.
# Writes sent to the path before it failed wait in its queue while the
# session is in recovery; they end (in error) when recovery_tmo is over
# and the device goes transport-offline. None are sent to it afterwards.
[ "$down" -eq 1 ] || san_tpg_enable 2 0
offline() { [ "$(cat "/sys/block/$p2/device/state")" = transport-offline ]; }
wait_until 60 offline || fail "$p2 is $(cat "/sys/block/$p2/device/state") 60 s after portal 2 went away"
t1=$(now_ms) u1=$(uptime_s) w2=$(written_sectors "$p2")
san_tpg_flap 2 15 15 >> "$RESULTS/flap.log" 2>&1 &
flap_pid=$!
wait_until 90 said "path $p2: up, but sampled for I/O errors" ||
	fail "$p2 was not sampled after portal 2 came back: $(grep "$p2" "$RESULTS/mpathd.log" | tail -n 5)"
result first_sample_start_ms $(($(now_ms) - t1))
bad="path $p2: sampled: .* more than marginal_path_err_rate_threshold 10: held failed"
wait_until 180 said "$bad" || fail "no bad sample of $p2: $(grep "$p2" "$RESULTS/mpathd.log" | tail -n 5)"
result first_sample_end_ms $(($(now_ms) - t1))
result first_sample "\"$(grep -o 'sampled: [0-9]* of [0-9]* reads failed ([0-9.]* per thousand)' "$RESULTS/mpathd.log" | tail -n 1)\""
path_is "$map" "$d2" F || fail "$p2 is not failed after a bad sample: $(dmsetup status "$map")"
n=$(dm_reinstated "$RESULTS/uevents.txt" "$d2" "$u1" "$(uptime_s)")
result reinstated_while_flapping "$n"
result sectors_written_while_flapping $(($(written_sectors "$p2") - w2))
[ "$n" -eq 0 ] || fail "$p2 was reinstated $n times while held"
[ "$(written_sectors "$p2")" -eq "$w2" ] || fail "$p2 carried writes while held"

# Portal 2 stops flapping. The next sample starts once the gap is over
# and a check finds the path up; while it runs, the path carries none of
# fio's writes. It is good: the path is reinstated and carries them again.
kill "$flap_pid"
wait "$flap_pid" 2>/dev/null
flap_pid=
san_tpg_enable 2 1
t2=$(now_ms)
wait_until 90 said "path $p2: up, but sampled for I/O errors" 2 ||
	fail "$p2 was not sampled again after the gap: $(grep "$p2" "$RESULTS/mpathd.log" | tail -n 5)"
result second_sample_start_ms $(($(now_ms) - t2))
w1=$(written_sectors "$p1") w2=$(written_sectors "$p2")
shaky true || fail "mpathctl does not show $p2 as shaky while it is sampled"
good="path $p2: sampled: 0 of [0-9]* reads failed (0.0 per thousand), at most marginal_path_err_rate_threshold 10: no longer held"
# held_w: what the path had written when it was last seen failed (read
# before the look at its state: a write counted then was sent while held).
held_w=$w2
good_sample() {
	local w
	w=$(written_sectors "$p2")
	path_is "$map" "$d2" F && held_w=$w
	said "$good"
}
wait_until 150 good_sample || fail "no good sample of $p2: $(grep "$p2" "$RESULTS/mpathd.log" | tail -n 5)"
result second_sample_end_ms $(($(now_ms) - t2))
result second_sample "\"$(grep -o 'sampled: [0-9]* of [0-9]* reads failed ([0-9.]* per thousand)' "$RESULTS/mpathd.log" | tail -n 1)\""
[ "$held_w" -eq "$w2" ] || fail "$p2 carried writes while held: $w2 then $held_w sectors"
[ "$(written_sectors "$p1")" -gt "$w1" ] || fail "fio wrote nothing through $p1 while $p2 was held"
wait_until 30 path_is "$map" "$d2" A || fail "$p2 was not reinstated after its good sample: $(dmsetup status "$map")"
result reinstated_ms $(($(now_ms) - t2))
wait_until 10 shaky false || fail "mpathctl still shows $p2 as shaky after it was reinstated"
w2=$(written_sectors "$p2")
carries() { [ "$(written_sectors "$p2")" -gt "$w2" ]; }
wait_until 30 carries || fail "$p2 carries no writes 30 s after it was reinstated"

fio_stop "$fio_pid" "$RESULTS/fio.txt" || fail "fio saw errors: $(tail -n 5 "$RESULTS/fio.txt")"
fio_pid=
exit 0
