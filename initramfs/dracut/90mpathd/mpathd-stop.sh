#!/bin/sh
# Stop the initramfs' mpathd before switch-root; its maps stay.
[ -s /run/mpathd/initramfs.pid ] || exit 0
pid=$(cat /run/mpathd/initramfs.pid)
kill -TERM "$pid" 2>/dev/null
i=0
while [ $i -lt 50 ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -KILL "$pid" 2>/dev/null
rm -f /run/mpathd/initramfs.pid
