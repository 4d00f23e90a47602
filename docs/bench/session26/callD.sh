#!/bin/bash
# Session 26, device call D: fp8_cast with its least and amax in four chains a thread (one a column, not one
# of 32: the working tree's layers/fp8_cast*.cu*, pack/probe_new) against HEAD's (pack/probe_old), both built
# for sm_90 with the batch-major probe beside them; layer 1's ReLU and GELU casts of the big fp8 step's shape,
# events then ncu, the two binaries alternated, two rounds.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for round in 1 2; do
  for v in old new; do
    timeout 60 pack/probe_$v 30 > /tmp/d/probe-$v-$round.txt 2>&1
    echo "$v $round: rc $? $(grep -c SAME /tmp/d/probe-$v-$round.txt) checks SAME"; grep events /tmp/d/probe-$v-$round.txt
    timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|cast_t_kernel" --launch-skip 10 --launch-count 12 \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,launch__registers_per_thread \
      --csv pack/probe_$v 3 > /tmp/d/ncu-$v-$round.csv 2> /tmp/d/ncu-$v-$round.err
  done
done
save
python3 - <<'PY'
import csv, collections, glob, statistics
for f in sorted(glob.glob('/tmp/d/ncu-*.csv')):
    rows = list(csv.reader(l for l in open(f) if l.startswith('"')))
    h = rows[0]
    ki, mi, vi, ii = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value'), h.index('ID')
    per = collections.defaultdict(dict)
    for r in rows[1:]:
        k = 'relu' if 'fp8_mask)1' in r[ki] else 'gelu' if 'fp8_mask)2' in r[ki] else 'cast_t' if 'cast_t' in r[ki] else r[ki][:40]
        per[(int(r[ii]), k)][r[mi]] = float(r[vi].replace(',', ''))
    by = collections.defaultdict(list)
    for (i, k), m in per.items():
        by[k].append(m)
    for k, ms in sorted(by.items()):
        t = [m['gpu__time_duration.sum'] / 1e3 for m in ms]
        mb = 52.43 if k != 'gelu' else 52.43 + 33.55
        print(f.split('/')[-1], k, 'us', ' '.join('%.1f' % x for x in sorted(t)), 'TB/s %.2f' % (mb / statistics.median(t)),
              'inst %.2f M' % (ms[0]['smsp__inst_executed.sum'] / 1e6), 'issue %.0f%%' % ms[0]['smsp__issue_active.avg.pct_of_peak_sustained_active'],
              'wait %.2f' % ms[0]['smsp__average_warps_issue_stalled_wait_per_issue_active.ratio'], 'regs %d' % ms[0]['launch__registers_per_thread'])
PY
echo "end at $SECONDS s"
