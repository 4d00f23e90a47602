#!/bin/bash
# Session 8, device call E (379a2cf, as calls C and D, on the machine call C left warm where it still was): the README
# table's regeneration, run 3 (call D ran out of time for it), as call C's run 1 (a fresh tuning cache per run).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
[ -x build/mnist_bench ] || tar -xJf pack/build.tar.xz
ls tcache > /dev/null 2>&1 && echo "inductor cache from call C: $(du -sh tcache | cut -f1)" || echo "no inductor cache: cold"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=$PWD/tcache
for k in 3; do
  R=$OUT/r$k; mkdir -p $R; S=$SECONDS
  
  BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r$k timeout 300 scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
  echo "run $k bench_compare: rc $? after $((SECONDS - S)) s"; S=$SECONDS
  timeout 80 python3 scripts/bench_pytorch.py --activations gelu --variants eager,graph --json $R/torch_gelu.json > $R/torch_gelu.log 2>&1
  echo "run $k gelu eager/graph: rc $? after $((SECONDS - S)) s"
done
cd $OUT && tar -czf E-logs.tgz r3 2>/dev/null; rm -rf r3
