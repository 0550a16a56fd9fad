#!/bin/bash
# Expected to FAIL promptly: the guest kernel panics.
# lab-timeout: 120
. /lab/lib.sh
echo 1 > /proc/sys/kernel/sysrq
echo c > /proc/sysrq-trigger
sleep 600
