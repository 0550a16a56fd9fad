#!/bin/bash
# lab-timeout: 180
# Path uevents: failing and reinstating a path (by message and by I/O on an
# offline device) sends the dm change uevent with DM_ACTION, DM_PATH,
# DM_NR_VALID_PATHS, DM_NAME and DM_UUID, as the stock target does.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

lm_scsi_debug 2
P1=${LM_DEVS[0]} P2=${LM_DEVS[1]}
args="0 0 1 1 round-robin 0 2 1 $P1 1 $P2 1"

# events TARGET: run the sequence on a map of TARGET and print its path
# uevents, one per line, the properties that must match sorted by name.
events() {
	local target=$1 map=lmuev-$1 log=$RESULTS/uevents-$1.log mon
	lm_create "$map" "$target" "$args" || die "$target rejected $args"
	udevadm monitor --kernel --property --subsystem-match=block >"$log" 2>&1 &
	mon=$!
	sleep 1
	dmsetup message "$map" 0 fail_path "$P1"
	dmsetup message "$map" 0 reinstate_path "$P1"
	dmsetup message "$map" 0 fail_path "$P2"
	dmsetup message "$map" 0 reinstate_path "$P2"
	# a failure found by I/O rather than by message
	echo offline >"/sys/block/${LM_PATHS[0]}/device/state"
	for i in 1 2 3 4 5 6 7 8; do lm_read "$map"; done
	echo running >"/sys/block/${LM_PATHS[0]}/device/state"
	dmsetup message "$map" 0 reinstate_path "$P1"
	sleep 2
	kill "$mon"
	wait "$mon" 2>/dev/null
	# one line per event that carries DM_ACTION, properties sorted
	awk -v target="$target" '
		/^KERNEL\[/ { flush(); next }
		/^(DM_ACTION|DM_PATH|DM_NR_VALID_PATHS|DM_NAME|DM_UUID|DM_TARGET|ACTION)=/ {
			sub("LMTEST-lmuev-" target, "LMTEST-lmuev-T")
			sub("=lmuev-" target "$", "=lmuev-T")
			sub("DM_TARGET=" target "$", "DM_TARGET=T")
			p[++n] = $0
		}
		function flush(   i, j, t, line) {
			for (i = 1; i <= n; i++)
				for (j = i + 1; j <= n; j++)
					if (p[j] < p[i]) { t = p[i]; p[i] = p[j]; p[j] = t }
			line = ""
			for (i = 1; i <= n; i++) line = line (i > 1 ? " " : "") p[i]
			if (line ~ /DM_ACTION=/) print line
			n = 0
		}
		END { flush() }' "$log"
	lm_remove "$map"
}

lm_target_load multipath
lm_target_load lmpath
stock=$(events multipath)
ours=$(events lmpath)
printf '%s\n' "$stock" >"$RESULTS/uevents-multipath.txt"
printf '%s\n' "$ours" >"$RESULTS/uevents-lmpath.txt"

# stock proves the expectations: 6 path events, each with every property
for set in stock ours; do
	evs=${!set}
	n=$(printf '%s\n' "$evs" | grep -c 'DM_ACTION=PATH_')
	result "${set}_path_uevents" "$n"
	[ "$n" -eq 6 ] || lm_fail "$set: $n path uevents, want 6"
	for want in "DM_ACTION=PATH_FAILED DM_NAME=lmuev-T DM_NR_VALID_PATHS=1 DM_PATH=$P1" \
		"DM_ACTION=PATH_REINSTATED DM_NAME=lmuev-T DM_NR_VALID_PATHS=2 DM_PATH=$P1" \
		"DM_ACTION=PATH_FAILED DM_NAME=lmuev-T DM_NR_VALID_PATHS=1 DM_PATH=$P2"; do
		printf '%s\n' "$evs" | sed 's/ DM_TARGET=T//; s/ DM_UUID=[^ ]*//; s/^ACTION=change //' |
			grep -qxF "$want" || lm_fail "$set: no uevent '$want'"
	done
	printf '%s\n' "$evs" | grep -v 'DM_UUID=LMTEST-lmuev-T' | grep -q . &&
		lm_fail "$set: a path uevent without DM_UUID"
done
[ "$stock" = "$ours" ] || lm_fail "uevents differ: stock '$stock' lmpath '$ours'"

lm_unload
lm_finish
