"""ncu_summary.py DIR: the probe's ncu rows in DIR/ncu-*.csv, a line per
build, round and kind: time of each run, TB/s of the kind's logical bytes at
the median, instructions, issue slots, DRAM bytes, barrier stalls, registers,
and grid and warps where the CSV has them (calls C, D, F asked for them).
Rows are told apart by the probe's launch order: with --launch-skip 10,
profiled launch i is launch L = 10 + i, round L // 5, kind (L // 5 + L % 5) % 5.
Session 27's calls ran this inline; it moved here afterwards, unchanged."""
import collections
import csv
import glob
import statistics
import sys

MB = {'relu_l1': 52.43, 'gelu_l1': 83.89, 'relu_l2': 69.21, 'stream2': 52.43, 'stream4': 83.89}
KINDS = ['relu_l1', 'gelu_l1', 'relu_l2', 'stream2', 'stream4']

for f in sorted(glob.glob(sys.argv[1] + '/ncu-*.csv')):
    rows = list(csv.reader(l for l in open(f) if l.startswith('"')))
    if not rows:
        print(f, 'no rows')
        continue
    h = rows[0]
    mi, vi, ii = h.index('Metric Name'), h.index('Metric Value'), h.index('ID')
    per = collections.defaultdict(dict)
    for r in rows[1:]:
        L = 10 + int(r[ii])
        per[(int(r[ii]), KINDS[(L // 5 + L % 5) % 5])][r[mi]] = float(r[vi].replace(',', ''))
    by = collections.defaultdict(list)
    for (i, k), m in per.items():
        by[k].append(m)
    for k, ms in sorted(by.items()):
        m = ms[0]
        t = sorted(x['gpu__time_duration.sum'] / 1e3 for x in ms)
        line = [f.split('/')[-1], k, 'us', ' '.join('%.1f' % x for x in t),
                'TB/s %.2f' % (MB.get(k, 0) / statistics.median(t)),
                'inst %.2f M' % (m['smsp__inst_executed.sum'] / 1e6),
                'issue %.0f%%' % m['smsp__issue_active.avg.pct_of_peak_sustained_active'],
                'dram %.1f MB' % (m['dram__bytes.sum'] / 1e6),
                'barrier %.2f' % m['smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio'],
                'regs %d' % m['launch__registers_per_thread']]
        if 'launch__grid_size' in m:
            line += ['grid %d' % m['launch__grid_size'],
                     'warps %.0f%%' % m['sm__warps_active.avg.pct_of_peak_sustained_active']]
        print(*line)
