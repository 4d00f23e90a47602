#!/bin/bash
# Session 26, device call B: the batch-major ReLU cast probe, restructured (a cursor per warp, no division per chunk),
# at 3 and 4 stages of copies ahead (pack/probe_cast_t_s3, _s4), timed on data without zeros (as the step's),
# checked against fp8_cast first; events then ncu. No GPU suite (call A ran it on this HEAD).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for v in s3 s4; do
S=$SECONDS
timeout 120 pack/probe_cast_t_$v 30 > /tmp/b/probe-$v.txt 2>&1
echo "probe $v rc $? in $((SECONDS - S)) s"; grep -E "events|DIFFERENT" /tmp/b/probe-$v.txt; grep -c SAME /tmp/b/probe-$v.txt
done
S=$SECONDS
for v in s3 s4; do
timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|cast_t_kernel" --launch-skip 10 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active \
  --csv pack/probe_cast_t_$v 3 > /tmp/b/ncu-$v.csv 2> /tmp/b/ncu-$v.err
echo "ncu $v rc $?"
done
echo "ncu in $((SECONDS - S)) s"
save
python3 - <<'PY'
import csv, collections
for v in ('s3', 's4'):
    rows = list(csv.reader(l for l in open('/tmp/b/ncu-%s.csv' % v) if l.startswith('"')))
    h = rows[0]
    ki, mi, vi, ii = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value'), h.index('ID')
    per = collections.defaultdict(dict)
    for r in rows[1:]:
        per[(int(r[ii]), r[ki][:16])][r[mi]] = float(r[vi].replace(',', ''))
    for (i, k), m in sorted(per.items()):
        print(v, i, k, 'us %.1f' % (m['gpu__time_duration.sum'] / 1e3), 'TB/s %.2f' % (52.43e6 / m['gpu__time_duration.sum'] / 1e3),
              'rd %.1f wr %.1f MB' % (m['dram__bytes_read.sum'] / 1e6, m['dram__bytes_write.sum'] / 1e6),
              'inst %.2f M' % (m['smsp__inst_executed.sum'] / 1e6), 'issue %.0f%%' % m['smsp__issue_active.avg.pct_of_peak_sustained_active'],
              'warps %.0f%%' % m['sm__warps_active.avg.pct_of_peak_sustained_active'],
              'regs %d grid %d' % (m['launch__registers_per_thread'], m['launch__grid_size']))
PY
echo "end at $SECONDS s"
