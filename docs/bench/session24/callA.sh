#!/bin/bash
# Session 24, device call A: the FP8 cast with each tile a warp's (no block barrier, the transposed codes by byte
# permutes in registers, 4 bytes a row; the row sums by halving exchanges), in pack/build.tar.xz ("new", four
# chunks in flight: STAGES 4), against 6482a1e's binaries (pack/old23, "old") and an sm_90 probe with STAGES 3
# (pack/s3). test_fp8_cast (and under racecheck and memcheck), the GPU suite, the default network's fp8 runs, ncu
# of one big fp8 step's casts, the big fp8 rows a process per build, alternated.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
CK_FORK=no timeout 90 build/tests/test_fp8_cast > /tmp/a/test_fp8_cast.txt 2>&1; echo "test_fp8_cast rc $? $(grep -E '^[0-9]+%' /tmp/a/test_fp8_cast.txt) at $SECONDS s"
save
(cd build && timeout 110 ctest -L gpu -E "test_step_tune|test_readme_run|test_fp8_cast" -j4 --output-on-failure > /tmp/a/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/a/ctest.txt | head)
save
declare -A BENCH=([old]=pack/old23/mnist_bench [new]=build/mnist_bench [s3]=pack/s3/mnist_bench)
for act in relu gelu; do
  for v in old new; do
    B=${BENCH[$v]}; T=${B%/mnist_bench}/mnist_train
    timeout 60 $T --precision fp8 --activation $act --epochs 5 > /tmp/a/fp8-$act-$v.txt 2>&1; echo "fp8 $act $v: $(grep '^done' /tmp/a/fp8-$act-$v.txt)"
  done
done
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,smsp__inst_executed.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
ncu_round() {
  for act in relu gelu; do
    for v in old new s3; do
      timeout 60 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --csv --page raw --print-units base \
        --metrics $M ${BENCH[$v]} --profile-step --precision fp8 --network big --activation $act > /tmp/a/ncu$1-$v-$act.csv 2> /tmp/a/ncu$1-$v-$act.err
      echo "ncu $1 $v $act rc=$? at $SECONDS s"
      python3 - /tmp/a/ncu$1-$v-$act.csv <<'PY'
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
h=[i for i,r in enumerate(rows) if 'Kernel Name' in r]
if h:
    H=rows[h[0]]; k=H.index('Kernel Name'); t=H.index('gpu__time_duration.sum'); g=H.index('launch__grid_size'); n=H.index('smsp__inst_executed.sum'); r=H.index('launch__registers_per_thread')
    print('   ', ' | '.join('%s %.1f us grid %s regs %s %.2f M' % (x[k].split('<')[1].split('>')[0] if '<' in x[k] else x[k][:20], float(x[t])/1e3, x[g], x[r], float(x[n])/1e6) for x in rows[h[0]+2:] if len(x)>t and x[t]))
PY
    done
  done
  save
}
bench_round() {
  for v in old new s3; do
    MNIST_TUNE_CACHE_DIR=/tmp/tc-$v timeout 80 ${BENCH[$v]} --network big --precision fp8 --no-layers > /tmp/a/big$1-$v.txt 2>&1
    echo "big $1 $v rc $? at $SECONDS s: $(grep -E '^784-4096-4096-10 +4096 +(fused|unfused|auto)' /tmp/a/big$1-$v.txt | awk '{printf "%s %s %s | ", $3, $4, $6}')"
  done
  save
}
ncu_round 1
bench_round 1
[ $SECONDS -lt 380 ] && ncu_round 2
[ $SECONDS -lt 470 ] && bench_round 2
for tool in racecheck memcheck; do
  [ $SECONDS -lt 500 ] || break
  CK_FORK=no timeout 45 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > /tmp/a/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/a/san_$tool.txt | tr '\n' ' ') at $SECONDS s"
done
save
echo "end at $SECONDS s"
