#!/bin/bash
# Session 26, device call A (HEAD + the bench's rounds in one function and the graph read shared): the GPU
# suite; then the probe of layer 1's ReLU cast read batch-major (probe_cast_t.cu, built for sm_90 as
# pack/probe_cast_t): checked against fp8_cast on the same values, timed beside it with events, then ncu.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
S=$SECONDS
timeout 120 pack/probe_cast_t 30 > /tmp/a/probe.txt 2>&1
echo "probe rc $? in $((SECONDS - S)) s"; cat /tmp/a/probe.txt
S=$SECONDS
timeout 150 ncu --clock-control none -k regex:"fp8_cast_kernel|cast_t_kernel" \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size \
  --csv pack/probe_cast_t 3 > /tmp/a/ncu.csv 2> /tmp/a/ncu.err
echo "ncu rc $? in $((SECONDS - S)) s"
save
python3 - <<'PY'
import csv, collections, statistics
rows = list(csv.reader(l for l in open('/tmp/a/ncu.csv') if l.startswith('"')))
h = rows[0]; d = collections.defaultdict(lambda: collections.defaultdict(list))
ki, mi, vi, ii = h.index('Kernel Name'), h.index('Metric Name'), h.index('Metric Value'), h.index('ID')
per = collections.defaultdict(dict)
for r in rows[1:]:
    per[(r[ii], r[ki][:20])][r[mi]] = float(r[vi].replace(',', ''))
for (i, k), m in sorted(per.items(), key=lambda x: int(x[0][0])):
    t = m.get('gpu__time_duration.sum', 0)
    print(i, k, 'us %.1f' % (t / 1e3), 'read MB %.1f' % (m.get('dram__bytes_read.sum', 0) / 1e6),
          'write MB %.1f' % (m.get('dram__bytes_write.sum', 0) / 1e6), 'inst M %.2f' % (m.get('smsp__inst_executed.sum', 0) / 1e6),
          'regs', m.get('launch__registers_per_thread'), 'grid', m.get('launch__grid_size'))
PY
S=$SECONDS
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > /tmp/a/suite.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> /tmp/a/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/a/suite.txt | cut -c1-180 | tail -8
save
echo "end at $SECONDS s"
