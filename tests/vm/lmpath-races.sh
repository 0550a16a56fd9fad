#!/bin/bash
# lab-timeout: 200
# lmpath's races on a real kernel (issue 19): bio mode under fio --verify
# on a fully preemptible kernel with completions in process context,
# while paths fail by I/O error and by message, come back by message, and
# the map is suspended, reloaded (its old table destroyed) and resumed, in
# a loop.  Each path is a dm-linear device over one null_blk device
# (irqmode=0: a bio completes in the context that submitted it); a path
# fails by swapping its table for dm-error, so lmpath's end_io sees real
# path errors and hands the bios to its drain, and a reload frees the
# table an end_io may still be in.  fio must see no error, the kernel log
# no splat (the lab checks), and the map must end with both paths active.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

SECS=${RACE_SECS:-45}

# preempt=full without another boot: the Debian kernels have
# PREEMPT_DYNAMIC, whose model debugfs switches at run time.
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
pf=/sys/kernel/debug/sched/preempt
[ -w "$pf" ] || die "no $pf: the kernel has no PREEMPT_DYNAMIC"
was=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$pf")
echo full >"$pf" || die "cannot switch to preempt=full"
grep -q '(full)' "$pf" || die "preemption model is not full: $(cat "$pf")"
restore() { echo "$was" >"$pf"; }
trap restore EXIT
result preempt "$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$pf")"

verify=1
modprobe null_blk nr_devices=1 queue_mode=2 irqmode=0 gb=1 memory_backed=1 2>/dev/null || {
	# a null_blk without the memory_backed parameter keeps no data: fio
	# then checks for I/O errors only (both Debian kernels have it)
	verify=0
	modprobe null_blk nr_devices=1 queue_mode=2 irqmode=0 gb=1 || die "cannot load null_blk"
}
result verify "$verify"
[ -b /dev/nullb0 ] || wait_until 10 test -b /dev/nullb0 || die "no /dev/nullb0"
sectors=$(blockdev --getsz /dev/nullb0)
linear="0 $sectors linear /dev/nullb0 0"

# Two paths to the same data: two linear devices over nullb0.
for i in 0 1; do
	dmsetup create "lr-p$i" --table "$linear" || die "cannot create path lr-p$i"
done
udevadm settle --timeout=30
P=("$(devt "$(basename "$(readlink -f /dev/mapper/lr-p0)")")"
	"$(devt "$(basename "$(readlink -f /dev/mapper/lr-p1)")")")
table="3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 ${P[0]} 1 ${P[1]} 1"

lm_target_load lmpath
map=lrace
dmsetup create "$map" --uuid "LMTEST-$map" --table "0 $sectors lmpath $table" ||
	die "lmpath rejected $table"
udevadm settle --timeout=30
dev=/dev/mapper/$map

# path_table N linear|error: swap path N's table (the path's own
# suspend waits for its in-flight I/O).
path_table() {
	local t=$linear
	[ "$2" = error ] && t="0 $sectors error"
	dmsetup load "lr-p$1" --table "$t" && dmsetup suspend "lr-p$1" && dmsetup resume "lr-p$1"
}
msg() { dmsetup message "$map" 0 "$@" || lm_fail "message $* refused"; }

# The path uevents, to check their counts afterwards.
udevadm monitor --kernel --property --subsystem-match=block >"$RESULTS/uevents" 2>&1 &
mon=$!
sleep 1

LM_FIO_SIZE=16M lm_fio_start races "$dev" "$SECS" --numjobs=2 --offset_increment=16M \
	--group_reporting --verify=$([ "$verify" = 1 ] && echo crc32c || echo 0)
end=$(($(date +%s) + SECS - 3))
iters=0
while [ "$(date +%s)" -lt "$end" ] && kill -0 "$LM_FIO_PID" 2>/dev/null; do
	p=$((iters % 2))
	q=$((1 - p))
	# path p fails by I/O error: end_io fails it lock-free and hands its
	# bios to the drain, which maps them to q
	path_table "$p" error || lm_fail "cannot fail path $p"
	sleep 0.3
	# reinstated while its I/O still fails: failures race the reinstate
	msg reinstate_path "${P[$p]}"
	sleep 0.2
	path_table "$p" linear || lm_fail "cannot restore path $p"
	msg reinstate_path "${P[$p]}"
	# the other path by message, while p serves I/O
	msg fail_path "${P[$q]}"
	msg reinstate_path "${P[$q]}"
	# a reload: the old table is destroyed while bios complete
	dmsetup suspend "$map" && dmsetup load "$map" --table "0 $sectors lmpath $table" &&
		dmsetup resume "$map" || lm_fail "suspend, reload or resume failed"
	iters=$((iters + 1))
done
lm_fio_wait races || lm_fail "fio saw errors (see races.fio)"
result iterations "$iters"
[ "$iters" -ge 5 ] || lm_fail "only $iters iterations"

# Every PATH_FAILED carries one valid path less than the event before,
# every PATH_REINSTATED one more (a reload starts again at 2: it only
# happens with both paths back).
sleep 1
kill "$mon"
wait "$mon" 2>/dev/null
events=$(awk -v map="$map" '
	/^$/ { if (name == map && action != "") print action, count; name = action = count = "" }
	/^DM_NAME=/ { name = substr($0, 9) }
	/^DM_ACTION=PATH_/ { action = substr($0, 16) }
	/^DM_NR_VALID_PATHS=/ { count = substr($0, 19) }
	END { if (name == map && action != "") print action, count }' "$RESULTS/uevents")
n=2
nev=0
bad=
while read -r action count; do
	[ -n "$action" ] || continue
	nev=$((nev + 1))
	case $action in
	FAILED) n=$((n - 1)) ;;
	REINSTATED) n=$((n + 1)) ;;
	esac
	[ "$count" = "$n" ] || bad="$bad $action=$count(expected $n)"
	n=$count
done <<<"$events"
result path_uevents "$nev"
[ "$nev" -ge "$iters" ] || lm_fail "only $nev path uevents for $iters iterations"
[ -z "$bad" ] || lm_fail "path uevents do not count the valid paths:$bad"

# Both paths back: the status shows them active.
status=$(dmsetup status "$map")
echo "status: $status"
for d in "${P[@]}"; do
	case " $status " in
	*" $d A "*) ;;
	*) lm_fail "path $d is not active: $status" ;;
	esac
done

lm_remove_all
for i in 0 1; do dmsetup remove "lr-p$i" || lm_fail "cannot remove lr-p$i"; done
lm_unload
modprobe -r null_blk
lm_finish
