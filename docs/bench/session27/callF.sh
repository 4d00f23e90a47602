#!/bin/bash
# Session 27, device call F: what the cast's two block barriers a tile cost, as an upper bound. HEAD 4f33c0f's
# fp8_cast with the end-of-tile __syncthreads removed (pack/probe_onebar) and with both removed, the
# partial sums' too (pack/probe_nobar): both race on tile_t and the sums, so their outputs are wrong and
# not compared; the bytes moved and the instructions are the cast's. Events and ncu against HEAD
# (pack/probe_old), alternated, two rounds.
. docs/bench/session27/common.sh
call_start F
probe_events /tmp/f "grep -v stream" old onebar nobar
probe_ncu /tmp/f $NCU_METRICS_WIDE old onebar nobar
python3 docs/bench/session27/ncu_summary.py /tmp/f
echo "end at $SECONDS s"
