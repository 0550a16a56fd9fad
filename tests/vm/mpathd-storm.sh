#!/bin/bash
# lab-timeout: 360
# check-kernels: 6.1
# mpathd with paths that hang: 40 scsi_debug paths (two maps) whose
# commands are dropped, never answered and never failed, while a healthy
# map (the virtio pair) is in use. The promises: device-mapper work keeps
# capacity no hung path can take, and no thread waits for a hung path
# beyond a fixed bound. Measured calm and during the storm, and printed:
# - a path of the healthy map set offline is failed within one polling
#   interval plus a check (polling_interval 2), and reinstated as fast
#   when it is back;
# - mpathctl show maps answers as fast as without the storm;
# - mpathd's threads stay under a bound that does not depend on the
#   number of hung paths, and 40 hung paths need no more than 20;
# - the healthy map's active path set offline, I/O goes on on the other;
#   fio --verify sees no error; the hung paths are reinstated once the
#   storm ends.
# A broken promise is reported with its numbers ("BROKEN: ...") and the
# scenario goes on where it can; it fails at the end naming each one.
# soak/mpathd-storm-80.sh runs it with 80 hung paths.
. /lab/lib.sh

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"

broken=()
broken() { # broken MESSAGE: a promise not kept; the scenario fails at the end
	echo "BROKEN: $*" >&2
	broken+=("$*")
}
storm_rules=/run/udev/rules.d/00-lab-storm.rules
watchdog=
cleanup() {
	[ -e /sys/bus/pseudo/drivers/scsi_debug/opts ] && scsi_debug_hang off
	[ -z "$watchdog" ] || kill "$watchdog" 2>/dev/null
	if [ -e "$storm_rules" ]; then
		rm -f "$storm_rules"
		udevadm control --reload
	fi
}
trap cleanup EXIT

# The paths of MAP in table order, as major:minor.
devts_of() { dmsetup table "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/) print $i }'; }
# The block device named by major:minor.
name_of() { basename "$(readlink -f "/sys/dev/block/$1")"; }
threads() { awk '/^Threads:/ { print $2 }' "/proc/$MPATHD_PID/status"; }
# daemon_stacks FILE: where each of mpathd's threads waits, into FILE.
daemon_stacks() {
	local t
	for t in /proc/"$MPATHD_PID"/task/*; do
		echo "thread ${t##*/} $(awk '{ print $3 }' "$t/stat" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/  /' "$t/stack" 2>/dev/null
	done > "$1"
}
# show_maps_median LABEL: mpathctl show maps 7 times; "MEDIAN (ALL)" in
# ms. A query that gets no answer within 20 s counts as 20000 and ends the
# series; where mpathd's threads wait then is kept in stacks-LABEL.txt.
show_maps_median() {
	local q=() t rc
	for _ in 1 2 3 4 5 6 7; do
		t=${EPOCHREALTIME/./}
		timeout 20 mpathctl show maps > /dev/null
		rc=$?
		q+=($(((${EPOCHREALTIME/./} - t) / 1000)))
		if [ "$rc" -eq 124 ]; then
			daemon_stacks "$RESULTS/stacks-$1.txt"
			break
		fi
		[ "$rc" -eq 0 ] || echo "BROKEN: mpathctl show maps failed ($rc)" >&2
	done
	echo "$(median "${q[@]}") (${q[*]})"
}
# offline_fail_ms MAP DEV: DEV of MAP set offline, ms until the map says
# it failed (0 when it was not within 20 s).
offline_fail_ms() {
	local t
	t=$(now_ms)
	echo offline > "/sys/block/$2/device/state"
	if wait_until 20 path_is "$1" "$(devt "$2")" F; then echo $(($(now_ms) - t)); else echo 0; fi
}
# online_reinstate_ms MAP DEV: the same for running, until it is active.
online_reinstate_ms() {
	local t
	t=$(now_ms)
	echo running > "/sys/block/$2/device/state"
	if wait_until 20 path_is "$1" "$(devt "$2")" A; then echo $(($(now_ms) - t)); else echo 0; fi
}
max_threads() { # max_threads SECS: the most threads seen, sampled twice a second
	local m=0 t end
	end=$(($(now_ms) + $1 * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		t=$(threads)
		[ "$t" -gt "$m" ] && m=$t
		sleep 0.5
	done
	echo "$m"
}
# hang_on: every scsi_debug path hangs from now on. A watchdog in a
# session of its own ends the hang should this scenario be killed: the
# lab's cleanup could not remove the disks. hang_off: they answer again.
hang_on() {
	scsi_debug_hang on
	setsid sh -c 'sleep 150; echo 0 > /sys/bus/pseudo/drivers/scsi_debug/every_nth
		echo 0 > /sys/bus/pseudo/drivers/scsi_debug/opts' > /dev/null 2>&1 &
	watchdog=$!
}
hang_off() {
	scsi_debug_hang off
	[ -z "$watchdog" ] || kill "$watchdog" 2>/dev/null
	watchdog=
}

# STORM_HOSTS scsi_debug hosts with STORM_LUNS LUNs each, in two maps (the
# even and the odd LUNs). A scsi_debug disk costs about 1.5 s of this
# guest's time to appear (udev's events for it, under TCG), so 40 hung
# paths is what fits the check's time. udev's full rules would add a
# second a disk (is-path alone reads every other disk), so these
# disks get from a lab rule only what the project's rules would give
# them: a WWID (their map's) and the claim. The daemon's part, the
# subject here, is the same.
: "${STORM_HOSTS:=4}" "${STORM_LUNS:=10}"
nstorm=$((STORM_HOSTS * STORM_LUNS))
mkdir -p /run/udev/rules.d
cat > "$storm_rules" <<'RULES'
SUBSYSTEM!="block", GOTO="lab_storm_end"
ACTION=="remove", GOTO="lab_storm_end"
ENV{DEVTYPE}!="disk", GOTO="lab_storm_end"
ATTRS{model}!="scsi_debug*", GOTO="lab_storm_end"
KERNELS=="*:0:0:*[02468]", ENV{ID_SERIAL}="lab-storm-even"
KERNELS=="*:0:0:*[13579]", ENV{ID_SERIAL}="lab-storm-odd"
ENV{DM_MULTIPATH_DEVICE_PATH}="1", ENV{ID_FS_TYPE}="mpath_member", ENV{SYSTEMD_READY}="0"
OPTIONS+="last_rule"
LABEL="lab_storm_end"
RULES
udevadm control --reload
t0=$(now_ms)
modprobe scsi_debug add_host="$STORM_HOSTS" num_tgts=1 max_luns="$STORM_LUNS" dev_size_mb=8 ||
	die "modprobe scsi_debug failed"
udevadm settle --timeout=300
mapfile -t storm < <(for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
	[ -e "$d" ] && basename "$d"
done)
[ ${#storm[@]} -eq "$nstorm" ] || die "expected $nstorm scsi_debug disks, got ${#storm[@]}"
result storm_disks_ms $(($(now_ms) - t0))

vwwid=$(wwid_of sda)
[ -n "$vwwid" ] && [ "$(wwid_of sdb)" = "$vwwid" ] || die "sda and sdb do not share a WWID"
mkdir -p /etc/mpathd
# max_polling_interval 2: a steady path is checked every 2 s too, so
# "failed within one polling interval plus a check" is 2 s plus the check.
# The virtio pair in two groups: I/O goes to the first path only, and the
# second, idle one is failed by mpathd's check, never by an I/O error.
cat > /etc/mpathd/mpathd.conf <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	max_polling_interval 2
	path_grouping_policy multibus
	no_path_retry 3
}
blacklist {
	devnode "^nvme"
}
multipaths {
	multipath {
		wwid "$vwwid"
		path_grouping_policy failover
	}
}
CONF
t0=$(now_ms)
mpathd_start
vmap=$(map_of "$vwwid")
[ -n "$vmap" ] || die "no map for the virtio pair"
mapfile -t vdevts < <(devts_of "$vmap")
[ ${#vdevts[@]} -eq 2 ] || die "the virtio map has ${#vdevts[@]} paths: $(dmsetup table "$vmap")"
vactive=$(name_of "${vdevts[0]}")
vidle=$(name_of "${vdevts[1]}")
storm_ready() {
	[ "$(devts_of lab-storm-even 2>/dev/null | wc -l)" -eq $((nstorm / 2)) ] &&
		[ "$(devts_of lab-storm-odd 2>/dev/null | wc -l)" -eq $((nstorm / 2)) ]
}
wait_until 120 storm_ready ||
	die "the 2 storm maps were not made with $((nstorm / 2)) paths each: $(dmsetup table | grep storm)"
udevadm settle --timeout=120
result maps_ms $(($(now_ms) - t0))
sleep 2

# Calm: the same maps, nothing hung. The queries are timed without fio
# (under TCG fio's CPU makes a query take 0.5 to 4 s), and again after the
# storm; the faster of the two is the calm figure.
read -r rss fds thr < <(proc_usage "$MPATHD_PID")
result calm_usage "rss=${rss}kB fds=$fds threads=$thr"
calm_q=$(show_maps_median calm)
result calm_show_maps_ms "$calm_q"
fio_verify storm "/dev/mapper/$vmap" 300 > "$RESULTS/fio-storm.log" 2>&1 &
fio=$!
sleep 3
result calm_fail_ms "$(offline_fail_ms "$vmap" "$vidle")"
result calm_reinstate_ms "$(online_reinstate_ms "$vmap" "$vidle")"

# The storm. Every check of a hung path lasts until its deadline, so after
# three intervals each one has a check stuck in the kernel.
hang_on
t_storm=$(now_ms)
sleep 6
tall=$(max_threads 4)
result threads_${nstorm}_hung "$tall"
# The hang is real: the storm paths hold commands the disk never answers
# (device_busy: sent to it and not back), seen over 2 s as each check
# waits for its own timeout in turn.
hung=$(for _ in 1 2 3 4; do
	for p in "${storm[@]}"; do
		[ "$(cat "/sys/block/$p/device/device_busy")" -gt 0 ] && echo "$p"
	done
	sleep 0.5
done | sort -u | wc -l)
result paths_seen_holding_a_command "$hung"
[ "$hung" -ge $((nstorm * 3 / 4)) ] || die "only $hung storm paths were seen holding a command: the hang did not take"

fails=() reinstates=()
for _ in 1 2; do
	fails+=("$(offline_fail_ms "$vmap" "$vidle")")
	reinstates+=("$(online_reinstate_ms "$vmap" "$vidle")")
done
result storm_fail_ms "${fails[*]}"
result storm_reinstate_ms "${reinstates[*]}"

# The active path offline: the kernel fails it at its next write, and I/O
# goes on on the other path.
w0=$(awk '{ print $5 }' "/sys/block/$vidle/stat")
echo offline > "/sys/block/$vactive/device/state"
wait_until 10 path_is "$vmap" "$(devt "$vactive")" F || broken "the active path $vactive set offline was not failed"
sleep 3
w1=$(awk '{ print $5 }' "/sys/block/$vidle/stat")
result storm_writes_on_other_path $((w1 - w0))
[ $((w1 - w0)) -gt 0 ] || broken "no write went to $vidle while $vactive was offline during the storm"
result storm_active_reinstate_ms "$(online_reinstate_ms "$vmap" "$vactive")"
if fio_stop "$fio" "$RESULTS/fio-storm.log"; then
	result fio_storm errors=0
else
	broken "fio failed during the storm: $(grep -m 2 -iE 'error|verify' "$RESULTS/fio-storm.log")"
fi
read -r rss fds thr < <(proc_usage "$MPATHD_PID")
result storm_usage "rss=${rss}kB fds=$fds threads=$thr"
storm_q=$(show_maps_median storm)
result storm_show_maps_ms "$storm_q"

# Half the hung paths: one storm map flushed (device-mapper work during
# the storm too), its paths no longer checked once their stuck checks
# are back.
timeout 20 mpathctl flush lab-storm-odd > "$RESULTS/flush.txt" 2>&1 ||
	broken "mpathctl flush lab-storm-odd during the storm: $(cat "$RESULTS/flush.txt")"
sleep 4
thalf=$(max_threads 3)
result threads_$((nstorm / 2))_hung "$thalf"
result storm_s $((($(now_ms) - t_storm) / 1000))

# The storm ends: the hung paths are answered and reinstated again. A
# check's command dropped just before the end comes back only when the
# SCSI layer times it out (the disk's timeout, 30 s by default), and the
# path's next check waits for it: so the bound is that timeout plus two
# checks and a margin.
hang_off
t0=$(now_ms)
scsi_tmo=$(cat "/sys/block/${storm[0]}/device/timeout" 2>/dev/null || echo 30)
back_s=$((scsi_tmo + 2 * 2 + 5))
if wait_until "$back_s" sh -c "! dmsetup status lab-storm-even | grep -q ' F '"; then
	result storm_paths_back_ms $(($(now_ms) - t0))
else
	broken "storm paths still failed $back_s s after the storm ended (SCSI timeout $scsi_tmo s): $(dmsetup status lab-storm-even | grep -o ' F ' | wc -l)"
fi
sleep 2
read -r rss fds thr < <(proc_usage "$MPATHD_PID")
result after_usage "rss=${rss}kB fds=$fds threads=$thr"
after_q=$(show_maps_median after)
result after_storm_show_maps_ms "$after_q"

# Thresholds. The fail and reinstate times: the next check (at most 2 s
# away) plus the check and the message, 2.5 s of slack for TCG. The
# query: as fast as when calm, with 50% and 250 ms for TCG's noise (two
# vCPUs, a host shared with other work). The threads: whatever lanes the
# daemon runs, 24 holds them, well below one thread per hung path; and
# twice the hung paths, no more threads.
for ms in "${fails[@]}"; do
	[ "$ms" -gt 0 ] && [ "$ms" -le 4500 ] ||
		broken "a virtio path set offline during the storm took ${ms} ms to fail (0: not within 20 s), more than 4500"
done
for ms in "${reinstates[@]}"; do
	[ "$ms" -gt 0 ] && [ "$ms" -le 4500 ] ||
		broken "a virtio path back during the storm took ${ms} ms to be reinstated (0: not within 20 s), more than 4500"
done
for f in calm storm after; do
	[ -e "$RESULTS/stacks-$f.txt" ] &&
		broken "mpathctl show maps got no answer within 20 s ($f; mpathd's threads: stacks-$f.txt)"
done
calm=${calm_q%% *} after=${after_q%% *} storm=${storm_q%% *}
[ "$after" -lt "$calm" ] && calm=$after
[ "$storm" -le $((calm * 3 / 2 + 250)) ] ||
	broken "mpathctl show maps took ${storm} ms during the storm, ${calm} ms calm"
[ "$tall" -le 24 ] ||
	broken "mpathd ran $tall threads with $nstorm hung paths ($((nstorm / 2)) hung: $thalf), more than 24"
[ "$tall" -le $((thalf + 2)) ] ||
	broken "mpathd's threads grew from $thalf ($((nstorm / 2)) hung paths) to $tall ($nstorm)"

kill -0 "$MPATHD_PID" || die "mpathd died"
mpathd_stop TERM
[ ${#broken[@]} -eq 0 ] || die "${#broken[@]} promise(s) broken: $(printf '%s; ' "${broken[@]}")"
