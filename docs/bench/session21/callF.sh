#!/bin/bash
# Session 21, device call F (probe: 73a8981's mnist_bench, sm_90, with the rows' trainers created in reverse
# order when PROBE_REVERSE is set; pack/rev, not committed): call E found auto's step at 784-1024-1024-10 fp8
# the same kernels as fused's and as fast in processes of their own (1.002x), while mnist_bench's rows in one
# process put auto 1.4-2.2 % behind. Is it the order the rows' trainers were made in? The fp8 ReLU rows of
# 784-1024-1024-10 and 784-100-10, made in the usual order and in reverse, alternated, no tuning cache.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/f
save() { tar -czf $OUT/F-logs.tgz -C /tmp f; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
row() { grep -E "^784-[0-9-]+ +[0-9]+ +(fused|unfused|auto) +fp8" $1 | awk '{printf "%s %s | ", $3, $6}'; }
for net in mid seed mid seed mid; do
  for order in usual reverse; do
    n=$((${n:-0} + 1))
    if [ $order = reverse ]; then export PROBE_REVERSE=1; else unset PROBE_REVERSE; fi
    timeout 60 pack/rev/mnist_bench --network $net --precision fp8 --activation relu --no-layers --tune-cache off > /tmp/f/$n-$net-$order.txt 2>&1
    echo "$net $order rc $?: $(row /tmp/f/$n-$net-$order.txt)"
  done
  [ $SECONDS -gt 200 ] && break
done
save
