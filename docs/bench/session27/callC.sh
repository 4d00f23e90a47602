#!/bin/bash
# Session 27, device call C: HEAD 4f33c0f's fp8_cast with __launch_bounds__ (128, 5) and (128, 6): 96 and 80
# registers (ptxas: 6-30 and 98-122 bytes of spills), five and six blocks an SM where shared memory holds them
# (GELU's 41 KB: five), against HEAD (4 blocks, 127 registers): pack/probe_lb5, probe_lb6, probe_old, each
# built for sm_90 from HEAD with that one line changed. Outputs compared byte for byte, events and ncu
# alternated.
. docs/bench/session27/common.sh
call_start C
probe_measure /tmp/c "grep -v stream" $NCU_METRICS_WIDE old lb5 lb6
echo "end at $SECONDS s"
