#!/bin/bash
# Session 26, device call C: the batch-major ReLU cast probe with its least and amax in four chains a lane
# (not one of 32; pack/probe_cast_t_s3b4), and a column at a time (its 8 values live, 64 registers: _cSbB at
# S stages ahead, B blocks an SM); checked against fp8_cast, events, ncu; then ncu's stall reasons.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for v in s3b4 c3b4 c3b6 c4b6 c3b8; do
S=$SECONDS
timeout 120 pack/probe_cast_t_$v 30 > /tmp/c/probe-$v.txt 2>&1
echo "probe $v rc $? in $((SECONDS - S)) s"; grep -E "events|DIFFERENT" /tmp/c/probe-$v.txt; grep -c SAME /tmp/c/probe-$v.txt
done
S=$SECONDS
for v in s3b4 c3b4 c3b6 c4b6 c3b8; do
timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|cast_t_kernel" --launch-skip 10 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active \
  --csv pack/probe_cast_t_$v 3 > /tmp/c/ncu-$v.csv 2> /tmp/c/ncu-$v.err
echo "ncu $v rc $?"
done
echo "ncu in $((SECONDS - S)) s"
save
python3 - <<'PY'
import csv, collections
for v in ('s3b4', 'c3b4', 'c3b6', 'c4b6', 'c3b8'):
    rows = list(csv.reader(l for l in open('/tmp/c/ncu-%s.csv' % v) if l.startswith('"')))
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
S=$SECONDS
M=""
for r in long_scoreboard short_scoreboard wait barrier mio_throttle lg_throttle math_pipe_throttle not_selected selected dispatch_stall no_instruction branch_resolving membar drain sleeping; do
  M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
for v in s3b4 c3b8; do
timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|cast_t_kernel" --launch-skip 10 --launch-count 2 \
  --metrics smsp__inst_executed.sum${M} --csv pack/probe_cast_t_$v 3 > /tmp/c/stall-$v.csv 2> /tmp/c/stall-$v.err
done
echo "stall ncu rc $? in $((SECONDS - S)) s"
save
python3 - <<'PY'
import csv, collections
for v in ('s3b4', 'c3b8'):
    rows = list(csv.reader(l for l in open('/tmp/c/stall-%s.csv' % v) if l.startswith('"')))
    h = rows[0]
    ki, mi, vi, ii = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value'), h.index('ID')
    per = collections.defaultdict(dict)
    for r in rows[1:]:
        per[(int(r[ii]), r[ki][:16])][r[mi]] = float(r[vi].replace(',', ''))
    for (i, k), m in sorted(per.items()):
        st = sorted(((x, n.replace('smsp__average_warps_issue_stalled_', '').replace('_per_issue_active.ratio', '')) for n, x in m.items() if 'stalled' in n), reverse=True)
        print(v, k, ' '.join('%s %.2f' % (n, x) for x, n in st[:8]))
PY
echo "end at $SECONDS s"
