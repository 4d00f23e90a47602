#!/bin/bash
# Session 15, device call B: the cast kernel decoding a column, reloading its registers with the next tile's same
# column, then casting it (one column's values live: 80 registers, six blocks per SM) against call A's (four
# blocks per SM, the whole next tile loaded after the decode; pack/v1). The GPU suite and test_step_tune; ncu of
# one FP8 step of the big network, both; the big fp8 bench row, both, two rounds.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/b
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(gpu)"
(cd build && timeout 280 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/b/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/b/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > $OUT/b/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed" $OUT/b/step_tune.txt | tail -1)
for b in v2 v1; do
  bin=build/mnist_bench; [ $b = v1 ] && bin=pack/v1/mnist_bench
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $bin --profile-step --precision fp8 --network big > $OUT/b/ncu_$b.csv 2> $OUT/b/ncu_$b.err; echo "ncu $b rc=$?"
  python3 -c "
import csv,sys
f=lambda x: float(x.replace(',',''))
rows=[r for r in csv.reader(open('$OUT/b/ncu_$b.csv')) if len(r)>10]; h=rows[0]; k=h.index('Kernel Name'); t=h.index('gpu__time_duration.sum')
print(' '.join('%.2f' % (f(r[t])/1000) for r in rows[1:] if 'fp8_cast_kernel' in r[k]))"
done
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
ours() { local bin=build/mnist_bench; [ $1 = v1 ] && bin=pack/v1/mnist_bench
  MNIST_TUNE_CACHE_DIR=/tmp/tcB-$1 timeout 120 $bin $F --json $OUT/b/rows-$1-$2.json > $OUT/b/rows-$1-$2.txt 2>&1; echo "$1 $2 rc $? $(gpu)"; grep -E "^784-4096" $OUT/b/rows-$1-$2.txt | cut -c1-100; }
ours v2 1; ours v1 1; ours v1 2; ours v2 2
cd $OUT && xz -9 b/ncu_*.csv && tar -czf B-logs.tgz b && rm -rf b
