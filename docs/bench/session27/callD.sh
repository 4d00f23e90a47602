#!/bin/bash
# Session 27, device call D: fp8_cast with each thread copying one column of the tile (its 64 bytes as four
# 16-byte copies at one address, GELU's z alike, its mask word), the decode reading what other threads copied
# after the block's wait and sync, which the end-of-tile sync already was: no per-column address a thread,
# no __syncwarp for the mask words (pack/probe_col, the working tree's layers) against HEAD 4f33c0f
# (pack/probe_old). Outputs compared byte for byte, events and ncu alternated, two rounds.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
trap save EXIT
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for v in old col; do timeout 60 pack/probe_$v 3 /tmp/d/dump-$v > /tmp/d/dump-$v.txt 2>&1; echo "dump $v rc $?"; done
for v in col; do for c in relu_l1 gelu_l1 relu_l2; do cmp /tmp/d/dump-old-$c.bin /tmp/d/dump-$v-$c.bin && echo "$v $c: outputs byte for byte SAME as old"; done; done
rm -f /tmp/d/*.bin
. docs/bench/session27/common.sh
probe_events /tmp/d "grep -v stream" old col
probe_ncu /tmp/d $NCU_METRICS_WIDE old col
python3 docs/bench/session27/ncu_summary.py /tmp/d
echo "end at $SECONDS s"
