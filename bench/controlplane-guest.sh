#!/bin/bash
# Guest side of bench/controlplane: mpathd against Debian's multipathd on
# the same scsi_debug set-ups (LUNS x 4 paths), repeats interleaved, the
# daemon that goes first alternating. One line per sample in
# $RESULTS/controlplane.txt:
#   cold  LUNS DAEMON MS SETTLED  daemon start -> every map with its 4 paths;
#                                 SETTLED: -> udev done with them too
#   hot   LUNS DAEMON MS SETTLE   paths added while running -> every map;
#                                 SETTLE: udevadm settle from the same start
#   rss   LUNS DAEMON KB THREADS  after cold assembly
#   fail  LUNS DAEMON MS          path offline -> failed in the map
# Both read the same multipath.conf (mpathd with dm_target multipath, so
# both drive the stock target). Expects REPEATS and SETUPS to be set.
. /lab/lib.sh

REPEATS=${REPEATS:-3}
SETUPS=${SETUPS:-"16 64"}
out=$RESULTS/controlplane.txt
: > "$out"

conf='defaults {
	user_friendly_names no
	find_multipaths off
}
blacklist {
	devnode "^(nvme|vd|sr|loop|ram|nullb)"
	device {
		vendor "QEMU"
		product ".*"
	}
}'
echo "$conf" > /etc/multipath.conf
mkdir -p /etc/mpathd
printf '%s\ndefaults {\n\tdm_target multipath\n}\n' "$conf" > /etc/mpathd/mpathd.conf
modprobe dm-multipath

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

load_paths() { # load_paths LUNS
	modprobe scsi_debug add_host=4 num_tgts=1 max_luns="$1" dev_size_mb=16 vpd_use_hostno=0 ||
		die "modprobe scsi_debug max_luns=$1 failed"
}

unload_paths() {
	udevadm settle --timeout=120
	modprobe -r scsi_debug || die "scsi_debug did not unload"
	udevadm settle --timeout=120
}

# complete LUNS: every one of LUNS multipath maps has its 4 paths.
complete() {
	[ "$(dmsetup table --target multipath 2>/dev/null |
		awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/) n++; if (n == 4) c++ } END { print c + 0 }')" -eq "$1" ]
}

wait_complete() { # wait_complete LUNS SECS
	local end=$(($(now_ms) + $2 * 1000))
	until complete "$1"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

PID=
start_daemon() { # start_daemon mpathd|multipathd LOG
	case $1 in
	mpathd) mpathd -v >> "$2" 2>&1 & ;;
	multipathd) multipathd -d -s >> "$2" 2>&1 & ;;
	esac
	PID=$!
}

# ready NAME: the daemon serves (maps from now on are its work on events).
wait_ready() {
	case $1 in
	mpathd) wait_until 60 sh -c "[ \$(grep -c 'notice: ready' '$2') -gt $3 ]" ;;
	multipathd) wait_until 60 sh -c "multipathd show daemon 2>/dev/null | grep -Eq 'pid [0-9]+ (idle|running)'" ;;
	esac
}

stop_daemon() {
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
	udevadm settle --timeout=120
	dmsetup remove_all --force > /dev/null 2>&1
	rm -f /etc/multipath/wwids /etc/multipath/bindings
	udevadm settle --timeout=120
}

one_round() { # one_round LUNS DAEMON
	local luns=$1 d=$2 log=$RESULTS/$2-$1.log t0 t1 st rss threads path devt before
	# Cold: the paths are there, no map; the daemon starts.
	load_paths "$luns"
	udevadm settle --timeout=300
	t0=$(now_ms)
	start_daemon "$d" "$log"
	wait_complete "$luns" 600 || die "$d: cold assembly of $luns maps incomplete: $(dmsetup ls --target multipath | wc -l) maps"
	t1=$(now_ms)
	udevadm settle --timeout=300
	echo "cold $luns $d $((t1 - t0)) $(($(now_ms) - t0))" | tee -a "$out"
	sleep 3
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status")
	threads=$(awk '/^Threads:/ { print $2 }' "/proc/$PID/status")
	echo "rss $luns $d $rss $threads" | tee -a "$out"
	# Offline: a path of an active port group is set offline, no I/O.
	path=
	for p in $(dmsetup deps -o devname "$(dmsetup ls --target multipath | head -n 1 | cut -f1)" |
		grep -oE 'sd[a-z]+'); do
		path=$(echo "$p" | active_paths)
		[ -n "$path" ] && break
	done
	[ -n "$path" ] || die "no active path found"
	devt=$(devt "$path")
	local map
	map=$(dmsetup ls --target multipath | head -n 1 | cut -f1)
	t0=$(now_ms)
	echo offline > "/sys/block/$path/device/state"
	wait_until 120 sh -c "dmsetup status '$map' | grep -q ' $devt F '" || die "$d: $path not failed in $map"
	t1=$(now_ms)
	echo "fail $luns $d $((t1 - t0))" | tee -a "$out"
	echo running > "/sys/block/$path/device/state"
	wait_until 120 sh -c "dmsetup status '$map' | grep -q ' $devt A '" || die "$d: $path not reinstated"
	stop_daemon
	unload_paths

	# Hot: the daemon runs with no path; the paths come.
	before=$(grep -c 'notice: ready' "$log" 2>/dev/null || true)
	start_daemon "$d" "$log"
	wait_ready "$d" "$log" "${before:-0}" || die "$d did not get ready"
	sleep 2
	t0=$(now_ms)
	load_paths "$luns"
	(udevadm settle --timeout=600; echo "$(($(now_ms) - t0))" > /tmp/settle) &
	st=$!
	wait_complete "$luns" 900 || die "$d: hot assembly of $luns maps incomplete: $(dmsetup ls --target multipath | wc -l) maps"
	t1=$(now_ms)
	wait "$st"
	echo "hot $luns $d $((t1 - t0)) $(cat /tmp/settle)" | tee -a "$out"
	stop_daemon
	unload_paths
}

for r in $(seq 1 "$REPEATS"); do
	for luns in $SETUPS; do
		if [ $((r % 2)) -eq 1 ]; then order="mpathd multipathd"; else order="multipathd mpathd"; fi
		for d in $order; do
			echo "round $r: $luns x 4, $d"
			one_round "$luns" "$d"
		done
	done
done
echo "done" >> "$out"
