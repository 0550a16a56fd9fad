#!/bin/sh
# Start mpathd before udev's coldplug, so the paths it claims get maps.
type getargbool > /dev/null 2>&1 || . /lib/dracut-lib.sh
getargbool 1 multipath || exit 0
getarg nompath > /dev/null && exit 0
modprobe -q dm-lmpath || modprobe -q dm-multipath
mkdir -p /run/mpathd
/usr/sbin/mpathd > /run/mpathd/initramfs.log 2>&1 &
echo $! > /run/mpathd/initramfs.pid
