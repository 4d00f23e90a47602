#!/bin/bash
# Session 27, device call B: the masked casts where they run. One big fp8 step (784-4096-4096-10, batch 4096,
# mnist_bench --profile-step: a fused then an unfused step, from the host) under ncu, ReLU and GELU, with the
# L2 flushed before each kernel (--cache-control all: how sessions 9-26 measured) and as the step leaves it
# (--cache-control none: dH1 just written by layer 2's data GEMM), time alone (one pass) and with DRAM
# bytes; HEAD 4f33c0f's build. Then the probe (HEAD's layers) once more for the size-matched ceiling.
. docs/bench/session27/common.sh
call_start B
tar -xJf pack/build.tar.xz
for round in 1 2; do
  for act in relu gelu; do
    for cc in all none; do
      for m in t td; do
        M=gpu__time_duration.sum
        [ $m = td ] && M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
        timeout 90 ncu --profile-from-start off --clock-control none --cache-control $cc -k regex:fp8_cast_kernel --csv \
          --page raw --print-units base --metrics $M build/mnist_bench --profile-step --precision fp8 --network big \
          --activation $act > /tmp/b/ncu$round-$act-$cc-$m.csv 2> /tmp/b/ncu$round-$act-$cc-$m.err
        echo "ncu $round $act $cc $m rc $? at $SECONDS s"
      done
    done
  done
done
timeout 60 pack/probe_old 30 > /tmp/b/probe.txt 2>&1; echo "probe rc $?"; cat /tmp/b/probe.txt
python3 - <<'PY'
import csv, glob
for f in sorted(glob.glob('/tmp/b/ncu*.csv')):
    rows = list(csv.reader(l for l in open(f) if l.startswith('"')))
    if len(rows) < 3: print(f, 'no rows'); continue
    h = rows[0]
    name = h.index('Kernel Name'); grid = h.index('Grid Size') if 'Grid Size' in h else None
    cols = [i for i, c in enumerate(h) if c.startswith(('gpu__', 'dram__', 'lts__'))]
    print(f.split('/')[-1])
    for r in rows[2:]:
        if 'fp8_cast_kernel' not in r[name]: continue
        k = r[name].split('<')[1].split('>')[0]
        vals = {h[i]: float(r[i].replace(',', '')) for i in cols if r[i]}
        t = vals.get('gpu__time_duration.sum', 0) / 1e3
        extra = ''
        if 'dram__bytes_read.sum' in vals:
            extra = 'dram read %.1f MB write %.1f MB, L2 hit %.0f%%' % (vals['dram__bytes_read.sum'] / 1e6, vals['dram__bytes_write.sum'] / 1e6, vals.get('lts__t_sector_hit_rate.pct', 0))
        print('  %-40s grid %-12s %6.1f us %s' % (k, r[grid] if grid else '', t, extra))
PY
echo "end at $SECONDS s"
