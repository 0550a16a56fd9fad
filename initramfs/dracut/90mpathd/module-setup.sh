#!/bin/bash
# dracut module: mpathd in the initramfs, like the initramfs-tools hook.

check() {
	require_binaries mpathd mpathctl || return 1
	# Host-only images carry it when the host has a multipath map.
	if [[ $hostonly ]]; then
		local u
		for u in /sys/block/dm-*/dm/uuid; do
			[[ -r $u && $(< "$u") == mpath-* ]] && return 0
		done
		return 255
	fi
	return 0
}

depends() {
	echo rootfs-block dm
	return 0
}

installkernel() {
	hostonly='' instmods dm-lmpath dm-multipath dm-round-robin dm-queue-length dm-service-time \
		dm-historical-service-time scsi_dh_alua scsi_dh_emc scsi_dh_rdac scsi_dh_hp_sw sg
}

install() {
	inst_multiple mpathd mpathctl partx "$udevdir/mpath-udev"
	inst_multiple -o kpartx /lib/udev/kpartx_id
	inst_rules 56-dm-mpath.rules 60-multipath.rules 56-dm-parts.rules 60-kpartx.rules
	inst_multiple -o /etc/multipath.conf /etc/multipath/wwids /etc/multipath/bindings
	local d
	for d in /etc/multipath/conf.d /etc/mpathd; do
		[[ -d $d ]] && inst_multiple -o "$d"/*
	done
	inst_hook pre-trigger 30 "$moddir/mpathd-start.sh"
	inst_hook cleanup 80 "$moddir/mpathd-stop.sh"
}
