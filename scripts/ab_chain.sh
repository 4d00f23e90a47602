#!/usr/bin/env bash
# ab_chain.sh [--rounds N] [--log DIR]: the issue-20 A/B of the chain
# switches (gpu_options.chain, mnist_bench --chain) and the seed network's
# padding width (--pad-to), in one GPU call, from the repository root with
# a built build/ (mnist_bench, mnist_train) and the data in data/mnist (or
# $MNIST_DIR):
#   1. bench: for each chain variant (none; side-partials, sgd-lane,
#      priorities, trigger alone; all), alternated N rounds (default 2),
#      `mnist_bench --no-layers --precision bf16 --activation relu
#      --repeats 5 --network seed|mid --chain X`; the auto+pad rows kept;
#   2. the best chain (lowest mean us/step of the seed network's auto+pad
#      rows over the rounds) with --pad-to 8, 16, 32, alternated N rounds,
#      seed network only;
#   3. `mnist_bench --trace-step --chain X` once per chain variant (both
#      batch-256 networks, padding 8);
#   4. bit identity: mnist_train --epochs 2 --precision bf16 --pad-units
#      --hidden 100 --batch 256 with --mode unfused and --mode fused (auto
#      may flip a choice on timing), each switch alone against none:
#      `cut -d, -f1-5` of the --log CSVs compared with cmp.
# Prints one table (variant, network, ms/epoch per round, us/step per
# round, kernels per step / on the chain, the traced critical path) and
# the bit checks. Logs (every raw output) go to --log DIR (default $OUT or
# /tmp/ab_chain). --rounds is 1 to 100; the flags and the GPU are checked
# before anything runs (no GPU: exit 1, saying why). Exit code: the number
# of failed runs and bit checks, at most 125 (an exit code is taken modulo
# 256); 2 for bad arguments.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2
# shellcheck source=scripts/script_lib.sh
. "$root/scripts/script_lib.sh"
rounds=2
logs="${OUT:-/tmp/ab_chain}"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) script_value ab_chain.sh "$@"; rounds="$2"; shift ;;
    --log) script_value ab_chain.sh "$@"; logs="$2"; shift ;;
    -h | --help) script_help "$0"; exit 0 ;;
    *) echo "ab_chain.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
script_count rounds ab_chain.sh --rounds "$rounds" 1 100
bench=build/mnist_bench
train=build/mnist_train
for b in "$bench" "$train"; do
  if [ ! -x "$b" ]; then
    echo "ab_chain.sh: expected $b (build first: cmake -S . -B build && cmake --build build), found none" >&2
    exit 2
  fi
done
script_need_gpu ab_chain.sh
mkdir -p "$logs" || { echo "ab_chain.sh: cannot create the log folder $logs" >&2; exit 2; }
chains="none side-partials sgd-lane priorities trigger all"
failures=0
started=$SECONDS
results="$logs/results.tsv" # variant network pad round ms us kernels
: >"$results"

# One bench call; appends its auto+pad rows to results.tsv.
bench_rows() { # variant chain network pad round
  local out="$logs/bench-$1-$3-pad$4-r$5.txt"
  if ! "$bench" --no-layers --precision bf16 --activation relu --repeats 5 \
    --network "$3" --pad-to "$4" --chain "$2" >"$out" 2>&1; then
    echo "ab_chain.sh: mnist_bench --chain $2 --network $3 --pad-to $4 failed: see $out" >&2
    failures=$((failures + 1))
    return
  fi
  awk -v v="$1" -v n="$3" -v p="$4" -v r="$5" \
    '$3 == "auto+pad" && $4 == "bf16" { print v "\t" n "\t" p "\t" r "\t" $6 "\t" $8 "\t" $9 }' \
    "$out" >>"$results"
}

for r in $(seq 1 "$rounds"); do
  for c in $chains; do
    for net in seed mid; do bench_rows "$c" "$c" "$net" 8 "$r"; done
  done
done

best=$(awk -F'\t' '$2 == "seed" { s[$1] += $6; k[$1]++ }
  END { for (v in s) print s[v] / k[v], v }' "$results" | sort -n | head -1 | cut -d' ' -f2)
if [ -n "$best" ]; then
  for r in $(seq 1 "$rounds"); do
    for pad in 8 16 32; do bench_rows "$best+pad$pad" "$best" seed "$pad" "$r"; done
  done
else
  echo "ab_chain.sh: no seed row was timed (see the failures above): the padding step is skipped" >&2
fi

# The traced critical path per chain variant, per network.
traces="$logs/traces.tsv"
: >"$traces"
for c in $chains; do
  out="$logs/trace-$c.md"
  if ! "$bench" --trace-step --precision bf16 --activation relu --chain "$c" >"$out" 2>&1; then
    echo "ab_chain.sh: mnist_bench --trace-step --chain $c failed: see $out" >&2
    failures=$((failures + 1))
    continue
  fi
  awk -v v="$c" '/^## / { net = ($2 == "784-100-10") ? "seed" : "mid" }
    /^step, median/ { for (i = 1; i <= NF; i++) if ($i == "untraced") us = $(i + 1) }
    /^critical path \(/ { sub(/^critical path /, ""); print v "\t" net "\t" us "\t" $0 }' \
    "$out" >>"$traces"
done

echo
echo "chain A/B on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), BF16 relu auto+pad, batch 256; $rounds rounds alternated"
echo
echo "| variant | network | pad | ms/epoch per round | us/step per round | kernels (step/chain) |"
echo "|---|---|---:|---|---|---|"
awk -F'\t' '{ key = $1 "\t" $2 "\t" $3; if (!(key in ms)) order[n++] = key
    ms[key] = ms[key] (ms[key] == "" ? "" : ", ") $5
    us[key] = us[key] (us[key] == "" ? "" : ", ") $6; kern[key] = $7 }
  END { for (i = 0; i < n; i++) { split(order[i], f, "\t")
      printf "| %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], ms[order[i]], us[order[i]], kern[order[i]] } }' \
  "$results"
echo
echo "| variant | network | traced step, untraced us | critical path |"
echo "|---|---|---:|---|"
awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$traces"

# Bit identity: each switch alone against none, unfused and fused.
echo
echo "bit identity (mnist_train --epochs 2 --precision bf16 --pad-units --hidden 100 --batch 256; cut -d, -f1-5 of --log):"
for mode in unfused fused; do
  for c in none side-partials sgd-lane priorities trigger; do
    log="$logs/train-$mode-$c.csv"
    if ! "$train" --epochs 2 --precision bf16 --mode "$mode" --pad-units \
      --hidden 100 --batch 256 --quiet --log "$log" --chain "$c" \
      >"$logs/train-$mode-$c.txt" 2>&1; then
      echo "  $mode $c: mnist_train failed: see $logs/train-$mode-$c.txt"
      failures=$((failures + 1))
      continue
    fi
    [ "$c" = none ] && continue
    if cmp -s <(cut -d, -f1-5 "$logs/train-$mode-none.csv") <(cut -d, -f1-5 "$log"); then
      echo "  $mode $c: identical to none"
    else
      echo "  $mode $c: DIFFERS from none (see $log)"
      failures=$((failures + 1))
    fi
  done
done
echo
echo "best chain by seed us/step: ${best:-none (nothing was timed)}; $((SECONDS - started)) s; logs in $logs; failures: $failures"
script_exit "$failures"
