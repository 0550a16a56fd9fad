# Fault matrix under `fio --verify` (randwrite, every block read back and
# checked): sourced by tests/vm/lmpath-faults-{rq,bio}.sh for lmpath and by
# tests/vm/data/stock-faults-{rq,bio}.sh for stock multipath, which run the
# very same checks.  Needs LM_TARGET (multipath|lmpath) and LM_MODE (rq|bio).
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

: "${LM_TARGET:?}" "${LM_MODE:?}"
FIO_SECS=${FIO_SECS:-6}
DOWN_SECS=${DOWN_SECS:-30}

lm_scsi_debug 2
lm_target_load "$LM_TARGET"

case $LM_MODE in
rq) mode_feat= ;;
bio) mode_feat="queue_mode bio" ;;
*) die "unknown mode $LM_MODE" ;;
esac

# features QUEUE(0|1): the feature group for this mode.
features() {
	local f=$mode_feat
	[ "$1" = 1 ] && f="queue_if_no_path${f:+ $f}"
	set -- $f
	echo "$# $f"
}

one_group() { echo "$(features "$1") 0 1 1 round-robin 0 2 1 ${LM_DEVS[0]} 1 ${LM_DEVS[1]} 1"; }
two_groups() {
	echo "$(features "$1") 0 2 1 round-robin 0 1 1 ${LM_DEVS[0]} 1 round-robin 0 1 1 ${LM_DEVS[1]} 1"
}

# refresh_paths: LM_PATHS/LM_DEVS after a delete and rescan.
refresh_paths() {
	lm_active_paths
}

map=lmflt
dev=/dev/mapper/$map

# case NAME TABLE FAULT-FUNCTION: fio --verify on a fresh map while the
# fault function runs; zero fio errors expected.
run_case() {
	local name=$1 table=$2 fault=$3 start
	lm_create "$map" "$LM_TARGET" "$table" || {
		lm_fail "$name: $LM_TARGET rejected $table"
		return
	}
	[ -b "$dev" ] || {
		lm_fail "$name: no block device $dev"
		lm_remove_all
		return
	}
	start=$(date +%s)
	lm_fio_start "$name" "$dev" "$FIO_SECS"
	sleep 1
	"$fault"
	lm_fio_wait "$name" || lm_fail "$name: fio saw errors (see $name.fio)"
	result "${name}_secs" $(($(date +%s) - start))
	dmsetup status "$map" >"$RESULTS/$name.status"
	lm_remove_all
}

until_fio_done() { # run "$@" in a loop while fio runs, at most FIO_SECS
	local end=$(($(date +%s) + FIO_SECS))
	while kill -0 "$LM_FIO_PID" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
		"$@"
	done
}

offline_online_once() {
	local i
	for i in 0 1; do
		echo offline >"/sys/block/${LM_PATHS[$i]}/device/state"
		sleep 0.5
		echo running >"/sys/block/${LM_PATHS[$i]}/device/state"
		dmsetup message "$map" 0 reinstate_path "${LM_DEVS[$i]}"
		sleep 0.3
	done
}
fault_offline() { until_fio_done offline_online_once; }

fault_delete_rescan() {
	local victim=${LM_PATHS[0]} host n
	host=$(lm_host_of "$victim")
	echo 1 >"/sys/block/$victim/device/delete"
	sleep 1
	echo '- - -' >"/sys/class/scsi_host/host$host/scan"
	for n in $(seq 1 50); do
		udevadm settle --timeout=10
		refresh_paths
		[ "${#LM_PATHS[@]}" -ge 2 ] && break
		sleep 0.2
	done
	[ "${#LM_PATHS[@]}" -ge 2 ] || {
		lm_fail "delete_rescan: the deleted path did not come back"
		return
	}
	result delete_rescan_paths "${LM_PATHS[*]}"
	# what multipathd does: reload the map with the new device
	dmsetup suspend "$map" &&
		dmsetup load "$map" --table "0 $LM_SECTORS $LM_TARGET $(one_group 0)" &&
		dmsetup resume "$map" || lm_fail "delete_rescan: reload with the new path failed"
	grep -q "${LM_DEVS[0]}" <<<"$(dmsetup table "$map")" ||
		lm_fail "delete_rescan: new path ${LM_DEVS[0]} not in the table"
}

fail_reinstate_once() {
	local i
	for i in 0 1; do
		dmsetup message "$map" 0 fail_path "${LM_DEVS[$i]}"
		sleep 1
		dmsetup message "$map" 0 reinstate_path "${LM_DEVS[$i]}"
	done
}
fault_fail_reinstate() { until_fio_done fail_reinstate_once; }

groups_once() {
	local m
	for m in "switch_group 2" "disable_group 1" "enable_group 1" \
		"switch_group 1" "disable_group 2" "enable_group 2"; do
		dmsetup message "$map" 0 $m || lm_fail "groups: '$m' refused"
		sleep 1
	done
}
fault_groups() { until_fio_done groups_once; }

# All paths down (device offline) for DOWN_SECS with queueing on: fio must
# stall, not fail, and finish clean once the paths are back.
fault_all_down() {
	local i st
	for i in 0 1; do echo offline >"/sys/block/${LM_PATHS[$i]}/device/state"; done
	sleep "$DOWN_SECS"
	st=$(dmsetup status "$map")
	result all_down_status "${st// /_}"
	kill -0 "$LM_FIO_PID" 2>/dev/null || lm_fail "all_down: fio ended while I/O should be queued"
	grep -qE " (${LM_DEVS[0]}|${LM_DEVS[1]}) A " <<<"$st " &&
		lm_fail "all_down: a path is still active after ${DOWN_SECS}s offline: $st"
	for i in 0 1; do
		echo running >"/sys/block/${LM_PATHS[$i]}/device/state"
		dmsetup message "$map" 0 reinstate_path "${LM_DEVS[$i]}"
	done
}

run_case offline "$(one_group 0)" fault_offline
run_case fail_reinstate "$(one_group 0)" fault_fail_reinstate
run_case groups "$(two_groups 0)" fault_groups
run_case all_down "$(one_group 1)" fault_all_down
run_case delete_rescan "$(one_group 0)" fault_delete_rescan

# Queueing off, all paths down: I/O fails promptly and nothing hangs.
lm_create "$map" "$LM_TARGET" "$(one_group 0)" || lm_fail "no_queue: map rejected"
lm_fio_start no_queue "$dev" 20
sleep 1
start=$(date +%s)
for i in 0 1; do echo offline >"/sys/block/${LM_PATHS[$i]}/device/state"; done
for n in $(seq 1 100); do
	kill -0 "$LM_FIO_PID" 2>/dev/null || break
	sleep 0.2
done
if kill -0 "$LM_FIO_PID" 2>/dev/null; then
	lm_fail "no_queue: fio still running 20s after all paths went down"
	kill -9 "$LM_FIO_PID"
fi
wait "$LM_FIO_PID"
rc=$?
result no_queue_fio_secs_to_fail $(($(date +%s) - start))
[ "$rc" -ne 0 ] || lm_fail "no_queue: fio finished without an error"
t0=$(date +%s)
timeout 20 dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
rc=$?
result no_queue_read_rc "$rc"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || lm_fail "no_queue: read did not fail promptly (rc $rc)"
timeout 20 dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct status=none 2>/dev/null
rc=$?
result no_queue_write_rc "$rc"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || lm_fail "no_queue: write did not fail promptly (rc $rc)"
result no_queue_dd_secs $(($(date +%s) - t0))
for i in 0 1; do echo running >"/sys/block/${LM_PATHS[$i]}/device/state"; done

lm_unload
lm_finish
