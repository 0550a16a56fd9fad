#!/bin/bash
# Guest side of bench/query: how long a client waits for the daemon's view
# of every map, mpathd against Debian's multipathd on the same maps
# (scsi_debug, LUNS x 4 paths, stock target for both). The maps are made
# once per set-up; each round starts one daemon on them, times CALLS
# queries of each kind, stops it, then does the same with the other (the
# first alternating). One line per sample in $RESULTS/query.txt:
#   query LUNS KIND MS
# KIND: mpathctl-json (mpathctl show maps --json as root: the private
# socket), mpathctl-json-bus (the same through dbus-daemon), multipathd-json
# (multipathd show maps json), managed-objects (busctl ... GetManagedObjects,
# 256 maps x 4 paths is the API's biggest answer here), mpathctl-topology
# and multipathd-topology (the human trees), mpathctl-version and
# multipathd-version (a client that only starts and exits: the floor under
# TCG). Then, per daemon and round, two reconfigures that reload every map
# (the default selector changed and back), the maps query repeated until
# they end: mpathctl-reconf / multipathd-reconf (each query),
# *-reconf-worst (the worst per reconfigure), *-reconf-took (how long the
# reconfigure took), *-reconf-floor (/bin/true run after each query: what
# any program waits for the guest's CPUs meanwhile). Expects REPEATS,
# CALLS, SETUPS.
. /lab/lib.sh

REPEATS=${REPEATS:-5}
CALLS=${CALLS:-5}
SETUPS=${SETUPS:-"64 256"}
out=$RESULTS/query.txt
: > "$out"

write_conf() { # write_conf SELECTOR: both daemons' configuration
	local conf
	conf="defaults {
	user_friendly_names no
	find_multipaths off
	path_selector \"$1\"
}
blacklist {
	devnode \"^(nvme|vd|sr|loop|ram|nullb)\"
	device {
		vendor \"QEMU\"
		product \".*\"
	}
}"
	echo "$conf" > /etc/multipath.conf
	mkdir -p /etc/mpathd
	printf '%s\ndefaults {\n\tdm_target multipath\n}\n' "$conf" > /etc/mpathd/mpathd.conf
}
write_conf "service-time 0"
modprobe dm-multipath

now_us() { echo "${EPOCHREALTIME/./}"; }

complete() { # complete LUNS: every map has its 4 paths
	[ "$(dmsetup table --target multipath 2>/dev/null |
		awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/) n++; if (n == 4) c++ } END { print c + 0 }')" -eq "$1" ]
}

PID=
start() { # start DAEMON
	local log=$RESULTS/$1.log before
	case $1 in
	mpathd)
		before=$(grep -c 'notice: ready' "$log" 2>/dev/null || true)
		mpathd >> "$log" 2>&1 &
		PID=$!
		wait_until 300 sh -c "[ \$(grep -c 'notice: ready' '$log') -gt ${before:-0} ]" ||
			die "mpathd did not get ready"
		# How long after "ready" each endpoint first answers: both should
		# at once; a late one is printed, with what mpathd was doing.
		local t0 t1
		t0=$(now_us)
		wait_until 300 sh -c 'mpathctl show maps >/dev/null 2>&1' ||
			die "mpathd does not answer on its private socket"
		t1=$(now_us)
		echo "query $LUNS_NOW first-answer-private $(((t1 - t0) / 1000))" >> "$out"
		wait_until 300 sh -c 'mpathctl --bus system show maps >/dev/null 2>&1' || {
			top -b -n 1 | head -20
			die "mpathd does not answer on the system bus"
		}
		t1=$(now_us)
		echo "query $LUNS_NOW first-answer-bus $(((t1 - t0) / 1000))" >> "$out"
		;;
	multipathd)
		multipathd -d -s >> "$log" 2>&1 &
		PID=$!
		wait_until 300 sh -c "multipathd show daemon 2>/dev/null | grep -Eq 'pid [0-9]+ idle'" ||
			die "multipathd did not get idle"
		;;
	esac
}

stop() {
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
}

timed() { # timed LUNS KIND COMMAND...: CALLS samples
	local luns=$1 kind=$2 t0 t1 i r
	shift 2
	for i in $(seq 1 "$CALLS"); do
		t0=$(now_us)
		"$@" > /dev/null 2>&1
		r=$?
		t1=$(now_us)
		# multipathd -h answers 1: only the start-up is timed.
		[ "$r" -eq 0 ] || [ "$kind" = multipathd-version ] || die "$kind: $* failed"
		echo "query $luns $kind $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100))" >> "$out"
	done
}

switched() { # switched LUNS SELECTOR: every map's table has the selector
	[ "$(dmsetup table --target multipath 2>/dev/null | grep -c "$2")" -ge "$1" ]
}

during_reconfigure() { # during_reconfigure LUNS DAEMON KIND SELECTOR
	# A reconfigure that reloads every map (a new default selector), and
	# the same query as the calm one, again and again until every table has
	# the new selector: each query's time, then the worst of them.
	local luns=$1 d=$2 kind=$3 sel=$4 t0 t1 began worst=0 n=0 client ms
	write_conf "$sel"
	began=$(now_us)
	case $d in
	mpathd) mpathctl reconfigure > /dev/null 2>&1 & ;;
	multipathd) multipathd reconfigure > /dev/null 2>&1 & ;;
	esac
	client=$!
	while :; do
		t0=$(now_us)
		case $d in
		mpathd) mpathctl show maps --json > /dev/null 2>&1 ;;
		multipathd) multipathd show maps json > /dev/null 2>&1 ;;
		esac || echo "query $luns $kind-failed 1" >> "$out"
		t1=$(now_us)
		ms=$(((t1 - t0) / 1000))
		echo "query $luns $kind $ms.$(((t1 - t0) % 1000 / 100))" >> "$out"
		[ "$ms" -gt "$worst" ] && worst=$ms
		# The floor beside it: a program that only starts and exits, as
		# slow as the guest's CPUs, busy with udev's work, make it.
		t0=$(now_us)
		/bin/true
		t1=$(now_us)
		echo "query $luns $kind-floor $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100))" >> "$out"
		n=$((n + 1))
		if switched "$luns" "$sel" && [ "$n" -ge 3 ]; then
			break
		fi
		if [ $(((t1 - began) / 1000000)) -ge 300 ]; then
			echo "$d: the maps did not all take '$sel' within 300 s"
			echo "query $luns $kind-unfinished 1" >> "$out"
			break
		fi
	done
	wait "$client"
	echo "query $luns $kind-worst $worst" >> "$out"
	echo "query $luns $kind-took $(((t1 - began) / 1000))" >> "$out"
}

measure() { # measure LUNS DAEMON
	start "$2"
	# Both must report every map before their answer counts.
	case $2 in
	mpathd)
		n=$(mpathctl --bus system show maps --json | grep -c '"uuid"')
		[ "$n" -eq "$1" ] || die "mpathctl lists $n maps, expected $1"
		# As root: the private socket (the default); through dbus-daemon.
		timed "$1" mpathctl-json mpathctl show maps --json
		timed "$1" mpathctl-json-bus mpathctl --bus system show maps --json
		timed "$1" managed-objects busctl --system call org.mpathd.Multipath1 \
			/org/mpathd/Multipath1 org.freedesktop.DBus.ObjectManager GetManagedObjects
		timed "$1" mpathctl-topology mpathctl show topology --color=never
		timed "$1" mpathctl-version mpathctl --version
		during_reconfigure "$1" mpathd mpathctl-reconf "round-robin 0"
		during_reconfigure "$1" mpathd mpathctl-reconf "service-time 0"
		;;
	multipathd)
		n=$(multipathd show maps json | grep -c '"uuid"')
		[ "$n" -eq "$1" ] || die "multipathd lists $n maps, expected $1"
		timed "$1" multipathd-json multipathd show maps json
		timed "$1" multipathd-topology multipathd show topology
		timed "$1" multipathd-version multipathd -h
		during_reconfigure "$1" multipathd multipathd-reconf "round-robin 0"
		during_reconfigure "$1" multipathd multipathd-reconf "service-time 0"
		;;
	esac
	stop
}

for luns in $SETUPS; do
	LUNS_NOW=$luns
	modprobe scsi_debug add_host=4 num_tgts=1 max_luns="$luns" dev_size_mb=4 vpd_use_hostno=0 ||
		die "modprobe scsi_debug max_luns=$luns failed"
	udevadm settle --timeout=600
	# The maps, made once: multipathd's cold start (mpathd adopts them).
	start multipathd
	wait_until 900 complete "$luns" || die "the $luns maps are incomplete"
	stop
	for r in $(seq 1 "$REPEATS"); do
		if [ $((r % 2)) -eq 1 ]; then order="mpathd multipathd"; else order="multipathd mpathd"; fi
		for d in $order; do
			echo "round $r: $luns maps, $d"
			measure "$luns" "$d"
		done
	done
	udevadm settle --timeout=300
	dmsetup remove_all --force > /dev/null 2>&1
	rm -f /etc/multipath/wwids /etc/multipath/bindings
	udevadm settle --timeout=300
	modprobe -r scsi_debug || die "scsi_debug did not unload"
	udevadm settle --timeout=300
done
echo "done" >> "$out"
