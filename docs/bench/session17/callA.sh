#!/bin/bash
# Session 17, device call A: the FP8 cast with fewer instructions a tile (the transposed write unrolled, the
# partials through shared memory, the zero counts packed) as build/ ("new") against the shipped build (c0b4272,
# pack/head): the GPU suite, test_fp8_cast under racecheck; ncu of one FP8 step of the big network, ReLU
# alternated twice, GELU once; the big fp8 ReLU bench row per build, alternated twice; torchao compiled and
# graphed on the same row; the default network's fp8 run.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
save() { tar -czf $OUT/A-logs.tgz -C $OUT a; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/a/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/a/ctest.txt | head)
CK_FORK=no timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 build/tests/test_fp8_cast > $OUT/a/san_racecheck.txt 2>&1
echo "racecheck rc $? $(grep -E 'RACECHECK SUMMARY|Checks' $OUT/a/san_racecheck.txt | tr '\n' ' ')"
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for b in new head new2 head2 newgelu headgelu; do
  bin=build/mnist_bench; case $b in head*) bin=pack/head/mnist_bench ;; esac
  act=relu; case $b in *gelu) act=gelu ;; esac
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics $M \
    $bin --profile-step --precision fp8 --network big --activation $act > $OUT/a/ncu_$b.csv 2> $OUT/a/ncu_$b.err; echo "ncu $b rc=$?"
done
save
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for b in new head new2 head2; do
  bin=build/mnist_bench; case $b in head*) bin=pack/head/mnist_bench ;; esac
  MNIST_TUNE_CACHE_DIR=/tmp/tcA-$b timeout 120 $bin $F --json $OUT/a/rows-$b.json > $OUT/a/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" $OUT/a/rows-$b.txt | cut -c1-110
done
save
timeout 60 build/mnist_train --precision fp8 --epochs 5 > $OUT/a/fp8-default.txt 2>&1; echo "fp8 default: $(tail -1 $OUT/a/fp8-default.txt)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
S=$SECONDS
timeout 200 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/a/torchao.json > $OUT/a/torchao.txt 2>&1
echo "torchao rc $? after $((SECONDS - S)) s"; tail -4 $OUT/a/torchao.txt | cut -c1-150
save
