#!/bin/bash
# Session 27, device call D: fp8_cast with each thread copying one column of the tile (its 64 bytes as four
# 16-byte copies at one address, GELU's z alike, its mask word), the decode reading what other threads copied
# after the block's wait and sync, which the end-of-tile sync already was: no per-column address a thread,
# no __syncwarp for the mask words (pack/probe_col, the working tree's layers) against HEAD 4f33c0f
# (pack/probe_old). Outputs compared byte for byte, events and ncu alternated, two rounds.
. docs/bench/session27/common.sh
call_start D
probe_measure /tmp/d "grep -v stream" $NCU_METRICS_WIDE old col
echo "end at $SECONDS s"
