# shellcheck shell=bash
# Shared by the guest sides of bench/datapath (datapath-guest.sh and
# datapath-insn-guest.sh), after tests/vm/data/lmpath-lib.sh.

# datapath_maps: two null_blk devices (no device latency: the target's own
# cost) in LM_DEVS, their size in LM_SECTORS, and one two-path map over
# them for each of TARGETS x MODES x SELECTORS, named
# bm-<target>-<mode>-<selector>. Sets configs to raw and those names.
datapath_maps() {
	local target mode sel feat name
	modprobe null_blk nr_devices=2 queue_mode=2 irqmode=0 gb=16 hw_queue_depth=128 ||
		die "cannot load null_blk"
	udevadm settle --timeout=30
	LM_DEVS=("$(cat /sys/block/nullb0/dev)" "$(cat /sys/block/nullb1/dev)")
	# shellcheck disable=SC2034 # read by lm_create
	LM_SECTORS=$(blockdev --getsz /dev/nullb0)
	configs=(raw)
	for target in $TARGETS; do
		for mode in $MODES; do
			for sel in $SELECTORS; do
				feat=0
				[ "$mode" = bio ] && feat="2 queue_mode bio"
				name=$target-$mode-$sel
				lm_create "bm-$name" "$target" \
					"$feat 0 1 1 $sel 0 2 0 ${LM_DEVS[0]} ${LM_DEVS[1]}" ||
					die "cannot create $name"
				configs+=("$name")
			done
		done
	done
	udevadm settle --timeout=30
}
