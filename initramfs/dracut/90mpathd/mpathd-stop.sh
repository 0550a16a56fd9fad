#!/bin/sh
# Stop the initramfs' mpathd before switch-root; its maps stay.
[ -s /run/mpathd/initramfs.pid ] || exit 0
pid=$(cat /run/mpathd/initramfs.pid)
# Whether it still runs: a zombie (nobody reaps it here) has ended.
running() {
	[ -r "/proc/$pid/stat" ] || return 1
	case $(cat "/proc/$pid/stat" 2>/dev/null) in
	*") Z "* | *") X "* | "") return 1 ;;
	esac
	return 0
}
kill -TERM "$pid" 2>/dev/null
i=0
while [ $i -lt 50 ] && running; do
	sleep 0.1
	i=$((i + 1))
done
if running; then
	kill -KILL "$pid" 2>/dev/null
	# It ends when each of its threads leaves the kernel: until then one
	# may still write in the initramfs that switch-root empties.
	i=0
	while [ $i -lt 100 ] && running; do
		sleep 0.1
		i=$((i + 1))
	done
fi
rm -f /run/mpathd/initramfs.pid
