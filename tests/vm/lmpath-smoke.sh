#!/bin/bash
# lab-timeout: 420
# dm-lmpath smoke test: load the module, build the same map on lmpath and on
# stock multipath over two scsi_debug paths, in request and in bio mode, do
# I/O, send the messages, and require `dmsetup table` / `dmsetup status` of
# the two to be identical except for the target name after every step.
# Then remove the maps and unload the module.
. /lab/lib.sh

FAILS=0
check_failed() {
	echo "CHECK FAILED: $*" >&2
	FAILS=$((FAILS + 1))
}

SDS=($(scsi_debug_paths vpd_use_hostno=0))
[ "${#SDS[@]}" -ge 2 ] || die "need two scsi_debug paths, got ${#SDS[*]}"
P1=$(devt "${SDS[0]}")
P2=$(devt "${SDS[1]}")
SECTORS=$(blockdev --getsz "/dev/${SDS[0]}")
echo "paths ${SDS[0]}=$P1 ${SDS[1]}=$P2, $SECTORS sectors"

load_lmpath
dmsetup targets | grep -q '^lmpath ' || die "lmpath target not registered"
modprobe dm-multipath || die "cannot load dm-multipath"
modprobe dm-round-robin || die "cannot load dm-round-robin"
modprobe dm-queue-length || true
modprobe dm-service-time || true

# same NAME_LM NAME_STOCK WHAT: table and status must match but for the name.
same() {
	local lm=$1 st=$2 what=$3 kind a b
	for kind in table status; do
		a=$(dmsetup "$kind" "$lm" | sed 's/ lmpath / TARGET /')
		b=$(dmsetup "$kind" "$st" | sed 's/ multipath / TARGET /')
		if [ "$a" != "$b" ]; then
			check_failed "$what: $kind differs"
			echo "  lmpath: $a" >&2
			echo "  stock:  $b" >&2
		fi
	done
}

# both CMD...: run a dmsetup command on both maps (NAME is replaced).
both() {
	local lm=$1 st=$2
	shift 2
	"$@" "$lm" || check_failed "lmpath: $* failed"
	"$@" "$st" || check_failed "stock: $* failed"
}

msg() {
	local lm=$1 st=$2
	shift 2
	dmsetup message "$lm" 0 "$@" || check_failed "lmpath: message $* failed"
	dmsetup message "$st" 0 "$@" || check_failed "stock: message $* failed"
}

# io NAME: write 8 MiB of random data, read it back, compare.
io() {
	local dev=/dev/mapper/$1 f
	f=$(mktemp)
	dd if=/dev/urandom of="$f" bs=1M count=8 status=none
	dd if="$f" of="$dev" bs=1M oflag=direct status=none || { check_failed "$1: write"; rm -f "$f"; return; }
	cmp -n $((8 << 20)) "$f" "$dev" || check_failed "$1: read back differs"
	rm -f "$f"
}

# io_like LM ST WHAT: the same I/O on both maps must end the same way
# (scsi_debug's ALUA emulation decides whether it succeeds; lmpath must
# agree with stock either way).
io_like() {
	local lm=$1 st=$2 what=$3 a=ok b=ok
	dd if=/dev/zero of="/dev/mapper/$lm" bs=64k count=16 oflag=direct status=none || a=failed
	dd if=/dev/zero of="/dev/mapper/$st" bs=64k count=16 oflag=direct status=none || b=failed
	echo "$what: lmpath I/O $a, stock I/O $b"
	[ "$a" = "$b" ] || check_failed "$what: lmpath I/O $a but stock I/O $b"
}

# path_state NAME DEVT: A or F from the INFO status.
path_state() {
	dmsetup status "$1" | awk -v d="$2" '{for (i = 1; i < NF; i++) if ($i == d) {print $(i + 1); exit}}'
}

run_mode() {
	local mode=$1 feat=$2 lm=lm_$1 st=st_$1 groups
	groups="round-robin 0 1 1 $P1 1 round-robin 0 1 1 $P2 1"

	dmsetup create "$lm" --table "0 $SECTORS lmpath $feat 0 2 1 $groups" ||
		{ check_failed "$mode: create lmpath"; return; }
	dmsetup create "$st" --table "0 $SECTORS multipath $feat 0 2 1 $groups" ||
		{ check_failed "$mode: create stock"; dmsetup remove "$lm"; return; }
	udevadm settle --timeout=30
	same "$lm" "$st" "$mode: after create"

	io "$lm"
	io "$st"
	same "$lm" "$st" "$mode: after I/O"

	local out
	out=$(fio_verify "smoke-$mode" "/dev/mapper/$lm" 5 --size=8m) ||
		check_failed "$mode: fio verify on lmpath"
	result "${mode}_fio_write_iops" "$(echo "$out" | cut -d';' -f49)"
	fio_verify "smoke-$mode" "/dev/mapper/$st" 5 --size=8m >/dev/null ||
		check_failed "$mode: fio verify on stock"
	same "$lm" "$st" "$mode: after fio"

	msg "$lm" "$st" fail_path "$P1"
	[ "$(path_state "$lm" "$P1")" = F ] || check_failed "$mode: $P1 not failed"
	same "$lm" "$st" "$mode: after fail_path"
	echo "$mode lmpath status: $(dmsetup status "$lm")"
	echo "$mode stock  status: $(dmsetup status "$st")"
	io "$lm"
	io "$st"
	same "$lm" "$st" "$mode: I/O with one path failed"

	msg "$lm" "$st" reinstate_path "$P1"
	[ "$(path_state "$lm" "$P1")" = A ] || check_failed "$mode: $P1 not reinstated"
	same "$lm" "$st" "$mode: after reinstate_path"

	msg "$lm" "$st" disable_group 2
	same "$lm" "$st" "$mode: after disable_group"
	msg "$lm" "$st" enable_group 2
	same "$lm" "$st" "$mode: after enable_group"
	msg "$lm" "$st" switch_group 2
	same "$lm" "$st" "$mode: after switch_group"
	io "$lm"
	io "$st"
	same "$lm" "$st" "$mode: I/O after switch_group"

	# ioctls go through to the current path: SG_IO works on the map.
	sg_turs "/dev/mapper/$lm" || check_failed "$mode: SG_IO (TEST UNIT READY) through lmpath"
	sg_inq "/dev/mapper/$lm" >/dev/null || check_failed "$mode: SG_IO (INQUIRY) through lmpath"

	msg "$lm" "$st" queue_if_no_path
	same "$lm" "$st" "$mode: after queue_if_no_path"
	msg "$lm" "$st" fail_if_no_path
	same "$lm" "$st" "$mode: after fail_if_no_path"

	# Both paths failed, no queueing: I/O must fail, not hang.
	msg "$lm" "$st" fail_path "$P1"
	msg "$lm" "$st" fail_path "$P2"
	same "$lm" "$st" "$mode: all paths failed"
	if timeout 30 dd if="/dev/mapper/$lm" of=/dev/null bs=4k count=1 iflag=direct status=none; then
		check_failed "$mode: read with no path succeeded"
	fi
	msg "$lm" "$st" reinstate_path "$P1"
	msg "$lm" "$st" reinstate_path "$P2"
	io "$lm"

	# Messages are refused while suspended.
	dmsetup suspend "$lm" || check_failed "$mode: suspend"
	if dmsetup message "$lm" 0 fail_if_no_path 2>/dev/null; then
		check_failed "$mode: message accepted while suspended"
	fi
	dmsetup resume "$lm" || check_failed "$mode: resume"

	# TABLE status fed back to the constructor gives the same table.
	local t
	t=$(dmsetup table "$lm")
	dmsetup create "${lm}_rt" --table "$t" || check_failed "$mode: round trip create"
	[ "$(dmsetup table "${lm}_rt")" = "$t" ] || check_failed "$mode: round trip differs"
	dmsetup remove "${lm}_rt"

	udevadm settle --timeout=30
	both "$lm" "$st" dmsetup remove || true
}

run_mode rq "0"
run_mode bio "2 queue_mode bio"
udevadm settle --timeout=30

# Every selector carries I/O in both modes, with a path failed midway.
selectors_stage() {
	local feat sel args name
	for feat in "0" "2 queue_mode bio"; do
		for sel in round-robin queue-length service-time historical-service-time io-affinity; do
			case $sel in
			service-time) args="0 2 2 $P1 1 1 $P2 1 4" ;;
			io-affinity) args="0 2 1 $P1 1 $P2 2" ;;
			*) args="0 2 1 $P1 1 $P2 1" ;;
			esac
			name=lm_sel
			dmsetup create "$name" --table "0 $SECTORS lmpath $feat 0 1 1 $sel $args" ||
				{ check_failed "$sel ($feat): create"; continue; }
			io "$name"
			dmsetup message "$name" 0 fail_path "$P1"
			io "$name"
			dmsetup message "$name" 0 reinstate_path "$P1"
			io "$name"
			echo "$sel ($feat): $(dmsetup status "$name")"
			udevadm settle --timeout=30
			dmsetup remove "$name" || check_failed "$sel ($feat): remove"
		done
	done
}
selectors_stage

# Hardware handler: scsi_debug claims implicit ALUA when vpd_use_hostno=0,
# so with scsi_dh_alua loaded first the paths get the alua handler and
# every group switch runs pg_init through it.
pg_init_stage() {
	local lm=lm_alua st=st_alua groups
	modprobe -r scsi_debug || { check_failed "alua: cannot unload scsi_debug"; return; }
	modprobe scsi_dh_alua || { echo "alua: no scsi_dh_alua, stage skipped"; return; }
	SDS=($(scsi_debug_paths vpd_use_hostno=0))
	P1=$(devt "${SDS[0]}")
	P2=$(devt "${SDS[1]}")
	echo "dh_state: $(cat "/sys/block/${SDS[0]}/device/dh_state" 2>/dev/null)"
	groups="round-robin 0 1 1 $P1 1 round-robin 0 1 1 $P2 1"
	local table="2 pg_init_retries 3 1 alua 2 1 $groups"

	dmsetup create "$lm" --table "0 $SECTORS lmpath $table" ||
		{ check_failed "alua: create lmpath"; return; }
	dmsetup create "$st" --table "0 $SECTORS multipath $table" ||
		{ check_failed "alua: create stock"; dmsetup remove "$lm"; return; }
	udevadm settle --timeout=30
	same "$lm" "$st" "alua: after create"
	io_like "$lm" "$st" "alua: first I/O"
	same "$lm" "$st" "alua: after I/O (pg_init done)"
	echo "alua lmpath status: $(dmsetup status "$lm")"
	echo "alua stock  status: $(dmsetup status "$st")"
	msg "$lm" "$st" switch_group 2
	io_like "$lm" "$st" "alua: I/O after switch_group"
	same "$lm" "$st" "alua: after switch_group and I/O"
	msg "$lm" "$st" fail_path "$P2"
	io_like "$lm" "$st" "alua: I/O after failover"
	same "$lm" "$st" "alua: failover to group 1"
	msg "$lm" "$st" reinstate_path "$P2"
	same "$lm" "$st" "alua: after reinstate_path"
	udevadm settle --timeout=30
	both "$lm" "$st" dmsetup remove || true
}
pg_init_stage

udevadm settle --timeout=30
modprobe -r dm_lmpath || check_failed "rmmod dm_lmpath"
lsmod | grep -q '^dm_lmpath' && check_failed "dm_lmpath still loaded"

result failed_checks "$FAILS"
[ "$FAILS" -eq 0 ] || die "$FAILS checks failed"
