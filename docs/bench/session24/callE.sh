#!/bin/bash
# Session 24, device call E (HEAD's build, the source of 6482a1e's): the masked casts of one big fp8 step in ncu
# with the caches flushed before each profiled kernel (--cache-control all, ncu's default, as every earlier
# session measured) and as the step leaves them (--cache-control none: the gradient the data GEMM just wrote may
# still sit in the L2), alternated, two rounds each, ReLU and GELU.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for r in 1 2; do
  for act in relu gelu; do
    for cache in all none; do
      timeout 60 ncu --profile-from-start off --clock-control none --cache-control $cache -k regex:fp8_cast_kernel --csv \
        --page raw --print-units base --metrics $M build/mnist_bench --profile-step --precision fp8 --network big \
        --activation $act > /tmp/e/ncu$r-$act-$cache.csv 2> /tmp/e/ncu$r-$act-$cache.err
      echo "ncu $r $act $cache rc=$? at $SECONDS s"
      python3 - /tmp/e/ncu$r-$act-$cache.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = [i for i, r in enumerate(rows) if 'Kernel Name' in r]
if h:
    H = rows[h[0]]; k = H.index('Kernel Name'); t = H.index('gpu__time_duration.sum')
    rd = H.index('dram__bytes_read.sum'); wr = H.index('dram__bytes_write.sum')
    f = lambda s: float(s.replace(',', ''))
    for x in rows[h[0] + 2:]:
        if len(x) > t and x[t]:
            print('   %-28s %6.1f us  DRAM read %5.1f MB, write %5.1f MB' % (
                x[k].split('<')[1].split('>')[0] if '<' in x[k] else x[k][:28], f(x[t]) / 1e3, f(x[rd]) / 1e6,
                f(x[wr]) / 1e6))
PY
    done
  done
  save
done
echo "end at $SECONDS s"
