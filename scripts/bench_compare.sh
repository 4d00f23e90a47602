#!/usr/bin/env bash
# bench_compare.sh [BUILD_DIR] [-- mnist_bench flags]: runs mnist_bench and
# scripts/bench_pytorch.py (PyTorch eager and CUDA-graphed, fp32, tf32, bf16
# and fp16; same networks, data and batch) in one go and prints, for each
# network and precision, ours (graphs on) against PyTorch in that precision.
# PyTorch is optional: without it (or without a GPU that PyTorch sees) only
# mnist_bench's table is printed, with a line saying why.
# mnist_bench's --repeats and --data-dir go to bench_pytorch.py too, and
# TORCH_BENCH_FLAGS is appended to its call, e.g.
#   TORCH_BENCH_FLAGS="--precisions bf16,fp16 --variants graph" scripts/bench_compare.sh
# The JSON of both runs is kept in $BENCH_JSON_DIR when that is set.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
if [ -n "${BENCH_JSON_DIR:-}" ]; then
  out="$BENCH_JSON_DIR"; mkdir -p "$out"
else
  out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
fi
"$build/mnist_bench" --json "$out/ours.json" "$@"
echo
torch_flags=(${MNIST_DIR:+--data-dir "$MNIST_DIR"})
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --repeats|--data-dir) torch_flags+=("${args[i]}" "${args[i + 1]:-}") ;;
  esac
done
rm -f "$out/torch.json"  # none from an earlier run in $BENCH_JSON_DIR
if ! python3 -c 'import torch' >/dev/null 2>&1; then
  echo "bench_compare.sh: PyTorch is not installed (pip install torch): only mnist_bench's table"
  exit 0
fi
if ! python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' >/dev/null 2>&1; then
  echo "bench_compare.sh: PyTorch sees no CUDA GPU: only mnist_bench's table"
  exit 0
fi
# shellcheck disable=SC2086  # TORCH_BENCH_FLAGS is a list of words
python3 "$here/scripts/bench_pytorch.py" --json "$out/torch.json" \
  ${torch_flags[@]+"${torch_flags[@]}"} ${TORCH_BENCH_FLAGS:-}
[ -f "$out/torch.json" ] || exit 0
python3 - "$out/ours.json" "$out/torch.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["training"]
torch = json.load(open(sys.argv[2]))["training"]
PRECISIONS = ("fp32", "tf32", "bf16", "fp16")

def ms(row):
    return f"{row['ms_per_epoch']:.2f}" if row else "-"

# Ours: graphs on only; keyed by (network, batch, precision) then mode.
# (An older mnist_bench wrote "math": "FP32" | "FP32*" | "TF32" instead.)
mine = {}
for o in ours:
    if o["graphs"]:
        act = o.get("activation", "relu")
        key = (o["network"], o["batch"], o.get("precision", o.get("math", "").lower()), act)
        mode = o["mode"] + ("+pad" if o.get("pad_units") else "")
        mine.setdefault(key, {})[mode] = dict(o, mode=mode)
peer = {(t["network"], t["batch"], t["precision"], t.get("activation", "relu"),
         t["variant"]): t for t in torch}
nets = list(dict.fromkeys([k[:2] for k in mine] + [k[:2] for k in peer]))

print("\nours (CUDA graphs) against PyTorch in the same precision, same GPU, same run;"
      " ms per epoch, speedup = PyTorch graph / our best")
head = ("network", "batch", "prec", "ours fused", "ours auto", "ours best", "(mode)",
        "torch eager", "torch graph", "speedup")
fmt = "{:18s} {:>6} {:7s} {:>10} {:>10} {:>10} {:8s} {:>11} {:>11} {:>8}"
print(fmt.format(*head))
for act in ("relu", "gelu"):
    for net, batch in nets:
        for p in PRECISIONS:
            modes = mine.get((net, batch, p, act), {})
            eager, graph = (peer.get((net, batch, p, act, v)) for v in ("eager", "graph"))
            if not modes and not eager and not graph:
                continue
            best = min(modes.values(), key=lambda r: r["ms_per_epoch"], default=None)
            speedup = f"{graph['ms_per_epoch'] / best['ms_per_epoch']:.2f}x" \
                if best and graph else "-"
            print(fmt.format(net, batch, p + ("/g" if act == "gelu" else ""),
                             ms(modes.get("fused")), ms(modes.get("auto")), ms(best),
                             best["mode"] if best else "-", ms(eager), ms(graph), speedup))
PY
