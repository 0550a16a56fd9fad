#!/bin/bash
# lab-timeout: 420
# mpathd on an NVMe over TCP SAN in the guest (lib.sh, san_nvme): one nvmet
# namespace exported by one subsystem through two TCP ports, ANA groups 1
# and 2 on both, the namespace in group 1, all optimized; the guest's own
# host connects through both (nvme_core.multipath=N): two controllers give
# two nvmeXnY paths with one WWID (ID_WWN, the namespace's uuid), and each
# controller's ANA log shows both groups. mpathd makes the map (its
# built-in NVMe device entry) with both paths active, having given each
# controller mpathd.conf's fast_io_fail_tmo (2) and dev_loss_tmo (90, its
# ctrl_loss_tmo), once; fio --verify runs through it. Then, under fio --verify: (a) the namespace's group becomes
# inaccessible through port 2: port 2's path is failed or leaves the
# map's first group, and is back once the group is optimized again; (b)
# port 2 stops answering (nftables drops its traffic): its controller
# misses its keep-alive and fails its I/O, the path is failed in the map,
# I/O goes on through port 1 without an error, and once the port is back
# the controller reconnects by itself and the path is reinstated; (c) (a)
# again after a reconfigure that asks for prio ana: port 2's path moves to
# a group of its own, and back. Each step prints how long it took (ms from
# the change or the drop). (d) (b) again under Debian's multipathd, on the
# same SAN with the controllers' timeouts as mpathd left them: the timings
# side by side (reported, not asserted).
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
command -v nvme >/dev/null || die "nvme-cli is not in the guest"

map="" fio="" mon=""
cleanup() {
	[ -z "$fio" ] || kill "$fio" 2>/dev/null
	[ -z "$mon" ] || kill "$mon" 2>/dev/null
	multipathd_stop
	rm -f /etc/multipath.conf
	[ -z "$map" ] || dmsetup message "$map" 0 fail_if_no_path >/dev/null 2>&1
	mpathd_stop TERM
	[ -z "$map" ] || dmsetup remove --retry "$map" >/dev/null 2>&1
	san_teardown
}
trap cleanup EXIT
diag() { # what the SAN looks like, into the results
	{
		date
		nvme list-subsys
		for c in /sys/class/nvme/nvme*; do
			echo "$c state=$(cat "$c/state") address=$(cat "$c/address" 2>/dev/null)" \
				"fast_io_fail_tmo=$(cat "$c/fast_io_fail_tmo" 2>/dev/null)" \
				"ctrl_loss_tmo=$(cat "$c/ctrl_loss_tmo" 2>/dev/null)"
		done
		san_nvme_paths
		dmsetup table
		dmsetup status
		dmesg | tail -n 40
	} >> "$RESULTS/diag.txt" 2>&1
}
fail() { diag; die "$@"; }

t0=$(now_ms)
san_nvme 1 > "$RESULTS/paths.txt" || fail "san_nvme failed"
result san_setup_ms $(($(now_ms) - t0))
p1=$(san_nvme_paths 1) p2=$(san_nvme_paths 2)
c1=$(san_nvme_ctrl 1) c2=$(san_nvme_ctrl 2)
[ -n "$p1" ] && [ -n "$p2" ] || fail "expected one path a port: $(cat "$RESULTS/paths.txt")"
nctrl=$(for c in /sys/class/nvme/nvme*; do cat "$c/subsysnqn"; done | grep -c "^$SAN_NQN\$")
result controllers "$nctrl"
[ "$nctrl" -eq 2 ] || fail "expected 2 controllers of $SAN_NQN, got $nctrl"
result paths "port1=$p1($c1) port2=$p2($c2)"
result connect_timeouts "kato=$(cat "/sys/class/nvme/$c2/kato" 2>/dev/null),reconnect_delay=$(cat "/sys/class/nvme/$c2/reconnect_delay"),ctrl_loss_tmo=$(cat "/sys/class/nvme/$c2/ctrl_loss_tmo"),fast_io_fail_tmo=$(cat "/sys/class/nvme/$c2/fast_io_fail_tmo")"

# One namespace: one WWID (udev's ID_WWN, mpathd's uid_attribute for NVMe).
wwn() { udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_WWN=//p'; }
w1=$(wwn "$p1") w2=$(wwn "$p2")
result wwid "$w1"
[ -n "$w1" ] && [ "$w1" = "$w2" ] || fail "the paths' WWIDs differ: $p1=$w1 $p2=$w2"
[ "$(cat "/sys/block/$p1/wwid")" = "$w1" ] || fail "$p1's wwid is $(cat "/sys/block/$p1/wwid"), udev says $w1"

# The ANA log through either controller: two groups, both optimized.
for c in "$c1" "$c2"; do
	nvme ana-log "/dev/$c" -o json > "$RESULTS/ana-log-$c.json" 2>&1 || fail "nvme ana-log /dev/$c failed: $(cat "$RESULTS/ana-log-$c.json")"
	[ "$(grep -o '"grpid" *: *[0-9]*' "$RESULTS/ana-log-$c.json" | wc -l)" -eq 2 ] ||
		fail "the ANA log of $c does not show 2 groups: $(cat "$RESULTS/ana-log-$c.json")"
	[ "$(grep -o '"optimized"' "$RESULTS/ana-log-$c.json" | wc -l)" -eq 2 ] ||
		fail "both groups are not optimized through $c: $(cat "$RESULTS/ana-log-$c.json")"
done
result ana_state_sysfs "\"$(cat "/sys/block/$p2/ana_state" 2>/dev/null || echo none)\""

conf_only /etc/mpathd/mpathd.conf "$w1" <<CONF
defaults {
	find_multipaths on
	polling_interval 2
	fast_io_fail_tmo 2
	dev_loss_tmo 90
}
CONF
t0=$(now_ms)
mpathd_start
d1=$(devt "$p1") d2=$(devt "$p2")
both_active() { [ -n "$(map_of "$w1")" ] && path_is "$(map_of "$w1")" "$d1" A && path_is "$(map_of "$w1")" "$d2" A; }
wait_until 60 both_active || fail "no map with both paths active: $(dmsetup status)"
map=$(map_of "$w1")
result map_ready_ms $(($(now_ms) - t0))
result table "\"$(dmsetup table "$map")\""
# The transport timeouts: each controller's fast_io_fail_tmo (the lab
# connects with the kernel's "off") and ctrl_loss_tmo (60 s from nvme
# connect) are the configuration's, set before the map was made.
for c in "$c1" "$c2"; do
	t="fast_io_fail_tmo=$(cat "/sys/class/nvme/$c/fast_io_fail_tmo"),ctrl_loss_tmo=$(cat "/sys/class/nvme/$c/ctrl_loss_tmo")"
	result "timeouts_$c" "$t"
	[ "$t" = "fast_io_fail_tmo=2,ctrl_loss_tmo=90" ] ||
		fail "$c's timeouts are $t, not mpathd.conf's fast_io_fail_tmo 2 and dev_loss_tmo 90"
done
mpathctl show map "$map" > "$RESULTS/show-map.txt" 2>&1
fio_verify nvme "/dev/mapper/$map" 5 > "$RESULTS/fio-short.log" 2>&1 ||
	fail "fio on $map failed: $(tail -n 5 "$RESULTS/fio-short.log")"

result groups "\"$(map_groups "$map" | tr '\n' ' ')\""
writes() { awk '{ print $5 }' "/sys/block/$1/stat"; }
# reinstated FROM TO: how many times device-mapper reinstated port 2's
# path between uptimes FROM and TO (seconds), from the udev capture.
reinstated() { dm_reinstated "$events" "$d2" "$1" "$2"; }
events=$RESULTS/dm-events.txt
udevadm monitor --kernel --property --subsystem-match=block > "$events" 2>&1 &
mon=$!

# (a) ANA: group 1 inaccessible through port 2, under fio --verify.
fio_verify nvme-ana "/dev/mapper/$map" 300 > "$RESULTS/fio-ana.log" 2>&1 &
fio=$!
sleep 3
t0=$(now_ms) u0=$(uptime_s)
san_ana_state 2 inaccessible
reranked() { [ "$(group_of "$map" "$d2")" != "$(group_of "$map" "$d1")" ] || path_is "$map" "$d2" F; }
wait_until 60 reranked || fail "$p2 (inaccessible) not re-ranked: $(dmsetup table "$map"); $(dmsetup status "$map")"
result ana_inaccessible_reranked_ms $(($(now_ms) - t0))
result ana_inaccessible_state "$(path_state "$map" "$d2")"
sleep 6
result ana_inaccessible_table "\"$(dmsetup table "$map")\""
result ana_inaccessible_status "\"$(dmsetup status "$map")\""
t0=$(now_ms) u1=$(uptime_s)
san_ana_state 2 optimized
back() { [ "$(group_of "$map" "$d2")" = "$(group_of "$map" "$d1")" ] && path_is "$map" "$d2" A; }
wait_until 60 back || fail "$p2 not back 60 s after its group was optimized again: $(dmsetup table "$map"); $(dmsetup status "$map")"
result ana_optimized_back_ms $(($(now_ms) - t0))
w0=$(writes "$p2")
sleep 3
result ana_writes_through_port2_in_3s $(($(writes "$p2") - w0))
fio_stop "$fio" "$RESULTS/fio-ana.log" || fail "fio failed across the ANA change: $(grep -m 2 -iE 'error|verify' "$RESULTS/fio-ana.log")"
fio=
result fio_ana errors=0

# (b) Port 2 stops answering under fio --verify.
fio_verify nvme-drop "/dev/mapper/$map" 300 > "$RESULTS/fio-drop.log" 2>&1 &
fio=$!
sleep 3
t0=$(now_ms) u2=$(uptime_s)
san_nvme_port_drop 2
noticed() { [ "$(cat "/sys/class/nvme/$c2/state")" != live ]; }
wait_until 60 noticed || fail "$c2 still live 60 s after the drop"
result nvme_noticed_ms $(($(now_ms) - t0))
result ctrl_state_after_drop "$(cat "/sys/class/nvme/$c2/state")"
wait_until 40 path_is "$map" "$d2" F || fail "$p2 not failed 40 s after the drop: $(dmsetup status "$map")"
path_failed=$(($(now_ms) - t0))
result path_failed_ms "$path_failed"
w0=$(writes "$p1")
more_writes() { [ "$(writes "$p1")" -gt $((w0 + 100)) ]; }
wait_until 30 more_writes || fail "no write went through port 1 in 30 s with port 2 down: $(dmsetup status "$map")"
resumed=$(($(now_ms) - t0)) failed=$path_failed
result io_resumed_ms "$resumed"
# The kernel notices in about its keep-alive timeout (5 s here) and fails
# the port's I/O fast_io_fail_tmo (2 s) later. mpathd's ANA log page read,
# sent to the port while it was down, once held that back (Linux 6.1's
# nvme-tcp recovery waits for it) for its 30 s command timeout: I/O
# resumed after 32 s. It waits no longer than the keep-alive timeout now.
[ "$resumed" -le 20000 ] ||
	fail "I/O through port 1 resumed only $resumed ms after port 2 dropped (keep-alive 5 s, fast_io_fail_tmo 2 s)"
kill -0 "$fio" 2>/dev/null || fail "fio ended during the outage: $(tail -n 5 "$RESULTS/fio-drop.log")"
sleep 8
result state_8s_later "$(path_state "$map" "$d2")"

t0=$(now_ms) u3=$(uptime_s)
san_nvme_port_restore 2
live() { [ "$(cat "/sys/class/nvme/$c2/state")" = live ]; }
wait_until 40 live || fail "$c2 did not reconnect within 40 s: $(cat "/sys/class/nvme/$c2/state")"
result reconnect_ms $(($(now_ms) - t0))
wait_until 40 path_is "$map" "$d2" A || fail "$p2 not reinstated: $(dmsetup status "$map")"
result reinstated_ms $(($(now_ms) - t0))
w0=$(writes "$p2")
sleep 3
result writes_through_port2_in_3s $(($(writes "$p2") - w0))
fio_stop "$fio" "$RESULTS/fio-drop.log" || fail "fio failed across the outage: $(grep -m 2 -iE 'error|verify' "$RESULTS/fio-drop.log")"
fio=
result fio_drop errors=0
sleep 1
kill "$mon" 2>/dev/null
mon=
dm_path_events "$events" > "$RESULTS/dm-path-events.txt"
# The built-in NVMe entry's checker is none: a path device-mapper failed
# is reinstated at the next check, whatever its ANA state or its
# controller's state (resetting, connecting), and fails again at its next
# I/O, the reinstate held back longer each time.
result reinstates_while_inaccessible "$(reinstated "$u0" "$u1")"
result reinstates_while_port2_dropped "$(reinstated "$u2" "$u3")"

# (c) The ANA change again with prio ana asked for (a device entry; the
# built-in NVMe entry's prio is const): mpathd reads each path's ANA log
# page (Get Log Page through its node) and ranks an inaccessible path
# lower, into a group of its own.
cat >> /etc/mpathd/mpathd.conf <<'CONF'
devices {
	device {
		vendor "NVME"
		product ".*"
		prio ana
	}
}
CONF
mpathctl reconfigure > "$RESULTS/reconfigure.txt" 2>&1 || fail "reconfigure failed: $(cat "$RESULTS/reconfigure.txt")"
ana_prio() { mpathctl show map "$map" 2>/dev/null | grep -q 'prio=50'; }
if ! wait_until 20 ana_prio; then
	result ana_prio "\"no prio 50 20 s after the reconfigure: $(mpathctl show map "$map" | grep -m 1 prio=)\""
else
	result ana_prio_table "\"$(dmsetup table "$map")\""
	fio_verify nvme-ana-prio "/dev/mapper/$map" 300 > "$RESULTS/fio-ana-prio.log" 2>&1 &
	fio=$!
	sleep 2
	t0=$(now_ms)
	san_ana_state 2 inaccessible
	regrouped() { [ "$(group_of "$map" "$d2")" != "$(group_of "$map" "$d1")" ]; }
	if wait_until 30 regrouped; then
		result ana_prio_regrouped_ms $(($(now_ms) - t0))
	else
		result ana_prio_regrouped "\"not within 30 s\""
	fi
	result ana_prio_inaccessible_table "\"$(dmsetup table "$map")\""
	result ana_prio_inaccessible_status "\"$(dmsetup status "$map")\""
	mpathctl show map "$map" > "$RESULTS/show-map-ana-inaccessible.txt" 2>&1
	t0=$(now_ms)
	san_ana_state 2 optimized
	wait_until 60 back || fail "prio ana: $p2 not back 60 s after its group was optimized again: $(dmsetup table "$map"); $(dmsetup status "$map")"
	result ana_prio_back_ms $(($(now_ms) - t0))
	fio_stop "$fio" "$RESULTS/fio-ana-prio.log" || fail "fio failed across the ANA change (prio ana): $(grep -m 2 -iE 'error|verify' "$RESULTS/fio-ana-prio.log")"
	fio=
	result fio_ana_prio errors=0
fi
kill -0 "$MPATHD_PID" || fail "mpathd died"
# Each controller's timeouts were written once: neither the reconnects nor
# the reconfigure wrote them again.
for c in "$p1" "$p2"; do
	n=$(grep -c "path ${c}[^0-9].*ctrl_loss_tmo 90 (dev_loss_tmo) set" "$RESULTS/mpathd.log")
	[ "$n" -eq 1 ] || fail "$c: ctrl_loss_tmo set $n times, not once: $(grep "$c.*_tmo" "$RESULTS/mpathd.log")"
	n=$(grep -c "path ${c}[^0-9].*fast_io_fail_tmo 2 (fast_io_fail_tmo) set" "$RESULTS/mpathd.log")
	[ "$n" -eq 1 ] || fail "$c: fast_io_fail_tmo set $n times, not once: $(grep "$c.*_tmo" "$RESULTS/mpathd.log")"
done
diag

# (d) The port drop of (b) under Debian's multipathd, side by side. Its
# NVMe entry is mpathd's (checker none, detect_prio: ana); it does not
# touch the controllers' fast_io_fail_tmo, which stays mpathd's 2.
# Reported only: the comparison must not fail mpathd's check.
mpathd_stop TERM
dmsetup remove --retry "$map" > /dev/null 2>&1 || fail "cannot remove $map after mpathd stopped"
map=
multipathd_side() {
	conf_only /etc/multipath.conf "$w1" <<CONF
defaults {
	find_multipaths no
	polling_interval 2
}
CONF
	multipathd_start || { why="multipathd did not start"; return 1; }
	wait_until 60 both_active || { why="multipathd made no map with both paths active"; return 1; }
	map=$(map_of "$w1")
	result multipathd_table "\"$(dmsetup table "$map")\""
	fio_verify nvme-multipathd "/dev/mapper/$map" 300 > "$RESULTS/fio-multipathd.log" 2>&1 &
	fio=$!
	sleep 3
	t0=$(now_ms)
	san_nvme_port_drop 2
	wait_until 90 path_is "$map" "$d2" F || { why="$p2 not failed 90 s after the drop"; return 1; }
	local failedmp=$(($(now_ms) - t0))
	w0=$(writes "$p1")
	wait_until 120 more_writes || { why="no write through port 1 within 120 s"; return 1; }
	local resumedmp=$(($(now_ms) - t0))
	result path_failed_ms_side_by_side "mpathd=$failed multipathd=$failedmp"
	result io_resumed_ms_side_by_side "mpathd=$resumed multipathd=$resumedmp"
	san_nvme_port_restore 2
	wait_until 60 live || { why="$c2 did not reconnect within 60 s"; return 1; }
	wait_until 60 path_is "$map" "$d2" A || { why="multipathd did not reinstate $p2"; return 1; }
	fio_stop "$fio" "$RESULTS/fio-multipathd.log" || { fio=; why="fio failed under multipathd"; return 1; }
	fio=
	result multipathd_fio errors=0
}
why=
if ! multipathd_side; then
	result multipathd_side "\"not compared: $why\""
	san_nvme_port_restore 2 2>/dev/null
fi
true
