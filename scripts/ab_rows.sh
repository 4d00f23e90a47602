#!/usr/bin/env bash
# ab_rows.sh [--rounds N] [--chains "A B ..."] [--networks "seed mid big"]
#            [--precisions "bf16 fp32"] [--activations "relu"] [--log DIR]:
# every benchmark row (fused, unfused, auto, each with and without +pad)
# of those networks, precisions and activations under several
# --chain values, in one GPU call, from the repository root with a built
# build/mnist_bench and the data in data/mnist (or $MNIST_DIR). Each round
# runs `mnist_bench --no-layers --activation A --repeats 5 --network NET
# --precision P --chain C` for every chain in turn (alternated, so drift
# hits all alike), N rounds (default 3). The first chain is the baseline.
# Prints, per row, each chain's median ms/epoch over the rounds with its
# range (min-max of the rounds' medians), and its ratio to the baseline as
# the median of the per-round ratios with their range: > 1 is faster than
# the baseline. A row whose ratio range lies wholly above 1 is marked
# "faster", wholly below "slower", else "noise". Raw outputs go to --log DIR
# (default $OUT or /tmp/ab_rows). A run counts as failed when mnist_bench
# fails or prints no rows of its precision (e.g. it skipped them); the
# summary failing counts too. Before anything runs: --rounds must be 1 to
# 100, each list one or more names mnist_bench takes (checked with its own
# --check-flags), and a GPU there (else exit 1, saying why). Exit code: 0
# when nothing failed, else the number of failures (at most 125); 2 for
# bad arguments.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2
# shellcheck source=scripts/script_lib.sh
. "$root/scripts/script_lib.sh"
rounds=3
chains="none all"
networks="seed mid big"
precisions="bf16 fp32"
activations="relu"
logs="${OUT:-/tmp/ab_rows}"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds | --chains | --networks | --precisions | --log | --activations)
      script_value ab_rows.sh "$@" ;;
  esac
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --chains) chains="$2"; shift ;;
    --networks) networks="$2"; shift ;;
    --precisions) precisions="$2"; shift ;;
    --log) logs="$2"; shift ;;
    --activations) activations="$2"; shift ;;
    -h | --help) script_help "$0"; exit 0 ;;
    *) echo "ab_rows.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
script_count rounds ab_rows.sh --rounds "$rounds" 1 100
# Each list needs one word at least: an empty one would run nothing.
for flag in chains networks precisions activations; do
  read -ra words <<<"${!flag}" # split on blanks, as the loops below do
  if [ "${#words[@]}" = 0 ]; then
    echo "ab_rows.sh: --$flag: expected one or more names separated by spaces, found '${!flag}'" >&2
    exit 2
  fi
done
bench=build/mnist_bench
if [ ! -x "$bench" ]; then
  echo "ab_rows.sh: expected $bench (build first: cmake -S . -B build && cmake --build build), found none" >&2
  exit 2
fi
# Every name as mnist_bench itself takes it (its --check-flags), before
# any run: a bad one would fail every round.
for pair in "chains --chain" "networks --network" "precisions --precision" \
            "activations --activation"; do
  list=${pair%% *}; flag=${pair#* }
  for name in ${!list}; do
    if ! why=$("$bench" --check-flags --no-layers "$flag" "$name" 2>&1 >/dev/null); then
      echo "ab_rows.sh: --$list: '$name' is not a name mnist_bench takes: ${why%%$'\n'*}" >&2
      exit 2
    fi
  done
done
script_need_gpu ab_rows.sh
mkdir -p "$logs" || { echo "ab_rows.sh: cannot create the log folder $logs" >&2; exit 2; }
results="$logs/rows.tsv" # chain round network mode precision ms activation
: >"$results"
failures=0
started=$SECONDS
for r in $(seq 1 "$rounds"); do
  for net in $networks; do
    for p in $precisions; do
      for a in $activations; do
        for c in $chains; do
          out="$logs/bench-$c-$net-$p-$a-r$r.txt"
          if ! "$bench" --no-layers --activation "$a" --repeats 5 --network "$net" \
            --precision "$p" --chain "$c" >"$out" 2>&1; then
            echo "ab_rows.sh: mnist_bench --chain $c --network $net --precision $p --activation $a failed: see $out" >&2
            failures=$((failures + 1))
            continue
          fi
          # The rows of the precision asked (fp8 included), whatever it is.
          rows=$(awk -v c="$c" -v r="$r" -v a="$a" -v p="$p" '$1 ~ /^784-/ && $4 == p {
              print c "\t" r "\t" $1 "\t" $3 "\t" $4 "\t" $6 "\t" a }' "$out")
          if [ -z "$rows" ]; then # e.g. "skipping the bf16 gelu rows": the table shows "failed"
            echo "ab_rows.sh: mnist_bench --chain $c --network $net --precision $p --activation $a printed no rows: see $out" >&2
            failures=$((failures + 1))
            continue
          fi
          printf '%s\n' "$rows" >>"$results"
        done
      done
    done
  done
done
echo
echo "chain A/B of every row on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $activations; $rounds rounds alternated; baseline: $(echo "$chains" | cut -d' ' -f1)"
echo "ms/epoch: median over rounds (min-max); ratio: baseline / chain per round, median (min-max), > 1 faster"
echo
if ! python3 - "$results" "$chains" <<'EOF'
import sys
from collections import defaultdict
path, chains = sys.argv[1], sys.argv[2].split()
ms = defaultdict(dict)  # (net, prec, act, mode) -> {(chain, round): ms}
for line in open(path):
    c, r, net, mode, prec, v, act = line.rstrip("\n").split("\t")
    ms[(net, prec, act, mode)][(c, r)] = float(v)
def med(xs):
    xs = sorted(xs); n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
base = chains[0]
head = "| network | prec | act | mode | " + " | ".join(chains) + " |"
print(head)
print("|" + "---|" * (4 + len(chains)))
for key in ms:
    cells = []
    for c in chains:
        vals = [v for (cc, r), v in ms[key].items() if cc == c]
        if not vals:
            cells.append("failed"); continue
        cell = "%.2f (%.2f-%.2f)" % (med(vals), min(vals), max(vals))
        if c != base:
            ratios = [ms[key][(base, r)] / v for (cc, r), v in ms[key].items()
                      if cc == c and (base, r) in ms[key]]
            if ratios:
                lo, hi = min(ratios), max(ratios)
                word = "faster" if lo > 1 else "slower" if hi < 1 else "noise"
                cell += " %.3fx (%.3f-%.3f) %s" % (med(ratios), lo, hi, word)
        cells.append(cell)
    print("| %s | %s |" % (" | ".join(key), " | ".join(cells)))
EOF
then
  echo "ab_rows.sh: the summary of $results failed (above)" >&2
  failures=$((failures + 1))
fi
echo
echo "$((SECONDS - started)) s; logs in $logs; failures: $failures"
script_exit "$failures"
