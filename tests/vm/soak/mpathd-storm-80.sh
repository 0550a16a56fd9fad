#!/bin/bash
# lab-timeout: 900
# tests/vm/mpathd-storm.sh with 80 hung paths (8 scsi_debug hosts with 10
# LUNs each) instead of 40: the size at which the hung-path promises were
# first found broken. Not part of scripts/check: the 80 disks alone take
# about two minutes to appear under TCG. Run it with
#   lab/run --build build tests/vm/soak/mpathd-storm-80.sh
STORM_HOSTS=8
STORM_LUNS=10
. "$LAB_SRC/tests/vm/mpathd-storm.sh"
