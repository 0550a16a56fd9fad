#!/bin/bash
# lab-timeout: 240
# The lmpath fault matrix run on stock multipath (rq mode): proves the
# harness.  Not part of the suite; run by hand with lab/run.
LM_TARGET=multipath LM_MODE=rq
. "${LAB_SRC:-/src}/tests/vm/data/lmpath-faults.sh"
