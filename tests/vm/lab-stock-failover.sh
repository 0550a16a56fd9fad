#!/bin/bash
# The harness can really fail a path and see the result: a stock
# dm-multipath map over two scsi_debug paths keeps fio --verify running
# without an error while one path goes offline and comes back.
# lab-timeout: 240
. /lab/lib.sh

mapfile -t paths < <(scsi_debug_paths add_host=3 | active_paths)
[ ${#paths[@]} -eq 2 ] || die "expected 2 scsi_debug paths, got: ${paths[*]}"
a=${paths[0]} b=${paths[1]}
wa=$(/lib/udev/scsi_id -g -u -d "/dev/$a")
wb=$(/lib/udev/scsi_id -g -u -d "/dev/$b")
[ -n "$wa" ] && [ "$wa" = "$wb" ] || die "paths $a ($wa) and $b ($wb) do not share a WWID"
result wwid "$wa"

modprobe dm-multipath && modprobe dm-round-robin || die "cannot load dm-multipath"
size=$(blockdev --getsz "/dev/$a")
table="0 $size multipath 0 0 1 1 round-robin 0 2 1 $(devt "$a") 1 $(devt "$b") 1"
dmsetup create lab-mp --table "$table" || die "dmsetup create failed for: $table"
udevadm settle
dmsetup status lab-mp

fio_verify failover /dev/mapper/lab-mp 24 > "$RESULTS/fio.terse" 2> "$RESULTS/fio.err" &
fio=$!
sleep 4
echo offline > "/sys/block/$a/device/state"
# The next I/O to the offline path fails it in the map.
wait_until 30 sh -c "dmsetup status lab-mp | grep -q '$(devt "$a") F'" ||
	die "path $a was set offline but the map did not fail it: $(dmsetup status lab-mp)"
result failed_status "\"$(dmsetup status lab-mp)\""
sleep 6
echo running > "/sys/block/$a/device/state"
dmsetup message lab-mp 0 reinstate_path "$(devt "$a")" || die "reinstate_path $a failed"
wait_until 10 sh -c "dmsetup status lab-mp | grep -q '$(devt "$a") A'" ||
	die "path $a not active after reinstate: $(dmsetup status lab-mp)"
wait "$fio" || die "fio failed while a path was offline: $(cat "$RESULTS/fio.err")"
# fio's terse v3 line: field 5 is the job's error, 47 KiB written, 49 write IOPS.
errs=$(cut -d';' -f5 "$RESULTS/fio.terse" | head -n 1)
result fio_errors "$errs"
[ "$errs" = 0 ] || die "fio reported error $errs"
result fio_write_kib "$(cut -d';' -f47 "$RESULTS/fio.terse" | head -n 1)"
result fio_write_iops "$(cut -d';' -f49 "$RESULTS/fio.terse" | head -n 1)"
# fio's last close makes udev probe the map once more (its watch): let
# that finish, or the remove meets a map still open.
udevadm settle
dmsetup remove --retry lab-mp || die "cannot remove lab-mp: $(dmsetup info lab-mp)"
