#!/bin/bash
# The project's udev rules on real devices, as LVM, systemd, UDisks and
# blivet read them: the virtio-scsi pair is left alone while its WWID is
# unknown (find_multipaths strict), is claimed once mpathd made its map
# (DM_MULTIPATH_DEVICE_PATH=1, ID_FS_TYPE=mpath_member, SYSTEMD_READY=0, no
# filesystem link on a path), the map is ready and carries the filesystem
# links and /dev/disk/by-id/dm-uuid-mpath-<wwid>; a failed path keeps the
# links (MPATH_UNCHANGED), all paths failed make the map not ready
# (DM_UDEV_DISABLE_OTHER_RULES_FLAG, DM_NOSCAN) and a reinstated path ready
# again; a reload is MPATH_UNCHANGED. find_multipaths smart on a lone
# scsi_debug path: held back, released after the timeout, and not claimed
# afterwards. The rules ask mpath-udev (in udev's folder); mpathctl
# is-path answers the same, and what each costs a disk's event is printed
# next to multipath -u. "nompath" and "multipath=off" on the command line turn the
# rules off. A reload that grows the map (its LUN resized) is probed again.
# skip_kpartx yes keeps kpartx's rules from mapping the map's partitions;
# max_sectors_kb reaches the paths and the map.
# lab-timeout: 300
# check-kernels: 6.1
. /lab/lib.sh

prop() { # prop DEV KEY: udev's value of KEY for DEV ("" when unset)
	udevadm info --query=property --name="$1" | sed -n "s/^$2=//p"
}
expect() { # expect DEV KEY VALUE
	local v
	v=$(prop "$1" "$2")
	[ "$v" = "$3" ] || die "$1: $2 is '$v', expected '$3' ($(udevadm info --query=property --name="$1" | tr '\n' ' '))"
}

[ -e /etc/udev/rules.d/60-multipath.rules ] || die "the project's rules are not installed"
[ -x /lib/udev/mpath-udev ] || die "the rules' helper mpath-udev is not in /lib/udev"
wwid=$(wwid_of sda)
[ -n "$wwid" ] && [ "$(wwid_of sdb)" = "$wwid" ] || die "sda and sdb do not share a WWID"

# A filesystem signature on the shared disk: blkid sees it on both paths
# until they are claimed.
mkswap /dev/sda > /dev/null || die "mkswap failed"
udevadm trigger --action=change --settle /dev/sda /dev/sdb
fsuuid=$(prop /dev/sda ID_FS_UUID)
[ -n "$fsuuid" ] || die "blkid found no swap signature on sda"

# 1. Not known, strict: left alone, and is-path says why.
mkdir -p /etc/mpathd
printf 'defaults {\n\tfind_multipaths strict\n\tpolling_interval 2\n}\n' > /etc/mpathd/mpathd.conf
for d in sda sdb; do
	expect /dev/$d DM_MULTIPATH_DEVICE_PATH 0
	expect /dev/$d ID_FS_TYPE swap
done
out=$(mpathctl is-path sda) && die "is-path says sda is a path: $out"
echo "$out" | grep -q "not known" || die "is-path gives no reason: $out"

# 2. find_multipaths on: mpathd makes the map, udev claims both paths.
printf 'defaults {\n\tfind_multipaths on\n\tpolling_interval 2\n}\nblacklist {\n\tdevnode "^nvme"\n}\n' \
	> /etc/mpathd/mpathd.conf
mpathd_start
map=$(map_of "$wwid")
[ -n "$map" ] || die "mpathd made no map for $wwid"
dm=$(basename "$(readlink -f "/dev/mapper/$map")")
udevadm settle
for d in sda sdb; do
	wait_until 10 sh -c "[ \"\$(udevadm info --query=property --name=/dev/$d | sed -n 's/^DM_MULTIPATH_DEVICE_PATH=//p')\" = 1 ]" ||
		die "$d was not claimed after the map was made"
	expect /dev/$d ID_FS_TYPE mpath_member
	expect /dev/$d SYSTEMD_READY 0
	[ -z "$(prop /dev/$d ID_FS_UUID)" ] || die "$d still carries the filesystem's uuid"
done
grep -qx "/$wwid/" /etc/multipath/wwids || die "$wwid is not in the wwids file"
mpathctl is-path sda > /dev/null || die "is-path says sda is not a path once the map is there"
expect "/dev/$dm" MPATH_DEVICE_READY 1
expect "/dev/$dm" ID_FS_TYPE swap
[ "$(readlink -f "/dev/disk/by-id/dm-uuid-mpath-$wwid")" = "/dev/$dm" ] ||
	die "/dev/disk/by-id/dm-uuid-mpath-$wwid does not lead to $dm"
[ "$(readlink -f "/dev/disk/by-uuid/$fsuuid")" = "/dev/$dm" ] ||
	die "/dev/disk/by-uuid/$fsuuid leads to $(readlink -f "/dev/disk/by-uuid/$fsuuid"), not the map"
result claimed "sda,sdb"

# 3. Path events keep the links; no usable path makes the map not ready.
mpathctl fail path sda > /dev/null || die "mpathctl fail path sda failed"
udevadm settle
expect "/dev/$dm" MPATH_UNCHANGED 1
expect "/dev/$dm" MPATH_DEVICE_READY 1
expect "/dev/$dm" DM_NOSCAN 1 # not probed again
[ "$(readlink -f "/dev/disk/by-uuid/$fsuuid")" = "/dev/$dm" ] || die "a path event took the by-uuid link"
mpathctl fail path sdb > /dev/null || die "mpathctl fail path sdb failed"
udevadm settle
expect "/dev/$dm" MPATH_DEVICE_READY 0
expect "/dev/$dm" DM_UDEV_DISABLE_OTHER_RULES_FLAG 1
expect "/dev/$dm" DM_NOSCAN 1
[ -e "/dev/disk/by-id/dm-uuid-mpath-$wwid" ] || die "the by-id link went with the last path"
mpathctl is-ready "$map" > /dev/null && die "is-ready says $map is ready with no path"
mpathctl reinstate path sda > /dev/null || die "mpathctl reinstate path sda failed"
mpathctl reinstate path sdb > /dev/null || die "mpathctl reinstate path sdb failed"
udevadm settle
expect "/dev/$dm" MPATH_DEVICE_READY 1
[ "$(prop "/dev/$dm" DM_UDEV_DISABLE_OTHER_RULES_FLAG)" != 1 ] || die "$map stays hidden from other rules"
mpathctl is-ready "$map" > /dev/null || die "is-ready says $map is not ready"
[ "$(readlink -f "/dev/disk/by-uuid/$fsuuid")" = "/dev/$dm" ] || die "the by-uuid link did not come back"

# 4. A reload is the same disk.
mpathctl reload "$map" > /dev/null || die "mpathctl reload failed"
udevadm settle
expect "/dev/$dm" MPATH_UNCHANGED 1
expect "/dev/$dm" DM_SUBSYSTEM_UDEV_FLAG0 1
mpathd_stop

# 5. What each disk's event costs: the rules' helper, the same decision
# by mpathctl, and multipath-tools' own (multipath -u), same device, same
# run, 20 calls each, interleaved; medians. (Under TCG all three are
# mostly program start.) Both of ours say the same.
[ "$(/lib/udev/mpath-udev is-path --export sda)" = "$(mpathctl is-path --export sda)" ] ||
	die "mpath-udev and mpathctl disagree on sda: $(/lib/udev/mpath-udev is-path --export sda)"
helper=() ctl=() theirs=()
for _ in $(seq 20); do
	t0=${EPOCHREALTIME/./}
	/lib/udev/mpath-udev is-path --export sda > /dev/null
	t1=${EPOCHREALTIME/./}
	mpathctl is-path --export sda > /dev/null
	t2=${EPOCHREALTIME/./}
	multipath -u sda > /dev/null 2>&1
	t3=${EPOCHREALTIME/./}
	helper+=($((t1 - t0))) ctl+=($((t2 - t1))) theirs+=($((t3 - t2)))
done
result is_path_us "mpath-udev=$(median "${helper[@]}") mpathctl=$(median "${ctl[@]}") multipath_u=$(median "${theirs[@]}")"

# 6. find_multipaths smart: a lone path is held back, then released for good.
printf 'defaults {\n\tfind_multipaths smart\n\tfind_multipaths_timeout 4\n}\n' > /etc/mpathd/mpathd.conf
mapfile -t sd < <(scsi_debug_paths add_host=1)
udevadm settle
one=${sd[0]}
[ -n "$one" ] || die "no scsi_debug path"
expect "/dev/$one" DM_MULTIPATH_DEVICE_PATH 1
expect "/dev/$one" SYSTEMD_READY 0
until=$(prop "/dev/$one" FIND_MULTIPATHS_WAIT_UNTIL)
[ "${until:-0}" -gt 0 ] || die "$one: no FIND_MULTIPATHS_WAIT_UNTIL"
sleep 5 # the timeout; the lab has no systemd timer to send the change
udevadm trigger --action=change --settle "/dev/$one"
expect "/dev/$one" DM_MULTIPATH_DEVICE_PATH 0
expect "/dev/$one" FIND_MULTIPATHS_WAIT_UNTIL 0
[ "$(prop "/dev/$one" SYSTEMD_READY)" != 0 ] || die "$one was not released to systemd"
udevadm trigger --action=change --settle "/dev/$one"
expect "/dev/$one" DM_MULTIPATH_DEVICE_PATH 0
result smart released

# 7. "nompath" or "multipath=off" on the kernel command line: the rules
# claim nothing (sda is still a path of the map made in 2). udevd reads
# /proc/cmdline at each event, so a file bound over it stands in for a
# reboot with another command line.
for word in nompath multipath=off; do
	echo "$(cat /proc/cmdline) $word" > /tmp/cmdline
	mount --bind /tmp/cmdline /proc/cmdline || die "could not bind a command line over /proc/cmdline"
	udevadm trigger --action=change --settle /dev/sda
	v=$(prop /dev/sda DM_MULTIPATH_DEVICE_PATH) r=$(prop /dev/sda SYSTEMD_READY)
	umount /proc/cmdline
	[ -z "$v" ] && [ "$r" != 0 ] ||
		die "with $word on the command line sda has DM_MULTIPATH_DEVICE_PATH='$v' SYSTEMD_READY='$r'"
done
udevadm trigger --action=change --settle /dev/sda
expect /dev/sda DM_MULTIPATH_DEVICE_PATH 1
result cmdline_off "nompath,multipath=off"

# 8. A reload that changes the size is a changed disk: probed again. Two
# scsi_debug hosts make a map; the LUN grows (virtual_gb) and both paths
# are rescanned; mpathd reloads the map to the new size without the
# reload flag.
modprobe -r scsi_debug || die "scsi_debug did not unload"
udevadm settle
printf 'defaults {\n\tfind_multipaths on\n\tpolling_interval 2\n}\nblacklist {\n\tdevnode "^nvme"\n}\n' \
	> /etc/mpathd/mpathd.conf
mapfile -t sd < <(scsi_debug_paths add_host=2)
[ ${#sd[@]} -eq 2 ] || die "expected two scsi_debug paths, got: ${sd[*]}"
sdwwid=$(wwid_of "${sd[0]}")
mpathd_start
wait_until 30 sh -c "[ -n \"\$(dmsetup info -c --noheadings -o uuid | grep -x 'mpath-$sdwwid')\" ]" ||
	die "mpathd made no map for the scsi_debug pair ($sdwwid)"
sdmap=$(map_of "$sdwwid")
sddm=$(basename "$(readlink -f "/dev/mapper/$sdmap")")
udevadm settle
before=$(blockdev --getsz "/dev/mapper/$sdmap")
# udev's database keeps only the last event of the map, and a reload that
# follows the resize (a path reinstated) rightly carries the reload flag:
# the resize's own event is read as udev sent it.
udevadm monitor --udev --property --subsystem-match=block > /tmp/resize-events &
mon=$!
sleep 1
echo 1 > /sys/bus/pseudo/drivers/scsi_debug/virtual_gb
for d in "${sd[@]}"; do echo 1 > "/sys/block/$d/device/rescan"; done
wait_until 30 sh -c "[ \"\$(blockdev --getsz /dev/mapper/$sdmap)\" = 2097152 ]" ||
	die "$sdmap did not grow to 1 GiB with its paths (it has $(blockdev --getsz "/dev/mapper/$sdmap") sectors, had $before)"
udevadm settle
kill "$mon"
wait "$mon" 2> /dev/null
grep -q "map $sdmap: reloading" "$RESULTS/mpathd.log" || die "mpathd did not say it reloaded $sdmap"
# Each change event of the map: "flagged unchanged noscan" as 0/1.
mapfile -t events < <(awk -v dev="/dev/$sddm" 'BEGIN { RS = "" }
	$0 ~ ("(^|\n)DEVNAME=" dev "(\n|$)") && /(^|\n)ACTION=change(\n|$)/ {
		print (/(^|\n)DM_SUBSYSTEM_UDEV_FLAG0=1(\n|$)/ ? 1 : 0), (/(^|\n)MPATH_UNCHANGED=1(\n|$)/ ? 1 : 0), (/(^|\n)DM_NOSCAN=1(\n|$)/ ? 1 : 0)
	}' /tmp/resize-events)
[ ${#events[@]} -gt 0 ] || die "udev sent no change event for $sddm while $sdmap grew"
printf '%s\n' "${events[@]}" | grep -qx "0 0 0" ||
	die "no change event of $sdmap while it grew went without the reload flag and was probed (flagged unchanged noscan: $(printf '%s; ' "${events[@]}"))"
mpathd_stop
result resize "$before -> 2097152 sectors, probed; map change events (flagged unchanged noscan): $(printf '%s; ' "${events[@]}")"

# 9. skip_kpartx: the LUN gets an MBR with one partition. With skip_kpartx
# yes for its WWID the map's uevents carry DM_SUBSYSTEM_UDEV_FLAG1 and
# kpartx's rules (60-kpartx.rules, as Debian installs them) map no
# partition; without it they map <map>-part1. The same entry's
# max_sectors_kb 64 is written to both paths before the map is made, and
# the map takes it.
dmsetup remove "$sdmap" || die "could not remove $sdmap for the next step"
act=$(printf '%s\n' "${sd[@]}" | active_paths | head -n 1)
[ -n "$act" ] || die "no scsi_debug path serves I/O (${sd[*]})"
printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x08\x00\x00' |
	dd of="/dev/$act" bs=1 seek=446 conv=notrunc,fsync status=none || die "could not write an MBR on $act"
printf '\x55\xaa' | dd of="/dev/$act" bs=1 seek=510 conv=notrunc,fsync status=none ||
	die "could not write an MBR on $act"
blockdev --rereadpt "/dev/$act" || die "the kernel did not reread $act's partitions"
udevadm settle
[ -e "/sys/block/$act/${act}1" ] || die "$act shows no partition of the MBR written on it"
conf='defaults {\n\tfind_multipaths on\n\tpolling_interval 2\n}\nblacklist {\n\tdevnode "^nvme"\n}\n'
kb_before=$(cat "/sys/block/$act/queue/max_sectors_kb")
[ "$kb_before" -gt 64 ] || die "$act's max_sectors_kb is already $kb_before: 64 would show nothing"
printf "$conf"'multipaths {\n\tmultipath {\n\t\twwid %s\n\t\tskip_kpartx yes\n\t\tmax_sectors_kb 64\n\t}\n}\n' \
	"$sdwwid" > /etc/mpathd/mpathd.conf
mpathd_start
wait_until 30 sh -c "[ -n \"\$(dmsetup info -c --noheadings -o uuid | grep -x 'mpath-$sdwwid')\" ]" ||
	die "mpathd made no map for the partitioned scsi_debug pair"
sdmap=$(map_of "$sdwwid")
sddm=$(basename "$(readlink -f "/dev/mapper/$sdmap")")
udevadm settle
expect "/dev/$sddm" DM_SUBSYSTEM_UDEV_FLAG1 1
for d in "${sd[@]}" "$sddm"; do
	kb=$(cat "/sys/block/$d/queue/max_sectors_kb")
	[ "$kb" = 64 ] || die "with max_sectors_kb 64, $d has $kb (it was $kb_before)"
done
result max_sectors_kb "$kb_before -> 64 on ${sd[*]} and $sdmap"
parts=$(dmsetup ls | awk -v m="$sdmap-part" 'index($1, m) == 1 { print $1 }')
[ -z "$parts" ] || die "with skip_kpartx yes, kpartx mapped partitions of $sdmap: $parts"
mpathd_stop
dmsetup remove "$sdmap" || die "could not remove $sdmap"
printf "$conf" > /etc/mpathd/mpathd.conf
mpathd_start
wait_until 30 sh -c "[ -n \"\$(dmsetup info -c --noheadings -o uuid | grep -x 'mpath-$sdwwid')\" ]" ||
	die "mpathd made no map for the partitioned scsi_debug pair without skip_kpartx"
sdmap=$(map_of "$sdwwid")
udevadm settle
wait_until 10 dmsetup info "$sdmap-part1" > /dev/null 2>&1 ||
	die "without skip_kpartx, kpartx's rules mapped no $sdmap-part1 (maps: $(dmsetup ls | tr '\n' ' '))"
mpathd_stop
dmsetup remove "$sdmap-part1"
dmsetup remove "$sdmap"
result skip_kpartx "yes: no partition mapped; no: $sdmap-part1"
