#!/bin/bash
# The demo: two paths to one LUN appear; mpathd makes the multipath map by
# itself; fio writes and verifies through it while one path fails and
# comes back; mpathd fails and reinstates the path; an administrator then
# turns queueing on and changes the path selector with mpathctl (over
# mpathd's D-Bus API) while fio runs. No dmsetup is typed.
# lab-timeout: 300
. /lab/lib.sh

say() { printf '\n=== %s\n' "$*"; }

say "Path devices: scsi_debug hosts presenting the same LUN"
mapfile -t paths < <(scsi_debug_paths add_host=3 | active_paths)
a=${paths[0]} b=${paths[1]}
for p in "${paths[@]}"; do
	printf '  /dev/%-5s %-6s host %-8s WWID %s\n' "$p" "$(devt "$p")" \
		"$(basename "$(readlink -f "/sys/block/$p/device")")" "$(wwid_of "$p")"
done
wwid=$(wwid_of "$a")

say "mpathd's configuration (/etc/mpathd/mpathd.conf)"
mkdir -p /etc/mpathd
cat > /etc/mpathd/mpathd.conf <<CONF
defaults {
	find_multipaths on
	user_friendly_names yes
	polling_interval 2
	no_path_retry fail
}
blacklist {
	devnode "^sd"
}
blacklist_exceptions {
	# the two scsi_debug ports that serve I/O (the third is ALUA standby)
	devnode "^($a|$b)\$"
}
CONF
sed 's/^/  /' /etc/mpathd/mpathd.conf

say "What mpathd will build (mpathctl plan)"
mpathctl plan 2>&1 | sed 's/^/  /'

say "Starting mpathd"
mpathd_start
map=$(map_of "$wwid")
[ -n "$map" ] || die "mpathd made no map for $wwid"
echo "  map:    /dev/mapper/$map"
echo "  table:  $(dmsetup table "$map")"
echo "  status: $(dmsetup status "$map")"
grep -E 'notice|warning' "$RESULTS/mpathd.log" | sed 's/^/  log: /'

say "fio: random writes with verification through /dev/mapper/$map for 24 s"
fio_verify demo "/dev/mapper/$map" 24 --status-interval=6 --output-format=normal \
	> "$RESULTS/fio.log" 2>&1 &
fio=$!
sleep 5
say "Path $a goes offline (echo offline > /sys/block/$a/device/state)"
echo offline > "/sys/block/$a/device/state"
is_state() { [ "$(path_state "$map" "$1")" = "$2" ]; }
wait_until 30 is_state "$(devt "$a")" F || die "the map did not fail $a"
echo "  status: $(dmsetup status "$map")"
wait_until 10 grep -q "path $a: .*says down" "$RESULTS/mpathd.log"
grep "path $a" "$RESULTS/mpathd.log" | tail -n 2 | sed 's/^/  log: /'
echo "  I/O goes on through $b:"
r1=$(grep " $b " /proc/diskstats | awk '{print $8}')
sleep 4
r2=$(grep " $b " /proc/diskstats | awk '{print $8}')
echo "  writes completed on $b in 4 s: $((r2 - r1))"
[ $((r2 - r1)) -gt 0 ] || die "no I/O reached $b after $a failed"

say "Path $a comes back (echo running > .../state); mpathd reinstates it"
echo running > "/sys/block/$a/device/state"
wait_until 30 is_state "$(devt "$a")" A || die "mpathd did not reinstate $a"
echo "  status: $(dmsetup status "$map")"
grep "path $a" "$RESULTS/mpathd.log" | tail -n 2 | sed 's/^/  log: /'
wait "$fio" || die "fio reported an error: $(tail -n 20 "$RESULTS/fio.log")"
say "fio finished without an I/O or verify error"
grep -E 'write:|err=' "$RESULTS/fio.log" | sed 's/^/  /'

say "mpathctl show topology (mpathd's D-Bus API)"
mpathctl show topology --color=never 2>&1 | sed 's/^/  /'

say "fio again for 20 s; meanwhile queueing and the selector change through mpathctl"
fio_verify demo2 "/dev/mapper/$map" 20 --status-interval=10 --output-format=normal \
	> "$RESULTS/fio2.log" 2>&1 &
fio=$!
sleep 4
echo "  \$ mpathctl set map $map queue-if-no-path on"
mpathctl set map "$map" queue-if-no-path on 2>&1 | sed 's/^/  /'
echo "  table:  $(dmsetup table "$map")"
dmsetup table "$map" | grep -q queue_if_no_path || die "queue_if_no_path is not in the table"
echo "  \$ mpathctl set map $map selector queue-length"
mpathctl set map "$map" selector queue-length 2>&1 | sed 's/^/  /'
echo "  table:  $(dmsetup table "$map")"
dmsetup table "$map" | grep -q queue-length || die "the selector did not change"
echo "  \$ mpathctl show map $map"
mpathctl show map "$map" --color=never 2>&1 | sed 's/^/  /'
echo "  \$ mpathctl set map $map selector bogus   (refused, nothing changes)"
mpathctl set map "$map" selector bogus 2>&1 | sed 's/^/  /' || true
wait "$fio" || die "fio reported an error: $(tail -n 20 "$RESULTS/fio2.log")"
say "fio finished without an I/O or verify error while the settings changed"
grep -E 'write:|err=' "$RESULTS/fio2.log" | sed 's/^/  /'

say "mpathd stops; the map stays (queueing off: no daemon to end a wait)"
mpathd_stop TERM
echo "  table:  $(dmsetup table "$map")"
