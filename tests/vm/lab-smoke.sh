#!/bin/bash
# The lab boots with what every scenario relies on: udevd, dbus-daemon,
# the path devices, the project's module and binaries.
. /lab/lib.sh
result kernel "$(uname -r)"
pgrep -x systemd-udevd >/dev/null || die "systemd-udevd is not running"
pgrep -x dbus-daemon >/dev/null || die "dbus-daemon is not running"
[ -S /run/dbus/system_bus_socket ] || die "no system bus socket"
modprobe dm-mod || die "cannot load dm-mod"
[ -e /dev/mapper/control ] || die "no /dev/mapper/control"
for t in multipath flakey delay; do
	modprobe "dm-$t" || die "cannot load dm-$t"
done
dmsetup targets | grep -q '^multipath' || die "multipath target missing"
lsblk -o NAME,SIZE,TYPE,TRAN,SERIAL
# Two virtio-scsi disks on one backing file with one WWN.
vd=$(lsblk -dno NAME,TRAN | awk '$2 == "virtio" || $2 == "" {print $1}' | grep '^sd' || true)
n=$(ls /dev/disk/by-id/ | grep -c '^wwn-0x5000c5000a1b2c3d$' || true)
ls -l /dev/disk/by-id/ | grep -E 'wwn|scsi' || true
result virtio_scsi_disks "$(ls /sys/bus/scsi/drivers/sd/ | grep -c ':')"
# NVMe namespace through two controllers.
nv=$(ls /sys/block | grep -c '^nvme' || true)
result nvme_paths "$nv"
[ "$nv" -ge 2 ] || die "expected the NVMe namespace through two controllers, found $nv block devices"
if modprobe -n dm-lmpath 2>/dev/null; then
	modprobe dm-lmpath && result lmpath_module loaded && modprobe -r dm-lmpath
else
	result lmpath_module absent
fi
udevadm info --query=property /dev/nvme0n1 | grep -E 'ID_WWN|ID_SERIAL' || true
true
