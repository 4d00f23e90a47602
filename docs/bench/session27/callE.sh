#!/bin/bash
# Session 27, device call E: fp8_cast with layer 1's least |x| taken two BF16 values at a time from the
# copied words (min.xorsign.abs.bf16x2, sm_86 on) and a kernel without q's stores and their addresses where
# there is no q (layer 1): the working tree's build (pack/build.tar.xz, pack/probe_pl) against HEAD
# 4f33c0f's layers (pack/probe_old). The GPU suite and test_step_tune, racecheck on test_fp8_cast, outputs compared byte
# for byte, events and ncu alternated, the default fp8 runs' digits (ReLU and GELU).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
trap save EXIT
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
tar -xJf pack/build.tar.xz
(cd build && timeout 250 ctest -L gpu -E test_step_tune -j4 --output-on-failure) > /tmp/e/ctest-gpu.txt 2>&1
echo "gpu suite rc $?: $(grep 'tests passed' /tmp/e/ctest-gpu.txt)"
(cd build && timeout 150 ctest -R test_step_tune --output-on-failure) > /tmp/e/ctest-step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/e/ctest-step-tune.txt) at $SECONDS s"
CK_FORK=no timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build/tests/test_fp8_cast > /tmp/e/racecheck.txt 2>&1
echo "racecheck test_fp8_cast rc $?: $(tail -2 /tmp/e/racecheck.txt | tr '\n' ' ')"
for v in old pl; do timeout 60 pack/probe_$v 3 /tmp/e/dump-$v > /tmp/e/dump-$v.txt 2>&1; echo "dump $v rc $?"; done
for c in relu_l1 gelu_l1 relu_l2; do cmp /tmp/e/dump-old-$c.bin /tmp/e/dump-pl-$c.bin && echo "$c: old and new outputs byte for byte SAME"; done
rm -f /tmp/e/*.bin
for round in 1 2; do
  for v in old pl; do
    timeout 60 pack/probe_$v 30 > /tmp/e/probe-$v-$round.txt 2>&1
    echo "$v $round rc $?"; cat /tmp/e/probe-$v-$round.txt
  done
done
for round in 1 2; do
  for v in old pl; do
    timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|stream_kernel" --launch-skip 10 --launch-count 15 \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum,launch__registers_per_thread,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio \
      --csv pack/probe_$v 3 > /tmp/e/ncu-$v-$round.csv 2> /tmp/e/ncu-$v-$round.err
  done
done
python3 - <<'PY'
import csv, collections, glob, statistics
mb = {'relu_l1': 52.43, 'gelu_l1': 83.89, 'relu_l2': 69.21, 'stream2': 52.43, 'stream4': 83.89}
for f in sorted(glob.glob('/tmp/e/ncu-*.csv')):
    rows = list(csv.reader(l for l in open(f) if l.startswith('"')))
    if not rows: print(f, 'no rows'); continue
    h = rows[0]
    ki, mi, vi, ii = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value'), h.index('ID')
    per = collections.defaultdict(dict)
    names = ['relu_l1', 'gelu_l1', 'relu_l2', 'stream2', 'stream4']
    for r in rows[1:]:
        L = 10 + int(r[ii])  # the probe's launch order: round L // 5, kind (round + L % 5) % 5
        k = names[(L // 5 + L % 5) % 5]
        per[(int(r[ii]), k)][r[mi]] = float(r[vi].replace(',', ''))
    by = collections.defaultdict(list)
    for (i, k), m in per.items(): by[k].append(m)
    for k, ms in sorted(by.items()):
        t = sorted(m['gpu__time_duration.sum'] / 1e3 for m in ms)
        print(f.split('/')[-1], k, 'us', ' '.join('%.1f' % x for x in t), 'TB/s %.2f' % (mb.get(k, 0) / statistics.median(t)),
              'inst %.2f M' % (ms[0]['smsp__inst_executed.sum'] / 1e6), 'issue %.0f%%' % ms[0]['smsp__issue_active.avg.pct_of_peak_sustained_active'],
              'dram %.1f MB' % (ms[0]['dram__bytes.sum'] / 1e6), 'barrier %.2f' % ms[0]['smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio'],
              'regs %d' % ms[0]['launch__registers_per_thread'])
PY
head -3 /tmp/e/ncu-pl-1.csv | cut -c1-300 > /tmp/e/ncu-head.txt
grep -o '"[^"]*fp8_cast_kernel[^"]*"' /tmp/e/ncu-old-1.csv | sort | uniq -c | head
grep -o '"[^"]*fp8_cast_kernel[^"]*"' /tmp/e/ncu-pl-1.csv | sort | uniq -c | head
for act in relu gelu; do
  timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 --activation $act > /tmp/e/train-fp8-$act.txt 2>&1
  echo "train fp8 $act rc $?: $(grep '^done' /tmp/e/train-fp8-$act.txt)"
done
echo "end at $SECONDS s"
