#!/bin/bash
# Hot removal of a path both ways, with the remove uevent seen in the guest:
# a SCSI device deleted inside the guest (then found again by a rescan),
# and a virtio-scsi disk unplugged by the host (then plugged back).
# lab-timeout: 180
. /lab/lib.sh

udevadm monitor --udev --subsystem-match=block > "$RESULTS/uevents.log" 2>&1 &
mon=$!
trap 'kill $mon 2>/dev/null' EXIT
sleep 1

seen() { grep -Eq "UDEV +\[[0-9.]+\] +$1 +.*/block/$2 \(block\)" "$RESULTS/uevents.log"; }

# 1. SCSI delete inside the guest, then a rescan of its host.
mapfile -t paths < <(scsi_debug_paths add_host=3 | active_paths)
sd=${paths[1]:?no second scsi_debug path}
hctl=$(basename "$(readlink -f "/sys/block/$sd/device")")
host=${hctl%%:*}
echo 1 > "/sys/block/$sd/device/delete"
wait_until 20 seen remove "$sd" || die "no remove uevent for $sd after SCSI delete"
[ ! -e "/sys/block/$sd" ] || die "$sd still present after delete"
echo '- - -' > "/sys/class/scsi_host/host$host/scan"
wait_until 20 sh -c "ls /sys/class/scsi_host/host$host/device/target$host:*/$host:*/block 2>/dev/null | grep -q sd" ||
	die "rescan of host$host did not bring the disk back"
result scsi_delete_rescan ok

# 2. Host-side unplug of a virtio-scsi disk, then plug it back.
vd=
for d in /sys/block/sd*; do
	if readlink -f "$d" | grep -q virtio; then vd=$(basename "$d"); fi
done
[ -n "$vd" ] || die "no virtio-scsi disk found"
id=vdisk$(readlink -f "/sys/block/$vd" | sed -n 's|.*/host\([0-9]*\)/.*|\1|p')
# The two virtio HBAs are probed first, so host0/host1 map to vdisk0/vdisk1.
host_unplug "$id" > "$RESULTS/unplug.reply" || die "host could not unplug $id: $(cat "$RESULTS/unplug.reply")"
wait_until 30 seen remove "$vd" || die "no remove uevent for $vd after the host unplugged $id"
result virtio_unplug_remove_uevent ok
host_replug "$id" > "$RESULTS/replug.reply" || die "host could not plug $id back: $(cat "$RESULTS/replug.reply")"
wait_until 30 sh -c "grep -Eq 'UDEV +\[[0-9.]+\] +add +.*/block/sd[a-z]+ \(block\)' '$RESULTS/uevents.log'" ||
	die "no add uevent after the host plugged $id back"
udevadm settle
n=$(ls -l /dev/disk/by-id/ | grep -c 'wwn-0x5000c5000a1b2c3d' || true)
result virtio_replug ok
