#!/bin/bash
# Booted with one path of each LUN and without dm-lmpath (purged last
# boot): / is on mpatha with that path on the stock multipath target
# (mpathd's fallback), mpathd is active, and the LVM volume made last boot
# is on mpathb, never on a path. Then mpathd is purged: its files go, the
# maps stay, and the administrator's wwids and bindings files stay.
# lab-boot: paths=1
. /lab/lib.sh
. "$LAB_SRC/lab/rootfs.conf"

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

dpkg --purge mpathd > "$RESULTS/purge.log" 2>&1 || die "purging mpathd failed: $(tail -n 5 "$RESULTS/purge.log")"
for f in /usr/sbin/mpathd /usr/bin/mpathctl /lib/udev/rules.d/60-multipath.rules \
	/usr/share/initramfs-tools/hooks/mpathd /lib/systemd/system/mpathd.service /etc/mpathd; do
	[ -e "$f" ] && die "$f is still there after the purge"
done
[ -s /etc/multipath/wwids ] && [ -s /etc/multipath/bindings ] || die "the purge took the wwids or bindings file"
dmsetup info mpatha > /dev/null || die "the purge removed the root's map"
pgrep -x mpathd > /dev/null && die "mpathd still runs after the purge"
result purged mpathd
