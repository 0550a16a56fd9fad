#!/bin/bash
# lab-timeout: 240
# Every malformed table of tests/vm/data/bad-tables.txt is rejected in the
# kernel with the same message (ti->error) by stock multipath and by lmpath.
# Stock runs first: it proves the list and the harness.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

lm_scsi_debug 2

# The ctr error reaches userspace only through the kernel log:
#   device-mapper: table: 254:0: lmpath: <ti->error> (-EINVAL)
ctr_error() {
	local target=$1 mark=$2
	dmesg | tail -n +$((mark + 1)) |
		sed -En "s/.*device-mapper: table: [^ ]+: $target: (.*) \((-E[A-Z0-9]+|-[0-9]+)\)\$/\\1/p" |
		tail -n 1
}

for target in multipath lmpath; do
	lm_target_load "$target"
	map=lmbad-$target
	dmsetup create "$map" --notable || die "cannot create $map"
	total=0 same=0 skipped=0
	while IFS= read -r line; do
		case $line in '#'*) continue ;; esac
		args=$(lm_subst "${line%%|*}")
		want=${line#*|}
		if ! lm_has_selectors "$target" "$args"; then
			skipped=$((skipped + 1))
			continue
		fi
		total=$((total + 1))
		mark=$(dmesg | wc -l)
		if dmsetup load "$map" --table "0 $LM_SECTORS $target $args" 2>/dev/null; then
			lm_fail "$target accepted: $args"
			dmsetup clear "$map"
			continue
		fi
		got=$(ctr_error "$target" "$mark")
		if [ "$got" = "$want" ]; then
			same=$((same + 1))
		else
			lm_fail "$target: '$args': got '$got', want '$want'"
		fi
	done <"$LM_DATA/bad-tables.txt"
	dmsetup remove "$map"
	result "${target}_rejected_as_stock" "$same/$total"
	result "${target}_skipped_no_selector" "$skipped"
done

lm_unload
lm_finish
