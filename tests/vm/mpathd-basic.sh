#!/bin/bash
# mpathd on real devices: the scsi_debug LUN, the virtio-scsi pair and the
# NVMe pair become maps by themselves, with the tables mpathctl plan
# shows; a scsi_debug path set offline under fio --verify is failed within
# polling_interval + the check deadline and reinstated when it is back,
# without an I/O error; a daemon killed with -9 under I/O comes back and
# adopts the maps without reloading them; SIGHUP with a changed selector
# for one map reloads that map only; rr_weight priorities weighs the
# virtio paths' reads by their priorities, uniform spreads them; a path
# that keeps going offline is held failed as shaky (san_path_err_*) until
# it has been up its recovery time, or with marginal_pathgroups grouped
# apart, last, for that time; SIGTERM leaves the maps.
# lab-timeout: 420
# check-kernels: 6.1
. /lab/lib.sh

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
mapfile -t sd < <(scsi_debug_paths add_host=3 | active_paths)
[ ${#sd[@]} -ge 2 ] || die "expected two active scsi_debug paths, got: ${sd[*]}"
sdwwid=$(wwid_of "${sd[0]}")
vwwid=$(wwid_of sda)
mkdir -p /etc/mpathd
cat > /etc/mpathd/mpathd.conf <<'CONF'
defaults {
	find_multipaths on
	polling_interval 2
	path_grouping_policy multibus
	no_path_retry queue
}
blacklist {
	# scsi_debug's standby ALUA port fails I/O: not in these maps
	devnode "^(sd[a-z]+)$"
}
blacklist_exceptions {
	devnode "^(sda|sdb|SDPATHS)$"
}
CONF
sed -i "s/SDPATHS/${sd[0]}|${sd[1]}/" /etc/mpathd/mpathd.conf

mpathd_start
maps=$(dmsetup ls --target lmpath | wc -l)
result maps "$maps"
[ "$maps" -eq 3 ] || die "expected 3 lmpath maps (scsi_debug, virtio, nvme), got: $(dmsetup ls --target lmpath)"
grep -q 'STATUS\|ready' "$RESULTS/mpathd.log" || die "no ready in the log"

# Every live table is the one mpathctl plan shows for the same files.
mpathctl plan > "$RESULTS/plan.txt" 2>&1 || die "mpathctl plan failed"
while read -r name _; do
	live="0 $(dmsetup table "$name" | cut -d' ' -f2-)"
	grep -qxF "table: ${live% }" "$RESULTS/plan.txt" ||
		die "map $name: live table '$live' is not in the plan: $(grep '^table:' "$RESULTS/plan.txt")"
done < <(dmsetup ls --target lmpath)

map=$(map_of "$sdwwid")
[ -n "$map" ] || die "no map for the scsi_debug LUN ($sdwwid)"
a=${sd[0]}
da=$(devt "$a")
fio_verify mpathd "/dev/mapper/$map" 40 > "$RESULTS/fio.log" 2>&1 &
fio=$!
sleep 4
t0=${EPOCHREALTIME/./}
echo offline > "/sys/block/$a/device/state"
wait_until 20 sh -c "[ \"\$(dmsetup status '$map' | awk -v d='$da' '{for (i=1;i<NF;i++) if (\$i==d) print \$(i+1)}')\" = F ]" ||
	die "$a was not failed: $(dmsetup status "$map")"
result fail_ms $(((${EPOCHREALTIME/./} - t0) / 1000))
wait_until 10 grep -q "path $a: .*says down\|path $a: device-mapper failed it" "$RESULTS/mpathd.log" ||
	die "mpathd did not notice $a: $(tail -n 5 "$RESULTS/mpathd.log")"
sleep 2
echo running > "/sys/block/$a/device/state"
t0=${EPOCHREALTIME/./}
wait_until 20 sh -c "[ \"\$(dmsetup status '$map' | awk -v d='$da' '{for (i=1;i<NF;i++) if (\$i==d) print \$(i+1)}')\" = A ]" ||
	die "$a was not reinstated: $(dmsetup status "$map")"
result reinstate_ms $(((${EPOCHREALTIME/./} - t0) / 1000))

# kill -9 under I/O, and a new daemon: nothing reloaded.
mpathd_stop KILL
udevadm monitor --kernel --property --subsystem-match=block > "$RESULTS/uevents-restart.txt" 2>&1 &
mon=$!
sleep 1
: > "$RESULTS/mpathd-restart.log"
mpathd -v >> "$RESULTS/mpathd-restart.log" 2>&1 &
MPATHD_PID=$!
wait_until 60 grep -q 'notice: ready' "$RESULTS/mpathd-restart.log" || die "mpathd did not restart"
sleep 3
kill "$mon"
grep -E 'creating|reloading' "$RESULTS/mpathd-restart.log" &&
	die "the restarted daemon changed maps"
grep -q 'adopted' "$RESULTS/mpathd-restart.log" || die "no map adopted"
# A table load ends with a resume: a change event of the map without
# DM_ACTION (path events carry DM_ACTION=PATH_FAILED/PATH_REINSTATED).
# Synthetic change events (SYNTH_UUID: udev's watch when fio closes the
# map it wrote between its write and verify passes) are no resume.
awk 'function judge() { if (ev ~ /change/ && ev ~ /dm-/ && ev !~ /DM_ACTION=/ && ev !~ /SYNTH_UUID=/) bad = bad ev "\n" }
	/^KERNEL\[/ { judge(); ev = $0; next }
	{ ev = ev " " $0 }
	END { judge(); printf "%s", bad }' \
	"$RESULTS/uevents-restart.txt" > "$RESULTS/reloads-on-restart.txt"
[ -s "$RESULTS/reloads-on-restart.txt" ] &&
	die "maps were loaded again on restart: $(head -c 300 "$RESULTS/reloads-on-restart.txt")"
wait "$fio" || die "fio failed: $(tail -n 20 "$RESULTS/fio.log")"
result fio errors=0

# SIGHUP with a new selector for the scsi_debug map only.
cat >> /etc/mpathd/mpathd.conf <<CONF
multipaths {
	multipath {
		wwid "$sdwwid"
		path_selector "queue-length 0"
	}
}
CONF
kill -HUP "$MPATHD_PID"
wait_until 30 sh -c "dmsetup table '$map' | grep -q queue-length" || die "SIGHUP did not reload $map"
sleep 2
n=$(grep -c 'reloading' "$RESULTS/mpathd-restart.log")
result reloads_after_sighup "$n"
[ "$n" -eq 1 ] || die "SIGHUP reloaded $n maps, expected 1: $(grep reloading "$RESULTS/mpathd-restart.log")"

# rr_weight priorities: each virtio path's priority becomes its weight in
# service-time, and the map's I/O follows it; uniform spreads it again.
vmap=$(map_of "$vwwid")
[ -n "$vmap" ] || die "no map for the virtio LUN ($vwwid)"
reads() { awk '{ print $1 }' "/sys/block/$1/stat"; }
spread() { # "READS_SDA READS_SDB" of 3 s of reads on the map
	local a0 b0
	a0=$(reads sda) b0=$(reads sdb)
	fio --name=spread --filename="/dev/mapper/$vmap" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --time_based --runtime=3 --output="$RESULTS/fio-spread.log" ||
		return 1
	echo "$(($(reads sda) - a0)) $(($(reads sdb) - b0))"
}
weigh() { # rewrite the virtio map's entry with these lines, and SIGHUP
	if grep -q '# virtio weights' /etc/mpathd/mpathd.conf; then
		sed -i '/# virtio weights/,$d' /etc/mpathd/mpathd.conf
	else
		sed -i '$d' /etc/mpathd/mpathd.conf # the multipaths section's closing brace
	fi
	printf '\t# virtio weights\n\tmultipath {\n\t\twwid "%s"\n%s\n\t}\n}\n' "$vwwid" "$1" \
		>> /etc/mpathd/mpathd.conf
	kill -HUP "$MPATHD_PID"
}
weigh "$(printf '\t\tprio weightedpath\n\t\tprio_args "devname ^sda$ 50 ^sdb$ 10"\n\t\trr_weight priorities\n')"
wait_until 30 sh -c "dmsetup table '$vmap' | grep -qE ' $(devt sda) 1 50( |\$)'" ||
	die "rr_weight priorities did not weigh $vmap: $(dmsetup table "$vmap")"
dmsetup table "$vmap" | grep -qE " $(devt sdb) 1 10( |\$)" || die "sdb's weight: $(dmsetup table "$vmap")"
mpathctl config check > "$RESULTS/config-check.txt" 2>&1 ||
	die "config check: $(cat "$RESULTS/config-check.txt")"
grep -q rr_weight "$RESULTS/config-check.txt" && die "rr_weight warned: $(cat "$RESULTS/config-check.txt")"
read -r wa wb < <(spread) || die "fio on $vmap failed: $(tail -n 5 "$RESULTS/fio-spread.log")"
result weighted_reads "sda=$wa sdb=$wb"
[ "$wa" -gt 0 ] && [ "$wa" -ge $((4 * wb)) ] || die "weights 50:10, yet reads sda=$wa sdb=$wb"
weigh "$(printf '\t\tprio weightedpath\n\t\tprio_args "devname ^sda$ 50 ^sdb$ 10"\n\t\trr_weight uniform\n')"
wait_until 30 sh -c "! dmsetup table '$vmap' | grep -qE ' 1 50( |\$)'" ||
	die "rr_weight uniform left the weights: $(dmsetup table "$vmap")"
read -r ua ub < <(spread) || die "fio on $vmap failed: $(tail -n 5 "$RESULTS/fio-spread.log")"
result uniform_reads "sda=$ua sdb=$ub"
[ "$ua" -ge $(((ua + ub) / 4)) ] && [ "$ub" -ge $(((ua + ub) / 4)) ] ||
	die "uniform weights, yet reads sda=$ua sdb=$ub"

# Shaky paths (san_path_err_*), under fio --verify: the scsi_debug path
# that goes offline a first time is reinstated as usual; the second time it
# is more failures than the threshold, so it stays failed (mpathctl shows
# it shaky) until its checks found it up for the recovery time, 10 s.
sed -i 's/path_selector "queue-length 0"/&\n\t\tsan_path_err_threshold 1\n\t\tsan_path_err_forget_rate 30\n\t\tsan_path_err_recovery_time 10/' /etc/mpathd/mpathd.conf
grep -q san_path_err_recovery_time /etc/mpathd/mpathd.conf || die "the shaky path settings are not in mpathd.conf"
mpathctl reconfigure > "$RESULTS/reconfigure-shaky.txt" 2>&1 || die "reconfigure failed: $(cat "$RESULTS/reconfigure-shaky.txt")"
fio_verify shaky "/dev/mapper/$map" 240 > "$RESULTS/fio-shaky.log" 2>&1 &
fio=$!
sleep 2
flap() { # offline until failed, then running
	echo offline > "/sys/block/$a/device/state"
	wait_until 20 path_is "$map" "$da" F || die "$a was not failed: $(dmsetup status "$map")"
	sleep 1
	echo running > "/sys/block/$a/device/state"
}
flap
wait_until 20 path_is "$map" "$da" A || die "$a was not reinstated after its first failure: $(dmsetup status "$map")"
sleep 2
flap
t0=$(now_ms)
wait_until 20 grep -q "path $a: up again, but failed 2 times" "$RESULTS/mpathd-restart.log" ||
	die "$a was not held as shaky: $(grep "path $a:" "$RESULTS/mpathd-restart.log" | tail -n 5)"
mpathctl show path "$a" > "$RESULTS/show-path-shaky.txt" 2>&1
grep -q '^shaky  *shaky' "$RESULTS/show-path-shaky.txt" || die "mpathctl does not show $a shaky: $(cat "$RESULTS/show-path-shaky.txt")"
path_is "$map" "$da" F || die "$a held as shaky, yet not failed: $(dmsetup status "$map")"
wait_until 30 path_is "$map" "$da" A || die "$a not reinstated 30 s after it was held: $(dmsetup status "$map")"
held=$(($(now_ms) - t0))
result shaky_held_ms "$held"
[ "$held" -ge 8000 ] || die "$a was held $held ms only, not its 10 s recovery time"
mpathctl show path "$a" | grep -q '^shaky  *no' || die "$a still shown shaky once reinstated"
# marginal_pathgroups on: the same path, shaky again, is not held failed
# but reinstated into a group of its own after the other path's, and
# rejoins it once up for its recovery time.
sed -i 's/^\tno_path_retry queue$/&\n\tmarginal_pathgroups on/' /etc/mpathd/mpathd.conf
grep -q 'marginal_pathgroups on' /etc/mpathd/mpathd.conf || die "marginal_pathgroups is not in mpathd.conf"
mpathctl reconfigure > "$RESULTS/reconfigure-marginal.txt" 2>&1 || die "reconfigure failed: $(cat "$RESULTS/reconfigure-marginal.txt")"
ngroups() { dmsetup table "$map" | awk '{ i = 4; i += $i + 1; i += $i + 1; print $i }'; }
[ "$(ngroups)" -eq 1 ] || die "$map has $(ngroups) groups before: $(dmsetup table "$map")"
sleep 2
flap
wait_until 20 path_is "$map" "$da" A || die "$a was not reinstated after a first failure: $(dmsetup status "$map")"
sleep 2
flap
t0=$(now_ms)
wait_until 20 sh -c "[ \"\$(dmsetup table '$map' | awk '{ i = 4; i += \$i + 1; i += \$i + 1; print \$i }')\" -eq 2 ]" ||
	die "$a was not grouped apart: $(dmsetup table "$map"); $(grep "path $a:" "$RESULTS/mpathd-restart.log" | tail -n 3)"
result marginal_table "\"$(dmsetup table "$map")\""
dmsetup table "$map" | grep -qE " $da( [0-9]+)* *\$" || die "$a's group is not the last: $(dmsetup table "$map")"
wait_until 10 path_is "$map" "$da" A || die "$a grouped apart, but failed: $(dmsetup status "$map")"
wait_until 30 sh -c "[ \"\$(dmsetup table '$map' | awk '{ i = 4; i += \$i + 1; i += \$i + 1; print \$i }')\" -eq 1 ]" ||
	die "$a not back with the other path 30 s after it was grouped apart: $(dmsetup table "$map")"
result marginal_regrouped_back_ms $(($(now_ms) - t0))
fio_stop "$fio" "$RESULTS/fio-shaky.log" || die "fio failed across the shaky path: $(grep -m 2 -iE 'error|verify' "$RESULTS/fio-shaky.log")"
fio=
result fio_shaky errors=0

mpathd_stop TERM
[ "$(dmsetup ls --target lmpath | wc -l)" -eq 3 ] || die "maps went with the daemon"
dmsetup table "$map" | grep -q queue_if_no_path && die "queueing stays on without the daemon"
true
