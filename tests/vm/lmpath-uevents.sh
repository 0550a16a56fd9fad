#!/bin/bash
# lab-timeout: 180
# Path uevents: failing and reinstating a path (by message and by I/O on an
# offline device) sends the dm change uevent with DM_ACTION, DM_PATH,
# DM_NR_VALID_PATHS, DM_NAME and DM_UUID, as the stock target does; two
# paths failed by I/O at the same time send 1 and 0 paths left.
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
	# both paths failed by I/O at once: many requests in flight on both
	sleep 1
	echo offline >"/sys/block/${LM_PATHS[0]}/device/state"
	echo offline >"/sys/block/${LM_PATHS[1]}/device/state"
	fio --name=both --filename="/dev/mapper/$map" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth=32 --numjobs=2 --size=16M \
		--runtime=1 --output=/dev/null >/dev/null 2>&1
	echo running >"/sys/block/${LM_PATHS[0]}/device/state"
	echo running >"/sys/block/${LM_PATHS[1]}/device/state"
	sleep 1
	dmsetup message "$map" 0 reinstate_path "$P1"
	dmsetup message "$map" 0 reinstate_path "$P2"
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

# stock proves the expectations: 10 path events, each with every property
for set in stock ours; do
	evs=${!set}
	n=$(printf '%s\n' "$evs" | grep -c 'DM_ACTION=PATH_')
	result "${set}_path_uevents" "$n"
	[ "$n" -eq 10 ] || lm_fail "$set: $n path uevents, want 10"
	# the two paths that failed together: one event says 1 path is left,
	# the other 0 (dm core may send the two in either order); then both
	# back, 1 then 2
	both=$(printf '%s\n' "$evs" | sed -n '7,8p' |
		sed 's/.*DM_ACTION=\([A-Z_]*\).*DM_NR_VALID_PATHS=\([0-9]*\).*/\1 \2/' | sort -r |
		tr '\n' ' ')
	both+=$(printf '%s\n' "$evs" | sed -n '9,10p' |
		sed 's/.*DM_ACTION=\([A-Z_]*\).*DM_NR_VALID_PATHS=\([0-9]*\).*/\1 \2/' | tr '\n' ' ')
	result "${set}_together" "${both// /_}"
	[ "$both" = "PATH_FAILED 1 PATH_FAILED 0 PATH_REINSTATED 1 PATH_REINSTATED 2 " ] ||
		lm_fail "$set: two paths failing together sent '$both'"
	printf '%s\n' "$evs" | sed -n '7,8p' | grep -q "DM_PATH=$P1" &&
		printf '%s\n' "$evs" | sed -n '7,8p' | grep -q "DM_PATH=$P2" ||
		lm_fail "$set: the failures of both paths are not events 7 and 8"
	for want in "DM_ACTION=PATH_FAILED DM_NAME=lmuev-T DM_NR_VALID_PATHS=1 DM_PATH=$P1" \
		"DM_ACTION=PATH_REINSTATED DM_NAME=lmuev-T DM_NR_VALID_PATHS=2 DM_PATH=$P1" \
		"DM_ACTION=PATH_FAILED DM_NAME=lmuev-T DM_NR_VALID_PATHS=1 DM_PATH=$P2"; do
		printf '%s\n' "$evs" | sed 's/ DM_TARGET=T//; s/ DM_UUID=[^ ]*//; s/^ACTION=change //' |
			grep -qxF "$want" || lm_fail "$set: no uevent '$want'"
	done
	printf '%s\n' "$evs" | grep -v 'DM_UUID=LMTEST-lmuev-T' | grep -q . &&
		lm_fail "$set: a path uevent without DM_UUID"
done
# which of the two failed first is up to the I/O: compare them without
# DM_PATH, in either order
nopath() { printf '%s\n' "$1" | sed '7,8d'; }
failed2() { printf '%s\n' "$1" | sed -n '7,8s/ DM_PATH=[^ ]*//p' | sort; }
[ "$(failed2 "$stock")" = "$(failed2 "$ours")" ] ||
	lm_fail "failures together differ: stock '$(failed2 "$stock")' lmpath '$(failed2 "$ours")'"
[ "$(nopath "$stock")" = "$(nopath "$ours")" ] ||
	lm_fail "uevents differ: stock '$stock' lmpath '$ours'"

lm_unload
lm_finish
