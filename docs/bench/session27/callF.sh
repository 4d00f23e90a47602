#!/bin/bash
# Session 27, device call F: what the cast's two block barriers a tile cost, as an upper bound. HEAD 4f33c0f's
# fp8_cast with the end-of-tile __syncthreads removed (pack/probe_onebar) and with both removed, the
# partial sums' too (pack/probe_nobar): both race on tile_t and the sums, so their outputs are wrong and
# not compared; the bytes moved and the instructions are the cast's. Events and ncu against HEAD
# (pack/probe_old), alternated, two rounds.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/f
save() { tar -czf $OUT/F-logs.tgz -C /tmp f; }
trap save EXIT
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for round in 1 2; do
  for v in old onebar nobar; do
    timeout 60 pack/probe_$v 30 > /tmp/f/probe-$v-$round.txt 2>&1
    echo "$v $round rc $?"; grep -v stream /tmp/f/probe-$v-$round.txt
  done
done
for round in 1 2; do
  for v in old onebar nobar; do
    timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|stream_kernel" --launch-skip 10 --launch-count 15 \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum,launch__registers_per_thread,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
      --csv pack/probe_$v 3 > /tmp/f/ncu-$v-$round.csv 2> /tmp/f/ncu-$v-$round.err
  done
done
python3 - <<'PY'
import csv, collections, glob, statistics
mb = {'relu_l1': 52.43, 'gelu_l1': 83.89, 'relu_l2': 69.21, 'stream2': 52.43, 'stream4': 83.89}
for f in sorted(glob.glob('/tmp/f/ncu-*.csv')):
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
              'regs %d' % ms[0]['launch__registers_per_thread'], 'grid %d' % ms[0]['launch__grid_size'], 'warps %.0f%%' % ms[0]['sm__warps_active.avg.pct_of_peak_sustained_active'])
PY
echo "end at $SECONDS s"
