#!/bin/bash
# lab-timeout: 300
# Captures what libmpath's Discovery reads -- the small sysfs attribute
# files along the real paths, the block/ and device links, transport
# class entries, and each device's udev properties -- for scsi_debug,
# virtio-scsi and NVMe paths. Each kind becomes $RESULTS/<kind>.tar
# holding sys/ (a sysfs root), udev/<name> (udevadm properties) and
# expected/<name>.scsi_id (scsi_id's own answer, to check the VPD 0x83
# fallback against); a tar keeps the tree's symlinks as they are.
# tests/fixtures/sysfs/<kind>/ holds an unpacked copy.
. /lab/lib.sh

# Attributes Discovery and the prioritizers read, on the block device and
# on what its device link points to (SCSI device or NVMe controller).
block_attrs="dev size wwid uuid nguid eui nsid ana_state ana_grpid serial"
device_attrs="vendor model rev state vpd_pg83 vpd_pg80 access_state preferred_path wwid
	serial firmware_rev transport subsysnqn cntlid address"

# save KIND RELDIR ATTR...: copy attribute files of /sys/RELDIR that exist
# and can be read.
save() {
	local kind=$1 rel=$2 a
	shift 2
	for a in $*; do
		[ -f "/sys/$rel/$a" ] || continue
		mkdir -p "$RESULTS/$kind/sys/$rel"
		cat "/sys/$rel/$a" > "$RESULTS/$kind/sys/$rel/$a" 2>/dev/null ||
			rm -f "$RESULTS/$kind/sys/$rel/$a"
	done
}

# link KIND LINK TARGET: a relative symlink at sys/LINK to sys/TARGET.
link() {
	local kind=$1 at=$2 to=$3 up="" d
	d=$(dirname "$at")
	while [ "$d" != "." ]; do
		up="../$up"
		d=$(dirname "$d")
	done
	mkdir -p "$RESULTS/$kind/sys/$(dirname "$at")"
	ln -sfn "$up$to" "$RESULTS/$kind/sys/$at"
}

scsi_id_bin=$(command -v scsi_id || ls /usr/lib/udev/scsi_id /lib/udev/scsi_id 2>/dev/null | head -n1)

# capture KIND NAME
capture() {
	local kind=$1 name=$2 blk dev c
	blk=$(readlink -f "/sys/block/$name")
	blk=${blk#/sys/}
	save "$kind" "$blk" $block_attrs
	link "$kind" "block/$name" "$blk"
	if [ -e "/sys/block/$name/device" ]; then
		dev=$(readlink -f "/sys/block/$name/device")
		dev=${dev#/sys/}
		save "$kind" "$dev" $device_attrs
		link "$kind" "$blk/device" "$dev"
		for c in ${dev//\// }; do
			case $c in
			host[0-9]*)
				if [ -d "/sys/class/fc_host/$c" ]; then
					save "$kind" "class/fc_host/$c" node_name port_name
				fi
				if [ -d "/sys/class/sas_host/$c" ]; then
					mkdir -p "$RESULTS/$kind/sys/class/sas_host/$c"
				fi
				;;
			session[0-9]*) save "$kind" "class/iscsi_session/$c" targetname ;;
			target[0-9]*) save "$kind" "class/fc_transport/$c" node_name port_name ;;
			end_device-*) save "$kind" "class/sas_device/$c" sas_address ;;
			esac
		done
	fi
	mkdir -p "$RESULTS/$kind/udev" "$RESULTS/$kind/expected"
	udevadm info --query=property --name="/dev/$name" > "$RESULTS/$kind/udev/$name"
	if [ -n "$scsi_id_bin" ] && [ "${name#sd}" != "$name" ]; then
		"$scsi_id_bin" --export --whitelisted -d "/dev/$name" \
			> "$RESULTS/$kind/expected/$name.scsi_id" || true
	fi
	echo "captured $kind/$name: $(grep -E '^ID_(SERIAL|WWN)=' "$RESULTS/$kind/udev/$name" | tr '\n' ' ')"
}

# scsi_dh_alua first, so scsi_debug's disks show access_state when they
# offer ALUA. vpd_use_hostno=0: both hosts present the same LUN identity,
# i.e. two paths to one WWID (scsi_debug's default makes them distinct).
modprobe scsi_dh_alua || true
mapfile -t sdebug < <(scsi_debug_paths vpd_use_hostno=0)
[ "${#sdebug[@]}" -ge 2 ] || die "expected two scsi_debug paths, got ${#sdebug[@]}"
wait_until 30 test -e "/dev/${sdebug[1]}" || die "no device node for ${sdebug[1]}"
udevadm settle --timeout=30

n=0
for name in "${sdebug[@]}"; do
	capture scsi_debug "$name"
	n=$((n + 1))
done
result scsi_debug_paths "$n"

n=0
for b in /sys/block/sd*; do
	name=${b##*/}
	readlink -f "$b/device" | grep -q virtio || continue
	capture virtio_scsi "$name"
	vscsi=$name
	n=$((n + 1))
done
result virtio_scsi_paths "$n"
[ "$n" -ge 2 ] || die "expected two virtio-scsi paths, found $n"

n=0
for b in /sys/block/nvme*n*; do
	name=${b##*/}
	case $name in nvme*c*n*) continue ;; esac
	capture nvme "$name"
	n=$((n + 1))
done
result nvme_paths "$n"
[ "$n" -ge 2 ] || die "expected two NVMe paths, found $n"

# The library's live tests (real /sys, SG_IO, NVMe admin commands, direct
# reads), with every input they need: none may skip. The libdevmapper
# adapter has its own scenario, libmpath-dm-contract.
if command -v libmpath_tests >/dev/null; then
	live=/tmp/libmpath-live-udev
	mkdir -p "$live"
	for b in /sys/block/*; do
		udevadm info --query=property --name="/dev/${b##*/}" > "$live/${b##*/}" 2>/dev/null ||
			rm -f "$live/${b##*/}"
	done
	MPATH_LIVE_UDEV_DIR=$live MPATH_LIVE_SCSI_DEVICE=${sdebug[0]} MPATH_LIVE_READ_DEVICE=$vscsi \
		MPATH_LIVE_NVME_DEVICE=nvme0n1 \
		libmpath_tests --gtest_filter='LiveSystem.*' 2>&1 | tee "$RESULTS/live-tests.log"
	rc=${PIPESTATUS[0]}
	grep -q 'RUN .*LiveSystem' "$RESULTS/live-tests.log" || die "libmpath_tests ran no live test"
	result live_tests "$([ "$rc" = 0 ] && echo pass || echo fail)"
	[ "$rc" = 0 ] || die "libmpath live tests failed"
	# Every input they need is set here: a skip is a failure.
	! grep -q '^\[  SKIPPED \]' "$RESULTS/live-tests.log" ||
		die "libmpath live tests skipped here: $(grep '^\[  SKIPPED \]' "$RESULTS/live-tests.log" | tr '\n' ' ')"
else
	die "libmpath_tests is not on PATH: the live tests cannot run"
fi

for kind in scsi_debug virtio_scsi nvme; do
	tar -C "$RESULTS/$kind" -cf "$RESULTS/$kind.tar" . || die "cannot pack $kind"
	rm -rf "${RESULTS:?}/$kind"
done
modprobe -r scsi_debug || true
true
