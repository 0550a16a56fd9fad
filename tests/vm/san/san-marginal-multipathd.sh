#!/bin/bash
# lab-timeout: 600
# The flapping portal of tests/vm/san-marginal-path.sh under Debian's
# multipathd with the same settings, for the side-by-side comparison in
# docs/configuration.md: the same SAN, the same fio, the same sequence
# (portal 2 goes away until its path fails, comes back, goes away again;
# then flaps 15 s up, 15 s down until a sample of its reads is judged;
# then stays up). Prints what multipathd did and when, under the names
# san-marginal-path prints for mpathd. Asserts only that fio sees no
# error and that the path ends up active; the rest is reported.
# Not in scripts/check (about 6 minutes): lab/run tests/vm/san/san-marginal-multipathd.sh.
. /lab/lib.sh

command -v iscsiadm >/dev/null || die "open-iscsi is not in the guest"

map="" fio_pid="" flap_pid="" mon=""
cleanup() {
	[ -z "$flap_pid" ] || kill "$flap_pid" 2>/dev/null
	[ -z "$fio_pid" ] || kill "$fio_pid" 2>/dev/null
	[ -z "$mon" ] || kill "$mon" 2>/dev/null
	[ -z "$map" ] || dmsetup message "$map" 0 fail_if_no_path >/dev/null 2>&1
	multipathd_stop
	[ -z "$map" ] || dmsetup remove --retry "$map" >/dev/null 2>&1
	rm -f /etc/multipath.conf
	san_teardown
}
trap cleanup EXIT

san_iscsi 1 2 > "$RESULTS/paths.txt" || die "san_iscsi failed"
p1=$(san_paths 1) p2=$(san_paths 2)
wwid=$(wwid_of "$p1")
[ -n "$p2" ] && [ -n "$wwid" ] && [ "$(wwid_of "$p2")" = "$wwid" ] ||
	die "expected one path through each portal: $(cat "$RESULTS/paths.txt")"
conf_only /etc/multipath.conf "$wwid" <<CONF
defaults {
	find_multipaths no
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
multipathd_start || die "multipathd did not start"
d1=$(devt "$p1") d2=$(devt "$p2")
both() {
	map=$(map_of "$wwid")
	[ -n "$map" ] && path_is "$map" "$d1" A && path_is "$map" "$d2" A
}
wait_until 60 both || die "multipathd made no map with both paths active: $(dmsetup table)"
result table "\"$(dmsetup table "$map")\""
udevadm monitor --kernel --property --subsystem-match=block > "$RESULTS/uevents.txt" 2>&1 &
mon=$!
fio_verify marginal "/dev/mapper/$map" 900 > "$RESULTS/fio.txt" 2>&1 &
fio_pid=$!
written_sectors() { awk '{ print $7 }' "/sys/block/$1/stat"; }
said() { [ "$(grep -c "$1" "$RESULTS/multipathd.log")" -ge "${2:-1}" ]; }

t0=$(now_ms)
san_tpg_enable 2 0
wait_until 60 path_is "$map" "$d2" F || die "$p2 was not failed 60 s after portal 2 went away"
result first_failure_ms $(($(now_ms) - t0))
san_tpg_enable 2 1
wait_until 90 path_is "$map" "$d2" A || result back_ms "\"not reinstated in 90 s\""
path_is "$map" "$d2" A && result back_ms $(($(now_ms) - t0))
san_tpg_enable 2 0
wait_until 60 path_is "$map" "$d2" F || die "$p2 was not failed 60 s after portal 2 went away again"
result second_failure_ms $(($(now_ms) - t0))

# Writes sent to the path before it failed end with its recovery_tmo.
offline() { [ "$(cat "/sys/block/$p2/device/state")" = transport-offline ]; }
wait_until 60 offline || die "$p2 is $(cat "/sys/block/$p2/device/state") 60 s after portal 2 went away"
t1=$(now_ms) u1=$(uptime_s) w2=$(written_sectors "$p2")
san_tpg_flap 2 15 15 >> "$RESULTS/flap.log" 2>&1 &
flap_pid=$!
started="enqueue path $p2 to check"
if wait_until 90 said "$started"; then
	result first_sample_start_ms $(($(now_ms) - t1))
	judged() { said "$p2: (.*) good to enable reinstating" || said "disable reinstating of $p2"; }
	wait_until 180 judged && result first_sample_end_ms $(($(now_ms) - t1))
	result first_sample "\"$(grep -E "$p2: IO error rate|good to enable|disable reinstating of $p2" "$RESULTS/multipathd.log" | tail -n 2 | tr '\n' ' ')\""
else
	result first_sample_start_ms "\"no sample in 90 s\""
	sleep 120
fi
result reinstated_while_flapping "$(dm_reinstated "$RESULTS/uevents.txt" "$d2" "$u1" "$(uptime_s)")"
result sectors_written_while_flapping $(($(written_sectors "$p2") - w2))

kill "$flap_pid"
wait "$flap_pid" 2>/dev/null
flap_pid=
san_tpg_enable 2 1
t2=$(now_ms)
wait_until 200 path_is "$map" "$d2" A || die "multipathd did not reinstate $p2 within 200 s of a stable portal"
result reinstated_ms $(($(now_ms) - t2))
said "$started" 2 && result second_sample "\"$(grep -E "$p2: IO error rate|good to enable" "$RESULTS/multipathd.log" | tail -n 2 | tr '\n' ' ')\""
fio_stop "$fio_pid" "$RESULTS/fio.txt" || die "fio saw errors under multipathd: $(tail -n 5 "$RESULTS/fio.txt")"
fio_pid=
exit 0
