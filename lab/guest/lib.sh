# Helpers for lab scenarios: `. /lab/lib.sh` at the top of a scenario.
# Functions print what they do to stderr and fail the scenario on misuse.

set -o pipefail

# result KEY VALUE: a measurement the host prints after the scenario.
result() { echo "RESULT $1=$2"; }

# die MESSAGE: fail the scenario with a reason.
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# wait_until SECONDS COMMAND...: poll every 0.2 s until COMMAND succeeds.
wait_until() {
	local limit=$1 end
	shift
	end=$(($(date +%s) + limit))
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# scsi_debug_paths [scsi_debug params...]: load scsi_debug (two hosts, one
# 64 MiB LUN each, one identity for all hosts: vpd_use_hostno=0) and print
# the sd names of its disks, one a line. The hosts present the same LUN, so
# the disks share a WWID. See active_paths for their ALUA states.
scsi_debug_paths() {
	local args=(add_host=2 num_tgts=1 max_luns=1 dev_size_mb=64 vpd_use_hostno=0 "$@")
	modprobe scsi_debug "${args[@]}" || die "modprobe scsi_debug ${args[*]} failed"
	udevadm settle --timeout=30
	local d
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && basename "$d"
	done | sort
}

# active_paths: of the sd names on stdin, print those that serve I/O. With
# vpd_use_hostno=0, scsi_debug claims ALUA and puts host N's port in state
# N % 3 (0 active/optimized, 1 active/non-optimized, 2 standby), and
# scsi_dh_alua fails I/O sent to a standby port. access_state cannot be
# trusted right after the disk appears (scsi_dh_alua's first RTPG runs
# asynchronously), so scsi_debug ports are judged by that rule.
active_paths() {
	local p dev host st
	while read -r p; do
		dev=$(readlink -f "/sys/block/$p/device")
		host=$(basename "$dev")
		host=${host%%:*}
		if [[ $dev == */pseudo_0/* ]] && [ -r /sys/module/scsi_debug/parameters/vpd_use_hostno ] &&
			[ "$(cat /sys/module/scsi_debug/parameters/vpd_use_hostno)" = 0 ]; then
			[ $((host % 3)) -eq 2 ] || echo "$p"
			continue
		fi
		st=$(cat "/sys/block/$p/device/access_state" 2>/dev/null || echo active)
		case "$st" in active*) echo "$p" ;; esac
	done
}

# devt NAME: "major:minor" of a block device.
devt() { cat "/sys/class/block/$1/dev"; }

# load_lmpath [params...]: load the project's module.
load_lmpath() { modprobe dm-lmpath "$@" || die "modprobe dm-lmpath $* failed"; }

# Instruction counting (lab/run --insn-count, see lab/insn/insn-count.c).
# insn_counting: 0 when the guest runs under the counter.
# insn_begin: open a counting window; insn_end FILE: close it and keep its
# counts (guest virtual addresses) in FILE; insn_kallsyms FILE: the symbol
# table that maps them to functions (take it after loading the modules).
# insn_read DEV QD N FILE: a window around exactly N 4k random reads of DEV
# with QD in flight (lab/insn/aio-read.c), kept in FILE.
insn_counting() { [ -x "$LAB_SHARE/insn/mark" ]; }
insn_read() {
	"$LAB_SHARE/insn/aio-read" "$1" "$2" "$3" >/dev/null || die "aio-read $1 $2 $3 failed"
	cp "$LAB_SHARE/insn/last.txt" "$4" || die "the counter wrote no window"
}
insn_begin() { "$LAB_SHARE/insn/mark" on || die "no instruction counter (lab/run --insn-count)"; }
insn_end() {
	"$LAB_SHARE/insn/mark" off || die "no instruction counter (lab/run --insn-count)"
	cp "$LAB_SHARE/insn/last.txt" "$1" || die "the counter wrote no window"
}
insn_kallsyms() {
	echo 0 >/proc/sys/kernel/kptr_restrict
	cat /proc/kallsyms >"$1"
}

# host_request JSON: ask the host side of the lab to act; prints its reply.
host_request() {
	local id
	id=$(date +%s%N)
	mkdir -p "$LAB_SHARE/req"
	printf '%s\n' "$1" > "$LAB_SHARE/req/$id.tmp"
	mv "$LAB_SHARE/req/$id.tmp" "$LAB_SHARE/req/$id.json"
	wait_until 60 test -e "$LAB_SHARE/req/$id.reply" || die "host did not answer $1"
	cat "$LAB_SHARE/req/$id.reply"
	! grep -q '"error"' "$LAB_SHARE/req/$id.reply"
}

# host_qmp JSON: one QMP command on the guest's QEMU, e.g.
#   host_qmp '{"execute":"device_del","arguments":{"id":"vdisk1"}}'
host_qmp() { host_request "{\"qmp\": $1}"; }

# host_unplug ID / host_replug ID: hot-remove a virtio-scsi disk (vdisk0,
# vdisk1; vdata0, vdata1 in the root filesystem guest) from the host side,
# and plug it back with the same identity.
host_unplug() { host_request "{\"unplug\": \"$1\"}"; }
host_replug() { host_request "{\"replug\": \"$1\"}"; }

# host_hang ID / host_resume ID: the host holds the reads and writes the
# virtio-scsi disk ID (as for host_unplug) receives from now on (all but the
# first), without answering: a path whose I/O hangs, not fails (QEMU's
# I/O throttling at one byte a second). host_resume lets them complete.
# Keep a hang under the guest's 30 s SCSI command timeout.
host_hang() { host_request "{\"hang\": \"$1\"}"; }
host_resume() { host_request "{\"resume\": \"$1\"}"; }

# fio_verify NAME DEVICE SECONDS [fio args...]: random writes with
# verification; prints fio's terse result; fails on any I/O or verify error.
fio_verify() {
	local name=$1 dev=$2 secs=$3
	shift 3
	fio --name="$name" --filename="$dev" --rw=randwrite --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=8 --size=16m --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --verify_backlog=256 --time_based --runtime="$secs" \
		--output-format=terse "$@"
}

# mpathd_start [args...]: start mpathd in the background (log in
# $RESULTS/mpathd.log, appended across restarts) and wait until it says
# ready. Its pid is in $MPATHD_PID.
mpathd_start() {
	command -v mpathd >/dev/null || die "mpathd is not on PATH"
	local log=$RESULTS/mpathd.log before
	# The log exists before the first look at it: the daemon's redirection
	# opens it only once the background shell runs.
	: >> "$log"
	before=$(grep -c 'notice: ready' "$log" || true)
	mpathd -v "$@" >> "$log" 2>&1 &
	MPATHD_PID=$!
	wait_until 60 readies_above "$log" "$before" ||
		die "mpathd did not get ready: $(tail -n 5 "$log")"
}

# readies_above LOG N: mpathd's LOG says "ready" more than N times.
readies_above() { [ "$(grep -c 'notice: ready' "$1")" -gt "$2" ]; }

# mpathd_stop [signal]: stop mpathd (TERM by default) and wait for it.
mpathd_stop() {
	[ -n "${MPATHD_PID:-}" ] || return 0
	kill "-${1:-TERM}" "$MPATHD_PID" 2>/dev/null
	wait "$MPATHD_PID" 2>/dev/null
	MPATHD_PID=
}

# map_of WWID: the device-mapper name of the map with uuid mpath-WWID.
map_of() {
	dmsetup info -c --noheadings -o name,uuid --separator ' ' 2>/dev/null |
		awk -v u="mpath-$1" '$2 == u { print $1 }'
}

# wwid_of NAME: the WWID udev gives block device NAME (ID_SERIAL, else ID_WWN).
wwid_of() {
	local v
	v=$(udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_SERIAL=//p')
	[ -n "$v" ] || v=$(udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_WWN=//p')
	echo "$v"
}

# path_state MAP DEVT: A or F, the path's state in the map's status.
path_state() {
	dmsetup status "$1" | awk -v d="$2" '{ for (i = 1; i < NF; i++) if ($i == d) { print $(i + 1); exit } }'
}

# now_ms: milliseconds since the epoch, from bash's clock (no process).
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# median N...: the median of integers (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# proc_usage PID: "RSS_KB FDS THREADS" of a running process, from /proc.
proc_usage() {
	local rss thr fds
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status") || return 1
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$1/status") || return 1
	fds=$(ls "/proc/$1/fd" | wc -l)
	echo "$rss $fds $thr"
}

# path_is MAP DEVT STATE: the path DEVT of MAP is in STATE (A or F), for
# wait_until: wait_until 10 path_is mpatha 8:32 F
path_is() { [ "$(path_state "$1" "$2")" = "$3" ]; }

# scsi_debug_hang on|off: from now on every command any scsi_debug disk
# receives is dropped, neither answered nor failed, so that it ends only
# at its own timeout (opts=4, every_nth=1: a target that hangs); or
# answered again. Commands dropped before "off" still wait for their
# timeout. Nothing may read a map of these disks while they hang: a
# reader blocked past 60 s fails the scenario (hung task).
scsi_debug_hang() {
	local p=/sys/bus/pseudo/drivers/scsi_debug
	case $1 in
	on) echo 4 > "$p/opts" && echo 1 > "$p/every_nth" ;;
	off) echo 0 > "$p/every_nth" && echo 0 > "$p/opts" ;;
	*) die "scsi_debug_hang on|off, not '$1'" ;;
	esac || die "cannot set scsi_debug's fault injection ($1)"
}

# dm_path_events FILE: the path events in FILE, the output of
# "udevadm monitor --kernel --property --subsystem-match=block", one a
# line: "SECONDS ACTION DEVT MAP-DEVNAME" (SECONDS: the kernel's
# monotonic clock, ACTION: PATH_FAILED or PATH_REINSTATED).
dm_path_events() {
	awk 'function emit() { if (act != "") print ts, act, path, dev; act = ""; path = ""; dev = "" }
		/^KERNEL\[/ { emit(); ts = substr($1, 8, length($1) - 8); next }
		/^DM_ACTION=PATH_/ { act = substr($0, 11) }
		/^DM_PATH=/ { path = substr($0, 9) }
		/^DEVNAME=/ { dev = substr($0, 9) }
		END { emit() }' "$1"
}

# fio_stop PID LOG: end a fio_verify run (PID, output in LOG) before its
# time (SIGTERM: fio lets its I/O finish and reports) and judge it: 0 when
# it saw no I/O or verify error, whether it ran to its end or was stopped.
# PID may be the subshell of "fio_verify ... &": the signal goes to its
# fio (such a subshell ignores SIGINT and does not pass SIGTERM on). A fio
# still there 60 s later (its I/O does not complete) fails, left running.
fio_stop() {
	local rc pids
	pids=$(pgrep -P "$1" -x fio)
	kill -TERM ${pids:-$1} 2>/dev/null
	if ! wait_until 60 sh -c "! kill -0 $1 2>/dev/null"; then
		echo "fio_stop: fio ($1) still runs 60 s after SIGTERM: its I/O does not complete" >&2
		return 1
	fi
	wait "$1"
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	grep -q 'terminating on signal' "$2" || return 1
	grep -qiE 'io_u error|verify:|bad magic|bad header' "$2" && return 1
	awk -F';' '$1 == 3 { seen = 1; if ($5 != 0) bad = 1 } END { exit !(seen && !bad) }' "$2"
}
