#!/bin/bash
# lab-timeout: 300
# check-kernels: 6.1
# mpathd's promises about failing paths and queueing (polling_interval 2),
# on a real kernel with real udevd, on scsi_debug's three ALUA ports of one
# LUN (lib.sh, active_paths), each part printing what it measured:
# 1. A path that passes its check but fails I/O (the standby port under
#    scsi_dh_alua: TUR is answered, reads and writes are refused) in a
#    map under fio --verify: device-mapper fails it at every write sent
#    to it; mpathd reinstates it at most once a polling interval, backing
#    off while it keeps failing, and its log does not flood.
# 2. Every path down with no_path_retry 3 and the administrator's
#    queue-if-no-path on: the I/O still waits well past 3 checks, and
#    completes without an error when a path returns. no-path-retry 2 set
#    during an outage that queues for good starts a countdown that ends
#    the wait; queueing returns with the paths.
# 3. The LUN of an open map taken away (its SCSI devices deleted) with
#    no_path_retry 2: the queued I/O fails after 2 checks instead of
#    waiting for ever, the map stays in mpathctl's view while it is in
#    the kernel, and it goes, from both, at its last close.
# 4. The same with no_path_retry queue and flush_on_last_del yes: the
#    queued I/O fails as soon as mpathd learns the last path is gone
#    (without flush_on_last_del it would wait for ever).
# Paths that hang are tests/vm/mpathd-storm.sh. A broken promise is
# reported with its numbers ("BROKEN: ...") and the scenario goes on to
# the next check where it can; it fails at the end naming each one.
. /lab/lib.sh

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"

broken=()
broken() { # broken MESSAGE: a promise not kept; the scenario fails at the end
	echo "BROKEN: $*" >&2
	broken+=("$*")
}
mon=
release_all() { # no I/O left waiting on a map (a task blocked 60 s fails the scenario)
	local m
	for m in $(dmsetup ls --target lmpath 2>/dev/null | cut -f1); do
		dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
	done
}
cleanup() {
	release_all
	[ -z "$mon" ] || kill "$mon" 2>/dev/null
}
trap cleanup EXIT

mkdir -p /etc/mpathd
# max_polling_interval 8 (4 x polling_interval, multipath-tools' default):
# the back-off of a flapping path stops there (docs/mpathd.md). multibus:
# the standby port is in the group I/O goes to.
cat > /etc/mpathd/mpathd.conf <<'CONF'
defaults {
	find_multipaths on
	polling_interval 2
	max_polling_interval 8
	path_grouping_policy multibus
	no_path_retry 3
}
blacklist {
	devnode "^nvme"
	device {
		vendor "QEMU"
		product ".*"
	}
}
CONF

part_t0=$(now_ms)
part_done() { # part_done NAME: how long the part took
	result "part_$1_s" $((($(now_ms) - part_t0) / 1000))
	part_t0=$(now_ms)
}

###########################################################################
# 1. A path that passes its check and fails I/O.
#
# scsi_debug's ALUA ports (lib.sh, active_paths): host N's port is
# standby when N % 3 == 2; scsi_dh_alua refuses reads and writes sent
# there, TUR (the check) is answered. multibus puts it in the map with the
# two active ports.
modprobe scsi_dh_alua || die "cannot load scsi_dh_alua"
mapfile -t sd < <(scsi_debug_paths add_host=3)
[ ${#sd[@]} -eq 3 ] || die "expected three scsi_debug paths, got: ${sd[*]}"
mapfile -t act < <(printf '%s\n' "${sd[@]}" | active_paths)
[ ${#act[@]} -eq 2 ] || die "expected two active scsi_debug ports, got: ${act[*]}"
standby=$(printf '%s\n' "${sd[@]}" | grep -vxF -e "${act[0]}" -e "${act[1]}")
sdwwid=$(wwid_of "${sd[0]}")
mpathd_start
# three_paths: the scsi_debug LUN's map exists and has its 3 paths (the
# map is looked up at each try: it may not exist yet).
three_paths() {
	local m
	m=$(map_of "$sdwwid")
	[ -n "$m" ] && [ "$(dmsetup table "$m" 2>/dev/null | grep -oE ' [0-9]+:[0-9]+ ' | wc -l)" -eq 3 ]
}
wait_until 30 three_paths ||
	die "no map with the 3 scsi_debug paths: $(dmsetup table)"
map=$(map_of "$sdwwid")
sdev=$(devt "$standby")
result flap_path "$standby ($sdev, standby port)"

udevadm monitor --kernel --property --subsystem-match=block > "$RESULTS/uevents.txt" 2>&1 &
mon=$!
sleep 1
lines0=$(wc -l < "$RESULTS/mpathd.log")
fio_verify flap "/dev/mapper/$map" 19 > "$RESULTS/fio-flap.log" 2>&1 &
fio=$!
sleep 2
w_start=$(awk '{ print $1 }' /proc/uptime)
sleep 16
w_end=$(awk '{ print $1 }' /proc/uptime)
lines1=$(wc -l < "$RESULTS/mpathd.log")
if wait "$fio"; then
	result fio_flap errors=0
else
	broken "fio failed while the standby path flapped: $(grep -m 2 -i error "$RESULTS/fio-flap.log")"
fi
dm_path_events "$RESULTS/uevents.txt" |
	awk -v a="$w_start" -v b="$w_end" -v d="$sdev" '$1 >= a && $1 < b && $3 == d' > "$RESULTS/flap-events.txt"
nre=$(grep -c PATH_REINSTATED "$RESULTS/flap-events.txt" || true)
nfail=$(grep -c PATH_FAILED "$RESULTS/flap-events.txt" || true)
# Gaps between reinstatements, ms.
gaps=$(awk '$2 == "PATH_REINSTATED" { if (p != "") printf "%d ", ($1 - p) * 1000; p = $1 }' "$RESULTS/flap-events.txt")
mingap=$(printf '%s\n' $gaps | sort -n | head -n 1)
loglines=$(sed -n "$((lines0 + 1)),${lines1}p" "$RESULTS/mpathd.log" | grep -c -e "$standby" -e "$sdev" || true)
result flap_reinstated_in_16s "$nre"
result flap_failed_in_16s "$nfail"
result flap_reinstate_gaps_ms "${gaps:-none}"
result flap_log_lines_in_16s "$loglines"
# At most one reinstatement a polling interval (2 s: 8 in 16 s), and
# backing off while it keeps failing (doubling from 2 s: 0, 2, 6, 14 s,
# 4 in 16 s): 5 allows one more. The log: a few lines a reinstatement.
[ "$nre" -le 5 ] || broken "the standby path was reinstated $nre times in 16 s (failed $nfail times), more than 5"
[ -z "$mingap" ] || [ "$mingap" -ge 1800 ] ||
	broken "the standby path was reinstated ${mingap} ms after the one before, less than a polling interval"
[ "$loglines" -le 30 ] || broken "mpathd logged $loglines lines about the flapping path in 16 s, more than 30"
kill "$mon"
mon=
# It stays out of the way of the next parts.
echo offline > "/sys/block/$standby/device/state"
wait_until 10 path_is "$map" "$sdev" F || die "the standby path set offline was not failed"
part_done flap

###########################################################################
# 2. Every path down, no_path_retry 3, queue-if-no-path on.
p0=${act[0]} p1=${act[1]}
fio_verify hold "/dev/mapper/$map" 12 > "$RESULTS/fio-hold.log" 2>&1 &
fio=$!
sleep 2
echo offline > "/sys/block/$p0/device/state"
echo offline > "/sys/block/$p1/device/state"
t_down=$(now_ms)
wait_until 10 path_is "$map" "$(devt "$p0")" F && wait_until 10 path_is "$map" "$(devt "$p1")" F ||
	die "the offline paths were not failed: $(dmsetup status "$map")"
mpathctl set map "$map" queue-if-no-path on > "$RESULTS/set-queue.txt" 2>&1 ||
	die "mpathctl set map $map queue-if-no-path on: $(cat "$RESULTS/set-queue.txt")"
# 3 checks of 2 s, then two more intervals and a second.
sleep $(((t_down + 11000 - $(now_ms)) / 1000))
held_ms=$(($(now_ms) - t_down))
if dmsetup table "$map" | grep -q queue_if_no_path && kill -0 "$fio" 2>/dev/null; then
	result queue_held_ms "$held_ms"
else
	broken "queueing asked for by the administrator ended after ${held_ms} ms without a path: table '$(dmsetup table "$map")', fio $(kill -0 "$fio" 2>/dev/null && echo waiting || echo ended)"
	release_all
fi
t0=$(now_ms)
echo running > "/sys/block/$p0/device/state"
echo running > "/sys/block/$p1/device/state"
if wait "$fio"; then
	result io_done_after_path_back_ms $(($(now_ms) - t0))
	result fio_hold errors=0
else
	broken "fio failed across the outage with queueing on: $(grep -m 2 -i error "$RESULTS/fio-hold.log")"
fi
wait_until 10 path_is "$map" "$(devt "$p0")" A && wait_until 10 path_is "$map" "$(devt "$p1")" A ||
	die "the paths were not reinstated: $(dmsetup status "$map")"

# no-path-retry 2 during an outage that queues for good: a countdown.
echo offline > "/sys/block/$p0/device/state"
echo offline > "/sys/block/$p1/device/state"
wait_until 10 path_is "$map" "$(devt "$p0")" F && wait_until 10 path_is "$map" "$(devt "$p1")" F ||
	die "the offline paths were not failed: $(dmsetup status "$map")"
dd if="/dev/mapper/$map" of=/dev/null bs=4096 count=1 skip=100 iflag=direct 2> "$RESULTS/dd-countdown.txt" &
dd=$!
sleep 2
kill -0 "$dd" 2>/dev/null || die "a read with no path did not wait (queue): $(cat "$RESULTS/dd-countdown.txt")"
t_set=$(now_ms)
mpathctl set map "$map" no-path-retry 2 > "$RESULTS/set-retry.txt" 2>&1 ||
	die "mpathctl set map $map no-path-retry 2: $(cat "$RESULTS/set-retry.txt")"
# 2 checks of 2 s, two more intervals of slack.
if wait_until 8 sh -c "! kill -0 $dd 2>/dev/null"; then
	result countdown_ended_wait_ms $(($(now_ms) - t_set))
	dmsetup table "$map" | grep -q queue_if_no_path &&
		broken "the countdown ended but the table still queues: $(dmsetup table "$map")"
else
	broken "no-path-retry 2 set during an outage: the read still waits $(($(now_ms) - t_set)) ms later"
	release_all
	released=1
fi
wait "$dd" 2>/dev/null
echo running > "/sys/block/$p0/device/state"
echo running > "/sys/block/$p1/device/state"
wait_until 10 path_is "$map" "$(devt "$p0")" A && wait_until 10 path_is "$map" "$(devt "$p1")" A ||
	die "the paths were not reinstated: $(dmsetup status "$map")"
if [ -z "${released:-}" ]; then
	wait_until 6 sh -c "dmsetup table '$map' | grep -q queue_if_no_path" ||
		broken "queueing did not come back with the paths: $(dmsetup table "$map")"
else # the scenario turned it off, not mpathd
	dmsetup message "$map" 0 queue_if_no_path
fi

part_done queueing

###########################################################################
# 3. The LUN of an open map goes (no_path_retry 2, set above).
exec 7< "/dev/mapper/$map"
fio_verify gone "/dev/mapper/$map" 30 > "$RESULTS/fio-gone.log" 2>&1 &
fio=$!
sleep 2
for p in "${sd[@]}"; do echo 1 > "/sys/block/$p/device/delete"; done
wait_until 10 sh -c "! ls /sys/block | grep -qxE '$(IFS='|'; echo "${sd[*]}")'" || die "the scsi_debug disks were not deleted"
t_del=$(now_ms)
sleep 2
listed() { mpathctl show maps 2>/dev/null | grep -qw "$map"; }
dmsetup info "$map" > /dev/null 2>&1 || die "the open map $map went with its paths"
listed_then=yes
listed || { broken "mpathctl show maps does not list $map, which is still in the kernel (open, no path)"; listed_then=; }
# 2 checks of 2 s after the last path went, three intervals of slack (the
# daemon learns of the removals from udev).
if wait_until $(((t_del + 10000 - $(now_ms)) / 1000)) sh -c "! kill -0 $fio 2>/dev/null"; then
	result queued_io_failed_after_ms $(($(now_ms) - t_del))
	wait "$fio" && broken "fio wrote on without error to a map with no LUN"
else
	broken "the open map's LUN went $(($(now_ms) - t_del)) ms ago and its I/O still waits"
	release_all
	wait "$fio"
fi
if [ -n "$listed_then" ] && dmsetup info "$map" > /dev/null 2>&1; then
	listed || broken "mpathctl show maps lost $map while it is in the kernel"
fi
exec 7<&-
udevadm settle --timeout=10
t0=$(now_ms)
wait_until 10 sh -c "! dmsetup info '$map' > /dev/null 2>&1" || broken "$map stayed in the kernel after its last close"
wait_until 10 sh -c "! mpathctl show maps 2>/dev/null | grep -qw '$map'" || broken "$map stayed in mpathctl's view after it went"
result closed_map_gone_ms $(($(now_ms) - t0))
part_done lun_gone

###########################################################################
# 4. flush_on_last_del yes, no_path_retry queue: the LUN of an open map
# goes. The configuration read again ends the settings of parts 2 and 3.
sed -i 's/^\tno_path_retry 3$/\tno_path_retry queue\n\tflush_on_last_del yes/' /etc/mpathd/mpathd.conf
grep -q "flush_on_last_del yes" /etc/mpathd/mpathd.conf || die "could not set flush_on_last_del in mpathd.conf"
mpathctl reconfigure > "$RESULTS/reconfigure.txt" 2>&1 || die "mpathctl reconfigure: $(cat "$RESULTS/reconfigure.txt")"
modprobe -r scsi_debug || die "scsi_debug did not unload"
mapfile -t sd < <(scsi_debug_paths add_host=3)
[ ${#sd[@]} -eq 3 ] || die "expected three scsi_debug paths, got: ${sd[*]}"
wait_until 30 three_paths ||
	die "no map with the 3 new scsi_debug paths: $(dmsetup table)"
map=$(map_of "$sdwwid")
udevadm settle --timeout=10
dmsetup table "$map" | grep -q queue_if_no_path || die "no_path_retry queue: $map does not queue ($(dmsetup table "$map"))"
exec 7< "/dev/mapper/$map"
fio_verify flush "/dev/mapper/$map" 30 > "$RESULTS/fio-flush.log" 2>&1 &
fio=$!
sleep 2
for p in "${sd[@]}"; do echo 1 > "/sys/block/$p/device/delete"; done
wait_until 10 sh -c "! ls /sys/block | grep -qxE '$(IFS='|'; echo "${sd[*]}")'" || die "the scsi_debug disks were not deleted"
t_del=$(now_ms)
# No countdown: as soon as udev tells mpathd, plus slack.
if wait_until 6 sh -c "! kill -0 $fio 2>/dev/null"; then
	result flush_queued_io_failed_after_ms $(($(now_ms) - t_del))
	wait "$fio" && broken "fio wrote on without error to a map with no LUN"
else
	broken "flush_on_last_del: the open map's LUN went $(($(now_ms) - t_del)) ms ago and its I/O still waits"
	release_all
	wait "$fio"
fi
grep -q "flush_on_last_del: queued I/O fails now" "$RESULTS/mpathd.log" || broken "mpathd did not say it failed the queued I/O"
exec 7<&-
udevadm settle --timeout=10
wait_until 10 sh -c "! dmsetup info '$map' > /dev/null 2>&1" || broken "$map stayed in the kernel after its last close"
part_done flush_on_last_del

kill -0 "$MPATHD_PID" || die "mpathd died"
read -r rss fds thr < <(proc_usage "$MPATHD_PID")
result end_usage "rss=${rss}kB fds=$fds threads=$thr"
mpathd_stop TERM
[ ${#broken[@]} -eq 0 ] || die "${#broken[@]} promise(s) broken: $(printf '%s; ' "${broken[@]}")"
