# Helpers for lab scenarios: `. /lab/lib.sh` at the top of a scenario.
# Functions print what they do to stderr and fail the scenario on misuse.

set -o pipefail

# result KEY VALUE: a measurement the host prints after the scenario.
result() { echo "RESULT $1=$2"; }

# die MESSAGE: fail the scenario with a reason.
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# wait_until SECONDS COMMAND...: poll every 0.2 s until COMMAND succeeds.
wait_until() {
	local limit=$1 end
	shift
	end=$(($(date +%s) + limit))
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# scsi_debug_paths [scsi_debug params...]: load scsi_debug (two hosts, one
# 64 MiB LUN each, one identity for all hosts: vpd_use_hostno=0) and print
# the sd names of its disks, one a line. The hosts present the same LUN, so
# the disks share a WWID. See active_paths for their ALUA states.
scsi_debug_paths() {
	local args=(add_host=2 num_tgts=1 max_luns=1 dev_size_mb=64 vpd_use_hostno=0 "$@")
	modprobe scsi_debug "${args[@]}" || die "modprobe scsi_debug ${args[*]} failed"
	udevadm settle --timeout=30
	local d
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && basename "$d"
	done | sort
}

# active_paths: of the sd names on stdin, print those that serve I/O. With
# vpd_use_hostno=0, scsi_debug claims ALUA and puts host N's port in state
# N % 3 (0 active/optimized, 1 active/non-optimized, 2 standby), and
# scsi_dh_alua fails I/O sent to a standby port. access_state cannot be
# trusted right after the disk appears (scsi_dh_alua's first RTPG runs
# asynchronously), so scsi_debug ports are judged by that rule.
active_paths() {
	local p dev host st
	while read -r p; do
		dev=$(readlink -f "/sys/block/$p/device")
		host=$(basename "$dev")
		host=${host%%:*}
		if [[ $dev == */pseudo_0/* ]] && [ -r /sys/module/scsi_debug/parameters/vpd_use_hostno ] &&
			[ "$(cat /sys/module/scsi_debug/parameters/vpd_use_hostno)" = 0 ]; then
			[ $((host % 3)) -eq 2 ] || echo "$p"
			continue
		fi
		st=$(cat "/sys/block/$p/device/access_state" 2>/dev/null || echo active)
		case "$st" in active*) echo "$p" ;; esac
	done
}

# devt NAME: "major:minor" of a block device.
devt() { cat "/sys/class/block/$1/dev"; }

# load_lmpath [params...]: load the project's module.
load_lmpath() { modprobe dm-lmpath "$@" || die "modprobe dm-lmpath $* failed"; }

# Instruction counting (lab/run --insn-count, see lab/insn/insn-count.c).
# insn_counting: 0 when the guest runs under the counter.
# insn_begin: open a counting window; insn_end FILE: close it and keep its
# counts (guest virtual addresses) in FILE; insn_kallsyms FILE: the symbol
# table that maps them to functions (take it after loading the modules).
# insn_read DEV QD N FILE: a window around exactly N 4k random reads of DEV
# with QD in flight (lab/insn/aio-read.c), kept in FILE.
insn_counting() { [ -x "$LAB_SHARE/insn/mark" ]; }
insn_read() {
	"$LAB_SHARE/insn/aio-read" "$1" "$2" "$3" >/dev/null || die "aio-read $1 $2 $3 failed"
	cp "$LAB_SHARE/insn/last.txt" "$4" || die "the counter wrote no window"
}
insn_begin() { "$LAB_SHARE/insn/mark" on || die "no instruction counter (lab/run --insn-count)"; }
insn_end() {
	"$LAB_SHARE/insn/mark" off || die "no instruction counter (lab/run --insn-count)"
	cp "$LAB_SHARE/insn/last.txt" "$1" || die "the counter wrote no window"
}
insn_kallsyms() {
	echo 0 >/proc/sys/kernel/kptr_restrict
	cat /proc/kallsyms >"$1"
}

# host_request JSON: ask the host side of the lab to act; prints its reply.
host_request() {
	local id
	id=$(date +%s%N)
	mkdir -p "$LAB_SHARE/req"
	printf '%s\n' "$1" > "$LAB_SHARE/req/$id.tmp"
	mv "$LAB_SHARE/req/$id.tmp" "$LAB_SHARE/req/$id.json"
	wait_until 60 test -e "$LAB_SHARE/req/$id.reply" || die "host did not answer $1"
	cat "$LAB_SHARE/req/$id.reply"
	! grep -q '"error"' "$LAB_SHARE/req/$id.reply"
}

# host_qmp JSON: one QMP command on the guest's QEMU, e.g.
#   host_qmp '{"execute":"device_del","arguments":{"id":"vdisk1"}}'
host_qmp() { host_request "{\"qmp\": $1}"; }

# host_unplug ID / host_replug ID: hot-remove a virtio-scsi disk (vdisk0,
# vdisk1; vdata0, vdata1 in the root filesystem guest) from the host side,
# and plug it back with the same identity.
host_unplug() { host_request "{\"unplug\": \"$1\"}"; }
host_replug() { host_request "{\"replug\": \"$1\"}"; }

# host_hang ID / host_resume ID: the host holds the reads and writes the
# virtio-scsi disk ID (as for host_unplug) receives from now on (all but the
# first), without answering: a path whose I/O hangs, not fails (QEMU's
# I/O throttling at one byte a second). host_resume lets them complete.
# Keep a hang under the guest's 30 s SCSI command timeout.
host_hang() { host_request "{\"hang\": \"$1\"}"; }
host_resume() { host_request "{\"resume\": \"$1\"}"; }

# fio_verify NAME DEVICE SECONDS [fio args...]: random writes with
# verification; prints fio's terse result; fails on any I/O or verify error.
fio_verify() {
	local name=$1 dev=$2 secs=$3
	shift 3
	fio --name="$name" --filename="$dev" --rw=randwrite --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=8 --size=16m --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --verify_backlog=256 --time_based --runtime="$secs" \
		--output-format=terse "$@"
}

# mpathd_start [args...]: start mpathd in the background (log in
# $RESULTS/mpathd.log, appended across restarts) and wait until it says
# ready. Its pid is in $MPATHD_PID.
mpathd_start() {
	command -v mpathd >/dev/null || die "mpathd is not on PATH"
	local log=$RESULTS/mpathd.log before
	# The log exists before the first look at it: the daemon's redirection
	# opens it only once the background shell runs.
	: >> "$log"
	before=$(grep -c 'notice: ready' "$log" || true)
	mpathd -v "$@" >> "$log" 2>&1 &
	MPATHD_PID=$!
	wait_until 60 readies_above "$log" "$before" ||
		die "mpathd did not get ready: $(tail -n 5 "$log")"
}

# readies_above LOG N: mpathd's LOG says "ready" more than N times.
readies_above() { [ "$(grep -c 'notice: ready' "$1")" -gt "$2" ]; }

# mpathd_stop [signal]: stop mpathd (TERM by default) and wait for it.
mpathd_stop() {
	[ -n "${MPATHD_PID:-}" ] || return 0
	kill "-${1:-TERM}" "$MPATHD_PID" 2>/dev/null
	wait "$MPATHD_PID" 2>/dev/null
	MPATHD_PID=
}

# multipathd_start: Debian's multipathd (multipath-tools) in the
# background, in the foreground mode, its log $RESULTS/multipathd.log, its
# pid in $MULTIPATHD_PID; dm-multipath is loaded first. It reads
# /etc/multipath.conf (conf_only). Says why and returns 1 when it cannot
# start it. multipathd_stop ends it (SIGTERM) and waits.
multipathd_start() {
	command -v multipathd >/dev/null || { echo "Debian's multipathd is not in the guest" >&2; return 1; }
	modprobe dm-multipath || { echo "cannot load dm-multipath" >&2; return 1; }
	multipathd -d -s -v3 >> "$RESULTS/multipathd.log" 2>&1 &
	MULTIPATHD_PID=$!
}
multipathd_stop() {
	[ -n "${MULTIPATHD_PID:-}" ] || return 0
	kill "$MULTIPATHD_PID" 2>/dev/null
	wait "$MULTIPATHD_PID" 2>/dev/null
	MULTIPATHD_PID=
}

# conf_only FILE WWID...: write FILE, a multipath.conf-syntax file
# (/etc/mpathd/mpathd.conf or /etc/multipath.conf), from the sections on
# stdin followed by a blacklist of every WWID but these: the daemon makes
# the scenario's maps and leaves every other disk of the lab alone.
conf_only() {
	local f=$1 w
	shift
	mkdir -p "$(dirname "$f")"
	{
		cat
		printf 'blacklist {\n\twwid ".*"\n}\nblacklist_exceptions {\n'
		for w; do printf '\twwid "^%s$"\n' "$w"; done
		printf '}\n'
	} > "$f" || die "conf_only: cannot write $f"
}

# map_of WWID: the device-mapper name of the map with uuid mpath-WWID.
map_of() {
	dmsetup info -c --noheadings -o name,uuid --separator ' ' 2>/dev/null |
		awk -v u="mpath-$1" '$2 == u { print $1 }'
}

# wwid_of NAME: the WWID udev gives block device NAME (ID_SERIAL, else ID_WWN).
wwid_of() {
	local v
	v=$(udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_SERIAL=//p')
	[ -n "$v" ] || v=$(udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_WWN=//p')
	echo "$v"
}

# path_state MAP DEVT: A or F, the path's state in the map's status.
path_state() {
	dmsetup status "$1" | awk -v d="$2" '{ for (i = 1; i < NF; i++) if ($i == d) { print $(i + 1); exit } }'
}

# map_groups MAP: "GROUP DEVT" of each path of MAP's table, groups from 1.
map_groups() {
	dmsetup table "$1" | awk '{
		i = 4; i += $i + 1; i += $i + 1; ng = $i; i += 2
		for (g = 1; g <= ng; g++) {
			i++; i += $i + 1; np = $i; pa = $(i + 1); i += 2
			for (p = 0; p < np; p++) { print g, $i; i += pa + 1 }
		}
	}'
}
# group_of MAP DEVT: the group (from 1) of path DEVT in MAP's table.
group_of() { map_groups "$1" | awk -v d="$2" '$2 == d { print $1 }'; }

# now_ms: milliseconds since the epoch, from bash's clock (no process).
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# median N...: the median of integers (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# proc_usage PID: "RSS_KB FDS THREADS" of a running process, from /proc.
proc_usage() {
	local rss thr fds
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status") || return 1
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$1/status") || return 1
	fds=$(ls "/proc/$1/fd" | wc -l)
	echo "$rss $fds $thr"
}

# path_is MAP DEVT STATE: the path DEVT of MAP is in STATE (A or F), for
# wait_until: wait_until 10 path_is mpatha 8:32 F
path_is() { [ "$(path_state "$1" "$2")" = "$3" ]; }

# scsi_debug_hang on|off: from now on every command any scsi_debug disk
# receives is dropped, neither answered nor failed, so that it ends only
# at its own timeout (opts=4, every_nth=1: a target that hangs); or
# answered again. Commands dropped before "off" still wait for their
# timeout. Nothing may read a map of these disks while they hang: a
# reader blocked past 60 s fails the scenario (hung task).
scsi_debug_hang() {
	local p=/sys/bus/pseudo/drivers/scsi_debug
	case $1 in
	on) echo 4 > "$p/opts" && echo 1 > "$p/every_nth" ;;
	off) echo 0 > "$p/every_nth" && echo 0 > "$p/opts" ;;
	*) die "scsi_debug_hang on|off, not '$1'" ;;
	esac || die "cannot set scsi_debug's fault injection ($1)"
}

# dm_path_events FILE: the path events in FILE, the output of
# "udevadm monitor --kernel --property --subsystem-match=block", one a
# line: "SECONDS ACTION DEVT MAP-DEVNAME" (SECONDS: the kernel's
# monotonic clock, ACTION: PATH_FAILED or PATH_REINSTATED).
dm_path_events() {
	awk 'function emit() { if (act != "") print ts, act, path, dev; act = ""; path = ""; dev = "" }
		/^KERNEL\[/ { emit(); ts = substr($1, 8, length($1) - 8); next }
		/^DM_ACTION=PATH_/ { act = substr($0, 11) }
		/^DM_PATH=/ { path = substr($0, 9) }
		/^DEVNAME=/ { dev = substr($0, 9) }
		END { emit() }' "$1"
}

# uptime_s: seconds since boot, the clock of dm_path_events' times.
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# dm_reinstated FILE DEVT FROM TO: how many times device-mapper reinstated
# path DEVT between uptimes FROM and TO (seconds), from a capture as for
# dm_path_events.
dm_reinstated() {
	dm_path_events "$1" | awk -v d="$2" -v f="$3" -v t="$4" \
		'$2 == "PATH_REINSTATED" && $3 == d && $1 >= f && $1 <= t { n++ } END { print n + 0 }'
}

# fio_stop PID LOG: end a fio_verify run (PID, output in LOG) before its
# time (SIGTERM: fio lets its I/O finish and reports) and judge it: 0 when
# it saw no I/O or verify error, whether it ran to its end or was stopped.
# PID may be the subshell of "fio_verify ... &": the signal goes to its
# fio (such a subshell ignores SIGINT and does not pass SIGTERM on). A fio
# still there 60 s later (its I/O does not complete) fails, left running.
fio_stop() {
	local rc pids
	pids=$(pgrep -P "$1" -x fio)
	kill -TERM ${pids:-$1} 2>/dev/null
	if ! wait_until 60 sh -c "! kill -0 $1 2>/dev/null"; then
		echo "fio_stop: fio ($1) still runs 60 s after SIGTERM: its I/O does not complete" >&2
		return 1
	fi
	wait "$1"
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	grep -q 'terminating on signal' "$2" || return 1
	grep -qiE 'io_u error|verify:|bad magic|bad header' "$2" && return 1
	awk -F';' '$1 == 3 { seen = 1; if ($5 != 0) bad = 1 } END { exit !(seen && !bad) }' "$2"
}

# --- An iSCSI SAN on the guest's loopback -------------------------------
# The kernel's LIO target (configfs) exports LUNs, files in /tmp, through
# one target IQN and several portals (TPG N on 127.0.0.1:3259+N); the
# guest's own iscsid logs in through each, so every LUN has one sd path a
# portal (one session, one SCSI host each). Each backstore has one ALUA
# port group a portal (A for portal 1, B for 2, ...: id N), all
# active/optimized at first. What was made is recorded under /run/san.
SAN_IQN=iqn.2026-01.org.mpath.lab:san
SAN_INITIATOR=iqn.2026-01.org.mpath.lab:initiator
SAN_CFS=/sys/kernel/config/target
SAN_RUN=/run/san
SAN_GROUPS=(- A B C D)

# san_port N: the TCP port of portal N.
san_port() { echo $((3259 + $1)); }

# san_w VALUE FILE: write a configfs/sysfs attribute, or fail saying which.
san_w() { echo "$1" 2>/dev/null > "$2" || die "san: cannot write '$1' to $2"; }

# san_log: where the SAN's programs write (the scenario's results).
san_log() { echo "${RESULTS:-$SAN_RUN}/san.log"; }

# san_iscsi [LUNS [PORTALS]]: set up the SAN (default 1 LUN of 64 MiB, 2
# portals), log in through every portal, wait until every sd path exists
# and udev has settled, and print san_paths. scsi_dh_alua is loaded first,
# so it attaches to every path; with SAN_SCSI_DH=none it is unloaded
# instead, and no device handler attaches. The port groups take implicit
# and explicit ALUA (LIO's default: scsi_dh_alua may send an STPG to make
# a standby group active); with SAN_ALUA=implicit only implicit, so only
# san_alua_state changes a group's state. replacement_timeout 30 s,
# NOP-Out every 5 s with a 5 s timeout: a portal that stops answering
# puts its session into recovery within about 10 s, and its paths fail
# I/O 30 s later. iscsid's log is $RESULTS/iscsid.log, the commands' san.log.
san_iscsi() {
	local luns=${1:-1} portals=${2:-2} i p m dev tpg log
	[ "$luns" -ge 1 ] && [ "$luns" -le 8 ] || die "san_iscsi: 1 to 8 LUNs, not $luns"
	[ "$portals" -ge 1 ] && [ "$portals" -le 4 ] || die "san_iscsi: 1 to 4 portals, not $portals"
	[ ! -e "$SAN_RUN/portals" ] || die "san_iscsi: the SAN is already set up"
	mkdir -p "$SAN_RUN"
	log=$(san_log)
	for m in configfs target_core_mod target_core_file iscsi_target_mod iscsi_tcp \
		nf_tables; do
		modprobe "$m" || die "san_iscsi: modprobe $m failed"
	done
	if [ "${SAN_SCSI_DH:-alua}" = none ]; then
		modprobe -r scsi_dh_alua 2>/dev/null
		! grep -q '^scsi_dh_alua ' /proc/modules || die "san_iscsi: scsi_dh_alua cannot be unloaded"
	else
		modprobe scsi_dh_alua || die "san_iscsi: modprobe scsi_dh_alua failed"
	fi
	grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs configfs /sys/kernel/config ||
		die "san_iscsi: cannot mount configfs"
	ip link set lo up || die "san_iscsi: cannot bring up lo"
	san_filter
	# LIO's state folder (db_root): without pr/, every PERSISTENT RESERVE
	# OUT fails (it writes the APTPL file even when APTPL is off).
	mkdir -p /var/target/pr /var/target/alua

	# The target: one fileio backstore a LUN, its ALUA groups, one TPG a portal.
	for ((i = 0; i < luns; i++)); do
		dev=$SAN_CFS/core/fileio_$i/lun$i
		mkdir -p "$dev" || die "san_iscsi: cannot make $dev"
		san_w "fd_dev_name=/tmp/san-lun$i.img,fd_dev_size=$((64 << 20))" "$dev/control"
		san_w 1 "$dev/enable"
		san_w "lab-san-lun$i" "$dev/wwn/vpd_unit_serial"
		for ((p = 1; p <= portals; p++)); do
			mkdir "$dev/alua/${SAN_GROUPS[p]}" || die "san_iscsi: cannot make ALUA group ${SAN_GROUPS[p]}"
			san_w "$p" "$dev/alua/${SAN_GROUPS[p]}/tg_pt_gp_id"
			[ "${SAN_ALUA:-both}" = both ] ||
				san_w 1 "$dev/alua/${SAN_GROUPS[p]}/alua_access_type"
		done
	done
	for ((p = 1; p <= portals; p++)); do
		tpg=$SAN_CFS/iscsi/$SAN_IQN/tpgt_$p
		mkdir -p "$tpg" || die "san_iscsi: cannot make $tpg"
		for ((i = 0; i < luns; i++)); do
			mkdir "$tpg/lun/lun_$i" || die "san_iscsi: cannot make LUN $i of TPG $p"
			ln -s "$SAN_CFS/core/fileio_$i/lun$i" "$tpg/lun/lun_$i/backstore" ||
				die "san_iscsi: cannot export LUN $i through TPG $p"
			san_w "${SAN_GROUPS[p]}" "$tpg/lun/lun_$i/alua_tg_pt_gp"
		done
		mkdir "$tpg/np/127.0.0.1:$(san_port "$p")" || die "san_iscsi: cannot open portal $p"
		san_w 0 "$tpg/attrib/authentication"
		san_w 1 "$tpg/attrib/generate_node_acls"
		san_w 1 "$tpg/attrib/cache_dynamic_acls"
		san_w 0 "$tpg/attrib/demo_mode_write_protect"
		san_w 1 "$tpg/enable"
	done
	echo "$luns" > "$SAN_RUN/luns"

	# The initiator: the guest's own iscsid, its node records in /etc/iscsi.
	mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets /etc/iscsi/ifaces /run/lock/iscsi
	echo "InitiatorName=$SAN_INITIATOR" > /etc/iscsi/initiatorname.iscsi
	cat > /etc/iscsi/iscsid.conf <<'CONF'
node.startup = manual
node.session.auth.authmethod = None
discovery.sendtargets.auth.authmethod = None
node.session.timeo.replacement_timeout = 30
node.conn[0].timeo.noop_out_interval = 5
node.conn[0].timeo.noop_out_timeout = 5
node.conn[0].timeo.login_timeout = 15
node.session.initial_login_retry_max = 4
node.session.scan = auto
CONF
	setsid iscsid -f >> "${RESULTS:-$SAN_RUN}/iscsid.log" 2>&1 < /dev/null &
	echo $! > "$SAN_RUN/iscsid.pid"
	wait_until 20 grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix ||
		die "san_iscsi: iscsid did not start: $(tail -n 5 "${RESULTS:-$SAN_RUN}/iscsid.log")"
	for ((p = 1; p <= portals; p++)); do
		iscsiadm -m discovery -t sendtargets -p "127.0.0.1:$(san_port "$p")" >> "$log" 2>&1 ||
			die "san_iscsi: discovery through portal $p failed: $(tail -n 3 "$log")"
	done
	echo "$portals" > "$SAN_RUN/portals"
	for ((p = 1; p <= portals; p++)); do
		san_login "$p"
	done
	san_paths | tee "$SAN_RUN/paths"
}

# san_paths [PORTAL]: "PORTAL LUN SDNAME" of every iSCSI path, one a line,
# sorted; with PORTAL, the sd names of that portal's paths only. Read from
# sysfs: a portal logged in again has new sd names.
san_paths() {
	local s d hctl tpgt
	for s in /sys/class/iscsi_session/session*; do
		[ -e "$s/tpgt" ] || continue
		tpgt=$(cat "$s/tpgt")
		for d in "$(readlink -f "$s/device")"/target*/*/block/*; do
			[ -e "$d" ] || continue
			hctl=$(basename "$(dirname "$(dirname "$d")")")
			echo "$tpgt ${hctl##*:} $(basename "$d")"
		done
	done | sort -n -k1,1 -k2,2 | if [ $# -gt 0 ]; then awk -v p="$1" '$1 == p { print $3 }'; else cat; fi
}

# san_session_of SDNAME: the iSCSI session of a path,
# /sys/class/iscsi_session/sessionN (its state, recovery_tmo, tpgt...).
san_session_of() {
	local p
	p=$(readlink -f "/sys/block/$1/device") || return 1
	[[ $p =~ /(session[0-9]+)/ ]] || return 1
	echo "/sys/class/iscsi_session/${BASH_REMATCH[1]}"
}

# san_portal_of SDNAME: the portal (TPG number) a path goes through.
san_portal_of() {
	local s
	s=$(san_session_of "$1") || return 1
	cat "$s/tpgt"
}

# san_login N / san_logout N: log in through portal N (and wait until its
# sd paths exist and udev settled) / log out of it.
san_login() {
	local p=$1 log n
	log=$(san_log)
	n=$(cat "$SAN_RUN/luns")
	iscsiadm -m node -T "$SAN_IQN" -p "127.0.0.1:$(san_port "$p")" --login >> "$log" 2>&1 ||
		die "san_login $p failed: $(tail -n 3 "$log")"
	wait_until 60 san_has_paths "$p" "$n" ||
		die "san_login $p: $(san_paths "$p" | wc -l) of $n sd paths after 60 s"
	udevadm settle --timeout=30
}
san_logout() {
	local log
	log=$(san_log)
	iscsiadm -m node -T "$SAN_IQN" -p "127.0.0.1:$(san_port "$1")" --logout >> "$log" 2>&1 ||
		die "san_logout $1 failed: $(tail -n 3 "$log")"
	udevadm settle --timeout=30
}
# san_has_paths PORTAL N: portal PORTAL has N sd paths (for wait_until).
san_has_paths() { [ "$(san_paths "$1" | wc -l)" -eq "$2" ]; }

# san_filter: the SAN's packet filter, nftables table lab_san, made once
# when a SAN is set up (san_iscsi, san_nvme) and deleted by san_teardown.
# Its input and output chains drop every TCP segment to or from a port in
# its set "down"; san_tcp_drop and san_tcp_restore change only the set.
# The hooks stay registered while I/O runs: registering or unregistering
# a netfilter hook flips a static key, which patches the kernel's text,
# and done under TCG while the LIO target sent on the loopback that left
# both vCPUs in the patch's int3 in ip_local_deliver (RCU stalls, the
# guest hung; a hook flapped under fio hung 6.1 within a minute).
san_filter() {
	nft list table inet lab_san > /dev/null 2>&1 && return 0
	nft -f - <<-RULES || die "san_filter: nft failed"
		table inet lab_san {
			set down {
				type inet_service
			}
			chain in {
				type filter hook input priority -10; policy accept;
				tcp dport @down drop
				tcp sport @down drop
			}
			chain out {
				type filter hook output priority -10; policy accept;
				tcp dport @down drop
				tcp sport @down drop
			}
		}
	RULES
}

# san_tcp_drop PORT / san_tcp_restore PORT: drop every TCP segment to or
# from local TCP port PORT (both directions, nothing logged), and let them
# through again. A connection through it sees a dead link: nobody closes it.
san_tcp_drop() {
	san_filter
	nft add element inet lab_san down "{ $1 }" || die "san_tcp_drop $1: nft failed"
}
san_tcp_restore() {
	nft delete element inet lab_san down "{ $1 }" || die "san_tcp_restore $1: nft failed"
}

# san_portal_drop N / san_portal_restore N: drop every TCP segment to or
# from portal N (san_tcp_drop): its sessions see a dead link and go into
# recovery, nobody logs out. Restore lets iscsid log in again by itself.
san_portal_drop() { san_tcp_drop "$(san_port "$1")"; }
san_portal_restore() { san_tcp_restore "$(san_port "$1")"; }

# san_tpg_enable PORTAL 0|1: disable or enable portal PORTAL's TPG on the
# target. Disabled, the target ends its sessions and refuses logins: the
# initiator's session goes into recovery, its sd devices stay, blocked,
# and come back when it is enabled again (iscsid logs in again).
san_tpg_enable() {
	san_w "$2" "$SAN_CFS/iscsi/$SAN_IQN/tpgt_$1/enable"
}

# san_tpg_flap PORTAL UP DOWN: portal PORTAL's TPG flaps, enabled for UP
# seconds, disabled for DOWN seconds, and again, until killed: run it in
# the background, kill it, then san_tpg_enable PORTAL 1.
san_tpg_flap() {
	while :; do
		san_tpg_enable "$1" 1
		sleep "$2"
		san_tpg_enable "$1" 0
		sleep "$3"
	done
}

# san_lun_remap PORTAL LUN BACKSTORE: portal PORTAL's LUN LUN exports
# backstore BACKSTORE (the LUN number san_iscsi gave it) from now on, in
# the same ALUA port group: the array remapped another volume behind that
# LUN. The initiator's device for it keeps its name and, until the kernel
# reads it again, its identity.
san_lun_remap() {
	local lun=$SAN_CFS/iscsi/$SAN_IQN/tpgt_$1/lun/lun_$2
	[ -L "$lun/backstore" ] || die "san_lun_remap: portal $1 exports no LUN $2"
	rm -f "$lun/backstore" || die "san_lun_remap: cannot unmap LUN $2 of portal $1"
	ln -s "$SAN_CFS/core/fileio_$3/lun$3" "$lun/backstore" ||
		die "san_lun_remap: cannot map backstore $3 as LUN $2 of portal $1"
	san_w "${SAN_GROUPS[$1]}" "$lun/alua_tg_pt_gp"
}

# san_alua_state GROUP STATE: set ALUA port group GROUP (A, B...) of every
# LUN to STATE: 0 or optimized (active/optimized), 1 or non-optimized,
# 2 or standby, 3 or unavailable, 14 or offline, 15 or transitioning. The
# target tells the initiator by a unit attention on that group's paths:
# scsi_dh_alua's access_state changes after the next command through one.
san_alua_state() {
	local g=$1 st=$2 f n=0
	case $st in
	optimized | active/optimized) st=0 ;;
	non-optimized | active/non-optimized) st=1 ;;
	standby) st=2 ;;
	unavailable) st=3 ;;
	offline) st=14 ;;
	transitioning) st=15 ;;
	[0-9] | 1[0-9]) ;;
	*) die "san_alua_state: unknown state '$st'" ;;
	esac
	for f in "$SAN_CFS"/core/fileio_*/*/alua/"$g"/alua_access_state; do
		[ -e "$f" ] || continue
		san_w "$st" "$f"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "san_alua_state: no ALUA group '$g'"
}

# san_teardown: log out, stop iscsid, take the target down and unload the
# modules; likewise for the NVMe over TCP SAN (san_nvme_teardown). The
# lab's clean-up runs it after each scenario that set up a SAN.
san_teardown() {
	local t f pid
	# Every port through again first (the hooks stay until nothing runs).
	nft flush set inet lab_san down 2> /dev/null
	san_nvme_teardown
	if [ -e "$SAN_RUN/iscsid.pid" ]; then
		timeout 60 iscsiadm -m node -u > /dev/null 2>&1
		pid=$(cat "$SAN_RUN/iscsid.pid")
		kill "$pid" 2>/dev/null
		wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null
	fi
	rm -rf /etc/iscsi/nodes /etc/iscsi/send_targets
	nft delete table inet lab_san 2> /dev/null
	for t in "$SAN_CFS"/iscsi/*/tpgt_*; do
		[ -d "$t" ] || continue
		echo 0 > "$t/enable" 2>/dev/null
		for f in "$t"/lun/lun_*/*; do [ -L "$f" ] && rm -f "$f"; done
		rmdir "$t"/lun/lun_* "$t"/np/* "$t" 2>/dev/null
	done
	rmdir "$SAN_CFS"/iscsi/* "$SAN_CFS/iscsi" 2>/dev/null
	for f in "$SAN_CFS"/core/fileio_*/*/; do
		[ -d "$f/alua" ] || continue
		rmdir "$f"alua/[A-Z] 2>/dev/null
		rmdir "$f"
	done
	rmdir "$SAN_CFS"/core/fileio_* 2>/dev/null
	rm -f /tmp/san-lun*.img
	rm -rf /var/target
	rm -rf "$SAN_RUN"
	for t in iscsi_tcp libiscsi_tcp libiscsi scsi_transport_iscsi iscsi_target_mod \
		target_core_file target_core_iblock target_core_pscsi target_core_user \
		target_core_mod nf_tables; do
		grep -q "^$t " /proc/modules && modprobe -r "$t" 2>/dev/null
	done
	return 0
}

# --- An NVMe over TCP SAN on the guest's loopback -----------------------
# The kernel's nvmet target (configfs, nvmet-tcp) exports namespaces, files
# in /tmp, through one subsystem and several ports (port N on
# 127.0.0.1:4419+N); the guest's own host (nvme-tcp, nvme connect) connects
# through each, so every namespace has one nvmeXnY path a port (one
# controller a port: nvme_core.multipath=N). ANA: groups 1 and 2 exist on
# every port, namespace I is in group 1 when I is odd, 2 when even; a
# group's state is set per port (san_ana_state), all optimized at first.
SAN_NQN=nqn.2026-01.org.mpath.lab:nvme-san
SAN_HOSTNQN=nqn.2026-01.org.mpath.lab:nvme-host
SAN_HOSTID=6c61622d-6d70-6174-6800-000000000001
SAN_NVMET=/sys/kernel/config/nvmet
# The host's timeouts (nvme connect): keep-alive timeout 5 s; a lost
# controller tries to reconnect every 2 s and is deleted after ctrl_loss_tmo
# / reconnect_delay = 30 failed attempts (60 s or more: an attempt through a
# port that drops its traffic waits about 3 s for its connect to time out).
# fast_io_fail_tmo stays the kernel's "off" (nvme-cli 2.3 cannot set it):
# mpathd sets it, and ctrl_loss_tmo, from its fast_io_fail_tmo and
# dev_loss_tmo when the namespace's map is made.
SAN_NVME_KATO=5 SAN_NVME_RECONNECT=2 SAN_NVME_LOSS=60

# san_nvme_port N: the TCP port of NVMe port N.
san_nvme_port() { echo $((4419 + $1)); }

# san_nvme [NAMESPACES [PORTS]]: set up the NVMe SAN (default 1 namespace
# of 64 MiB, 2 ports), connect through every port, wait until every path
# exists and udev has settled, and print san_nvme_paths. The commands'
# output goes to san.log.
san_nvme() {
	local nss=${1:-1} ports=${2:-2} i p g m sub ns port
	[ "$nss" -ge 1 ] && [ "$nss" -le 8 ] || die "san_nvme: 1 to 8 namespaces, not $nss"
	[ "$ports" -ge 1 ] && [ "$ports" -le 4 ] || die "san_nvme: 1 to 4 ports, not $ports"
	[ ! -e "$SAN_RUN/nvme-ports" ] || die "san_nvme: the NVMe SAN is already set up"
	mkdir -p "$SAN_RUN"
	for m in configfs nvmet nvmet-tcp nvme-fabrics nvme-tcp nf_tables; do
		modprobe "$m" || die "san_nvme: modprobe $m failed"
	done
	san_filter
	grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs configfs /sys/kernel/config ||
		die "san_nvme: cannot mount configfs"
	ip link set lo up || die "san_nvme: cannot bring up lo"

	# The ports and their ANA groups (group 1 exists on a new port, 2 is
	# made; a made group starts inaccessible).
	for ((p = 1; p <= ports; p++)); do
		port=$SAN_NVMET/ports/$p
		mkdir "$port" || die "san_nvme: cannot make $port"
		san_w tcp "$port/addr_trtype"
		san_w ipv4 "$port/addr_adrfam"
		san_w 127.0.0.1 "$port/addr_traddr"
		san_w "$(san_nvme_port "$p")" "$port/addr_trsvcid"
		mkdir "$port/ana_groups/2" || die "san_nvme: cannot make ANA group 2 on port $p"
		for g in 1 2; do san_w optimized "$port/ana_groups/$g/ana_state"; done
	done
	echo "$ports" > "$SAN_RUN/nvme-made-ports"
	# The subsystem and its namespaces (buffered: tmpfs takes no O_DIRECT
	# before 6.6).
	sub=$SAN_NVMET/subsystems/$SAN_NQN
	mkdir "$sub" || die "san_nvme: cannot make $sub"
	san_w 1 "$sub/attr_allow_any_host"
	san_w lab-nvme-san "$sub/attr_serial"
	for ((i = 1; i <= nss; i++)); do
		ns=$sub/namespaces/$i
		mkdir "$ns" || die "san_nvme: cannot make namespace $i"
		truncate -s 64M "/tmp/san-nvme-ns$i.img" || die "san_nvme: cannot make /tmp/san-nvme-ns$i.img"
		san_w "/tmp/san-nvme-ns$i.img" "$ns/device_path"
		san_w "$(printf '6c61622d-6e76-6d65-0000-%012d' "$i")" "$ns/device_uuid"
		san_w 1 "$ns/buffered_io"
		san_w $((2 - i % 2)) "$ns/ana_grpid"
		san_w 1 "$ns/enable"
	done
	echo "$nss" > "$SAN_RUN/nvme-namespaces"
	for ((p = 1; p <= ports; p++)); do
		ln -s "$sub" "$SAN_NVMET/ports/$p/subsystems/$SAN_NQN" ||
			die "san_nvme: cannot export the subsystem through port $p"
	done
	echo "$ports" > "$SAN_RUN/nvme-ports"
	for ((p = 1; p <= ports; p++)); do
		san_nvme_connect "$p"
	done
	san_nvme_paths | tee "$SAN_RUN/nvme-paths"
}

# san_nvme_ctrl N: the host's controller (nvmeX) connected through port N.
san_nvme_ctrl() {
	local c a
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$SAN_NQN" ] || continue
		a=$(cat "$c/address" 2>/dev/null)
		[[ $a == *"trsvcid=$(san_nvme_port "$1")"* ]] && basename "$c"
	done
}

# san_nvme_paths [PORT]: "PORT NSID NAME" of every NVMe path, one a line,
# sorted; with PORT, the block device names of that port's paths only.
san_nvme_paths() {
	local p c d ports
	ports=$(cat "$SAN_RUN/nvme-ports" 2>/dev/null || echo 0)
	for ((p = 1; p <= ports; p++)); do
		for c in $(san_nvme_ctrl "$p"); do
			for d in /sys/class/nvme/"$c"/nvme*n*; do
				[ -e "$d/nsid" ] || continue
				echo "$p $(cat "$d/nsid") $(basename "$d")"
			done
		done
	done | sort -n -k1,1 -k2,2 | if [ $# -gt 0 ]; then awk -v p="$1" '$1 == p { print $3 }'; else cat; fi
}

# san_nvme_has_paths PORT N: port PORT has N paths (for wait_until).
san_nvme_has_paths() { [ "$(san_nvme_paths "$1" | wc -l)" -eq "$2" ]; }

# san_nvme_connect N / san_nvme_disconnect N: connect through port N (with
# the lab's timeouts, above; wait until its paths exist and udev settled)
# / disconnect its controller.
san_nvme_connect() {
	local p=$1 log n
	log=$(san_log)
	n=$(cat "$SAN_RUN/nvme-namespaces")
	nvme connect -t tcp -a 127.0.0.1 -s "$(san_nvme_port "$p")" -n "$SAN_NQN" \
		-q "$SAN_HOSTNQN" -I "$SAN_HOSTID" -k "$SAN_NVME_KATO" -c "$SAN_NVME_RECONNECT" \
		-l "$SAN_NVME_LOSS" >> "$log" 2>&1 || die "san_nvme_connect $p failed: $(tail -n 3 "$log")"
	wait_until 30 san_nvme_has_paths "$p" "$n" ||
		die "san_nvme_connect $p: $(san_nvme_paths "$p" | wc -l) of $n paths after 30 s"
	udevadm settle --timeout=30
}
san_nvme_disconnect() {
	local c log
	log=$(san_log)
	for c in $(san_nvme_ctrl "$1"); do
		nvme disconnect -d "$c" >> "$log" 2>&1 || die "san_nvme_disconnect $1 failed: $(tail -n 3 "$log")"
	done
	udevadm settle --timeout=30
}

# san_nvme_port_drop N / san_nvme_port_restore N: drop every TCP segment
# to or from NVMe port N (san_tcp_drop): its
# controller misses its keep-alive, fails its I/O and tries to reconnect
# every 2 s; once restored, it reconnects by itself (unless it gave up
# first, after 30 attempts, 60 s or more: then it is gone).
san_nvme_port_drop() { san_tcp_drop "$(san_nvme_port "$1")"; }
san_nvme_port_restore() { san_tcp_restore "$(san_nvme_port "$1")"; }

# san_ana_state PORT STATE [GROUP]: set the ANA state of GROUP (1 or 2;
# both when left out) as seen through NVMe port PORT: optimized,
# non-optimized, inaccessible, persistent-loss or change. The target
# sends an ANA change notice; the host (nvme_core.multipath=N reads no ANA
# log) learns it from the status of the next I/O through that port (an ANA
# error for inaccessible, persistent-loss and change) or from the ANA log
# page (nvme ana-log /dev/nvmeX).
san_ana_state() {
	local p=$1 st=$2 g
	case $st in
	optimized | non-optimized | inaccessible | persistent-loss | change) ;;
	*) die "san_ana_state: unknown state '$st'" ;;
	esac
	[ -d "$SAN_NVMET/ports/$p" ] || die "san_ana_state: no NVMe port $p"
	for g in ${3:-1 2}; do
		san_w "$st" "$SAN_NVMET/ports/$p/ana_groups/$g/ana_state"
	done
}

# san_nvme_teardown: disconnect, take the target down, unload the modules
# (part of san_teardown).
san_nvme_teardown() {
	local c p ns sub=$SAN_NVMET/subsystems/$SAN_NQN ports
	[ -e "$SAN_RUN/nvme-made-ports" ] || [ -d "$sub" ] || return 0
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$SAN_NQN" ] || continue
		timeout 60 nvme disconnect -d "$(basename "$c")" > /dev/null 2>&1
	done
	ports=$(cat "$SAN_RUN/nvme-made-ports" 2>/dev/null || echo 4)
	for ((p = 1; p <= ports; p++)); do
		[ -d "$SAN_NVMET/ports/$p" ] || continue
		rm -f "$SAN_NVMET/ports/$p/subsystems/$SAN_NQN"
		rmdir "$SAN_NVMET/ports/$p/ana_groups/2" "$SAN_NVMET/ports/$p" 2>/dev/null
	done
	for ns in "$sub"/namespaces/*; do
		[ -d "$ns" ] || continue
		echo 0 > "$ns/enable" 2>/dev/null
		rmdir "$ns"
	done
	rmdir "$sub" 2>/dev/null
	rm -f /tmp/san-nvme-ns*.img "$SAN_RUN"/nvme-*
	for c in nvme_tcp nvme_fabrics nvmet_tcp; do
		grep -q "^$c " /proc/modules && modprobe -r "$c" 2>/dev/null
	done
	grep -q '^nvme_loop ' /proc/modules || modprobe -r nvmet 2>/dev/null
	return 0
}
