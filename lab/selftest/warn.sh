#!/bin/bash
# Expected to FAIL: the script exits 0 but the kernel logs a WARNING.
. /lab/lib.sh
modprobe lab_fault warn=1 || die "cannot load lab_fault"
echo "the script itself succeeded"
