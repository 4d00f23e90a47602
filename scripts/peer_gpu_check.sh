#!/usr/bin/env bash
# peer_gpu_check.sh [--budget SECONDS] [--only LIST] DIR: the PyTorch and
# nvmath-python peers (issue 29, items 1-3) checked on a GPU machine in one
# call, from a build made elsewhere (build/mnist_train) and the data in
# data/mnist, with the wheels that machine lacks in .whl/ (torchao,
# nvmath-python; a cuda-core from .whl/fallback/ only when nvmath-python
# does not import with the cuda-core installed there). Steps, most needed first, each with a time limit:
#   1. the wheels into /tmp/site (PYTHONPATH), and the versions found;
#   2. mnist_train --steps 0 and --steps 1 (784-100-10, batch 256, file
#      order, constant rate) and scripts/nvmath_step.py on the two
#      checkpoints: each nvmath call against its FP32 bound, the weights
#      against mnist_train's, and the nvmath epoch (fidelity row);
#   3. bench_pytorch.py: eager, graph and compiled (default mode),
#      784-100-10 batch 256, fp32 and bf16;
#   4. bench_pytorch.py compiled, default mode, 784-1024-1024-10 bf16;
#   5. bench_pytorch.py torchao fp8 compiled, then eager and graph,
#      784-4096-4096-10 batch 4096;
#   6. bench_pytorch.py compiled, max-autotune-no-cudagraphs, the network
#      of step 4 (which mode is faster: step 4 against step 6).
# Everything goes to DIR (one log and JSON per step, versions.txt, and
# summary.txt with each step's exit code and seconds), then DIR.tar.gz
# beside it. A step that fails or times out is recorded and the next one
# runs; a step that would not fit in what is left of --budget SECONDS
# (default 480) is skipped, saying so. --only LIST runs only the named
# steps (comma-separated: nvmath, seed, mid, fp8, autotune; the wheels are
# always installed), e.g. to finish in a second call what a first one
# skipped. Expected: about 6 minutes on an H200 with cold compile caches.
# Exit code: 0 when every step passed; 1 when one failed, timed out or was
# skipped; 2 for bad usage; 3 without a GPU, build/mnist_train, data/mnist
# or the torchao and nvmath-python wheels in .whl/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prog=peer_gpu_check.sh
budget=480
only="nvmath,seed,mid,fp8,autotune"
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --budget)
      [ $# -ge 2 ] || { echo "$prog: --budget: expected whole seconds, found nothing" >&2; exit 2; }
      budget="$2"; shift 2 ;;
    --only)
      [ $# -ge 2 ] || { echo "$prog: --only: expected a list of steps, found nothing" >&2; exit 2; }
      only="$2"; shift 2 ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0 ;;
    -*) echo "$prog: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    *)
      [ -z "$dir" ] || { echo "$prog: expected one DIR, found '$dir' and '$1'" >&2; exit 2; }
      dir="$1"; shift ;;
  esac
done
if [ -z "$dir" ]; then
  echo "$prog: expected the folder to write to (e.g. \$OUT/peer), found none (see --help)" >&2
  exit 2
fi
if ! [[ "$budget" =~ ^[0-9]+$ ]] || ((10#$budget < 60)); then
  echo "$prog: --budget: expected whole seconds, at least 60, found '$budget'" >&2
  exit 2
fi
budget=$((10#$budget))
IFS=, read -r -a wanted <<<"$only"
for w in "${wanted[@]}"; do
  case "$w" in
    nvmath | seed | mid | fp8 | autotune) ;;
    *) echo "$prog: --only: expected steps among nvmath,seed,mid,fp8,autotune, found '$w'" >&2
       exit 2 ;;
  esac
done
# want STEP: whether --only names it.
want() { [[ ",$only," == *",$1,"* ]]; }
cd "$root"
missing=""
gpus="$(nvidia-smi -L 2>/dev/null || true)"
grep -q '^GPU [0-9]' <<<"$gpus" || missing="a GPU (nvidia-smi -L lists none)"
[ -x build/mnist_train ] || missing="${missing:+$missing, }build/mnist_train (a build)"
[ -f data/mnist/train-images-idx3-ubyte.gz ] || [ -f data/mnist/train-images-idx3-ubyte ] ||
  missing="${missing:+$missing, }data/mnist (scripts/download_mnist.sh)"
for name in torchao nvmath_python; do
  compgen -G ".whl/$name-*.whl" >/dev/null ||
    missing="${missing:+$missing, }.whl/$name-*.whl (see docs/performance.md, the method)"
done
if [ -n "$missing" ]; then
  echo "$prog: needs $missing" >&2
  exit 3
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
summary="$dir/summary.txt"
: >"$summary"
started=$SECONDS
failures=0

# step NAME LIMIT COMMAND...: runs COMMAND with its output in DIR/NAME.log,
# at most LIMIT seconds or what is left of the budget; records the outcome.
step() {
  local name="$1" limit="$2" left rc=0 t0=$SECONDS
  shift 2
  left=$((budget - (SECONDS - started)))
  if ((left < 30)); then
    echo "$name: skipped: ${left} s left of --budget $budget" | tee -a "$summary"
    failures=$((failures + 1))
    return 0
  fi
  ((limit <= left)) || limit=$left
  echo "== $name (at most $limit s): $*"
  timeout --kill-after=10 "$limit" "$@" >"$dir/$name.log" 2>&1 || rc=$?
  tail -n 12 "$dir/$name.log"
  local verdict="passed"
  if ((rc == 124 || rc == 137)); then verdict="timed out after $limit s"; elif ((rc)); then verdict="failed"; fi
  echo "$name: $verdict (exit $rc, $((SECONDS - t0)) s)" | tee -a "$summary"
  ((rc == 0)) || failures=$((failures + 1))
}

install_wheels() {
  set -euo pipefail
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
  if ! python3 -c 'import nvmath.linalg.advanced' 2>/dev/null &&
    compgen -G ".whl/fallback/*.whl" >/dev/null; then
    echo "nvmath-python does not import with the installed cuda-core; adding .whl/fallback:"
    python3 -c 'import nvmath.linalg.advanced' 2>&1 | tail -n 3 || true
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/fallback/*.whl
  fi
  python3 - <<'PY'
import importlib, importlib.metadata as md
for name in ("torch", "triton", "torchao", "nvmath-python", "cuda-core", "cuda-bindings",
             "cuda-pathfinder", "numpy", "safetensors"):
    try:
        print(f"{name} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"{name} not installed")
import torch, torchao.float8, nvmath.linalg.advanced  # noqa: E401,F401
print("cuBLASLt (nvmath)", nvmath.bindings.cublasLt.get_version())
print("GPU", torch.cuda.get_device_name(), "CUDA", torch.version.cuda)
PY
}

export -f install_wheels
export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
export MNIST_DIR="$root/data/mnist"
{ echo "$gpus"; git rev-parse HEAD 2>/dev/null || echo "commit: unknown (no .git)"; } \
  >"$dir/machine.txt" 2>&1 || true
step install 120 bash -c install_wheels
cp "$dir/install.log" "$dir/versions.txt" 2>/dev/null || true
if want nvmath; then
  step mnist_train_init 60 build/mnist_train --hidden 100 --batch 256 --order file \
    --schedule constant --steps 0 --save "$dir/init.safetensors"
  step mnist_train_step 60 build/mnist_train --batch 256 --order file --schedule constant \
    --steps 1 --load "$dir/init.safetensors" --save "$dir/after.safetensors"
  step nvmath_step 150 python3 scripts/nvmath_step.py "$dir/init.safetensors" \
    "$dir/after.safetensors" --epochs 3 --json "$dir/nvmath_step.json"
fi
bench=(python3 scripts/bench_pytorch.py --activations relu --repeats 3)
want seed && step seed_variants 180 "${bench[@]}" --networks 100:256 \
  --precisions fp32,bf16 --variants eager,graph,compiled --json "$dir/seed_variants.json"
want mid && step mid_bf16_default 150 "${bench[@]}" --networks 1024-1024:256 \
  --precisions bf16 --variants compiled --compile-mode default --json "$dir/mid_bf16_default.json"
if want fp8; then
  step big_fp8_compiled 180 "${bench[@]}" --networks 4096-4096:4096 --precisions fp8 \
    --variants compiled --json "$dir/big_fp8_compiled.json"
  step big_fp8_eager_graph 90 "${bench[@]}" --networks 4096-4096:4096 --precisions fp8 \
    --variants eager,graph --json "$dir/big_fp8_eager_graph.json"
fi
want autotune && step mid_bf16_autotune 300 "${bench[@]}" --networks 1024-1024:256 \
  --precisions bf16 --variants compiled --compile-mode max-autotune-no-cudagraphs \
  --json "$dir/mid_bf16_autotune.json"
echo "total: $((SECONDS - started)) s of --budget $budget; $failures step(s) not passed" |
  tee -a "$summary"
tar -czf "$dir.tar.gz" -C "$(dirname "$dir")" "$(basename "$dir")"
echo "$prog: wrote $dir and $dir.tar.gz"
((failures == 0))
