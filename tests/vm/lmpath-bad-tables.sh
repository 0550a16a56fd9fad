#!/bin/bash
# lab-timeout: 240
# Every malformed table of tests/vm/data/bad-tables.txt is rejected in the
# kernel with the same message (ti->error) by stock multipath and by lmpath.
# Stock runs first: it proves the list and the harness.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

lm_scsi_debug 2

for target in multipath lmpath; do
	lm_target_load "$target"
	map=lmbad-$target
	dmsetup create "$map" --notable || die "cannot create $map"
	tables=() wants=() skipped=0
	while IFS= read -r line; do
		case $line in '#'*) continue ;; esac
		lm_subst "${line%%|*}"
		if ! lm_has_selectors "$target" "$LM_S"; then
			skipped=$((skipped + 1))
			continue
		fi
		tables+=("$LM_S")
		wants+=("${line#*|}")
	done <"$LM_DATA/bad-tables.txt"

	# Load them all, then read the kernel log once: each refused load logs
	#   device-mapper: table: 254:0: <target>: <ti->error> (-EINVAL)
	# (the only way the message reaches userspace), in load order.
	mark=$(dmesg | wc -l)
	accepted=()
	for i in "${!tables[@]}"; do
		if dmsetup load "$map" --table "0 $LM_SECTORS $target ${tables[$i]}" 2>/dev/null; then
			accepted+=("$i")
			lm_fail "$target accepted: ${tables[$i]}"
			dmsetup clear "$map"
		fi
	done
	mapfile -t got <<<"$(dmesg | tail -n +$((mark + 1)) |
		sed -En "s/.*device-mapper: table: [^ ]+: $target: (.*) \((-E[A-Z0-9]+|-[0-9]+)\)\$/\\1/p")"
	[ -n "${got[0]}" ] || got=()
	same=0 k=0
	for i in "${!tables[@]}"; do
		case " ${accepted[*]} " in *" $i "*) continue ;; esac
		if [ "${got[$k]}" = "${wants[$i]}" ]; then
			same=$((same + 1))
		else
			lm_fail "$target: '${tables[$i]}': got '${got[$k]}', want '${wants[$i]}'"
		fi
		k=$((k + 1))
	done
	[ "${#got[@]}" -eq "$k" ] || lm_fail "$target: ${#got[@]} refusals logged for $k refused loads"
	lm_remove "$map"
	result "${target}_rejected_as_stock" "$same/${#tables[@]}"
	result "${target}_skipped_no_selector" "$skipped"
done

lm_unload
lm_finish
