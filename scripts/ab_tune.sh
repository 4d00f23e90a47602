#!/usr/bin/env bash
# ab_tune.sh [--rounds N] [--log DIR] [--] LABEL=COMMAND ...: A/B of whole
# mnist_train runs in one GPU call, from the repository root: each round
# runs every COMMAND once, in the order given (alternated, so drift hits
# all alike), N rounds (default 5, at most 50), each a separate process.
# A COMMAND is an mnist_train command line (a build's binary and its
# flags, e.g. "base/mnist_train --autotune exact"); it must print
# mnist_train's "done: test accuracy A% after E epochs; training T ms in
# all, M ms per epoch (median); W s wall clock" line. Prints per LABEL the
# median over the rounds of ms per epoch with its range (min-max), of the
# wall clock with its range, the test accuracies seen, and its ratio to the
# first LABEL: the median of the per-round ratios of ms per epoch with
# their range (> 1: slower than the first). Each run's output goes to
# --log DIR (default $OUT or /tmp/ab_tune). Exit code: 0, the number of
# failed runs (at most 125), or 2 for bad arguments.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2
rounds=5
logs="${OUT:-/tmp/ab_tune}"
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) [ $# -ge 2 ] || { echo "ab_tune.sh: --rounds needs a number" >&2; exit 2; }
              rounds="$2"; shift ;;
    --log) [ $# -ge 2 ] || { echo "ab_tune.sh: --log needs a folder" >&2; exit 2; }
           logs="$2"; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    --*) echo "ab_tune.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
case "$rounds" in
  '' | *[!0-9]* | 0*) echo "ab_tune.sh: --rounds: expected a number from 1 to 50, found '$rounds'" >&2; exit 2 ;;
esac
if [ "$rounds" -gt 50 ]; then
  echo "ab_tune.sh: --rounds: expected a number from 1 to 50, found $rounds" >&2; exit 2
fi
[ $# -ge 1 ] || { echo "ab_tune.sh: expected LABEL=COMMAND arguments, found none (see --help)" >&2; exit 2; }
labels=(); commands=()
for a in "$@"; do
  case "$a" in
    *=?*) labels+=("${a%%=*}"); commands+=("${a#*=}") ;;
    *) echo "ab_tune.sh: expected LABEL=COMMAND, found '$a'" >&2; exit 2 ;;
  esac
done
mkdir -p "$logs" || { echo "ab_tune.sh: --log $logs: cannot create it" >&2; exit 2; }
results="$logs/ab_tune.tsv"
: >"$results"
failures=0
for ((r = 1; r <= rounds; r++)); do
  for i in "${!labels[@]}"; do
    out="$logs/${labels[$i]//[^A-Za-z0-9_.-]/_}.$r.txt"
    # shellcheck disable=SC2086 # the command's words are split on purpose
    if ! ${commands[$i]} >"$out" 2>&1; then
      echo "ab_tune.sh: round $r, ${labels[$i]} failed (see $out)" >&2
      failures=$((failures + 1)); continue
    fi
    line=$(grep '^done: ' "$out" | tail -1)
    if [ -z "$line" ]; then
      echo "ab_tune.sh: round $r, ${labels[$i]} printed no done: line (see $out)" >&2
      failures=$((failures + 1)); continue
    fi
    echo "$line" | awk -v r="$r" -v l="${labels[$i]}" '{
      acc = $4; sub(/%$/, "", acc)
      for (i = 1; i <= NF; i++) {
        if ($i == "per" && $(i + 1) == "epoch") ms = $(i - 2)
        if ($i == "wall") wall = $(i - 2)
      }
      printf "%s\t%d\t%s\t%s\t%s\n", l, r, ms, wall, acc }' >>"$results"
  done
done
awk -F'\t' -v first="${labels[0]}" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { key[$1] = 1; order[$1] = order[$1] ? order[$1] : ++seen; ms[$1, $2] = $3; wall[$1, $2] = $4
    accs[$1] = index(accs[$1], " " $5 " ") ? accs[$1] : accs[$1] " " $5 " "; rounds[$2] = 1 }
  END {
    printf "%-14s %10s %17s %8s %15s  %-9s %s\n", "label", "ms/epoch", "(min-max)", "wall s", "(min-max)", "ratio", "(min-max)  accuracies"
    for (l in key) labs[order[l]] = l
    for (o = 1; o <= seen; o++) {
      l = labs[o]; n = 0; m = 0; k = 0
      for (r in rounds) if ((l, r) in ms) {
        a[++n] = ms[l, r]; w[n] = wall[l, r]
        if ((first, r) in ms && ms[first, r] > 0) q[++k] = ms[l, r] / ms[first, r]
      }
      if (n == 0) { printf "%-14s no runs\n", l; continue }
      lo = hi = a[1]; wl = wh = w[1]; ql = qh = (k ? q[1] : 0)
      for (i = 1; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i]; if (w[i] < wl) wl = w[i]; if (w[i] > wh) wh = w[i] }
      for (i = 1; i <= k; i++) { if (q[i] < ql) ql = q[i]; if (q[i] > qh) qh = q[i] }
      printf "%-14s %10.2f (%7.2f-%7.2f) %8.2f (%6.2f-%6.2f)  %-9s (%.3f-%.3f) %s\n", l, median(a, n), lo, hi, median(w, n), wl, wh,
        (k ? sprintf("%.3f", median(q, k)) : "-"), ql, qh, accs[l]
      delete a; delete w; delete q
    }
  }' "$results"
[ "$failures" -gt 125 ] && failures=125
exit "$failures"
