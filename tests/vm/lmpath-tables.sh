#!/bin/bash
# lab-timeout: 300
# The same table on stock multipath and on lmpath: `dmsetup table` and
# `dmsetup status` are identical except for the target name, on creation,
# after a round trip of the TABLE status, and after each message, in rq
# and bio mode.  Stock output is also checked against
# tests/vm/data/good-tables.txt, which proves the expectations.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

# Without ALUA (vpd_use_hostno=1), so scsi_dh_alua never attaches and the
# recorded stock tables (no hardware handler) hold whatever its timing.
lm_scsi_debug 4 vpd_use_hostno=1
lm_target_load multipath
lm_target_load lmpath

# snapshot table|status: MAPS[multipath] and MAPS[lmpath] = the parameters
# of the two lmtab maps, from one dmsetup call (fewer processes: this runs
# under emulation).
declare -A MAPS
snapshot() {
	local name rest
	MAPS=()
	while read -r name rest; do
		case $name in
		lmtab-multipath: | lmtab-lmpath:)
			lm_strip "$rest"
			name=${name%:}
			MAPS[${name#lmtab-}]=$LM_S
			;;
		esac
	done <<<"$(dmsetup "$1")"
}

# compare WHAT: stock and lmpath maps agree on table and status.
compare() {
	local t
	for t in table status; do
		snapshot "$t"
		[ "${MAPS[multipath]}" = "${MAPS[lmpath]}" ] ||
			lm_fail "$1: $t differs: stock '${MAPS[multipath]}' lmpath '${MAPS[lmpath]}'"
	done
}

# --- good tables and their round trip
total=0 same=0
while IFS= read -r line; do
	case $line in '#'*) continue ;; esac
	lm_subst "${line%%|*}"
	args=$LM_S
	lm_subst "${line#*|}"
	want=$LM_S
	total=$((total + 1))
	for target in multipath lmpath; do
		lm_has_selectors "$target" "$args" || continue
		map=lmtab-$target
		lm_create "$map" "$target" "$args" || {
			lm_fail "$target rejected: $args"
			continue
		}
	done
	snapshot table
	for target in multipath lmpath; do
		[ -e "/dev/mapper/lmtab-$target" ] || continue
		got=${MAPS[$target]}
		[ "$got" = "$want" ] || lm_fail "$target table of '$args': '$got', want '$want'"
		[ "$target" = lmpath ] && [ "$got" = "$want" ] && same=$((same + 1))
	done
	# lmpath's TABLE status is a constructor table: load it back.  (Stock
	# matching $want proves $want round-trips on stock.)
	if [ -e /dev/mapper/lmtab-lmpath ]; then
		got=${MAPS[lmpath]}
		dmsetup load lmtab-lmpath --table "0 $LM_SECTORS lmpath $got" &&
			dmsetup resume lmtab-lmpath ||
			lm_fail "lmpath: round trip of '$got' rejected"
		snapshot table
		[ "${MAPS[lmpath]}" = "$got" ] ||
			lm_fail "lmpath: round trip of '$got' became '${MAPS[lmpath]}'"
	fi
	if [ -e /dev/mapper/lmtab-multipath ] && [ -e /dev/mapper/lmtab-lmpath ]; then
		snapshot status
		[ "${MAPS[multipath]}" = "${MAPS[lmpath]}" ] ||
			lm_fail "'$args': status differs: stock '${MAPS[multipath]}' lmpath '${MAPS[lmpath]}'"
		lm_remove lmtab-multipath lmtab-lmpath
	else
		lm_remove lmtab-lmpath
	fi
done <"$LM_DATA/good-tables.txt"
result good_tables_as_stock "$same/$total"

# --- messages, the same on both maps, in both queue modes
# msg MESSAGE: send to both maps; both accept or both refuse; then one read
# on each (so the current group is chosen the same way) and compare.
msg() {
	local rs rl
	dmsetup message lmtab-multipath 0 "$@" 2>/dev/null
	rs=$?
	dmsetup message lmtab-lmpath 0 "$@" 2>/dev/null
	rl=$?
	[ "$rs" = "$rl" ] || lm_fail "message '$*': stock rc $rs, lmpath rc $rl"
	# A path event makes udev probe the map; let that I/O finish so the
	# in-flight counters in the status are the scenario's alone.
	udevadm settle --timeout=30
	lm_read lmtab-multipath
	lm_read lmtab-lmpath
	case $1 in
	*_if_no_path) compare "$mode after '$*'" ;; # the only ones that change the table
	*)
		snapshot status
		[ "${MAPS[multipath]}" = "${MAPS[lmpath]}" ] ||
			lm_fail "$mode after '$*': status differs: stock '${MAPS[multipath]}' lmpath '${MAPS[lmpath]}'"
		;;
	esac
	nmsg=$((nmsg + 1))
}

P1=${LM_DEVS[0]} P2=${LM_DEVS[1]} P3=${LM_DEVS[2]} P4=${LM_DEVS[3]}
for mode in rq bio; do
	case $mode in
	rq) feat="1 queue_if_no_path" ;;
	bio) feat="3 queue_if_no_path queue_mode bio" ;;
	esac
	args="$feat 0 2 1 round-robin 0 2 1 $P1 1 $P2 1 service-time 0 2 2 $P3 1 1 $P4 1 1"
	lm_create lmtab-multipath multipath "$args" || die "stock rejected $args"
	lm_create lmtab-lmpath lmpath "$args" || die "lmpath rejected $args"
	nmsg=0
	compare "$mode on creation"
	lm_read lmtab-multipath
	lm_read lmtab-lmpath
	compare "$mode after first read"
	msg fail_path "$P1"
	msg fail_path "$P1"
	msg reinstate_path "$P1"
	msg reinstate_path "$P1"
	msg switch_group 2
	msg disable_group 1
	msg fail_path "$P3"
	msg fail_path "$P4"
	msg enable_group 1
	msg reinstate_path "$P3"
	msg reinstate_path "$P4"
	msg switch_group 1
	msg fail_if_no_path
	msg queue_if_no_path
	msg switch_group 3
	msg fail_path 7:7
	msg no_such_message
	msg queue_if_no_path extra
	result "messages_compared_$mode" "$nmsg"
	lm_remove lmtab-multipath lmtab-lmpath
done

lm_unload
lm_finish
