#!/bin/bash
# Records what the stock multipath target prints for a range of tables
# (features, hardware handler, every selector, failed paths, disabled
# groups, queued I/O), so libmpath's table and status parsers are checked
# against the kernel rather than against themselves. Writes, per case,
# <case>.ctor (the table given), <case>.table and <case>.status into
# $RESULTS/<kernel>/; copy them to tests/fixtures/dm/<kernel>/.
# lab-timeout: 240
. /lab/lib.sh

# The lab removes the maps and unloads scsi_debug and scsi_dh_alua after
# each scenario (lab/CONTRACT.md).

modprobe scsi_dh_alua || die "cannot load scsi_dh_alua"
# vpd_use_hostno=0: every host shows the same LUN identity and claims
# implicit ALUA (TPGS), so the alua handler attaches.
mapfile -t paths < <(scsi_debug_paths add_host=4 vpd_use_hostno=0)
[ ${#paths[@]} -eq 4 ] || die "expected 4 scsi_debug paths, got: ${paths[*]}"
A=$(devt "${paths[0]}") B=$(devt "${paths[1]}") C=$(devt "${paths[2]}") D=$(devt "${paths[3]}")
for m in dm-multipath dm-round-robin dm-queue-length dm-service-time \
	dm-historical-service-time dm-io-affinity; do
	modprobe "$m" || echo "note: $m not available" >&2
done
size=$(blockdev --getsz "/dev/${paths[0]}")
out="$RESULTS/$LAB_KERNEL"
mkdir -p "$out"
cases=0

# record NAME PARAMS [dmsetup message ...]...: create fx-NAME, read one
# block so a group becomes active, send the messages, save what the
# kernel prints, remove the map.
record() {
	local name=$1 params=$2 msg
	shift 2
	local table="0 $size multipath $params"
	if ! dmsetup create "fx-$name" --table "$table"; then
		echo "note: the kernel refused case $name: $table" >&2
		return 0
	fi
	udevadm settle
	dd if="/dev/mapper/fx-$name" of=/dev/null bs=4k count=1 iflag=direct status=none ||
		die "case $name: reading the map failed"
	for msg in "$@"; do
		# shellcheck disable=SC2086
		dmsetup message "fx-$name" 0 $msg || die "case $name: message '$msg' failed"
	done
	echo "$table" > "$out/$name.ctor"
	dmsetup table "fx-$name" > "$out/$name.table"
	dmsetup status "fx-$name" > "$out/$name.status"
	# udev may still be probing the new map: let it finish, and retry.
	udevadm settle
	dmsetup remove --retry "fx-$name" || die "case $name: remove failed"
	cases=$((cases + 1))
}

record rr-two-groups-failed-path \
	"1 queue_if_no_path 0 2 1 round-robin 0 2 1 $A 1 $B 1 round-robin 0 2 1 $C 1 $D 1" \
	"fail_path $B"
record rr-default-repeat \
	"0 0 1 1 round-robin 0 4 0 $A $B $C $D"
record ql-two-groups-failed-path \
	"0 0 2 2 queue-length 0 2 1 $A 1 $B 1 queue-length 0 2 1 $C 1 $D 1" \
	"fail_path $C"
record st-two-groups-pg-init-retries \
	"2 pg_init_retries 50 0 2 1 service-time 0 2 2 $A 1 1 $B 1 3 service-time 0 2 2 $C 1 1 $D 1 1" \
	"fail_path $A"
record st-alua \
	"1 queue_if_no_path 1 alua 2 1 service-time 0 2 2 $A 1 1 $B 1 1 service-time 0 2 2 $C 1 1 $D 1 1"
record rr-alua-switch-group \
	"0 1 alua 2 1 round-robin 0 2 1 $A 1 $B 1 round-robin 0 2 1 $C 1 $D 1" \
	"switch_group 2"
record rr-disabled-group \
	"0 0 2 1 round-robin 0 2 1 $A 1 $B 1 round-robin 0 2 1 $C 1 $D 1" \
	"disable_group 2"
record all-features \
	"6 queue_if_no_path pg_init_retries 3 pg_init_delay_msecs 100 retain_attached_hw_handler 0 1 1 round-robin 0 2 1 $A 1 $B 1"
record queue-mode-bio \
	"3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 $A 1 $B 1"
record hst-one-group \
	"0 0 1 1 historical-service-time 0 4 1 $A 1 $B 1 $C 1 $D 1"
record io-affinity \
	"0 0 1 1 io-affinity 0 2 1 $A 1 $B 2"
record many-failures \
	"0 0 1 1 queue-length 0 4 1 $A 1 $B 1 $C 1 $D 1" \
	"fail_path $A" "reinstate_path $A" "fail_path $A" "fail_path $D"

# Every path failed under queue_if_no_path with a reader waiting: the
# I/O is held, yet the INFO line's queue count stays 0 (it counts I/O
# held for pg_init only).
table="0 $size multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1"
dmsetup create fx-queueing --table "$table" || die "cannot create fx-queueing"
udevadm settle
dmsetup message fx-queueing 0 fail_path "$A"
dmsetup message fx-queueing 0 fail_path "$B"
dd if=/dev/mapper/fx-queueing of=/dev/null bs=4k count=1 iflag=direct status=none &
reader=$!
sleep 2
kill -0 "$reader" 2>/dev/null || die "the read did not wait with every path failed"
echo "$table" > "$out/queueing.ctor"
dmsetup table fx-queueing > "$out/queueing.table"
dmsetup status fx-queueing > "$out/queueing.status"
dmsetup message fx-queueing 0 fail_if_no_path
wait "$reader" && die "the queued read should fail once queueing stops"
udevadm settle
dmsetup remove --retry fx-queueing || die "cannot remove fx-queueing"
cases=$((cases + 1))

result cases "$cases"
result kernel "$(uname -r)"
