#!/bin/bash
# mpathctl plan on real devices: scsi_debug (two hosts, one LUN), the two
# virtio-scsi disks sharing a WWN, and the NVMe namespace behind two
# controllers are each planned as one map whose paths share a WWID. Each
# planned table is then created with dmsetup on the stock multipath
# target and on lmpath, and must carry fio --verify without errors.
# lab-timeout: 420
. /lab/lib.sh

# The lab removes the maps and unloads scsi_debug and scsi_dh_alua after
# each scenario (lab/CONTRACT.md).

command -v mpathctl >/dev/null || die "mpathctl is not on PATH"
# vpd_use_hostno=0: the hosts show one LUN identity (with the default,
# each host's LUN has its own WWID). One port is then ALUA standby and
# fails I/O under scsi_dh_alua; the map fails that path and goes on.
# scsi_dh_alua first, as on a host that boots with it: it attaches to the
# scsi_debug disks (dh_state alua), which the plan must then name.
modprobe scsi_dh_alua || die "cannot load scsi_dh_alua"
mapfile -t sd < <(scsi_debug_paths add_host=3 vpd_use_hostno=0)
[ ${#sd[@]} -eq 3 ] || die "expected 3 scsi_debug paths, got: ${sd[*]}"
udevadm settle

# The WWID of a block device as udev sees it.
wwid_of() {
	local v
	v=$(udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_SERIAL=//p')
	[ -n "$v" ] || v=$(udevadm info --query=property --name="/dev/$1" | sed -n 's/^ID_WWN=//p')
	echo "$v"
}
name_of_devt() { basename "$(readlink -f "/sys/dev/block/$1")"; }

cat > /tmp/mpathd.conf <<'CONF'
defaults {
	find_multipaths on
	path_grouping_policy multibus
	path_selector "round-robin 0"
	dm_target multipath
}
CONF
mpathctl plan --config /tmp/mpathd.conf > "$RESULTS/plan.txt" || die "mpathctl plan failed"
mpathctl plan --json --config /tmp/mpathd.conf > "$RESULTS/plan.json" ||
	die "mpathctl plan --json failed"
cat "$RESULTS/plan.txt"

mapfile -t tables < <(sed -n 's/^table: //p' "$RESULTS/plan.txt")
dh=$(cat "/sys/block/${sd[0]}/device/dh_state")
result scsi_debug_dh_state "$dh"
sdtable=$(printf '%s\n' "${tables[@]}" | grep " $(devt "${sd[0]}") ") ||
	die "no planned table holds ${sd[0]}"
case $sdtable in *" multipath 0 1 alua "*) ;; *) die "the scsi_debug map's table does not name the attached handler: $sdtable" ;; esac
result maps "${#tables[@]}"
[ ${#tables[@]} -ge 2 ] || die "expected maps for scsi_debug and virtio-scsi, got ${#tables[@]}"
grep -q '"maps"' "$RESULTS/plan.json" || die "plan --json printed no maps array"

# Every table's paths share one WWID; remember which devices were grouped.
grouped=" "
for t in "${tables[@]}"; do
	w=""
	for devt in $(echo "$t" | grep -o '[0-9]\+:[0-9]\+'); do
		n=$(name_of_devt "$devt")
		nw=$(wwid_of "$n")
		[ -z "$w" ] && w=$nw
		[ "$nw" = "$w" ] || die "table '$t' mixes WWIDs $w and $nw ($n)"
		grouped="$grouped$n "
		grep -q "\"name\": \"$n\"" "$RESULTS/plan.json" || die "$n missing from plan --json"
	done
done
for n in "${sd[@]}"; do
	case $grouped in *" $n "*) ;; *) die "scsi_debug path $n is in no planned map" ;; esac
done
virtio=$(for d in /sys/block/sd*; do
	[ -e "$d/device/vendor" ] && grep -q QEMU "$d/device/vendor" && basename "$d"
done)
nv=0
for n in $virtio; do
	nv=$((nv + 1))
	case $grouped in *" $n "*) ;; *) die "virtio-scsi disk $n is in no planned map" ;; esac
done
result virtio_paths "$nv"
[ "$nv" -eq 2 ] || die "expected 2 virtio-scsi disks, found $nv"
nvme=$(ls /sys/block | grep -c '^nvme' || true)
result nvme_paths "$nvme"

modprobe dm-multipath && modprobe dm-round-robin || die "cannot load dm-multipath"
load_lmpath

i=0
for t in "${tables[@]}"; do
	for target in multipath lmpath; do
		line=${t/ multipath / $target }
		name="plan$i-$target"
		dmsetup create "$name" --table "$line" || die "dmsetup create refused the planned table: $line"
		udevadm settle
		# The kernel reads the table back as planned: what mpathd compares
		# to decide whether a map needs a reload.
		live=$(dmsetup table "$name" | sed 's/ *$//')
		[ "$live" = "$line" ] || die "$name: the kernel reports '$live', the plan said '$line'"
		fio_verify "$name" "/dev/mapper/$name" 5 > "$RESULTS/$name.fio" 2>&1 ||
			die "fio failed on $name ($line): $(tail -5 "$RESULTS/$name.fio")"
		errs=$(cut -d';' -f5 "$RESULTS/$name.fio" | head -n 1)
		[ "$errs" = 0 ] || die "fio reported $errs errors on $name"
		# udev's blkid probe of the new map may still hold it open
		udevadm settle
		dmsetup remove --retry "$name" || die "cannot remove $name"
		result "fio_ok_$name" yes
	done
	i=$((i + 1))
done

# Every selector, with repeat counts the kernel would not keep, and
# features given in another order than the kernel prints them, in request
# and bio mode: the kernel still reads each planned table back as planned
# (Debian builds no dm-historical-service-time: that one runs on lmpath
# only).
modprobe dm-queue-length && modprobe dm-service-time || die "cannot load the selectors"
variants=(
	'path_selector "service-time 0"|rr_min_io_rq 4'
	'path_selector "queue-length 0"|rr_min_io_rq 4'
	'path_selector "round-robin 0"|rr_min_io_rq 4'
	'path_selector "historical-service-time 0"'
	'features "3 retain_attached_hw_handler pg_init_delay_msecs 100"|pg_init_retries 3|no_path_retry queue'
	'queue_mode bio|no_path_retry queue|rr_min_io 1000'
)
v=0
mkdir -p /tmp/variant
for variant in "${variants[@]}"; do
	v=$((v + 1))
	{
		printf 'defaults {\n\tfind_multipaths on\n\tdm_target multipath\n'
		tr '|' '\n' <<<"$variant" | sed 's/^/\t/'
		printf '}\n'
	} > /tmp/variant/mpathd.conf
	mpathctl plan --config /tmp/variant/mpathd.conf > "$RESULTS/plan-variant$v.txt" ||
		die "mpathctl plan failed for $variant"
	case $variant in *rr_min_io*)
		grep -q "^note: rr_min_io\(_rq\)\? [0-9]* is written as 1" "$RESULTS/plan-variant$v.txt" ||
			die "no note on the capped repeat count for $variant: $(cat "$RESULTS/plan-variant$v.txt")" ;;
	esac
	mapfile -t tables < <(sed -n 's/^table: //p' "$RESULTS/plan-variant$v.txt")
	[ ${#tables[@]} -ge 3 ] || die "expected 3 maps for $variant, got ${#tables[@]}"
	printf '%s\n' "${tables[@]}" | grep -qv ' multipath ' &&
		die "a table for $variant is not for the multipath target: $(cat "$RESULTS/plan-variant$v.txt")"
	i=0
	for t in "${tables[@]}"; do
		for target in multipath lmpath; do
			[ $target = multipath ] && [[ $variant == *historical-service-time* ]] && continue
			line=${t/ multipath / $target }
			name="var$v-$i-$target"
			dmsetup create "$name" --table "$line" || die "dmsetup create refused the planned table: $line"
			live=$(dmsetup table "$name" | sed 's/ *$//')
			udevadm settle
			dmsetup remove --retry "$name" || die "cannot remove $name"
			[ "$live" = "$line" ] || die "$name ($variant): the kernel reports '$live', the plan said '$line'"
		done
		i=$((i + 1))
	done
	result "variant${v}_reads_back" yes
done
