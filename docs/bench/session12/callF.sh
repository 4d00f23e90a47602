#!/bin/bash
# Session 12, device call F: test_epoch_gather built (sm_90) against a mutant train/epoch_gather.cu
# (F-mutant.patch: the typed gather's pixels reversed within a chunk; the FP8 gather's second X8T half written
# over the first): both of its gather tests must fail.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
timeout 120 pack/mutant/test_epoch_gather 2>&1 | cut -c1-220 | tail -8; echo "rc=${PIPESTATUS[0]}"
