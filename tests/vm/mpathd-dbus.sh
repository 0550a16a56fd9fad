#!/bin/bash
# mpathd's D-Bus API on the real system bus, driven by mpathctl and busctl:
# the selector changed under fio --verify reaches the kernel's table with
# no I/O error; queue_if_no_path turned on holds I/O while every path is
# offline and lets it finish when they return; a non-root caller reads
# but cannot change; with the system bus stopped mpathctl still answers
# through the private socket.
# lab-timeout: 300
# check-kernels: 6.1
. /lab/lib.sh

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
mapfile -t sd < <(scsi_debug_paths add_host=3 | active_paths)
[ ${#sd[@]} -ge 2 ] || die "expected two active scsi_debug paths, got: ${sd[*]}"
sdwwid=$(wwid_of "${sd[0]}")
mkdir -p /etc/mpathd
cat > /etc/mpathd/mpathd.conf <<'CONF'
defaults {
	find_multipaths on
	polling_interval 1
	path_grouping_policy multibus
	no_path_retry fail
}
blacklist {
	devnode "^(sd[a-z]+)$"
}
blacklist_exceptions {
	devnode "^(SDPATHS)$"
}
CONF
sed -i "s/SDPATHS/${sd[0]}|${sd[1]}/" /etc/mpathd/mpathd.conf

mpathd_start
map=$(map_of "$sdwwid")
[ -n "$map" ] || die "no map for the scsi_debug LUN ($sdwwid)"
owned() {
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		NameHasOwner s org.mpathd.Multipath1 2>/dev/null | grep -q true
}
wait_until 10 owned ||
	die "mpathd did not take its name on the system bus: $(tail -n 5 "$RESULTS/mpathd.log")"
mpathctl show topology > "$RESULTS/topology.txt" 2>&1 || die "show topology: $(cat "$RESULTS/topology.txt")"
grep -q "$map" "$RESULTS/topology.txt" || die "show topology does not show $map: $(cat "$RESULTS/topology.txt")"
mpathctl show maps --json > "$RESULTS/maps.json" || die "show maps --json failed"
grep -q '"version": *1' "$RESULTS/maps.json" && grep -q "\"name\": *\"$map\"" "$RESULTS/maps.json" ||
	die "show maps --json does not list $map: $(head -c 400 "$RESULTS/maps.json")"

fio_verify dbus "/dev/mapper/$map" 40 > "$RESULTS/fio.log" 2>&1 &
fio=$!
sleep 3

# The selector, under I/O.
mpathctl set map "$map" selector queue-length > "$RESULTS/set-selector.txt" 2>&1 ||
	die "set selector failed: $(cat "$RESULTS/set-selector.txt")"
dmsetup table "$map" | grep -q 'queue-length' || die "the table has no queue-length: $(dmsetup table "$map")"
result selector "$(dmsetup table "$map" | grep -o 'queue-length [0-9]*' | head -n 1)"
busctl --system get-property org.mpathd.Multipath1 \
	"$(busctl --system call org.mpathd.Multipath1 /org/mpathd/Multipath1/Manager \
		org.mpathd.Multipath1.Manager ResolveDevice 'sa{sv}' "$map" 0 | awk '{print $2}' | tr -d '"')" \
	org.mpathd.Multipath1.Map Selector > "$RESULTS/selector-property.txt" 2>&1
grep -q 'queue-length' "$RESULTS/selector-property.txt" ||
	die "the Selector property says: $(cat "$RESULTS/selector-property.txt")"

# Queueing on, every path offline: I/O waits, then finishes.
mpathctl set map "$map" queue-if-no-path on > "$RESULTS/set-queue.txt" 2>&1 ||
	die "set queue-if-no-path failed: $(cat "$RESULTS/set-queue.txt")"
dmsetup table "$map" | grep -q queue_if_no_path || die "queueing is not on: $(dmsetup table "$map")"
for p in "${sd[0]}" "${sd[1]}"; do echo offline > "/sys/block/$p/device/state"; done
wait_until 20 sh -c "dmsetup status '$map' | grep -q ' A ' && exit 1 || exit 0" ||
	die "the paths were not failed: $(dmsetup status "$map")"
sleep 5
kill -0 "$fio" 2>/dev/null || die "fio ended while no path was usable: $(tail -n 5 "$RESULTS/fio.log")"
for p in "${sd[0]}" "${sd[1]}"; do echo running > "/sys/block/$p/device/state"; done
wait_until 20 sh -c "dmsetup status '$map' | grep -q ' A '" ||
	die "no path came back: $(dmsetup status "$map")"
wait "$fio" || die "fio failed: $(tail -n 20 "$RESULTS/fio.log")"
result fio errors=0

# A caller that is not root reads, and is refused a change.
mpath=$(busctl --system call org.mpathd.Multipath1 /org/mpathd/Multipath1/Manager \
	org.mpathd.Multipath1.Manager ResolveDevice 'sa{sv}' "$map" 0 | awk '{print $2}' | tr -d '"')
setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system get-property \
	org.mpathd.Multipath1 "$mpath" org.mpathd.Multipath1.Map Name > "$RESULTS/nobody-read.txt" 2>&1 ||
	die "a non-root read was refused: $(cat "$RESULTS/nobody-read.txt")"
grep -q "$map" "$RESULTS/nobody-read.txt" || die "non-root read: $(cat "$RESULTS/nobody-read.txt")"
if setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call org.mpathd.Multipath1 \
	"$mpath" org.mpathd.Multipath1.Map SetPathSelector 'sa{sv}' round-robin 0 \
	> "$RESULTS/nobody-change.txt" 2>&1; then
	die "a non-root caller changed the selector"
fi
grep -qi 'not authorized\|needs root' "$RESULTS/nobody-change.txt" ||
	die "non-root change refused with: $(cat "$RESULTS/nobody-change.txt")"
dmsetup table "$map" | grep -q 'queue-length' || die "the refused call changed the table: $(dmsetup table "$map")"

# No system bus: the private socket answers.
[ -S /run/mpathd/bus ] || die "no private socket /run/mpathd/bus"
case $(stat -c %a /run/mpathd/bus) in
*00) ;; # root's only
*) die "the private socket is mode $(stat -c %a /run/mpathd/bus)" ;;
esac
pkill -x dbus-daemon
wait_until 10 sh -c '! pgrep -x dbus-daemon >/dev/null' || die "dbus-daemon did not stop"
mpathctl show maps > "$RESULTS/private-maps.txt" 2>&1 ||
	die "mpathctl without a system bus: $(cat "$RESULTS/private-maps.txt")"
grep -q "$map" "$RESULTS/private-maps.txt" || die "private socket: $(cat "$RESULTS/private-maps.txt")"
mpathctl set map "$map" selector round-robin > "$RESULTS/private-set.txt" 2>&1 ||
	die "a change over the private socket failed: $(cat "$RESULTS/private-set.txt")"
dmsetup table "$map" | grep -q 'round-robin' || die "the private socket's change is not in the table"
rm -f /run/dbus/system_bus_socket
dbus-daemon --system --fork --nopidfile
# The daemon finds the bus again.
wait_until 30 owned ||
	die "mpathd did not come back on the restarted system bus: $(tail -n 5 "$RESULTS/mpathd.log")"
mpathd_stop TERM
true
