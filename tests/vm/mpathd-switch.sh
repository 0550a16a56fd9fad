#!/bin/bash
# lab-timeout: 300
# check-kernels: 6.1
# A running multipath-tools host switched to mpathd under I/O, as an
# administrator would: Debian's multipathd makes the maps from
# /etc/multipath.conf (no_path_retry 12, group_by_prio; one over
# scsi_debug's three ALUA ports: optimized, non-optimized, standby, one
# over the virtio pair), fio --verify writes, multipathd stops
# (queue_without_daemon no: it turns queueing off) and mpathd starts on
# the same file. mpathd adopts the maps as they are: names kept, no
# reload and no refused call (target, groups and paths unchanged), and
# its queueing policy (no_path_retry 12) in the kernel at once; Debian's
# multipathd client, on multipathd's socket, gets from mpathd what it got
# from multipathd (show maps/map/paths/topology, refusals). Then the
# optimized path fails (I/O goes to the non-optimized one) and the
# non-optimized one too, leaving only the standby port, which fails I/O:
# the I/O waits, and completes when the optimized path is back within
# the no_path_retry window. fio sees no error.
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v multipathd >/dev/null || die "Debian's multipathd is not in the guest"

broken=()
broken() { # broken MESSAGE: a promise not kept; the scenario fails at the end
	echo "BROKEN: $*" >&2
	broken+=("$*")
}
mon= mpd=
cleanup() {
	[ -z "$mon" ] || kill "$mon" 2>/dev/null
	[ -z "$mpd" ] || kill "$mpd" 2>/dev/null
	# No I/O left waiting, and the file is not left for the scenarios after.
	for m in $(dmsetup ls --target multipath 2>/dev/null | cut -f1); do
		dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
	done
	rm -f /etc/multipath.conf
}
trap cleanup EXIT

modprobe scsi_dh_alua || die "cannot load scsi_dh_alua"
modprobe dm-multipath || die "cannot load dm-multipath"
mapfile -t sd < <(scsi_debug_paths add_host=3)
[ ${#sd[@]} -eq 3 ] || die "expected three scsi_debug paths, got: ${sd[*]}"
# The port of each (lib.sh, active_paths): host N % 3.
opt= nonopt= standby=
for p in "${sd[@]}"; do
	h=$(basename "$(readlink -f "/sys/block/$p/device")")
	case $((${h%%:*} % 3)) in
	0) opt=$p ;;
	1) nonopt=$p ;;
	2) standby=$p ;;
	esac
done
[ -n "$opt" ] && [ -n "$nonopt" ] && [ -n "$standby" ] || die "ports not found among ${sd[*]}"
result ports "optimized=$opt non-optimized=$nonopt standby=$standby"
# multipathd groups by the port states scsi_dh_alua shows (prio sysfs),
# which are not to be trusted right after the disks appear: a rescan
# makes scsi_dh_alua ask the target again.
ports_known() {
	[ "$(cat "/sys/block/$opt/device/access_state")" = active/optimized ] &&
		[ "$(cat "/sys/block/$nonopt/device/access_state")" = active/non-optimized ] &&
		[ "$(cat "/sys/block/$standby/device/access_state")" = standby ]
}
for p in "${sd[@]}"; do echo 1 > "/sys/block/$p/device/rescan"; done
wait_until 20 ports_known ||
	die "scsi_dh_alua shows the ports as $(for p in "$opt" "$nonopt" "$standby"; do cat "/sys/block/$p/device/access_state"; done | tr '\n' ' ')"

cat > /etc/multipath.conf <<'CONF'
defaults {
	user_friendly_names yes
	find_multipaths no
	polling_interval 2
	no_path_retry 12
	path_grouping_policy group_by_prio
}
blacklist {
	devnode "^(nvme|sr|loop|ram|nullb)"
}
CONF
rm -rf /etc/mpathd # mpathd reads multipath-tools' file only without its own

multipathd -d -s -v3 > "$RESULTS/multipathd.log" 2>&1 &
mpd=$!
# Two maps: the scsi_debug LUN's and the virtio pair's.
npaths() { dmsetup table "$1" 2>/dev/null | grep -oE ' [0-9]+:[0-9]+ ' | wc -l; }
sdwwid=$(wwid_of "$opt") vwwid=$(wwid_of sda)
made() { [ -n "$(map_of "$sdwwid")" ] && [ -n "$(map_of "$vwwid")" ] &&
	[ "$(npaths "$(map_of "$sdwwid")")" -eq 3 ] && [ "$(npaths "$(map_of "$vwwid")")" -eq 2 ]; }
wait_until 60 made || die "multipathd did not make the two maps: $(dmsetup table; tail -n 5 "$RESULTS/multipathd.log")"
map=$(map_of "$sdwwid") vmap=$(map_of "$vwwid")
result maps "$map (scsi_debug) $vmap (virtio)"
table0=$(dmsetup table "$map")
result multipathd_table "\"$table0\""
echo "$table0" | grep -q queue_if_no_path || die "multipathd's map does not queue (no_path_retry 12): $table0"
# Its groups, by priority: the optimized port first, the standby last.
dopt=$(devt "$opt") dnonopt=$(devt "$nonopt") dstandby=$(devt "$standby")
order=$(echo "$table0" | grep -oE '[0-9]+:[0-9]+' | tr '\n' ' ')
[ "$order" = "$dopt $dnonopt $dstandby " ] || die "multipathd's groups are not optimized, non-optimized, standby: $table0"

# What multipath-tools' clients read, asked with Debian's own multipathd
# client (libmpathcmd, its socket): now of multipathd, later of mpathd on
# the same maps, compared field by field.
ask_both_daemons() { # ask_both_daemons DIR MULTIPATH: the answers of whichever daemon runs
	local d=$1 mp=$2
	mkdir -p "$d"
	# multipath -ll, which installers and os-brick parse: Debian's own
	# beside multipathd, mpath's (asking mpathd) beside mpathd.
	"$mp" -ll > "$d/multipath-ll.txt" 2>&1
	echo "exit $?" >> "$d/multipath-ll.txt"
	# multipath -c, which installers ask of each disk: a path, the
	# blacklisted nvme disk.
	for dev in "/dev/$opt" /dev/sda /dev/nvme0n1; do
		[ -b "$dev" ] || continue
		echo "$dev:" >> "$d/multipath-c.txt"
		"$mp" -c "$dev" >> "$d/multipath-c.txt" 2>&1
		echo "exit $?" >> "$d/multipath-c.txt"
	done
	# multipath -w, -a and -W, which installers run on the disks they set
	# up: a path's WWID out of the wwids file and back, by node, by
	# major:minor and as a WWID; then the file reset to the maps present.
	# The file is put back as it was after.
	cp /etc/multipath/wwids "$d/wwids.saved"
	for args in "-w /dev/$opt" "-w /dev/$opt" "-a /dev/$opt" "-a /dev/$opt" "-w $sdwwid" \
		"-a $(devt "$opt")" "-a /dev/nvme0n1" "-W"; do
		echo "$args:" >> "$d/multipath-wwids.txt"
		# shellcheck disable=SC2086
		"$mp" $args >> "$d/multipath-wwids.txt" 2>&1
		echo "exit $?" >> "$d/multipath-wwids.txt"
	done
	grep '^/' /etc/multipath/wwids | sort >> "$d/multipath-wwids.txt"
	cp "$d/wwids.saved" /etc/multipath/wwids
	# multipath -C, whether a map has a usable path: the exit status (a
	# refusal is said with a timestamp by multipath-tools). By its dm node
	# and major:minor: multipath-tools does not find /dev/mapper/NAME
	# (docs/compat.md).
	local dmnode
	dmnode=$(basename "$(readlink -f "/dev/mapper/$map")")
	for dev in "/dev/$dmnode" "$(devt "$dmnode")" /dev/sda; do
		"$mp" -C "$dev" > /dev/null 2>&1
		echo "-C $dev: exit $?" >> "$d/multipath-C.txt"
	done
	for dev in "/dev/$opt" "$(devt "$standby")" "$opt" "$map"; do
		echo "$dev:" >> "$d/multipath-ll-dev.txt"
		"$mp" -ll "$dev" >> "$d/multipath-ll-dev.txt" 2>&1
		echo "exit $?" >> "$d/multipath-ll-dev.txt"
	done
	multipathd show maps json > "$d/maps.json" 2>&1
	for m in "$map" "$vmap"; do
		multipathd show map "$m" json > "$d/map-$m.json" 2>&1 || echo "exit $?" >> "$d/map-$m.json"
	done
	# multipathd marks the maps it made with "create: " until it reloads
	# them (docs/compat.md).
	multipathd show topology 2>&1 | sed 's/^create: //' > "$d/topology.txt"
	# next_check (its last two words) moves with time; multipathd lists
	# the paths as it found them, mpathd by name.
	multipathd show paths 2>&1 |
		awk '{ if (NR == 1 || $(NF) == "orphan") NF -= 1; else NF -= 2; print }' |
		{ read -r header; echo "$header"; sort -k2,2; } > "$d/paths.txt"
	multipathd show maps > "$d/maps.txt" 2>&1
	# Formats with multipathd's wildcards (paths sorted, as above).
	multipathd show paths format "%d %w %m %t %T %o %s %P %M %L %D %i %p" 2>&1 |
		{ read -r header; echo "$header"; sort; } > "$d/paths-format.txt"
	multipathd show maps raw format "%n|%w|%d|%N|%t|%r|%S|%f|%h|%s|%v|%p|%e|%Q|%F|%x|%G" > "$d/maps-format.txt" 2>&1
	multipathd show map "$map" format "%n %N %S" > "$d/map-format.txt" 2>&1
	multipathd show maps status > "$d/maps-status.txt" 2>&1
	multipathd show wildcards > "$d/wildcards.txt" 2>&1
	multipathd show map nosuchmap json > "$d/nosuchmap.txt" 2>&1
	echo "exit $?" >> "$d/nosuchmap.txt"
	# As a user; the client's own complaints on stderr are left out.
	setpriv --reuid=65534 --regid=65534 --clear-groups multipathd show maps > "$d/user-show.txt"
	setpriv --reuid=65534 --regid=65534 --clear-groups multipathd fail path "$opt" > "$d/user-fail.txt"
	echo "exit $?" >> "$d/user-fail.txt"
}
# What multipath-tools' callers do with the same client (os-brick, CSI
# drivers, admins' runbooks): each command's answer, its exit status and
# what the kernel shows right after, the same under both daemons.
act_on_both() { # act_on_both FILE
	local f=$1
	said() { # said WHAT...: the client's answer to WHAT and its exit status
		local out rc
		out=$(multipathd "$@" 2>&1)
		rc=$?
		echo "$*: $(echo "$out" | tr '\n' ' ')(exit $rc)" >> "$f"
	}
	: > "$f"
	said fail path "$standby"
	echo "  $standby $(path_state "$map" "$dstandby")" >> "$f"
	said reinstate path "$standby"
	echo "  $standby $(path_state "$map" "$dstandby")" >> "$f"
	said suspend map "$vmap"
	echo "  $(dmsetup info -c --noheadings -o suspended "$vmap")" >> "$f"
	said resume map "$vmap"
	echo "  $(dmsetup info -c --noheadings -o suspended "$vmap")" >> "$f"
	said disablequeueing map "$vmap"
	dmsetup table "$vmap" | grep -q queue_if_no_path && echo "  queueing" >> "$f" || echo "  not queueing" >> "$f"
	said restorequeueing map "$vmap"
	vqueueing() { dmsetup table "$vmap" | grep -q queue_if_no_path; }
	wait_until 10 vqueueing && echo "  queueing" >> "$f" || echo "  not queueing" >> "$f"
	said switch map "$map" group 1
	said switch map "$map" group 9
	said resize map "$vmap"
	said fail path nosuchpath
	said resume map nosuchmap
}
sleep 3 # every path checked once under multipathd
ask_both_daemons "$RESULTS/compat/multipathd" multipath
act_on_both "$RESULTS/compat/multipathd/act.txt"

fio_verify switch "/dev/mapper/$map" 300 > "$RESULTS/fio.log" 2>&1 &
fio=$!
sleep 3

# multipathd stops: queueing off, as queue_without_daemon no says.
kill "$mpd"
wait "$mpd"
mpd=
table1=$(dmsetup table "$map")
vtable1=$(dmsetup table "$vmap")
echo "$table1 $vtable1" | grep -q queue_if_no_path &&
	die "multipathd left queueing on when it stopped: $table1; $vtable1"
result after_multipathd "\"$table1\""

# mpathd on the same file.
udevadm monitor --kernel --property --subsystem-match=block > "$RESULTS/uevents.txt" 2>&1 &
mon=$!
sleep 1
t0=$(now_ms)
mpathd_start
ready_ms=$(($(now_ms) - t0))
result mpathd_ready_ms "$ready_ms"
queueing() { dmsetup table "$map" | grep -q queue_if_no_path && dmsetup table "$vmap" | grep -q queue_if_no_path; }
if wait_until 4 queueing; then
	result queueing_in_force_ms $(($(now_ms) - t0))
else
	broken "queueing (no_path_retry 12) not in the kernel 4 s after mpathd was ready: $(dmsetup table "$map"); $(dmsetup table "$vmap")"
fi
# Two more intervals for any retry of a refused change to show.
sleep 4
kill "$mon"
mon=
mpathctl show maps > "$RESULTS/maps.txt" 2>&1 || broken "mpathctl show maps failed: $(cat "$RESULTS/maps.txt")"
for m in "$map" "$vmap"; do
	dmsetup info "$m" > /dev/null 2>&1 || die "the map $m is gone"
	grep -qw "$m" "$RESULTS/maps.txt" || broken "mpathctl does not show $m: $(cat "$RESULTS/maps.txt")"
	grep -q "map $m: .*adopted" "$RESULTS/mpathd.log" || broken "mpathd's log does not say it adopted $m"
done
# The same questions of mpathd, with Debian's multipathd client.
ask_both_daemons "$RESULTS/compat/mpathd" /opt/mpath/build/compat/multipath
# mpath's own multipathd client, for callers once multipath-tools is gone:
# the same answers and exit statuses as Debian's client gets.
ours=/opt/mpath/build/compat/multipathd
for q in "show maps json" "show maps" "show map $map json" "show topology" "show map nosuchmap json" "fail path nosuchpath"; do
	theirs_out=$(multipathd $q 2>/dev/null; echo "exit $?")
	ours_out=$("$ours" $q 2>/dev/null; echo "exit $?")
	[ "$theirs_out" = "$ours_out" ] ||
		broken "mpath's multipathd client answers '$q' otherwise: $(diff <(echo "$theirs_out") <(echo "$ours_out") | head -n 4 | tr '\n' ' ')"
done
[ "$("$ours" -k"show daemon")" = "$(multipathd -k"show daemon")" ] || broken "mpath's client takes -k\"COMMAND\" otherwise"
[ "$(printf 'show maps\nquit\n' | "$ours" -k)" = "$(multipathd show maps)" ] || broken "mpath's client reads commands with -k otherwise"
fields() { # fields FILE: "indent key value" of each line of multipathd's JSON layout
	awk '{ match($0, /^ */); ind = RLENGTH
		if (match($0, /"[a-z_]+" ?: ?/)) {
			key = substr($0, RSTART, RLENGTH); gsub(/[" :]/, "", key)
			val = substr($0, RSTART + RLENGTH); sub(/,$/, "", val)
			print ind, key, val } }' "$1"
}
# Counters since each daemon started and the host adapter's PCI slot,
# which mpathd does not read, may differ (docs/compat.md); the layout,
# every key in its place, and every other value may not.
differs='^[0-9]+ (map_loads|switch_grp|total_q_time|action|host_adapter) '
for f in maps.json "map-$map.json" "map-$vmap.json"; do
	a=$RESULTS/compat/multipathd/$f b=$RESULTS/compat/mpathd/$f
	if [ "$(fields "$a" | cut -d' ' -f1,2)" != "$(fields "$b" | cut -d' ' -f1,2)" ]; then
		broken "$f: mpathd's keys are not multipathd's: $(diff <(fields "$a" | cut -d' ' -f1,2) <(fields "$b" | cut -d' ' -f1,2) | head -n 4 | tr '\n' ' ')"
	elif ! diff <(fields "$a" | grep -vE "$differs") <(fields "$b" | grep -vE "$differs") > "$RESULTS/compat/$f.diff"; then
		broken "$f: mpathd answers other values than multipathd: $(head -n 6 "$RESULTS/compat/$f.diff" | tr '\n' ' ')"
	fi
done
for f in topology.txt paths.txt maps.txt nosuchmap.txt user-show.txt user-fail.txt \
	paths-format.txt maps-format.txt map-format.txt maps-status.txt wildcards.txt \
	multipath-ll.txt multipath-ll-dev.txt multipath-c.txt multipath-wwids.txt multipath-C.txt; do
	diff "$RESULTS/compat/multipathd/$f" "$RESULTS/compat/mpathd/$f" > "$RESULTS/compat/$f.diff" ||
		broken "multipathd $f: mpathd answers otherwise: $(head -n 6 "$RESULTS/compat/$f.diff" | tr '\n' ' ')"
done
grep -q '^permission deny: need to be root$' "$RESULTS/compat/mpathd/user-fail.txt" ||
	broken "a user's 'multipathd fail path' was not refused: $(cat "$RESULTS/compat/mpathd/user-fail.txt")"
# Better than multipath-tools: -C finds a map by its /dev/mapper name too.
/opt/mpath/build/compat/multipath -C "/dev/mapper/$map" ||
	broken "mpath's multipath -C /dev/mapper/$map: exit $? for a map with usable paths"
result compat_answers "$(ls "$RESULTS/compat/mpathd" | wc -l) answers compared"

table2=$(dmsetup table "$map")
vtable2=$(dmsetup table "$vmap")
result after_mpathd "\"$table2\""
# The table as multipathd left it, but for the queueing feature.
strip() { # the table without queue_if_no_path among its features
	awk '{ n = $4; f = ""; c = 0
		for (i = 5; i < 5 + n; i++) if ($i != "queue_if_no_path") { f = f " " $i; c++ }
		out = $1 " " $2 " " $3 " " c f
		for (i = 5 + n; i <= NF; i++) out = out " " $i
		print out }'
}
[ "$(strip <<< "$table2")" = "$(strip <<< "$table1")" ] ||
	broken "the table changed beyond queueing: '$table1' became '$table2'"
[ "$(strip <<< "$vtable2")" = "$(strip <<< "$vtable1")" ] ||
	broken "the table changed beyond queueing: '$vtable1' became '$vtable2'"
reloads=$(grep -c 'reloading' "$RESULTS/mpathd.log" || true)
refused=$(grep -ciE "immutable|trying again|refused|invalid argument" "$RESULTS/mpathd.log" || true)
result reloads "$reloads"
result refused_calls "$refused"
[ "$reloads" -eq 0 ] || broken "mpathd reloaded adopted maps $reloads times: $(grep -m 2 reloading "$RESULTS/mpathd.log")"
[ "$refused" -eq 0 ] || broken "the kernel refused mpathd's calls $refused times: $(grep -m 2 -iE 'immutable|trying again|refused|invalid argument' "$RESULTS/mpathd.log")"
# A table load ends with a resume: a change event of the map without
# DM_ACTION; synthetic ones (SYNTH_UUID, udev's watch) are no resume.
awk 'function judge() { if (ev ~ /change/ && ev ~ /dm-/ && ev !~ /DM_ACTION=/ && ev !~ /SYNTH_UUID=/) n++ }
	/^KERNEL\[/ { judge(); ev = $0; next }
	{ ev = ev " " $0 }
	END { judge(); print n + 0 }' "$RESULTS/uevents.txt" > "$RESULTS/resumes.txt"
result resumes "$(cat "$RESULTS/resumes.txt")"
[ "$(cat "$RESULTS/resumes.txt")" -eq 0 ] || broken "a map was loaded again after mpathd started"

# The optimized path fails: I/O goes on through the non-optimized port.
kill -0 "$fio" 2>/dev/null || broken "fio ended before the faults: $(tail -n 3 "$RESULTS/fio.log")"
w0=$(awk '{ print $5 }' "/sys/block/$nonopt/stat")
echo offline > "/sys/block/$opt/device/state"
wait_until 10 path_is "$map" "$dopt" F || broken "the optimized path $opt set offline was not failed"
sleep 3
w1=$(awk '{ print $5 }' "/sys/block/$nonopt/stat")
result writes_on_non_optimized $((w1 - w0))
[ $((w1 - w0)) -gt 0 ] || broken "no write went to the non-optimized port $nonopt"

# The non-optimized one too: only the standby port is left, and it fails
# I/O. The I/O waits (no_path_retry 12: 24 s) ...
echo offline > "/sys/block/$nonopt/device/state"
t_down=$(now_ms)
wait_until 10 path_is "$map" "$dnonopt" F || broken "the non-optimized path $nonopt set offline was not failed"
sleep 5
if kill -0 "$fio" 2>/dev/null; then
	result waited_with_standby_only_ms $(($(now_ms) - t_down))
else
	broken "fio ended with only the standby port left: $(grep -m 1 -i error "$RESULTS/fio.log")"
fi
# ... and goes on when the optimized path returns.
w0=$(awk '{ print $5 }' "/sys/block/$opt/stat")
t0=$(now_ms)
echo running > "/sys/block/$opt/device/state"
resumed() { [ "$(awk '{ print $5 }' "/sys/block/$opt/stat")" -gt "$w0" ]; }
if ! kill -0 "$fio" 2>/dev/null; then
	: # nothing left to resume: fio ended, said above
elif wait_until 10 resumed; then
	result io_resumed_after_path_back_ms $(($(now_ms) - t0))
else
	broken "no write reached $opt 10 s after it came back: $(dmsetup status "$map")"
fi
echo running > "/sys/block/$nonopt/device/state"
sleep 2
if fio_stop "$fio" "$RESULTS/fio.log"; then
	result fio errors=0
else
	broken "fio failed across the switch and the faults: $(grep -m 2 -i error "$RESULTS/fio.log")"
fi

# The same commands of mpathd, the paths up again.
all_up() { for d in "$dopt" "$dnonopt" "$dstandby"; do path_is "$map" "$d" A || return 1; done; }
wait_until 20 all_up || broken "the paths are not all active again: $(dmsetup status "$map")"
act_on_both "$RESULTS/compat/mpathd/act.txt"
diff "$RESULTS/compat/multipathd/act.txt" "$RESULTS/compat/mpathd/act.txt" > "$RESULTS/compat/act.txt.diff" ||
	broken "multipathd's commands act otherwise under mpathd: $(head -n 8 "$RESULTS/compat/act.txt.diff" | tr '\n' ' ')"
result compat_commands "$(grep -c 'exit' "$RESULTS/compat/mpathd/act.txt") commands, $(grep -c '(exit 0)' "$RESULTS/compat/mpathd/act.txt") ok"

kill -0 "$MPATHD_PID" || die "mpathd died"
mpathd_stop TERM
[ ${#broken[@]} -eq 0 ] || die "${#broken[@]} promise(s) broken: $(printf '%s; ' "${broken[@]}")"
