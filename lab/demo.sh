#!/bin/bash
# The demo: two paths to one LUN, a multipath map over them, one path
# failed while fio keeps writing and verifying through the map.
# lab-timeout: 300
. /lab/lib.sh

say() { printf '\n=== %s\n' "$*"; }

say "Path devices: two scsi_debug hosts presenting the same LUN"
mapfile -t paths < <(scsi_debug_paths add_host=3 | active_paths)
a=${paths[0]} b=${paths[1]}
for p in "${paths[@]}"; do
	printf '  /dev/%-5s %-6s host %-8s WWID %s\n' "$p" "$(devt "$p")" \
		"$(basename "$(readlink -f "/sys/block/$p/device")")" \
		"$(/lib/udev/scsi_id -g -u -d "/dev/$p")"
done

target=multipath
if modprobe dm-lmpath 2>/dev/null; then
	target=lmpath
	say "Kernel target: lmpath (dm-lmpath, lockless fast path)"
else
	modprobe dm-multipath
	modprobe dm-round-robin
	say "Kernel target: multipath (stock; dm-lmpath not built)"
fi
if command -v mpathctl >/dev/null; then
	say "What mpathctl would build from the devices present"
	mpathctl plan 2>&1 | sed 's/^/  /' || true
fi

size=$(blockdev --getsz "/dev/$a")
table="0 $size $target 0 0 1 1 round-robin 0 2 1 $(devt "$a") 1 $(devt "$b") 1"
say "dmsetup create demo --table '$table'"
dmsetup create demo --table "$table" || die "dmsetup create failed"
udevadm settle
echo "  table:  $(dmsetup table demo)"
echo "  status: $(dmsetup status demo)"

say "fio: random writes with verification through /dev/mapper/demo for 20 s"
fio_verify demo /dev/mapper/demo 20 --status-interval=4 --output-format=normal \
	> "$RESULTS/fio.log" 2>&1 &
fio=$!
sleep 5
say "Path $a goes offline (echo offline > /sys/block/$a/device/state)"
echo offline > "/sys/block/$a/device/state"
wait_until 30 sh -c "dmsetup status demo | grep -q '$(devt "$a") F'" || die "the map did not fail $a"
echo "  status: $(dmsetup status demo)"
echo "  I/O goes on through $b:"
r1=$(grep " $b " /proc/diskstats | awk '{print $8}')
sleep 4
r2=$(grep " $b " /proc/diskstats | awk '{print $8}')
echo "  writes completed on $b in 4 s: $((r2 - r1))"
[ $((r2 - r1)) -gt 0 ] || die "no I/O reached $b after $a failed"
say "Path $a comes back; reinstate it"
echo running > "/sys/block/$a/device/state"
dmsetup message demo 0 reinstate_path "$(devt "$a")"
echo "  status: $(dmsetup status demo)"
wait "$fio" || die "fio reported an error: $(tail -n 20 "$RESULTS/fio.log")"
say "fio finished without an I/O or verify error"
grep -E 'write:|err=' "$RESULTS/fio.log" | sed 's/^/  /'
dmsetup remove demo
