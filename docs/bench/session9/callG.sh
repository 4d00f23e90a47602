#!/bin/bash
# Session 9, device calls G and H (ca38dae, as call F, on the machine the call before left warm): the README table's
# run K (2, then 3) as call F's run 1 (a fresh tuning cache per run), without the GELU rows' PyTorch eager and
# graphed (the device time left: those rows are run 1's only).
set -u
K=$1
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
[ -x build/mnist_bench ] || tar -xJf pack/build.tar.xz
ls tcache > /dev/null 2>&1 && echo "inductor cache from the call before: $(du -sh tcache | cut -f1)" || echo "no inductor cache: cold"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=$PWD/tcache
R=$OUT/r$K; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r$K timeout 330 scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
echo "run $K bench_compare: rc $? after $((SECONDS - S)) s"
grep -E "^\| 784" $R/compare.log | head -12 | cut -c1-150
cd $OUT && tar -czf run$K-logs.tgz r$K && rm -rf r$K
