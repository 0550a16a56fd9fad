#!/bin/bash
# ALUA priorities and group order, mpathctl plan against Debian's
# multipath-tools on the same devices: scsi_debug with two hosts and two
# LUNs (vpd_use_hostno=0 gives each LUN one identity and each host's port
# an ALUA state: N % 3 for host N, so one port group per LUN is standby and
# one active/optimized or non-optimized). First without scsi_dh_alua (the
# alua prioritizer asks the device with REPORT TARGET PORT GROUPS), then
# with it (detect_prio picks sysfs access_state). Both tools read the same
# /etc/multipath.conf; every map's paths, in group order, with their
# priorities must be the same.
# lab-timeout: 300
. /lab/lib.sh

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
command -v multipath >/dev/null || die "Debian's multipath is not in the guest"

saved=$(mktemp)
cp /etc/multipath.conf "$saved" 2>/dev/null || : > "$saved"
cleanup() {
	cp "$saved" /etc/multipath.conf
	rm -f "$saved"
	udevadm settle
	modprobe -r scsi_debug 2>/dev/null
	modprobe -r scsi_dh_alua 2>/dev/null
	true
}
trap cleanup EXIT

cat > /etc/multipath.conf <<'CONF'
defaults {
	find_multipaths greedy
	user_friendly_names no
	path_grouping_policy failover
}
CONF

# multipath -d -v2: ": WWID undef VENDOR,PRODUCT" (or ": NAME (WWID)
# ...", "create:" instead of ":" when not a dry run), then per group "|-+- policy='...' prio=P status=..." and
# its paths "| `- H:C:T:L sdX MAJ:MIN ...". Prints "WWID sdX=P sdY=P" per
# map, paths in group order.
normalize_multipath() {
	awk '
	function flush() { if (wwid != "") print wwid line; wwid = ""; line = "" }
	/^(create)?: / {
		flush()
		wwid = $2
		if ($3 ~ /^\(.*\)$/) { wwid = substr($3, 2, length($3) - 2) }
		next
	}
	/-\+- policy=/ { for (i = 1; i <= NF; i++) if ($i ~ /^prio=/) prio = substr($i, 6); next }
	/[|`]- [0-9]+:[0-9]+:[0-9]+:[0-9]+ / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+:[0-9]+:[0-9]+:[0-9]+$/) { line = line " " $(i + 1) "=" prio; break }
	}
	END { flush() }' | sort
}

# mpathctl plan: "WWID VENDOR,PRODUCT" (or "NAME (WWID) ..."), group lines
# "|-+- policy='...' prio=G", path lines "| `- sdX MAJ:MIN prio=P".
normalize_plan() {
	awk '
	function flush() { if (wwid != "") print wwid line; wwid = ""; line = "" }
	/^table: / { flush(); next }
	/^[^ |`]/ && !/^(size=|note:|table:|not multipathed|no maps|cannot)/ {
		flush()
		wwid = $1
		if ($2 ~ /^\(.*\)$/) { wwid = substr($2, 2, length($2) - 2) }
		next
	}
	/[|`]- [a-z]+[a-z0-9]* [0-9]+:[0-9]+ prio=/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^prio=/) line = line " " $(i - 2) "=" substr($i, 6)
	}
	END { flush() }' | sort
}

# compare PHASE: both tools' answer for the scsi_debug LUNs.
compare() {
	local phase=$1
	multipath -d -v2 > "$RESULTS/multipath-$phase.txt" 2> "$RESULTS/multipath-$phase.err" || true
	mpathctl plan > "$RESULTS/plan-$phase.txt" 2> "$RESULTS/plan-$phase.err" ||
		die "mpathctl plan failed ($phase): $(cat "$RESULTS/plan-$phase.err")"
	normalize_multipath < "$RESULTS/multipath-$phase.txt" | grep -F "$lun_filter" > "$RESULTS/mt-$phase.norm" || true
	normalize_plan < "$RESULTS/plan-$phase.txt" | grep -F "$lun_filter" > "$RESULTS/ours-$phase.norm" || true
	echo "== $phase: multipath-tools"
	cat "$RESULTS/mt-$phase.norm"
	echo "== $phase: mpathctl plan"
	cat "$RESULTS/ours-$phase.norm"
	[ "$(wc -l < "$RESULTS/mt-$phase.norm")" -eq 2 ] ||
		die "$phase: multipath-tools planned $(wc -l < "$RESULTS/mt-$phase.norm") scsi_debug maps, expected 2"
	# The two ports of a LUN are in different ALUA states, so they rank
	# differently (which two states depends on the host numbers).
	awk '{ split($2, a, "="); split($3, b, "="); if (a[2] == b[2]) exit 1 }' "$RESULTS/mt-$phase.norm" ||
		die "$phase: multipath-tools ranks both ports of a LUN alike: the ALUA states are not in play"
	diff -u "$RESULTS/mt-$phase.norm" "$RESULTS/ours-$phase.norm" ||
		die "$phase: mpathctl plan ranks or orders paths differently from multipath-tools"
	grep -q 'ranks -1' "$RESULTS/plan-$phase.txt" && die "$phase: a path has no priority: $(grep 'ranks -1' "$RESULTS/plan-$phase.txt" | head -n 3)"
	result "${phase}_maps" "$(wc -l < "$RESULTS/ours-$phase.norm")"
	true
}

# The scsi_debug LUNs' WWIDs, to pick their maps out of both plans.
load_luns() {
	mapfile -t sd < <(scsi_debug_paths add_host=2 max_luns=2 vpd_use_hostno=0)
	[ ${#sd[@]} -eq 4 ] || die "expected 4 scsi_debug paths, got: ${sd[*]}"
	udevadm settle
	lun_filter=$(udevadm info --query=property --name="/dev/${sd[0]}" | sed -n 's/^ID_SERIAL=//p' | cut -c1-12)
	[ -n "$lun_filter" ] || die "no ID_SERIAL for ${sd[0]}"
	for p in "${sd[@]}"; do
		echo "$p: host $(basename "$(readlink -f "/sys/block/$p/device")") access_state=$(cat "/sys/block/$p/device/access_state" 2>/dev/null || echo -) rtpg:"
		sg_rtpg -d "/dev/$p" 2>&1 | grep -E 'target port group id|asymmetric access state' | head -n 4
	done
}

echo "== without scsi_dh_alua"
lsmod | grep -q '^scsi_dh_alua' && die "scsi_dh_alua is loaded at the start"
load_luns
modprobe dm-multipath || die "cannot load dm-multipath"
compare rtpg

echo "== with scsi_dh_alua attached"
# udev's workers may still hold a disk the comparison opened.
udevadm settle
wait_until 10 modprobe -r scsi_debug || die "cannot unload scsi_debug: $(lsmod | grep '^scsi_debug ')"
modprobe scsi_dh_alua || die "cannot load scsi_dh_alua"
load_luns
# scsi_dh_alua's first RTPG runs after the disk appears, and until it has
# answered access_state reads active/optimized, the handler's initial
# value. Wait until each port shows the state its own RTPG answer gives
# it; a rescan asks the handler again if it is slow to.
own_state() { # own_state sdX: the ALUA state of the port group sdX is in
	local tpg
	tpg=$(sg_inq -p 0x83 "/dev/$1" 2>/dev/null | sed -n 's/.*[Tt]arget port group: *\(0x[0-9a-fA-F]*\).*/\1/p' | head -n 1)
	[ -n "$tpg" ] || return 1
	sg_rtpg -d "/dev/$1" 2>/dev/null | awk -v tpg="$tpg" '
		/target port group id/ { split($0, a, ":"); split(a[2], b, " "); mine = (tolower(b[1]) == tolower(tpg)) }
		mine && /asymmetric access state/ { sub(/.*\(/, ""); sub(/\).*/, ""); print; exit }'
}
settled() {
	local p want have
	for p in "${sd[@]}"; do
		want=$(own_state "$p") || return 1
		have=$(cat "/sys/block/$p/device/access_state" 2>/dev/null) || return 1
		[ -n "$want" ] && [ "$have" = "$want" ] || return 1
	done
}
if ! wait_until 10 settled; then
	for p in "${sd[@]}"; do echo 1 > "/sys/block/$p/device/rescan"; done
	wait_until 20 settled || die "access_state does not show each port's RTPG state: $(for p in "${sd[@]}"; do
		echo "$p=$(cat "/sys/block/$p/device/access_state") rtpg=$(own_state "$p")"; done | tr '\n' ' ')"
fi
compare sysfs
