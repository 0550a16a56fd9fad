#!/bin/bash
# lab-timeout: 180
# Drop-in: with alias_multipath=1 and stock dm-multipath not loaded,
# Debian's multipathd assembles a map over scsi_debug paths on lmpath and
# fails over when a path goes offline, then takes it back. The alias
# parameter says whether the alias is registered, and dm-lmpath-dkms'
# modprobe.d file loads dm-lmpath for dm_multipath, falling back to the
# stock module.
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-lib.sh"

for m in dm_round_robin dm_queue_length dm_service_time dm_historical_service_time \
	dm_io_affinity dm_multipath; do
	grep -q "^$m " /proc/modules && modprobe -r "$m"
done
grep -q '^dm_multipath ' /proc/modules && die "stock dm-multipath is loaded and busy"
modprobe dm-lmpath alias_multipath=1 || die "cannot load dm-lmpath alias_multipath=1"
dmsetup targets | tee "$RESULTS/targets.txt"
dmsetup targets | grep -q '^multipath ' || lm_fail "no multipath target registered by the alias"
[ "$(cat /sys/module/dm_lmpath/parameters/alias_multipath)" = Y ] ||
	lm_fail "alias_multipath does not read Y while the alias is registered"

lm_scsi_debug 2

mkdir -p /etc/multipath
cat >/etc/multipath.conf <<'EOF'
defaults {
	polling_interval 1
	max_polling_interval 2
	find_multipaths no
	user_friendly_names no
	no_path_retry fail
}
blacklist {
	devnode "^(nvme|vd|sr|loop|ram|nullb)"
	device {
		vendor "QEMU"
		product ".*"
	}
}
EOF
multipathd -d -s -v3 >"$RESULTS/multipathd.log" 2>&1 &
mpd=$!
cleanup() {
	kill "$mpd" 2>/dev/null
	wait "$mpd" 2>/dev/null
}
trap cleanup EXIT

wwid=$(/lib/udev/scsi_id -g -u "/dev/${LM_PATHS[0]}")
map=
for i in $(seq 1 60); do
	map=$(dmsetup ls --target multipath 2>/dev/null | awk '$1 != "No" {print $1; exit}')
	[ -n "$map" ] && dmsetup table "$map" | grep -q "${LM_DEVS[1]}" &&
		dmsetup table "$map" | grep -q "${LM_DEVS[0]}" && break
	sleep 0.5
done
[ -n "$map" ] || die "multipathd assembled no map (see multipathd.log)"
result map "$map"
result wwid "$wwid"
dmsetup table "$map" | tee "$RESULTS/table.txt"
grep -q '^dm_multipath ' /proc/modules && lm_fail "stock dm-multipath got loaded"
refs=$(cat /sys/module/dm_lmpath/refcnt)
result lmpath_refcnt "$refs"
[ "$refs" -ge 1 ] || lm_fail "the map does not hold dm-lmpath"
multipath -ll >"$RESULTS/multipath-ll-before.txt" 2>&1

# fail over: I/O keeps going while multipathd's checker fails the path
lm_fio_start dropin "/dev/mapper/$map" 12
sleep 2
echo offline >"/sys/block/${LM_PATHS[0]}/device/state"
failed=no
for i in $(seq 1 40); do
	dmsetup status "$map" | grep -q "${LM_DEVS[0]} F" && failed=yes && break
	sleep 0.25
done
result path_failed "$failed"
[ "$failed" = yes ] || lm_fail "offline path never shown failed"
multipath -ll >"$RESULTS/multipath-ll-offline.txt" 2>&1
echo running >"/sys/block/${LM_PATHS[0]}/device/state"
back=no
for i in $(seq 1 40); do
	dmsetup status "$map" | grep -q "${LM_DEVS[0]} A" && back=yes && break
	sleep 0.25
done
result path_reinstated_by_multipathd "$back"
[ "$back" = yes ] || lm_fail "multipathd did not reinstate the path"
lm_fio_wait dropin || lm_fail "fio saw errors across the failover"

cleanup
trap - EXIT
multipath -F >/dev/null 2>&1
lm_unload

# The stock module first: dm-lmpath cannot take the name, and its
# parameter says so (mpathd reads it to name its maps' target).
modprobe dm-multipath || lm_fail "cannot load dm-multipath"
modprobe dm-lmpath alias_multipath=1 || lm_fail "cannot load dm-lmpath after dm-multipath"
result alias_after_stock "$(cat /sys/module/dm_lmpath/parameters/alias_multipath)"
[ "$(cat /sys/module/dm_lmpath/parameters/alias_multipath)" = N ] ||
	lm_fail "alias_multipath reads Y while dm-multipath owns the name"
modprobe -r dm_lmpath dm_multipath || lm_fail "cannot unload dm-lmpath and dm-multipath"

# dm-lmpath-dkms' modprobe.d file: a load of dm_multipath (modules-load.d,
# the initramfs, the kernel asking for a table's target) loads dm-lmpath
# under the name multipath, and the stock module only when dm-lmpath
# cannot load.
mkdir -p /etc/modprobe.d
cp "${LAB_SRC:-/src}/packaging/dm-lmpath-dkms/modprobe.conf" /etc/modprobe.d/dm-lmpath.conf
modprobe dm_multipath || lm_fail "modprobe dm_multipath failed with the modprobe.d file"
loaded="lmpath=$(cat /sys/module/dm_lmpath/parameters/alias_multipath 2>/dev/null || echo no) stock=$([ -e /sys/module/dm_multipath ] && echo yes || echo no)"
result modprobe_d_load "$loaded"
[ "$loaded" = "lmpath=Y stock=no" ] || lm_fail "modprobe dm_multipath with the modprobe.d file loaded: $loaded"
modprobe -r dm_lmpath || lm_fail "dm-lmpath did not unload"
# With no target module loaded, a table that names "multipath" makes the
# kernel ask for dm-multipath: dm-lmpath comes, and serves it.
dmsetup create lab-alias --table "0 $(blockdev --getsz "/dev/${LM_PATHS[0]}") multipath 0 0 1 1 round-robin 0 1 1 ${LM_DEVS[0]} 1" ||
	lm_fail "a multipath table does not load on the alias"
loaded="lmpath=$(cat /sys/module/dm_lmpath/parameters/alias_multipath 2>/dev/null || echo no) stock=$([ -e /sys/module/dm_multipath ] && echo yes || echo no)"
result modprobe_d_table "$loaded"
[ "$loaded" = "lmpath=Y stock=no" ] || lm_fail "a multipath table loaded: $loaded"
[ "$(cat /sys/module/dm_lmpath/refcnt 2>/dev/null)" -ge 1 ] 2>/dev/null || lm_fail "the multipath map does not hold dm-lmpath"
dmsetup remove --retry lab-alias || lm_fail "cannot remove lab-alias"
modprobe -r dm_lmpath || lm_fail "dm-lmpath did not unload"
# dm-lmpath cannot load (as on a kernel DKMS did not build it for): the
# stock module serves.
echo "install dm_lmpath /bin/false" > /etc/modprobe.d/zz-lab-no-lmpath.conf
modprobe dm_multipath || lm_fail "modprobe dm_multipath did not fall back to the stock module"
loaded="lmpath=$([ -e /sys/module/dm_lmpath ] && echo yes || echo no) stock=$([ -e /sys/module/dm_multipath ] && echo yes || echo no)"
result modprobe_d_fallback "$loaded"
[ "$loaded" = "lmpath=no stock=yes" ] || lm_fail "the fallback loaded: $loaded"
rm -f /etc/modprobe.d/zz-lab-no-lmpath.conf /etc/modprobe.d/dm-lmpath.conf
modprobe -r dm_multipath || lm_fail "dm-multipath did not unload"
lm_remove_all
lm_finish
