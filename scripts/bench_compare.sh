#!/usr/bin/env bash
# bench_compare.sh [BUILD_DIR] [-- mnist_bench flags]: runs mnist_bench
# (fused vs unfused) and scripts/bench_pytorch.py (eager PyTorch, same
# networks, data and batch) in one go and prints ours/PyTorch ratios.
# PyTorch is optional: without it only mnist_bench's table is printed.
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
python3 "$here/scripts/bench_pytorch.py" --json "$out/torch.json" ${MNIST_DIR:+--data-dir "$MNIST_DIR"}
[ -f "$out/torch.json" ] || exit 0
python3 - "$out/ours.json" "$out/torch.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["training"]
torch = json.load(open(sys.argv[2]))["training"]
print("\nours (fused, FP32, graphs) against eager PyTorch, same GPU, same run")
print(f"{'network':18s} {'batch':>6s} {'ours ms':>9s} {'torch ms':>9s} {'speedup':>8s}")
for t in torch:
    for o in ours:
        if (o["network"], o["batch"], o["mode"], o["math"], o["graphs"]) == \
           (t["network"], t["batch"], "fused", "FP32", True):
            print(f"{t['network']:18s} {t['batch']:6d} {o['ms_per_epoch']:9.2f} "
                  f"{t['ms_per_epoch']:9.2f} {t['ms_per_epoch'] / o['ms_per_epoch']:7.1f}x")
PY
