#!/bin/bash
# lab-timeout: 540
# Guest side of bench/datapath --insn (run it through that script, under
# lab/run --insn-count).  Counts the guest instructions of fio runs with a
# fixed number of 4k random reads (same offsets every run) on null_blk, for
# the raw device and for stock multipath and lmpath in rq and bio mode with
# every selector, at queue depth 1 and 32.  Each configuration runs with
# N1 and N2 I/Os; lab/insn/report divides the difference by N2 - N1, so
# what one fio run costs once (start, open, exit) cancels out.  Writes
#   $RESULTS/kallsyms                      the symbols after loading
#   $RESULTS/insn/<config>-qd<Q>-n<N>-r<R>.txt   one counting window each
#   $RESULTS/insn.txt   "insn <config> <qd> <ios> <repeat> <read KiB> <file>"
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

REPEATS=${REPEATS:-3}
N1=${N1:-1000}
N2=${N2:-5000}
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

# counted CONFIG DEVICE QD IOS: one window around one fio run, on CPU 0
# (null_blk completes inline there, so the I/O path stays on one CPU).
counted() {
	local f=$RESULTS/insn/$1-qd$3-n$4-r$rep.txt kib
	insn_begin
	kib=$(fio --name="$1" --filename="$2" --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --iodepth="$3" --numjobs=1 --io_size=$(($4 * 4))k --norandommap \
		--randrepeat=1 --cpus_allowed=0 --output-format=terse | cut -s -d';' -f6)
	insn_end "$f"
	echo "insn $1 $3 $4 $rep ${kib:-0} ${f#"$RESULTS"/}" | tee -a "$out"
}

for rep in $(seq 1 "$REPEATS"); do
	for qd in $QDS; do
		for c in "${configs[@]}"; do
			dev=/dev/mapper/bm-$c
			[ "$c" = raw ] && dev=/dev/nullb0
			counted "$c" "$dev" "$qd" "$N1"
			counted "$c" "$dev" "$qd" "$N2"
		done
	done
done
lm_remove_all
modprobe -r null_blk
lm_unload
