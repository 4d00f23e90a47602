#!/bin/bash
# Session 30, device call D: call C's masked cast with its transposed stores' addresses stepped
# (probe_v1: one staging buffer, two barriers a tile) and with two staging and partial-sum buffers
# where shared memory holds them, one barrier a tile (the working tree: pack/build.tar.xz,
# probe_new), against HEAD 83c381f's (probe_old, pack/build_old.tar.xz): the GPU suite and racecheck
# on the new build, the probe's outputs compared at four shapes (v1's with new's), ncu of the
# three, the default fp8 runs and the big fp8 bench rows. (Ran inline; moved into common.sh.)
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
start30 D
gpu_suite /tmp/d
cast_outputs /tmp/d
timeout 60 pack/probe_v1 3 /tmp/d/dump-v1 > /tmp/d/dump-v1.txt 2>&1; timeout 60 pack/probe_new 3 /tmp/d/dump-n > /tmp/d/dump-n.txt 2>&1
for c in relu_l1 gelu_l1 relu_l2; do cmp /tmp/d/dump-v1-$c.bin /tmp/d/dump-n-$c.bin && echo "v1 $c: byte for byte the same as new"; done; rm -f /tmp/d/*.bin
cast_ncu /tmp/d old v1 new
fp8_runs /tmp/d
fp8_rows /tmp/d big old new
echo "end at $SECONDS s"
