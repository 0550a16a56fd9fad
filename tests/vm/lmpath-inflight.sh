#!/bin/bash
# lab-timeout: 180
# Bio mode: a bio that fails on a path, waits on the queue (queue_if_no_path
# with every path down) and is then failed by fail_if_no_path is accounted
# to its path once.  With the paths back and the map idle, every path's
# in-flight count in INFO status (queue-length, service-time,
# historical-service-time) is 0.  The stock target ends such a bio's
# accounting twice, so this checks lmpath only.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

lm_scsi_debug 2
P1=${LM_DEVS[0]} P2=${LM_DEVS[1]}
lm_target_load lmpath
map=lminfl
dev=/dev/mapper/$map

# inflight SELECTOR #PATH-ARGS PATH-ARGS FIELD: run the sequence and check
# the idle status, whose FIELDth selector field of a path is its in-flight
# count.
inflight() {
	local sel=$1 pa=$2 field=$4 st d n skip i
	lm_create "$map" lmpath \
		"3 queue_if_no_path queue_mode bio 0 1 1 $sel 0 2 $pa $P1 $3 $P2 $3" ||
		{ lm_fail "$sel: table rejected"; return; }
	fio --name="infl-$sel" --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth=16 --numjobs=2 --size=16M \
		--continue_on_error=all --time_based --runtime=8 \
		--output="$RESULTS/infl-$sel.fio" >/dev/null 2>&1 &
	LM_FIO_PID=$!
	sleep 2
	for d in "${LM_PATHS[@]:0:2}"; do echo offline >"/sys/block/$d/device/state"; done
	sleep 2 # the bios that failed on the paths now wait on the queue
	dmsetup message "$map" 0 fail_if_no_path
	sleep 1
	for d in "${LM_PATHS[@]:0:2}"; do echo running >"/sys/block/$d/device/state"; done
	dmsetup message "$map" 0 reinstate_path "$P1"
	dmsetup message "$map" 0 reinstate_path "$P2"
	wait "$LM_FIO_PID"
	sleep 1
	st=$(dmsetup status "$map")
	result "${sel}_idle_status" "${st// /_}"
	for d in "$P1" "$P2"; do
		# "<dev> <A|F> <fail count> <selector fields...>"
		skip=
		for ((i = 1; i < field; i++)); do skip="$skip[^ ]* "; done
		n=$(sed -n "s/.* $d [AF] [0-9]* ${skip}\([-0-9]*\) .*/\1/p" <<<"$st ")
		[ "$n" = 0 ] || lm_fail "$sel: idle map, path $d shows in-flight '$n': $st"
	done
	grep -q "$P1 F\|$P2 F" <<<"$st" && lm_fail "$sel: a path is still failed: $st"
	lm_remove "$map"
}

inflight queue-length 1 1 1
inflight service-time 2 "1 1" 1
inflight historical-service-time 1 1 2

lm_unload
lm_finish
