# Helpers shared by the tests/vm/lmpath-*.sh scenarios and bench/ guest
# scripts.  Sourced, not run.  Every scenario runs the same checks against
# the stock "multipath" target and against "lmpath": when stock passes a
# check, the harness is proven; when lmpath then fails it, lmpath is wrong.

[ -r /lab/lib.sh ] && . /lab/lib.sh
# grep -q ends pipelines early; judge a pipeline by its last command only.
set +o pipefail
command -v result >/dev/null 2>&1 || result() { echo "RESULT $1=$2"; }
command -v die >/dev/null 2>&1 || die() { echo "FAIL: $*" >&2; exit 1; }

LM_DATA=${LAB_SRC:-/src}/tests/vm/data
LM_FAILS=0

# lm_fail WHAT: count and report a failed check without stopping, so one
# run shows every broken case.
lm_fail() {
	echo "CHECK FAILED: $*" >&2
	LM_FAILS=$((LM_FAILS + 1))
	# the first reasons go into the summary line, so a failure read only
	# from the suite's summary still says what failed
	[ "$LM_FAILS" -gt 3 ] || LM_FAIL_WHY="${LM_FAIL_WHY:+$LM_FAIL_WHY; }$*"
}

lm_finish() {
	result failed_checks "$LM_FAILS"
	[ "$LM_FAILS" -eq 0 ] || die "$LM_FAILS checks failed: ${LM_FAIL_WHY:0:600}"
}

# lm_target_load multipath|lmpath [module params]: make the target available.
lm_target_load() {
	local target=$1
	shift
	case $target in
	multipath)
		modprobe dm-multipath || die "cannot load dm-multipath"
		for s in round-robin queue-length service-time; do
			modprobe -q "dm-$s"
		done
		;;
	lmpath) modprobe dm-lmpath "$@" || die "cannot load dm-lmpath" ;;
	*) die "unknown target $target" ;;
	esac
}

# lm_has_selectors TARGET ARGS: 0 when every selector named in ARGS exists
# for TARGET.  Debian kernels build no historical-service-time or io-affinity
# for stock multipath; lmpath carries all five.
declare -A LM_STOCK_PS
lm_has_selectors() {
	local target=$1 args=$2 s
	[ "$target" = lmpath ] && return 0
	for s in historical-service-time io-affinity; do
		case " $args " in
		*" $s "*)
			if [ -z "${LM_STOCK_PS[$s]}" ]; then
				LM_STOCK_PS[$s]=no
				modprobe -q "dm-$s" 2>/dev/null && LM_STOCK_PS[$s]=yes
			fi
			[ "${LM_STOCK_PS[$s]}" = yes ] || return 1
			;;
		esac
	done
	return 0
}

# The guest has no /dev/fd: no process substitution, here-strings instead.

# lm_scsi_debug NHOSTS [scsi_debug params]: one LUN seen through NHOSTS
# hosts, all with the same WWID and one shared backing store.  Sets
# LM_PATHS (sdX names) and LM_DEVS (major:minor), in host order.
# scsi_debug puts host N's port in ALUA state N % 3 and scsi_dh_alua fails
# I/O to the standby one (N % 3 == 2), so half again as many hosts are
# loaded and the standby ports left out.
lm_scsi_debug() {
	local n=$1 i d
	shift
	modprobe scsi_debug add_host="$((n + (n + 1) / 2))" num_tgts=1 max_luns=1 \
		dev_size_mb="${LM_SIZE_MB:-64}" vpd_use_hostno=0 "$@" ||
		die "cannot load scsi_debug"
	for i in $(seq 1 100); do
		set -- /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*
		[ -e "$1" ] && [ $# -ge "$n" ] && break
		sleep 0.2
	done
	udevadm settle --timeout=30
	lm_active_paths
	[ "${#LM_PATHS[@]}" -ge "$n" ] || die "scsi_debug gave ${#LM_PATHS[@]} of $n active paths"
	LM_SECTORS=$(blockdev --getsz "/dev/${LM_PATHS[0]}")
	echo "paths: ${LM_PATHS[*]} (${LM_DEVS[*]}), $LM_SECTORS sectors"
}

# lm_active_paths: LM_PATHS/LM_DEVS = scsi_debug's disks on ports that
# serve I/O, in host order.
lm_active_paths() {
	local d h
	LM_PATHS=()
	LM_DEVS=()
	# glob order is adapter order, which is host order
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] || continue
		h=${d#*/adapter*/host}
		h=${h%%/*}
		[ $((h % 3)) -eq 2 ] && continue
		LM_PATHS+=("${d##*/}")
		LM_DEVS+=("$(cat "$d/dev")")
	done
}

# lm_subst ARGS: LM_S = ARGS with $P1..$P4 replaced by the path devices
# (a variable, not output: no subshell, which is slow under emulation).
lm_subst() {
	local i
	LM_S=$1
	for i in 4 3 2 1; do
		LM_S=${LM_S//\$P$i/${LM_DEVS[$((i - 1))]:-0:0}}
	done
}

# lm_create NAME TARGET ARGS: create a map over the paths; the uuid carries
# no "mpath-" prefix so the multipath udev rules leave the map alone.
# (dmsetup's --noudevrules would also skip the /dev/mapper node.)
lm_create() {
	local name=$1 target=$2 args=$3
	dmsetup create "$name" --uuid "LMTEST-$name" --table "0 $LM_SECTORS $target $args"
}

lm_remove() { dmsetup remove "$@"; }

# lm_params NAME table|status: the map's parameters after the target name,
# trailing blanks trimmed.
lm_params() {
	local line
	line=$(dmsetup "$2" "$1") || return 1
	lm_strip "$line"
	printf '%s' "$LM_S"
}

# lm_strip LINE: LM_S = LINE without "<start> <len> <target> " and
# trailing blanks.
lm_strip() {
	local a b c rest
	read -r a b c rest <<<"$1"
	LM_S=${rest%"${rest##*[! ]}"}
}

# lm_read NAME: one 4 KiB direct read, so both maps see the same I/O.
lm_read() {
	dd if="/dev/mapper/$1" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
}

# lm_host_of SDX: the scsi host number of a path.
lm_host_of() {
	readlink -f "/sys/block/$1/device" | sed -n 's|.*/host\([0-9]*\)/.*|\1|p'
}

# lm_fio_start NAME DEV SECONDS [fio args]: randwrite with verification of
# every written block, in the background; LM_FIO_PID is its pid.
lm_fio_start() {
	local name=$1 dev=$2 secs=$3
	shift 3
	fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=8 --size="${LM_FIO_SIZE:-16M}" \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 \
		--verify_state_save=0 --time_based --runtime="$secs" "$@" \
		--output="${RESULTS:-/tmp}/$name.fio" >/dev/null 2>&1 &
	LM_FIO_PID=$!
}

# lm_fio_wait NAME: wait for fio, report its errors; 0 when it saw none.
lm_fio_wait() {
	local name=$1 rc errs
	wait "$LM_FIO_PID"
	rc=$?
	errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' "${RESULTS:-/tmp}/$name.fio" | head -n 1)
	grep -qi 'verify.*fail\|bad magic\|crc32c.*mismatch' "${RESULTS:-/tmp}/$name.fio" &&
		errs=verify
	result "${name}_fio_rc" "$rc"
	result "${name}_fio_err" "${errs:-none}"
	[ "$rc" -eq 0 ] && [ "${errs:-x}" = 0 ]
}

# lm_remove_all: remove every map this scenario made.
lm_remove_all() {
	local m
	udevadm settle --timeout=30
	for m in $(dmsetup ls --target lmpath | awk '{print $1}') \
		$(dmsetup ls --target multipath | awk '{print $1}'); do
		[ "$m" = "No" ] && continue
		dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
		dmsetup remove --retry "$m" || lm_fail "cannot remove map $m"
	done
}

# lm_unload: the module must unload once its maps are gone.
lm_unload() {
	lm_remove_all
	if grep -q '^dm_lmpath ' /proc/modules; then
		if modprobe -r dm_lmpath; then
			result module_unload ok
		else
			result module_unload failed
			lm_fail "dm-lmpath did not unload"
		fi
	fi
}
