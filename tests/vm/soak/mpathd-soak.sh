#!/bin/bash
# lab-timeout: 5400
# Soak: mpathd over many path faults and hot-plugs under fio --verify,
# with its memory, file descriptors and threads watched. Not part of
# scripts/check (it runs about 70 minutes under TCG): run it with
#   lab/run --build build tests/vm/soak/mpathd-soak.sh
# The virtio-scsi pair is the map (two groups of one path would leave one
# path idle; multibus keeps both busy). Two phases, fio --verify writing
# throughout in back-to-back runs of 60 s:
# 1. FAIL_CYCLES fail/reinstate cycles, the two paths in turn, each one
#    in one of three ways: mpathctl fail path / reinstate path (D-Bus
#    Path.Fail and Path.Reinstate; 8 cycles in 10), device-mapper's own
#    fail_path (mpathd sees PATH_FAILED, checks the path and reinstates
#    it; 1 in 10), the SCSI device set offline and running again
#    (mpathd's checker fails it and reinstates it; 1 in 10). Each cycle
#    waits for the map to show the path failed, then active.
# 2. HOTPLUG_CYCLES hot-remove/add cycles: the host unplugs a virtio disk
#    (vdisk0 and vdisk1 in turn) and plugs it back; each waits for the
#    path to leave the map and to join it again.
# mpathd's RSS, open fds and threads are printed at the start, every 100
# fail cycles and every 10 hot-plug cycles, and at the end; from the
# first checkpoint (allocator warm) to the end, RSS may grow by at most
# RSS_SLACK_KB, fds and threads by at most 2. fio must see no error.
. /lab/lib.sh

FAIL_CYCLES=1000
HOTPLUG_CYCLES=100
RSS_SLACK_KB=2048

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
vwwid=$(wwid_of sda)
[ -n "$vwwid" ] && [ "$(wwid_of sdb)" = "$vwwid" ] || die "sda and sdb do not share a WWID"
mkdir -p /etc/mpathd
cat > /etc/mpathd/mpathd.conf <<'CONF'
defaults {
	find_multipaths on
	polling_interval 2
	max_polling_interval 4
	path_grouping_policy multibus
	no_path_retry queue
}
blacklist {
	devnode "^nvme"
}
CONF
mpathd_start
map=$(map_of "$vwwid")
[ -n "$map" ] || die "no map for the virtio pair"

# The path device of virtio-scsi disk vdiskN (host N, probed first).
virtio_path() {
	local d
	for d in /sys/block/sd*; do
		readlink -f "$d" | grep -q "/virtio.*/host$1/" && basename "$d"
	done
}
npaths() { dmsetup table "$map" | grep -oE ' [0-9]+:[0-9]+ ' | wc -l; }

# fio in back-to-back runs until $RESULTS/stop appears; a failed run is
# counted in $RESULTS/fio-failures.
: > "$RESULTS/fio-failures"
(
	n=0
	while [ ! -e "$RESULTS/stop" ]; do
		n=$((n + 1))
		fio_verify "soak$n" "/dev/mapper/$map" 60 > "$RESULTS/fio-$n.log" 2>&1 ||
			echo "run $n: $(grep -m 1 -i error "$RESULTS/fio-$n.log")" >> "$RESULTS/fio-failures"
	done
	echo "$n" > "$RESULTS/fio-runs"
) &
fioloop=$!
trap 'touch "$RESULTS/stop"; for m in $(dmsetup ls --target lmpath | cut -f1); do dmsetup message "$m" 0 fail_if_no_path; done 2>/dev/null' EXIT
sleep 3

usage() { # usage LABEL: print mpathd's RSS, fds, threads; keep them in $use_*
	local rss fds thr
	read -r rss fds thr < <(proc_usage "$MPATHD_PID") || die "mpathd is gone"
	use_rss=$rss use_fds=$fds use_thr=$thr
	echo "usage $1: rss=${rss}kB fds=$fds threads=$thr" | tee -a "$RESULTS/usage.txt"
}
usage start
result usage_start "rss=${use_rss}kB fds=$use_fds threads=$use_thr"

# 1. Fail and reinstate.
t0=$(now_ms)
for i in $(seq 1 "$FAIL_CYCLES"); do
	p=$(if [ $((i % 2)) -eq 0 ]; then echo sda; else echo sdb; fi)
	d=$(devt "$p")
	case $((i % 10)) in
	0)
		echo offline > "/sys/block/$p/device/state"
		wait_until 20 path_is "$map" "$d" F || die "cycle $i: $p offline was not failed: $(dmsetup status "$map")"
		echo running > "/sys/block/$p/device/state"
		;;
	5)
		dmsetup message "$map" 0 fail_path "$d" || die "cycle $i: fail_path $d refused"
		;;
	*)
		mpathctl fail path "$p" > /dev/null || die "cycle $i: mpathctl fail path $p failed"
		wait_until 20 path_is "$map" "$d" F || die "cycle $i: $p was not failed: $(dmsetup status "$map")"
		mpathctl reinstate path "$p" > /dev/null || die "cycle $i: mpathctl reinstate path $p failed"
		;;
	esac
	wait_until 30 path_is "$map" "$d" A || die "cycle $i: $p was not reinstated: $(dmsetup status "$map")"
	if [ $((i % 100)) -eq 0 ]; then
		sleep 2
		usage "after $i fail cycles"
		if [ "$i" -eq 100 ]; then base_rss=$use_rss base_fds=$use_fds base_thr=$use_thr; fi
	fi
done
result fail_cycles "$FAIL_CYCLES in $((($(now_ms) - t0) / 1000)) s"
[ -s "$RESULTS/fio-failures" ] && die "fio failed during the fail cycles: $(head -n 3 "$RESULTS/fio-failures")"

# 2. Hot-remove and add.
t0=$(now_ms)
for i in $(seq 1 "$HOTPLUG_CYCLES"); do
	id=vdisk$((i % 2))
	host_unplug "$id" > "$RESULTS/unplug.reply" || die "cycle $i: host could not unplug $id: $(cat "$RESULTS/unplug.reply")"
	wait_until 30 sh -c "[ \$(dmsetup table '$map' | grep -oE ' [0-9]+:[0-9]+ ' | wc -l) -eq 1 ]" ||
		die "cycle $i: $id stayed in the map after the host unplugged it: $(dmsetup table "$map")"
	host_replug "$id" > "$RESULTS/replug.reply" || die "cycle $i: host could not plug $id back: $(cat "$RESULTS/replug.reply")"
	wait_until 60 sh -c "[ \$(dmsetup table '$map' | grep -oE ' [0-9]+:[0-9]+ ' | wc -l) -eq 2 ]" ||
		die "cycle $i: $id did not join the map again: $(dmsetup table "$map")"
	if [ $((i % 10)) -eq 0 ]; then
		sleep 2
		usage "after $i hot-plug cycles"
	fi
done
result hotplug_cycles "$HOTPLUG_CYCLES in $((($(now_ms) - t0) / 1000)) s"

touch "$RESULTS/stop"
wait "$fioloop"
result fio_runs "$(cat "$RESULTS/fio-runs")"
[ -s "$RESULTS/fio-failures" ] && die "fio failed: $(head -n 3 "$RESULTS/fio-failures")"
result fio errors=0
sleep 2
usage end
result usage_end "rss=${use_rss}kB fds=$use_fds threads=$use_thr"
result usage_growth "rss=$((use_rss - base_rss))kB fds=$((use_fds - base_fds)) threads=$((use_thr - base_thr)) (from 100 fail cycles to the end)"
[ $((use_rss - base_rss)) -le "$RSS_SLACK_KB" ] ||
	die "mpathd's RSS grew from ${base_rss} kB to ${use_rss} kB"
[ $((use_fds - base_fds)) -le 2 ] || die "mpathd's fds grew from $base_fds to $use_fds"
[ $((use_thr - base_thr)) -le 2 ] || die "mpathd's threads grew from $base_thr to $use_thr"
kill -0 "$MPATHD_PID" || die "mpathd died"
mpathd_stop TERM
