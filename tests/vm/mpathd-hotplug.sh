#!/bin/bash
# mpathd while paths come and go on a real kernel with real udevd:
# - maps carry udev's exact WWID, so the udev rules of Debian's
#   multipath-tools (installed, not running) leave their paths alone;
# - scsi_debug hosts added while the daemon runs join the existing map;
# - a virtio-scsi path whose I/O hangs at the host (no error, no answer)
#   is failed when its check times out and I/O moves to the other path;
#   released, it is reinstated; fio --verify sees no error;
# - a virtio-scsi path unplugged by the host under fio leaves the map and
#   joins it again when plugged back, without an I/O error;
# - the last path of a map removed: the map goes; an open map goes at its
#   last close (deferred), or under deferred_remove no stays without paths
#   until a reconfigure finds it closed.
# lab-timeout: 480
# check-kernels: 6.1
. /lab/lib.sh

command -v mpathd >/dev/null || die "mpathd is not on PATH"
mapfile -t sd < <(scsi_debug_paths add_host=2)
[ ${#sd[@]} -eq 2 ] || die "expected two scsi_debug paths, got: ${sd[*]}"
sdwwid=$(wwid_of "${sd[0]}")
vwwid=$(wwid_of sda)
mkdir -p /etc/mpathd
cat > /etc/mpathd/mpathd.conf <<'CONF'
defaults {
	find_multipaths on
	polling_interval 2
	max_polling_interval 4
	path_grouping_policy group_by_prio
	no_path_retry queue
}
devices {
	# The check reads the disk, so a path whose I/O hangs is seen.
	device {
		vendor "QEMU"
		product "QEMU HARDDISK"
		path_checker directio
	}
}
CONF

udevadm monitor --kernel --property --subsystem-match=block > "$RESULTS/uevents.txt" 2>&1 &
mon=$!
hung=
trap 'kill $mon 2>/dev/null; [ -z "$hung" ] || host_resume "$hung" > /dev/null' EXIT
mpathd_start
map=$(map_of "$sdwwid")
vmap=$(map_of "$vwwid")
[ -n "$map" ] && [ -n "$vmap" ] || die "maps missing: $(dmsetup ls --target lmpath)"

# Sum of the paths of MAP in its table.
npaths() { dmsetup table "$1" | grep -oE ' [0-9]+:[0-9]+ ' | wc -l; }
# The path device of virtio-scsi disk vdiskN (host N, probed first).
virtio_path() {
	local d
	for d in /sys/block/sd*; do
		readlink -f "$d" | grep -q "/virtio.*/host$1/" && basename "$d"
	done
}

# 1. multipath-tools' rules: a change event on every map runs its
# "multipath -U" check; a path whose WWID differs from the map's uuid would
# be failed. None is.
rules=$(ls /lib/udev/rules.d/*dm-mpath*.rules 2>/dev/null | head -n 1)
[ -n "$rules" ] || die "multipath-tools' udev rules are not installed in the guest"
for m in $(dmsetup ls --target lmpath | cut -f1); do
	udevadm trigger --action=change "/dev/mapper/$m"
done
udevadm settle --timeout=30
sleep 2
for m in $(dmsetup ls --target lmpath | cut -f1); do
	dmsetup status "$m" | grep -qE ' [0-9]+:[0-9]+ F ' &&
		die "a path of $m was failed after multipath-tools' rules ran: $(dmsetup status "$m")"
done
result multipath_tools_rules "$(basename "$rules") leaves the paths active"

# 2. Hot-add: two more scsi_debug hosts join the map.
reloads0=$(grep -c "map $map: reloading" "$RESULTS/mpathd.log" || true)
t0=${EPOCHREALTIME/./}
echo 2 > /sys/bus/pseudo/drivers/scsi_debug/add_host
wait_until 60 sh -c "[ \$(dmsetup table '$map' | grep -oE ' [0-9]+:[0-9]+ ' | wc -l) -eq 4 ]" ||
	die "added paths did not join $map: $(dmsetup table "$map")"
result hot_add_ms $(((${EPOCHREALTIME/./} - t0) / 1000))
udevadm settle --timeout=30
t1=${EPOCHREALTIME/./}
result hot_add_udev_settle_ms $(((t1 - t0) / 1000))
sleep 3
reloads=$(($(grep -c "map $map: reloading" "$RESULTS/mpathd.log" || true) - reloads0))
result hot_add_reloads "$reloads"
[ "$reloads" -ge 1 ] && [ "$reloads" -le 2 ] ||
	die "adding 2 paths reloaded $map $reloads times: $(grep reloading "$RESULTS/mpathd.log")"

# 3. A path whose I/O hangs.
p0=$(virtio_path 0)
p1=$(virtio_path 1)
[ -n "$p0" ] && [ -n "$p1" ] || die "virtio paths not found ($p0, $p1)"
d0=$(devt "$p0")
fio_verify hang "/dev/mapper/$vmap" 45 > "$RESULTS/fio-hang.log" 2>&1 &
fio=$!
sleep 4
hung=vdisk0
host_hang vdisk0 > "$RESULTS/hang.reply" || die "host could not hold vdisk0's I/O: $(cat "$RESULTS/hang.reply")"
t0=${EPOCHREALTIME/./}
wait_until 20 sh -c "[ \"\$(dmsetup status '$vmap' | awk -v d='$d0' '{for (i=1;i<NF;i++) if (\$i==d) print \$(i+1)}')\" = F ]" ||
	die "hung $p0 was not failed: $(dmsetup status "$vmap"); $(tail -n 5 "$RESULTS/mpathd.log")"
fail_ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
result hung_path_failed_ms "$fail_ms"
# Within max_polling_interval (4 s, a steady path's interval) plus the
# check deadline (polling_interval, 2 s), and 2 s of slack.
[ "$fail_ms" -le 8000 ] || die "the hung path took ${fail_ms} ms to fail"
grep -q "path $p0: .*timed out\|path $p0: .*timeout" "$RESULTS/mpathd.log" ||
	die "the log does not say $p0's check timed out: $(grep "$p0" "$RESULTS/mpathd.log" | tail -n 3)"
# The hang is real: requests sit unanswered on the hung path ...
held=$(awk '{print $1 + $2}' "/sys/block/$p0/inflight")
result requests_held_on_hung_path "$held"
[ "$held" -gt 0 ] || die "no request is held on $p0: the hang did not take"
# ... while new I/O completes on the other path: 1 MiB written past fio's
# region and read back. (fio itself may wait: its verify backlog drains
# every request in flight, held ones included.) At offsets, by pwrite and
# pread, as applications do I/O, not after a seek: a seek takes the map's
# inode lock exclusively, and a buffered reader whose read went to vdisk0
# just before it hung (blkid, probing when udev's watch saw fio close the
# map) holds that lock shared until its read ends (the 6.1 and 6.12
# kernels lock buffered block device reads), so a seek would wait for the
# hung path.
w0=$(awk '{print $5}' "/sys/block/$p1/stat")
t0=${EPOCHREALTIME/./}
timeout 30 fio --name=during-hang --filename="/dev/mapper/$vmap" --rw=write --bs=4k \
	--direct=1 --ioengine=psync --offset=32m --size=1m --invalidate=0 --fadvise_hint=0 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --output-format=terse \
	> "$RESULTS/fio-during-hang.log" 2>&1 ||
	die "1 MiB written to $vmap and read back did not complete (or differed) while $p0 hung: $(tail -n 3 "$RESULTS/fio-during-hang.log")"
result io_during_hang_ms $(((${EPOCHREALTIME/./} - t0) / 1000))
w1=$(awk '{print $5}' "/sys/block/$p1/stat")
result writes_on_other_path $((w1 - w0))
[ $((w1 - w0)) -ge 256 ] || die "the writes did not go to $p1 ($((w1 - w0)) completed there)"
[ "$(awk '{print $1 + $2}' "/sys/block/$p0/inflight")" -gt 0 ] ||
	die "the requests held on $p0 completed before the host released them"
# The daemon kept its loop: another map's check still runs.
kill -0 "$MPATHD_PID" || die "mpathd died while a path hung"
host_resume vdisk0 > "$RESULTS/resume.reply" || die "host could not release vdisk0: $(cat "$RESULTS/resume.reply")"
hung=
t0=${EPOCHREALTIME/./}
wait_until 30 sh -c "[ \"\$(dmsetup status '$vmap' | awk -v d='$d0' '{for (i=1;i<NF;i++) if (\$i==d) print \$(i+1)}')\" = A ]" ||
	die "$p0 was not reinstated after its I/O was released: $(dmsetup status "$vmap")"
result released_path_reinstated_ms $(((${EPOCHREALTIME/./} - t0) / 1000))
wait "$fio" || die "fio failed across the hang: $(tail -n 20 "$RESULTS/fio-hang.log")"
result fio_hang errors=0

# 4. Host-side unplug under fio, then plug back.
fio_verify unplug "/dev/mapper/$vmap" 40 > "$RESULTS/fio-unplug.log" 2>&1 &
fio=$!
sleep 4
host_unplug vdisk1 > "$RESULTS/unplug.reply" || die "host could not unplug vdisk1: $(cat "$RESULTS/unplug.reply")"
wait_until 30 sh -c "[ \$(dmsetup table '$vmap' | grep -oE ' [0-9]+:[0-9]+ ' | wc -l) -eq 1 ]" ||
	die "$p1 stayed in $vmap after the host unplugged it: $(dmsetup table "$vmap")"
result unplugged_path_left_map ok
sleep 3
host_replug vdisk1 > "$RESULTS/replug.reply" || die "host could not plug vdisk1 back: $(cat "$RESULTS/replug.reply")"
t0=${EPOCHREALTIME/./}
wait_until 60 sh -c "[ \$(dmsetup table '$vmap' | grep -oE ' [0-9]+:[0-9]+ ' | wc -l) -eq 2 ]" ||
	die "the replugged disk did not join $vmap: $(dmsetup table "$vmap")"
result replugged_path_joined_ms $(((${EPOCHREALTIME/./} - t0) / 1000))
wait "$fio" || die "fio failed across unplug and replug: $(tail -n 20 "$RESULTS/fio-unplug.log")"
result fio_unplug errors=0

# 5. The last path of a map removed: the map goes with it. An open map
# goes at its last close.
delete_paths_of() {
	local d
	for d in $(dmsetup deps -o devname "$1" | grep -oE 'sd[a-z]+'); do
		echo 1 > "/sys/block/$d/device/delete"
	done
}
exec 3< "/dev/mapper/$map"
delete_paths_of "$map"
wait_until 30 grep -q "$map.*deferred\|deferred.*$map" "$RESULTS/mpathd.log" ||
	die "no deferred removal of the open map $map: $(tail -n 5 "$RESULTS/mpathd.log")"
dmsetup info "$map" > /dev/null 2>&1 || die "$map went while open"
exec 3<&-
wait_until 20 sh -c "! dmsetup info '$map' > /dev/null 2>&1" || die "$map stayed after its last close"
result open_map_removed_at_close ok
dmsetup info "$vmap" > /dev/null 2>&1 || die "$vmap went with the other map"
# deferred_remove no (multipathd's default): the open map is kept without
# paths, no removal waits for its last close; closed, the next pass of
# its WWID (here a reconfigure) removes it.
printf 'multipaths {\n\tmultipath {\n\t\twwid "%s"\n\t\tdeferred_remove no\n\t}\n}\n' \
	"$vwwid" >> /etc/mpathd/mpathd.conf
mpathctl reconfigure > "$RESULTS/reconfigure.txt" 2>&1 || die "reconfigure: $(cat "$RESULTS/reconfigure.txt")"
exec 4< "/dev/mapper/$vmap"
echo 1 > "/sys/block/$(virtio_path 0)/device/delete"
p1=$(virtio_path 1)
echo 1 > "/sys/block/$p1/device/delete"
wait_until 30 grep -q "$vmap.*kept without paths (deferred_remove no)" "$RESULTS/mpathd.log" ||
	die "the open map $vmap was not kept: $(tail -n 5 "$RESULTS/mpathd.log")"
dmsetup info "$vmap" > "$RESULTS/kept-map.txt" 2>&1 || die "$vmap went while open"
grep -q "DEFERRED REMOVE" "$RESULTS/kept-map.txt" && die "$vmap's removal was deferred: $(cat "$RESULTS/kept-map.txt")"
exec 4<&-
sleep 3
dmsetup info "$vmap" > /dev/null 2>&1 || die "$vmap went at its last close under deferred_remove no"
result open_map_kept_without_paths ok
mpathctl reconfigure > "$RESULTS/reconfigure.txt" 2>&1 || die "reconfigure: $(cat "$RESULTS/reconfigure.txt")"
wait_until 30 sh -c "! dmsetup info '$vmap' > /dev/null 2>&1" || die "$vmap stayed without paths after a reconfigure"
result last_path_removed_map_gone ok
kill -0 "$MPATHD_PID" || die "mpathd died"
mpathd_stop TERM
