#!/bin/bash
# lab-timeout: 540
# Guest side of bench/datapath --insn (run it through that script, under
# lab/run --insn-count).  Counts the guest instructions of exactly N 4k
# random reads (the same offsets every run; lab/insn/aio-read.c, Linux AIO
# on CPU 0) on null_blk, for the raw device and for stock multipath and
# lmpath in rq and bio mode with every selector, at queue depth 1 and 32.
# Writes
#   $RESULTS/kallsyms                         the symbols after loading
#   $RESULTS/insn/<config>-qd<Q>-r<R>.txt     one counting window each
#   $RESULTS/insn.txt   "insn <config> <qd> <N> <repeat> <file>"
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

REPEATS=${REPEATS:-3}
N=${N:-2000}
QDS=${QDS:-1 32}
SELECTORS=${SELECTORS:-round-robin queue-length service-time}
TARGETS=${TARGETS:-multipath lmpath}
MODES=${MODES:-rq bio}
out=$RESULTS/insn.txt
: >"$out"
mkdir -p "$RESULTS/insn"
insn_counting || die "not under the instruction counter (lab/run --insn-count)"

lm_target_load multipath
lm_target_load lmpath
modprobe null_blk nr_devices=2 queue_mode=2 irqmode=0 gb=16 hw_queue_depth=128 ||
	die "cannot load null_blk"
udevadm settle --timeout=30
LM_DEVS=("$(cat /sys/block/nullb0/dev)" "$(cat /sys/block/nullb1/dev)")
LM_SECTORS=$(blockdev --getsz /dev/nullb0)
configs=(raw)
for target in $TARGETS; do
	for mode in $MODES; do
		for sel in $SELECTORS; do
			feat=0
			[ "$mode" = bio ] && feat="2 queue_mode bio"
			name=$target-$mode-$sel
			lm_create "bm-$name" "$target" \
				"$feat 0 1 1 $sel 0 2 0 ${LM_DEVS[0]} ${LM_DEVS[1]}" ||
				die "cannot create $name"
			configs+=("$name")
		done
	done
done
udevadm settle --timeout=30
insn_kallsyms "$RESULTS/kallsyms"

for rep in $(seq 1 "$REPEATS"); do
	for qd in $QDS; do
		for c in "${configs[@]}"; do
			dev=/dev/mapper/bm-$c
			[ "$c" = raw ] && dev=/dev/nullb0
			f=insn/$c-qd$qd-r$rep.txt
			insn_read "$dev" "$qd" "$N" "$RESULTS/$f"
			echo "insn $c $qd $N $rep $f" | tee -a "$out"
		done
	done
done
lm_remove_all
modprobe -r null_blk
lm_unload
