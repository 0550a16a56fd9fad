#!/bin/bash
# lab-timeout: 300
# check-kernels: 6.1
# mpathpersist (package mpathd-compat's) on an iSCSI SAN map (lib.sh,
# san_iscsi: one LIO LUN through two portals, LIO's own persistent
# reservations), side by side with Debian's mpathpersist (multipath-tools
# 0.9.4) on the same map: the same sequence of commands, run with ours and
# then, from the same clean state, with Debian's, prints the same on stdout
# and exits the same (PR generation numbers aside, which count every
# command, and the order of the full status' registrations, which is the
# order the paths' concurrent REGISTERs reached the target). The sequence: no keys; a key registered through both paths
# (LIO shows one registration per I_T nexus); the capabilities; a
# "write exclusive, registrants only" reservation and its full status
# (holder, ports, initiator names); writes through the map while it is
# held; release; a key change refused (no reservation_key configured);
# register-ignore replacing the key on both paths; clear. Then errors: a
# path instead of a map, a missing node, no service action.
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v mpathpersist >/dev/null || die "Debian's mpathpersist is not in the guest"
ours=/opt/mpath/build/compat/mpathpersist
[ -x "$ours" ] || die "no $ours"

map=""
cleanup() {
	[ -z "$map" ] || dmsetup message "$map" 0 fail_if_no_path >/dev/null 2>&1
	mpathd_stop TERM
	[ -z "$map" ] || dmsetup remove --retry "$map" >/dev/null 2>&1
	san_teardown
}
trap cleanup EXIT

san_iscsi 1 2 > "$RESULTS/paths.txt" || die "san_iscsi failed"
p1=$(san_paths | awk '$1 == 1 && $2 == 0 { print $3 }')
p2=$(san_paths | awk '$1 == 2 && $2 == 0 { print $3 }')
[ -n "$p1" ] && [ -n "$p2" ] || die "expected the LUN through both portals: $(cat "$RESULTS/paths.txt")"
w=$(wwid_of "$p1")
[ -n "$w" ] && [ "$(wwid_of "$p2")" = "$w" ] || die "the two paths' WWIDs differ"

# The stock target's name: Debian's mpathpersist accepts only maps whose
# target is named multipath.
conf_only /etc/mpathd/mpathd.conf "$w" <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	path_grouping_policy multibus
	dm_target multipath
}
CONF
mpathd_start
both() { [ -n "$(map_of "$w")" ] && [ "$(dmsetup status "$(map_of "$w")" | grep -oE '[0-9]+:[0-9]+ A ' | wc -l)" -eq 2 ]; }
wait_until 60 both || die "no map with both paths active: $(dmsetup table; dmsetup status)"
map=$(map_of "$w")
dev=/dev/mapper/$map
result map "$map $(dmsetup table "$map" | cut -d' ' -f3)"

# run_sequence PROGRAM DIR: each step's stdout and exit status in DIR.
run_sequence() {
	local prog=$1 dir=$2 n=0
	mkdir -p "$dir"
	step() {
		n=$((n + 1))
		local f
		f=$dir/$(printf '%02d' "$n")
		echo "$*" > "$f.cmd"
		"$prog" "$@" > "$f.out" 2> "$f.err"
		echo $? > "$f.rc"
		sed -i 's/PR generation=0x[0-9a-f]*/PR generation=G/' "$f.out"
	}
	step --in --read-keys "$dev"
	step --out --register --param-sark=0x123abc "$dev"
	step --in -k "$dev"
	step --in --report-capabilities "$dev"
	step --out --reserve --param-rk=0x123abc --prout-type=5 "$dev"
	step --in --read-reservation "$dev"
	step --in --read-full-status "$dev"
	dd if=/dev/urandom of="$dev" bs=64k count=16 oflag=direct status=none
	echo $? > "$dir/write.rc"
	step --out --release --param-rk=0x123abc --prout-type=5 "$dev"
	step --in -r "$dev"
	step --out --register --param-rk=0x123abc --param-sark=0x456 "$dev"
	step --out --register-ignore --param-sark=0x456 "$dev"
	step --in -k "$dev"
	step --out --clear --param-rk=0x456 "$dev"
	step --in -k "$dev"
	step --in -k "/dev/$p1"
	step --in -k /dev/mapper/lab-no-such-map
	step --in "$dev"
	step --out --reserve --param-rk=0x1 "$dev" --param-sark=0x2 extra
}
run_sequence "$ours" "$RESULTS/ours"
# From the same clean state (the sequence ends with a clear).
"$ours" --in -k "$dev" | grep -q '0 registered reservation key' || die "the LUN keeps registrations after our sequence"
run_sequence mpathpersist "$RESULTS/debian"

# The full status lists registrations in the order they reached the
# target, and both programs register through the paths at once: compared
# as a set, one line a registration.
registrations() {
	awk '/^   Key = / { if (b != "") print b; b = $0; next }
		b != "" { b = b "|" $0; next }
		{ print }
		END { if (b != "") print b }' "$1" | sort
}
differ=0
for f in "$RESULTS"/ours/*.cmd; do
	b=$(basename "$f" .cmd)
	o=$RESULTS/ours/$b d=$RESULTS/debian/$b
	if grep -q -- '--read-full-status' "$f"; then
		same=$([ "$(registrations "$o.out")" = "$(registrations "$d.out")" ] && echo yes)
	else
		same=$(cmp -s "$o.out" "$d.out" && echo yes)
	fi
	if [ "$same" != yes ] || ! cmp -s "$o.rc" "$d.rc"; then
		differ=$((differ + 1))
		echo "DIFF step $b ($(cat "$f")): ours exit $(cat "$o.rc"), Debian's $(cat "$d.rc")" >&2
		diff "$o.out" "$d.out" >&2
	fi
done
result steps "$(ls "$RESULTS"/ours/*.cmd | wc -l) compared, $differ differ"
grep -q '2 registered reservation keys follow' "$RESULTS/ours/03.out" ||
	die "the key is not registered through both paths: $(cat "$RESULTS/ours/03.out")"
grep -q 'Write Exclusive, registrants only' "$RESULTS/ours/06.out" || die "no reservation: $(cat "$RESULTS/ours/06.out")"
[ "$(cat "$RESULTS/ours/write.rc")" = 0 ] || die "writes through the map failed while this host held the reservation"
codes=$(for f in "$RESULTS"/ours/[0-9]*.rc; do printf '%s ' "$(cat "$f")"; done)
result ours "\"$codes\""
# What each step must end with, whatever Debian's does.
[ "$codes" = "0 0 0 0 0 0 0 0 0 1 0 0 0 0 13 12 1 1 " ] || die "exit codes: $codes"
grep -q '0 registered reservation key' "$RESULTS/ours/14.out" || die "keys left after clear: $(cat "$RESULTS/ours/14.out")"
[ "$differ" -eq 0 ] || die "$differ steps differ from Debian's mpathpersist"
