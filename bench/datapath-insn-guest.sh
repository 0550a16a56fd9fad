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
. "${LAB_SRC:-/src}/bench/datapath-lib.sh"

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
datapath_maps
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
