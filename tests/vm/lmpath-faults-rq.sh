#!/bin/bash
# lab-timeout: 240
# lmpath in rq mode under the fault matrix of tests/vm/data/lmpath-faults.sh:
# path offline/online, fail/reinstate messages, group switching, all paths
# down with and without queueing, SCSI delete and rescan; fio --verify
# must see no error while a path is usable or queueing is on.
LM_TARGET=lmpath LM_MODE=rq
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-faults.sh"
