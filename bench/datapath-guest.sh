#!/bin/bash
# lab-timeout: 5400
# Guest side of bench/datapath (run it through that script, not the VM
# suite).  Writes one line per measurement to $RESULTS/datapath.txt:
#   rand <config> <repeat> <read IOPS>
#   busy <config> <read|write> <repeat> <IOPS> <merged requests>
# where <config> is "raw" or "<target>-<mode>-<selector>".  Repeats are
# interleaved: every configuration runs once per round, so drift in the
# emulated machine hits all of them alike.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"
. "${LAB_SRC:-/src}/bench/datapath-lib.sh"

REPEATS=${REPEATS:-5}
RUNTIME=${RUNTIME:-5}
SELECTORS=${SELECTORS:-round-robin queue-length service-time}
TARGETS=${TARGETS:-multipath lmpath}
MODES=${MODES:-rq bio}
BUSY=${BUSY:-1}
NJOBS=$(nproc)
out=$RESULTS/datapath.txt
: >"$out"

lm_target_load multipath
lm_target_load lmpath

# randread NAME DEVICE: 4k random reads, numjobs = vCPUs, iodepth 32.
randread() {
	local iops
	iops=$(fio --name="$1" --filename="$2" --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --iodepth=32 --numjobs="$NJOBS" --group_reporting --time_based \
		--runtime="$RUNTIME" --ramp_time=1 --norandommap --randrepeat=0 \
		--output-format=terse | cut -s -d';' -f8)
	echo "rand $1 $rep ${iops:-0}" | tee -a "$out"
}

# --- null_blk: the target's own cost, no device latency
datapath_maps
for rep in $(seq 1 "$REPEATS"); do
	for c in "${configs[@]}"; do
		if [ "$c" = raw ]; then
			randread raw /dev/nullb0
		else
			randread "$c" "/dev/mapper/bm-$c"
		fi
	done
done
lm_remove_all
modprobe -r null_blk

# --- busy feedback: sequential 4k I/O under mq-deadline on shallow
# scsi_debug queues (device queue depth 4, 200 us per command): a target
# that reports busy keeps requests in its scheduler, where they merge.
# The depth is the sd device's queue_depth, which is what blk_lld_busy()
# looks at; scsi_debug's own max_queue=4 made it abort commands
# (DID_ABORT) and fail paths on 6.1.
[ "$BUSY" = 1 ] || { lm_unload; exit 0; }
LM_SIZE_MB=256 lm_scsi_debug 2 ndelay=200000
for p in "${LM_PATHS[@]}"; do
	echo 4 >"/sys/block/$p/device/queue_depth" || die "cannot set queue_depth on $p"
	echo mq-deadline >"/sys/block/$p/queue/scheduler"
done
bconfigs=(raw)
for target in $TARGETS; do
	lm_create "bb-$target" "$target" "0 0 1 1 round-robin 0 2 0 ${LM_DEVS[0]} ${LM_DEVS[1]}" ||
		die "cannot create bb-$target"
	dm=$(basename "$(readlink -f "/dev/mapper/bb-$target")")
	echo mq-deadline >"/sys/block/$dm/queue/scheduler" ||
		die "no mq-deadline for $target's request queue"
	bconfigs+=("$target-rq-round-robin")
done
udevadm settle --timeout=30

# stat_merges DEV read|write: merged requests so far (/sys/block/X/stat).
stat_merges() {
	local f
	read -r -a f <"/sys/block/$1/stat"
	[ "$2" = read ] && echo "${f[1]}" || echo "${f[5]}"
}

for rep in $(seq 1 "$REPEATS"); do
	for c in "${bconfigs[@]}"; do
		case $c in
		raw) dev=/dev/${LM_PATHS[0]} ;;
		*) dev=/dev/mapper/bb-${c%%-*} ;;
		esac
		blk=$(basename "$(readlink -f "$dev")")
		for rw in read write; do
			m0=$(stat_merges "$blk" "$rw")
			field=8
			[ "$rw" = write ] && field=49
			iops=$(fio --name="busy-$c" --filename="$dev" --ioengine=libaio --direct=1 \
				--rw="$rw" --bs=4k --iodepth=32 --numjobs=1 --time_based \
				--runtime="$RUNTIME" --size=128m --output-format=terse |
				cut -d';' -f"$field")
			m1=$(stat_merges "$blk" "$rw")
			echo "busy $c $rw $rep ${iops:-0} $((m1 - m0))" | tee -a "$out"
		done
	done
done
lm_unload
