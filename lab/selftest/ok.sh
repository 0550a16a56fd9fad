#!/bin/bash
# Expected to PASS: the lab runs scenarios after a guest it had to reboot.
. /lab/lib.sh
result kernel "$(uname -r)"
[ -e /dev/mapper/control ] || modprobe dm-mod
