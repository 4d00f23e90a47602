#!/bin/bash
# Session 10, device call C (the same build, ca38dae's code): issue 27's "no mnist_bench row slower than
# --autotune off by more than 1 %": every row (--no-layers, ReLU and GELU), per network a process tuned
# (--tune-cache off: a first run) and one --autotune off, alternated; then test_step_tune four more times.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
for net in seed mid big; do
  s=$(date +%s)
  timeout 110 build/mnist_bench --network $net --no-layers --tune-cache off --json $OUT/c/new-$net.json > $OUT/c/new-$net.txt 2>&1; echo "new $net rc $? $(( $(date +%s) - s )) s"
  s=$(date +%s)
  timeout 110 build/mnist_bench --network $net --no-layers --autotune off --json $OUT/c/off-$net.json > $OUT/c/off-$net.txt 2>&1; echo "off $net rc $? $(( $(date +%s) - s )) s"
done
for i in 4 5 6 7; do
  (cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) > $OUT/c/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/c/step_tune-$i.txt)"; grep -E "Assert|near the rule" $OUT/c/step_tune-$i.txt | cut -c1-220
done
cd $OUT && tar -czf C-logs.tgz c && rm -rf c
