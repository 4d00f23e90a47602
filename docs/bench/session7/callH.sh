#!/bin/bash
# Session 7, device call H (e9e7090): why 784-4096-4096-10 TF32 GELU auto, which chooses unfused's exact
# configuration, runs 2.5 % behind unfused. Tuning caches per mode; first runs from the cache alternated;
# the same without graphs; ncu's duration of every kernel of 3 host-launched steps per mode; the
# benchmark's rows of that group, twice, and twice with the rows created in reverse order (an experiment
# binary, pack/x: MNIST_X_REVERSE set, e9e7090 otherwise).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/h
B="build/mnist_train --hidden 4096,4096 --batch 4096 --precision tf32 --activation gelu"
for m in auto unfused; do timeout 30 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m --show-plans > $OUT/h/plans_$m.txt 2>&1; grep -m1 fingerprint $OUT/h/plans_$m.txt; done
for r in 1 2 3; do for m in auto unfused; do
  echo "graphs $m $r: $(timeout 30 $B --mode $m --epochs 3 --tune-cache-dir /tmp/tc-$m 2>&1 | grep '^done' | cut -c1-110)"
done; done
for r in 1 2; do for m in auto unfused; do
  echo "no graphs $m $r: $(timeout 30 $B --mode $m --epochs 3 --no-graphs --tune-cache-dir /tmp/tc-$m 2>&1 | grep '^done' | cut -c1-110)"
done; done
for m in auto unfused; do
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base $B --mode $m --epochs 1 --steps 3 --tune-cache-dir /tmp/tc-$m > $OUT/h/ncu_$m.csv 2> $OUT/h/ncu_$m.err
  echo "ncu $m rc $? lines $(wc -l < $OUT/h/ncu_$m.csv)"
done
for r in 1 2; do
  timeout 90 build/mnist_bench --network big --precision tf32 --activation gelu --no-layers --repeats 5 --tune-cache off > $OUT/h/bench_$r.txt 2>&1
  grep -E "^784-4096-4096-10 .* on " $OUT/h/bench_$r.txt | cut -c1-80
done
xz -dc pack/x/mnist_bench.xz > /tmp/mnist_bench_x && chmod +x /tmp/mnist_bench_x
for r in 1 2; do
  MNIST_X_REVERSE=1 timeout 90 /tmp/mnist_bench_x --network big --precision tf32 --activation gelu --no-layers --repeats 5 --tune-cache off > $OUT/h/bench_rev_$r.txt 2>&1
  grep -E "^784-4096-4096-10 .* on " $OUT/h/bench_rev_$r.txt | cut -c1-80
done
cd $OUT && tar -czf H-logs.tgz h && rm -rf h
