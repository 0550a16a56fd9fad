#!/bin/bash
# The packages installed by dpkg in a Debian 12 root filesystem whose root
# LUN both HBAs present: the system comes up with / on /dev/mapper/mpatha
# (dm-lmpath, DKMS-built for both kernels, serving the target under the
# name multipath, which libblockdev's mpath plugin recognises), mpathd active, the initramfs'
# maps taken over without a reload and without an I/O error; udev shows the
# claim properties on the paths and the map; LVM made on the data LUN's
# map uses the map, never a path; a path of each LUN hot-removed and added
# back from the host rejoins while / and an LV take writes; the packages
# upgrade in place. mpathd-compat stands in for multipath-tools: Debian's
# libblockdev-mpath2, which depends on it, is installed; multipath -ll and
# multipathd show maps answer from mpathd; multipathd.service is mpathd.
# lab-boot: paths=2
# lab-timeout: 900
. /lab/lib.sh
. "$LAB_SRC/lab/rootfs.conf"

prop() { udevadm info --query=property --name="$1" | sed -n "s/^$2=//p"; }
expect() {
	local v
	v=$(prop "$1" "$2")
	[ "$v" = "$3" ] || die "$1: $2 is '$v', expected '$3'"
}
paths_of() { # the sd devices under map $1
	ls "/sys/block/$(basename "$(readlink -f "/dev/mapper/$1")")/slaves"
}

root=$(findmnt -n -o SOURCE /)
result root "$root"
[ "$root" = /dev/mapper/mpatha ] || die "/ is on $root, not /dev/mapper/mpatha"
[ "$(dmsetup info -c --noheadings -o uuid mpatha)" = "mpath-$ROOT_WWID" ] || die "mpatha is not mpath-$ROOT_WWID"
target=$(dmsetup table mpatha | awk '{print $3}')
result target "$target"
# dm-lmpath answers to "multipath" (dm-lmpath-dkms' modprobe.d), and the
# stock module is kept from loading: consumers that match the target name
# see a multipath map served by dm-lmpath.
[ "$target" = multipath ] || die "mpatha uses the $target target, not multipath"
[ "$(cat /sys/module/dm_lmpath/parameters/alias_multipath 2>&1)" = Y ] ||
	die "dm-lmpath does not answer to multipath: alias_multipath is $(cat /sys/module/dm_lmpath/parameters/alias_multipath 2>&1)"
[ -e /sys/module/dm_multipath ] && die "the stock dm-multipath module is loaded"
dmsetup targets > "$RESULTS/targets.txt"
grep -q '^lmpath ' "$RESULTS/targets.txt" && grep -q '^multipath  *v1\.14\.0' "$RESULTS/targets.txt" ||
	die "dmsetup targets: $(tr '\n' ';' < "$RESULTS/targets.txt")"
[ "$(paths_of mpatha | wc -l)" -eq 2 ] || die "mpatha has paths: $(paths_of mpatha | tr '\n' ' ')"
systemctl is-active --quiet mpathd || die "mpathd is not active: $(systemctl status mpathd --no-pager 2>&1 | tail -n 5)"
dkms status | tee "$RESULTS/dkms.txt"
for k in /lib/modules/*; do
	[ -e "$k/build" ] || continue
	grep -q "dm-lmpath/.*, $(basename "$k"), .*: installed" "$RESULTS/dkms.txt" ||
		die "DKMS did not install dm-lmpath for $(basename "$k")"
done
# The initramfs' daemon made the map; the booted system's adopted it.
grep -q 'notice: ready' /run/mpathd/initramfs.log || die "mpathd did not run in the initramfs"
journalctl -b -u mpathd --no-pager > "$RESULTS/mpathd.log"
grep -q "maps use the multipath target, served by dm-lmpath" "$RESULTS/mpathd.log" ||
	die "mpathd does not say that dm-lmpath serves its maps: $(grep 'maps use' "$RESULTS/mpathd.log")"
grep -q "reloading\|creating" "$RESULTS/mpathd.log" && die "the booted mpathd changed the initramfs' maps: $(grep 'reloading\|creating' "$RESULTS/mpathd.log" | head -n 3)"
dmesg | grep -E "I/O error|Buffer I/O" && die "I/O errors during boot"
# Nothing tried to load the stock selectors over dm-lmpath's name.
dmesg | grep "Unknown symbol" && die "a module failed to load during boot"

# udev: the paths are claimed, the map is ready and has its links.
for p in $(paths_of mpatha); do
	expect "/dev/$p" DM_MULTIPATH_DEVICE_PATH 1
	expect "/dev/$p" ID_FS_TYPE mpath_member
	expect "/dev/$p" SYSTEMD_READY 0
done
dm=$(basename "$(readlink -f /dev/mapper/mpatha)")
expect "/dev/$dm" MPATH_DEVICE_READY 1
expect "/dev/$dm" ID_FS_TYPE ext4
[ "$(readlink -f "/dev/disk/by-id/dm-uuid-mpath-$ROOT_WWID")" = "/dev/$dm" ] || die "no dm-uuid-mpath link"
[ "$(readlink -f "/dev/disk/by-uuid/$ROOT_FS_UUID")" = "/dev/$dm" ] ||
	die "by-uuid/$ROOT_FS_UUID leads to $(readlink -f "/dev/disk/by-uuid/$ROOT_FS_UUID")"
udevadm info "/dev/$dm" > "$RESULTS/udev-map.txt"
udevadm info "/dev/$(paths_of mpatha | head -n 1)" > "$RESULTS/udev-path.txt"

# multipath-tools' names, answered by mpathd (package mpathd-compat).
[ "$(dpkg-query -W -f '${Status}' libblockdev-mpath2 2>&1)" = "install ok installed" ] ||
	die "libblockdev-mpath2 is not installed: $(dpkg-query -W -f '${Status}' libblockdev-mpath2 2>&1)"
[ "$(dpkg-query -W -f '${Status}' multipath-tools 2>/dev/null)" = "install ok installed" ] &&
	die "Debian's multipath-tools got installed"
[ "$(dpkg -S "$(command -v multipath)" 2>&1 | cut -d: -f1)" = mpathd-compat ] ||
	die "multipath is not mpathd-compat's: $(command -v multipath) $(dpkg -S "$(command -v multipath)" 2>&1)"
multipath -ll > "$RESULTS/multipath-ll.txt" 2>&1 || die "multipath -ll failed: $(cat "$RESULTS/multipath-ll.txt")"
grep -q "^mpatha ($ROOT_WWID) $dm " "$RESULTS/multipath-ll.txt" || die "multipath -ll does not list mpatha: $(head -n 3 "$RESULTS/multipath-ll.txt")"
multipathd show maps > "$RESULTS/multipathd-maps.txt" 2>&1 || die "multipathd show maps failed: $(cat "$RESULTS/multipathd-maps.txt")"
grep -q "^mpatha  *$dm  *$ROOT_WWID" "$RESULTS/multipathd-maps.txt" || die "multipathd show maps: $(cat "$RESULTS/multipathd-maps.txt")"
unit=$(systemctl show -p Id --value multipathd.service)
[ "$unit" = mpathd.service ] || die "multipathd.service is '$unit', not mpathd.service"
systemctl is-active --quiet multipathd.service || die "multipathd.service is not active"
result compat "multipath -ll: $(grep -c '^mpath' "$RESULTS/multipath-ll.txt") maps; multipathd.service is $unit"

# libblockdev's mpath plugin sees the map served by dm-lmpath: each of its
# paths is a member (it compares the target name with "multipath").
python3 - $(paths_of mpatha | sed 's|^|/dev/|') > "$RESULTS/libblockdev.txt" 2>&1 <<'PY' || die "libblockdev: $(cat "$RESULTS/libblockdev.txt")"
import sys
import gi
gi.require_version("BlockDev", "2.0")
from gi.repository import BlockDev as bd
spec = bd.PluginSpec()
spec.name = bd.Plugin.MPATH
print("loaded", bd.ensure_init([spec], None))
for dev in sys.argv[1:]:
    print("member", dev, bd.mpath_is_mpath_member(dev))
print("members", " ".join(sorted(bd.mpath_get_mpath_members())))
PY
grep -qx "loaded True" "$RESULTS/libblockdev.txt" || die "libblockdev's mpath plugin did not load: $(cat "$RESULTS/libblockdev.txt")"
for p in $(paths_of mpatha); do
	grep -qx "member /dev/$p True" "$RESULTS/libblockdev.txt" || die "libblockdev: $p is not a member: $(cat "$RESULTS/libblockdev.txt")"
	grep -Eq "^members(.* | )$p( |$)" "$RESULTS/libblockdev.txt" || die "libblockdev's members: $(cat "$RESULTS/libblockdev.txt")"
done
result libblockdev_lmpath "\"$(grep '^member' "$RESULTS/libblockdev.txt" | tr '\n' ';')\""

# LVM on the data LUN's map; the next boot finds it there.
[ -e /dev/mapper/mpathb ] || die "no map for the data LUN"
pvcreate -q /dev/mapper/mpathb && vgcreate -q labvg /dev/mapper/mpathb &&
	lvcreate -q -y -L 64M -n data labvg && mkfs.ext4 -q /dev/labvg/data || die "LVM on mpathb failed"
pvs --noheadings -o pv_name > "$RESULTS/pvs.txt" 2>&1
[ "$(tr -d ' ' < "$RESULTS/pvs.txt")" = /dev/mapper/mpathb ] || die "pvs lists: $(cat "$RESULTS/pvs.txt")"
echo "labvg data $(blkid -s UUID -o value /dev/labvg/data)" > /root/lvm-made

# A path of each LUN goes away under writes to / and to the LV, and
# comes back.
( for i in $(seq 40); do dd if=/dev/urandom of=/root/w.$((i % 4)) bs=64k count=16 conv=fsync status=none || exit 1; done ) &
writer=$!
lvcreate -q -y -L 32M -n scratch labvg || die "lvcreate labvg/scratch failed"
( for i in $(seq 40); do dd if=/dev/urandom of=/dev/labvg/scratch bs=64k count=8 seek=$((i * 8)) oflag=direct status=none || exit 1; done ) &
lvwriter=$!
dmb=$(basename "$(readlink -f /dev/mapper/mpathb)")
host_unplug vdisk1 > /dev/null || die "the host could not remove vdisk1"
host_unplug vdata1 > /dev/null || die "the host could not remove vdata1"
wait_until 60 sh -c "[ \$(ls /sys/block/$dm/slaves | wc -l) -eq 1 ] && [ \$(ls /sys/block/$dmb/slaves | wc -l) -eq 1 ]" ||
	die "the maps kept paths after the unplug: mpatha $(paths_of mpatha | tr '\n' ' '), mpathb $(paths_of mpathb | tr '\n' ' ')"
host_replug vdisk1 > "$RESULTS/replug.reply" || die "the host could not add vdisk1 back: $(cat "$RESULTS/replug.reply")"
host_replug vdata1 > "$RESULTS/replug.reply" || die "the host could not add vdata1 back: $(cat "$RESULTS/replug.reply")"
wait_until 90 sh -c "[ \$(ls /sys/block/$dm/slaves | wc -l) -eq 2 ] && [ \$(ls /sys/block/$dmb/slaves | wc -l) -eq 2 ]" ||
	die "a path did not rejoin: mpatha $(paths_of mpatha | tr '\n' ' '), mpathb $(paths_of mpathb | tr '\n' ' ')"
wait_until 60 sh -c "! dmsetup status mpatha | grep -q ' F ' && ! dmsetup status mpathb | grep -q ' F '" ||
	die "a path stays failed: $(dmsetup status mpatha); $(dmsetup status mpathb)"
wait "$writer" || die "writes to / failed while a path was gone"
wait "$lvwriter" || die "writes to the LV on mpathb failed while a path was gone"
lvremove -q -y labvg/scratch || die "lvremove labvg/scratch failed"
result rejoined "$(paths_of mpatha | tr '\n' ',') $(paths_of mpathb | tr '\n' ',')"
dmesg | grep -E "EXT4-fs error|Buffer I/O error on dev dm" && die "the filesystem saw errors"

# An upgrade in place: the same packages with a newer version
# (mpathd-compat depends on mpathd's exact version).
work=$(mktemp -d)
old=$(dpkg-query -W -f '${Version}' mpathd)
for p in mpathd mpathd-compat; do
	dpkg-deb -R /var/cache/lab-debs/${p}_*.deb "$work/$p"
	sed -i -e "s/^Version: .*/Version: $old+lab1/" -e "s/mpathd (= $old)/mpathd (= $old+lab1)/" \
		"$work/$p/DEBIAN/control"
	dpkg-deb -b "$work/$p" "$work/$p-up.deb" > /dev/null
done
# initramfs-tools' trigger would rebuild the newest kernel's image, which
# no boot here uses (the next one is made below, after the purge): about
# two minutes under TCG. Off for the upgrade only.
conf=/etc/initramfs-tools/update-initramfs.conf
sed -i 's/^update_initramfs=.*/update_initramfs=no/' "$conf"
dpkg -i "$work"/*-up.deb > "$RESULTS/upgrade.log" 2>&1 || die "upgrade failed: $(tail -n 5 "$RESULTS/upgrade.log")"
sed -i 's/^update_initramfs=.*/update_initramfs=yes/' "$conf"
[ "$(dpkg-query -W -f '${Version}' mpathd)" = "$old+lab1" ] || die "not upgraded"
[ "$(dpkg-query -W -f '${Version}' mpathd-compat)" = "$old+lab1" ] || die "mpathd-compat not upgraded"
wait_until 30 systemctl is-active --quiet mpathd || die "mpathd is not active after the upgrade"
[ "$(paths_of mpatha | wc -l)" -eq 2 ] || die "the upgrade lost paths of mpatha"
wait_until 30 sh -c "multipath -ll mpatha | grep -q '^mpatha '" ||
	die "multipath -ll mpatha after the upgrade: $(multipath -ll mpatha 2>&1 | head -n 3)"
result upgraded "$old -> $old+lab1"

dpkg --purge dm-lmpath-dkms > "$RESULTS/purge-dkms.log" 2>&1 || die "purging dm-lmpath-dkms failed: $(tail -n 5 "$RESULTS/purge-dkms.log")"
find /lib/modules -name 'dm-lmpath.ko*' | grep . && die "dm-lmpath is still installed after the purge"
# The next boot's initramfs also has a udev event still being handled when
# udevd is asked to exit (tests/vm/data/late-udev-event): the initramfs
# must not switch root before that worker has ended.
late=$LAB_SRC/tests/vm/data/late-udev-event
install -D -m 644 "$late/99-lab-late-event.rules" /usr/local/share/lab-late-event/99-lab-late-event.rules
install -D -m 755 "$late/probe" /usr/local/share/lab-late-event/probe
install -D -m 755 "$late/hook" /etc/initramfs-tools/hooks/lab-late-event
install -D -m 755 "$late/init-bottom" /etc/initramfs-tools/scripts/init-bottom/lab-late-event
update-initramfs -u -k "$(uname -r)" > "$RESULTS/initramfs.log" 2>&1 || die "update-initramfs failed"
lsinitramfs "/boot/initrd.img-$(uname -r)" | grep -q 'scripts/init-bottom/lab-late-event' ||
	die "the late udev event is not in the initramfs"
result purged dm-lmpath-dkms
