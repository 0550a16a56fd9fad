#!/bin/bash
# Booted with one path of each LUN and without dm-lmpath (purged last
# boot): / is on mpatha with that path on the stock multipath target
# (mpathd's fallback), mpathd is active, and the LVM volume made last boot
# is on mpathb, never on a path. find_multipaths smart holds a lone new
# disk back until the systemd timer the rules start ends the wait.
# libblockdev's mpath plugin (Debian's, beside mpathd-compat) loads with
# its checks, finds the map's path a member and the lone disk not, and
# sets friendly names through mpathconf. Then mpathd is purged with the packages that
# need it: its files go, the maps stay, and the administrator's wwids and
# bindings files stay. Last, Debian's multipath-tools is installed in
# mpathd's place and takes the maps, and mpathd and mpathd-compat are
# installed back over it.
# lab-boot: paths=1
. /lab/lib.sh
. "$LAB_SRC/lab/rootfs.conf"

# A udev worker was still busy when the initramfs asked udevd to exit (the
# last boot set that up): it ended before /run moved to the root, and
# mpathd's init-bottom script said it waited for it.
journalctl -k -b --no-pager > "$RESULTS/kernel-boot.log"
grep -q "lab: the late udev event ended before /run moved" "$RESULTS/kernel-boot.log" ||
	die "the initramfs switched root while a udev worker ran: $(grep 'lab: the late\|mpathd: ' "$RESULTS/kernel-boot.log")"
result udevd_wait "$(grep -o 'waited [0-9.]* s for udevd to end' "$RESULTS/kernel-boot.log")"
rm -f /etc/initramfs-tools/hooks/lab-late-event /etc/initramfs-tools/scripts/init-bottom/lab-late-event

[ "$(findmnt -n -o SOURCE /)" = /dev/mapper/mpatha ] || die "/ is on $(findmnt -n -o SOURCE /)"
dm=$(basename "$(readlink -f /dev/mapper/mpatha)")
n=$(ls "/sys/block/$dm/slaves" | wc -l)
[ "$n" -eq 1 ] || die "mpatha has $n paths"
target=$(dmsetup table mpatha | awk '{print $3}')
result target "$target"
[ "$target" = multipath ] || die "mpatha uses $target, not the stock multipath target"
systemctl is-active --quiet mpathd || die "mpathd is not active: $(systemctl status mpathd --no-pager 2>&1 | tail -n 5)"
journalctl -b --no-pager | grep -q "stock multipath target" || die "mpathd did not say it fell back to the stock target"

[ -s /root/lvm-made ] || die "the first boot's LVM volume is not recorded"
lvs --noheadings -o lv_name,devices labvg > "$RESULTS/lvs.txt" 2>&1
grep -Eq "data +/dev/(mapper/mpathb|dm-[0-9]+)" "$RESULTS/lvs.txt" || die "labvg/data is not on mpathb: $(cat "$RESULTS/lvs.txt")"
[ -e /dev/labvg/data ] || die "labvg/data was not activated"
pvs --noheadings -o pv_name 2>&1 | grep -q /dev/sd && die "LVM sees a path: $(pvs 2>&1)"
result lvm "$(tr -s ' ' < "$RESULTS/lvs.txt")"

# find_multipaths smart under systemd: a lone new disk is held back, the
# timer the rules start ends the wait, and udev gives the disk to the
# system for good.
prop() { udevadm info --query=property --name="$1" | sed -n "s/^$2=//p"; }
cp /etc/multipath.conf /root/multipath.conf.saved
printf 'defaults {\n\tuser_friendly_names yes\n\tfind_multipaths smart\n\tfind_multipaths_timeout 5\n}\n' \
	> /etc/multipath.conf
modprobe scsi_debug add_host=1 num_tgts=1 max_luns=1 dev_size_mb=16 || die "modprobe scsi_debug failed"
udevadm settle
one=$(basename "$(ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/* | head -n 1)")
[ -n "$one" ] || die "no scsi_debug disk"
t0=${EPOCHREALTIME/./}
[ "$(prop "/dev/$one" DM_MULTIPATH_DEVICE_PATH)" = 1 ] && [ "$(prop "/dev/$one" SYSTEMD_READY)" = 0 ] ||
	die "$one is not held back: $(udevadm info --query=property --name="/dev/$one" | tr '\n' ' ')"
[ "$(prop "/dev/$one" FIND_MULTIPATHS_WAIT_UNTIL)" -gt 0 ] || die "$one has no FIND_MULTIPATHS_WAIT_UNTIL"
systemctl list-timers --all --no-pager | grep -q "mpathd-wait-$one.timer" ||
	die "no mpathd-wait-$one.timer: $(systemctl list-timers --all --no-pager)"
wait_until 30 sh -c "[ \"\$(udevadm info --query=property --name=/dev/$one | sed -n 's/^DM_MULTIPATH_DEVICE_PATH=//p')\" = 0 ]" ||
	die "the wait of $one did not end: $(udevadm info --query=property --name="/dev/$one" | tr '\n' ' ')"
result smart_wait_released_ms $(((${EPOCHREALTIME/./} - t0) / 1000))
[ "$(prop "/dev/$one" FIND_MULTIPATHS_WAIT_UNTIL)" = 0 ] || die "$one: the wait is not marked ended"
[ "$(prop "/dev/$one" SYSTEMD_READY)" != 0 ] || die "$one was not given to systemd"
cp /root/multipath.conf.saved /etc/multipath.conf

# libblockdev's mpath plugin loads with its checks (the multipath
# program's version from its usage, at least 0.4.9, and an mpathconf),
# finds the path of the map a member and the lone disk not (the map is on
# the stock target here: the plugin only knows maps whose target is named
# "multipath"), and sets friendly names with mpathconf, which has mpathd
# read the file again.
path=$(ls "/sys/block/$dm/slaves" | head -n 1)
cp /etc/multipath.conf /root/multipath.conf.saved
python3 - "/dev/$path" "/dev/$one" > "$RESULTS/libblockdev.txt" 2>&1 <<'PY' || die "libblockdev: $(cat "$RESULTS/libblockdev.txt")"
import sys
import gi
gi.require_version("BlockDev", "2.0")
from gi.repository import BlockDev as bd
spec = bd.PluginSpec()
spec.name = bd.Plugin.MPATH
print("loaded", bd.ensure_init([spec], None))
print("available", bd.get_available_plugin_names())
for dev in sys.argv[1:]:
    print("member", dev, bd.mpath_is_mpath_member(dev))
print("members", " ".join(sorted(bd.mpath_get_mpath_members())))
print("friendly_names", bd.mpath_set_friendly_names(True))
PY
grep -qx "loaded True" "$RESULTS/libblockdev.txt" && grep -q "^available.*'mpath'" "$RESULTS/libblockdev.txt" ||
	die "libblockdev's mpath plugin did not load: $(cat "$RESULTS/libblockdev.txt")"
grep -qx "member /dev/$path True" "$RESULTS/libblockdev.txt" || die "libblockdev: $path is not a member: $(cat "$RESULTS/libblockdev.txt")"
grep -qx "member /dev/$one False" "$RESULTS/libblockdev.txt" || die "libblockdev: $one is a member: $(cat "$RESULTS/libblockdev.txt")"
grep -Eq "^members(.* | )$path( |$)" "$RESULTS/libblockdev.txt" || die "libblockdev's members: $(cat "$RESULTS/libblockdev.txt")"
grep -qx "friendly_names True" "$RESULTS/libblockdev.txt" || die "libblockdev's set_friendly_names: $(cat "$RESULTS/libblockdev.txt")"
cp /etc/multipath.conf "$RESULTS/multipath.conf.mpathconf"
grep -Eq "^\s*find_multipaths yes$" /etc/multipath.conf && grep -Eq "^\s*user_friendly_names yes$" /etc/multipath.conf ||
	die "mpathconf did not set the file: $(cat /etc/multipath.conf)"
systemctl is-active --quiet mpathd || die "mpathd is not active after mpathconf"
[ -e /dev/mapper/mpatha ] || die "mpatha went after mpathconf"
result libblockdev "\"$(grep '^member' "$RESULTS/libblockdev.txt" | tr '\n' ';')\""
cp /root/multipath.conf.saved /etc/multipath.conf
systemctl reload mpathd
modprobe -r scsi_debug || die "scsi_debug did not unload"

dpkg --purge libblockdev-mpath2 mpathd-compat mpathd > "$RESULTS/purge.log" 2>&1 ||
	die "purging mpathd failed: $(tail -n 5 "$RESULTS/purge.log")"
for f in /usr/sbin/mpathd /usr/bin/mpathctl /lib/udev/mpath-udev /lib/udev/rules.d/60-multipath.rules \
	/usr/sbin/multipath /usr/sbin/multipathd /etc/systemd/system/multipathd.service \
	/usr/share/initramfs-tools/hooks/mpathd /lib/systemd/system/mpathd.service /etc/mpathd; do
	{ [ -e "$f" ] || [ -L "$f" ]; } && die "$f is still there after the purge"
done
[ -s /etc/multipath/wwids ] && [ -s /etc/multipath/bindings ] || die "the purge took the wwids or bindings file"
dmsetup info mpatha > /dev/null || die "the purge removed the root's map"
pgrep -x mpathd > /dev/null && die "mpathd still runs after the purge"
result purged mpathd

# Debian's multipath-tools in mpathd's place, then mpathd back over it.
# initramfs-tools' trigger is off meanwhile (minutes under TCG, and no
# boot follows).
conf=/etc/initramfs-tools/update-initramfs.conf
sed -i 's/^update_initramfs=.*/update_initramfs=no/' "$conf"
dpkg -i /var/cache/lab-debs/debian/multipath-tools_*.deb > "$RESULTS/multipath-tools.log" 2>&1 ||
	die "installing Debian's multipath-tools failed: $(tail -n 5 "$RESULTS/multipath-tools.log")"
wait_until 60 systemctl is-active --quiet multipathd.service ||
	die "Debian's multipathd is not active: $(systemctl status multipathd --no-pager 2>&1 | tail -n 5)"
[ "$(systemctl show -p Id --value multipathd.service)" = multipathd.service ] || die "multipathd.service is still an alias"
wait_until 30 sh -c "multipathd show maps | grep -q '^mpatha '" ||
	die "Debian's multipathd does not show mpatha: $(multipathd show maps 2>&1)"
dpkg -i /var/cache/lab-debs/mpathd_*.deb /var/cache/lab-debs/mpathd-compat_*.deb > "$RESULTS/mpathd-back.log" 2>&1 ||
	die "installing mpathd over multipath-tools failed: $(tail -n 5 "$RESULTS/mpathd-back.log")"
sed -i 's/^update_initramfs=.*/update_initramfs=yes/' "$conf"
[ "$(dpkg-query -W -f '${Status}' multipath-tools 2>/dev/null)" = "install ok installed" ] &&
	die "multipath-tools is still installed beside mpathd"
pgrep -x multipathd > /dev/null && die "Debian's multipathd still runs: $(pgrep -a multipathd)"
wait_until 30 systemctl is-active --quiet mpathd || die "mpathd is not active again: $(systemctl status mpathd --no-pager 2>&1 | tail -n 5)"
[ "$(dpkg -S /usr/sbin/multipath 2>&1 | cut -d: -f1)" = mpathd-compat ] || die "multipath is not mpathd-compat's again"
wait_until 30 sh -c "multipath -ll mpatha | grep -q '^mpatha '" || die "multipath -ll mpatha: $(multipath -ll mpatha 2>&1 | head -n 3)"
result swapped "multipath-tools $(dpkg-deb -f /var/cache/lab-debs/debian/multipath-tools_*.deb Version) in, then out for mpathd $(dpkg-query -W -f '${Version}' mpathd)"
