#!/bin/bash
# The device-mapper contract suite (tests/unit/dm/device_mapper_contract_test.cpp)
# against libdevmapper on this kernel, on two scsi_debug paths of one LUN,
# for the stock multipath target and for lmpath: the same expectations the
# fake device-mapper meets in the unit tests, and calls from many threads
# at once. No test may skip here.
# lab-timeout: 240
. /lab/lib.sh

command -v libmpath_tests >/dev/null || die "libmpath_tests is not on PATH"
cleanup() {
	local m
	for m in $(dmsetup ls 2>/dev/null | awk '{print $1}' | grep '^mpath-contract-'); do
		dmsetup remove --force "$m" 2>/dev/null
	done
	udevadm settle
	modprobe -r scsi_debug 2>/dev/null
	true
}
trap cleanup EXIT

mapfile -t sd < <(scsi_debug_paths)
[ ${#sd[@]} -eq 2 ] || die "expected 2 scsi_debug paths, got: ${sd[*]}"
modprobe dm-multipath && modprobe dm-round-robin || die "cannot load dm-multipath"
load_lmpath
export MPATH_DM_CONTRACT_PATHS="$(devt "${sd[0]}") $(devt "${sd[1]}")"
export MPATH_DM_CONTRACT_SIZE=$(blockdev --getsz "/dev/${sd[0]}")

for target in multipath lmpath; do
	export MPATH_DM_CONTRACT_TARGET=$target
	log="$RESULTS/contract-$target.log"
	libmpath_tests --gtest_filter='Backends/DeviceMapperContract.*/libdevmapper' 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	grep -q '\[  SKIPPED \]' "$log" && die "$target: a contract test skipped"
	# libdevmapper doing udev's work (device nodes) means calls got mixed up.
	grep -E 'Falling back|should have been' "$log" &&
		die "$target: libdevmapper saw udev's node work undone"
	n=$(grep -c '^\[       OK \]' "$log")
	[ "$rc" -eq 0 ] || die "$target: the contract suite failed"
	[ "$n" -ge 12 ] || die "$target: only $n contract tests ran"
	result "${target}_contract_tests" "$n"
done
