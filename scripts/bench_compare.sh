#!/usr/bin/env bash
# bench_compare.sh [BUILD_DIR] [--runs N] [--within SECONDS] [-- mnist_bench
# flags]: runs
# mnist_bench and scripts/bench_pytorch.py (PyTorch eager, CUDA-graphed, and
# compiled with torch.compile and graphed; fp32, tf32, bf16, fp16 and fp8
# through torchao; same networks, data and batch) in one go and prints, for
# each network and precision, ours (graphs on) against PyTorch in that
# precision (scripts/bench_runs.py makes the table). "PyTorch best" is the
# fastest PyTorch variant of the same run, named; a compiled row counts only
# with its proof that it ran compiled (bench_pytorch.py stops with an error
# instead of writing a row that fell back), and every speedup is PyTorch
# best / ours; fp8 rows are set against torchao's best and against PyTorch's
# bf16 best.
# --runs N (1 to 100, default 1) repeats the whole comparison N times, ours
# then PyTorch, and prints one table: each row's (network, batch, precision,
# our mode or PyTorch variant) median over the runs of each run's median ms
# per epoch with its range (min-max over the runs), and each speedup
# (PyTorch best / ours, taken within a run) as the median over the runs with
# its range. The runs share one machine and one GPU; choose N so that they
# fit the time you have (one run of every row takes minutes), or give
# --within SECONDS: run k + 1 starts only if the time so far plus the
# longest run so far fits in SECONDS (at least one run always runs); the
# table then covers the runs done, and says how many.
# A run longer than one call (the compiled rows compile for a minute or so
# each) is split: each call runs a part, selected by mnist_bench's
# --network/--precision (after --) and bench_pytorch.py's
# --networks/--precisions/--variants/--compile-mode (TORCH_BENCH_FLAGS), its
# JSON kept in a folder of its own; afterwards, on any machine,
# scripts/bench_merge.py joins the parts of each program and
# scripts/bench_runs.py prints the table:
#   BENCH_JSON_DIR=out/c1 TORCH_BENCH_FLAGS="--networks 4096-4096:4096
#     --precisions bf16" scripts/bench_compare.sh build -- --network big
#     --precision bf16                                  (one call; c2, ... alike)
#   scripts/bench_merge.py -o out/ours.json out/c*/ours.json
#   scripts/bench_merge.py -o out/torch.json out/c*/torch.json
#   scripts/bench_runs.py --ours out/ours.json --torch out/torch.json
# (with --runs N, merge each run K's ours-K.json and torch-K.json alike and
# give bench_runs.py the K merged files of each). A PyTorch part may also be
# bench_pytorch.py --json alone; bench_pytorch.py rewrites its JSON after
# every row, so a call cut short keeps the rows it finished.
# PyTorch is optional: without it (or without a GPU that PyTorch sees) only
# mnist_bench's table is printed (with --runs N > 1: the table over the runs
# of ours alone), with a line saying why.
# mnist_bench's --repeats and --data-dir go to bench_pytorch.py too, and
# TORCH_BENCH_FLAGS is appended to its call, e.g.
#   TORCH_BENCH_FLAGS="--precisions bf16,fp16 --variants graph" scripts/bench_compare.sh
# The JSON of both programs is kept in $BENCH_JSON_DIR when that is set:
# ours.json and torch.json, or with --runs N > 1 ours-K.json and torch-K.json
# for run K.
# Exit code: 0 when the runs and the table are done; 2 for a bad --runs;
# otherwise the failing program's.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="$here/build"
runs=1
within=0
first=1
given=" "
while [ $# -gt 0 ]; do
  case "$1" in
    --runs | --runs=* | --within | --within=*)
      flag="${1%%=*}"
      case "$given" in *" $flag "*)
        echo "bench_compare.sh: $flag given twice: expected it at most once" >&2; exit 2 ;;
      esac
      given="$given$flag "
      if [ "$1" = "$flag" ]; then value="${2-}"; shift; [ $# -gt 0 ] && shift
      else value="${1#*=}"; shift; fi
      if [ "$flag" = --runs ]; then runs="$value"; else within="$value"; fi ;;
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0 ;;
    --) shift; break ;;
    -*) break ;;
    *) [ "$first" = 1 ] || break; build="$1"; first=0; shift ;;
  esac
done
# Whole digits, base 10 ("08" is 8), at most 9 of them once leading zeros
# are gone (a longer number wraps around in bash's arithmetic).
if ! [[ "$runs" =~ ^[0-9]+$ ]] || [ "${#runs}" -gt 9 ] || ((10#$runs < 1 || 10#$runs > 100)); then
  echo "bench_compare.sh: --runs: expected a whole number of runs from 1 to 100, found '$runs'" >&2
  exit 2
fi
if ! [[ "$within" =~ ^[0-9]+$ ]] || [ "${#within}" -gt 9 ] || ((10#$within > 86400)); then
  echo "bench_compare.sh: --within: expected whole seconds, found '$within' (0 to 86400)" >&2
  exit 2
fi
if [ ! -x "$build/mnist_bench" ]; then
  echo "bench_compare.sh: expected BUILD_DIR with a built mnist_bench, found no $build/mnist_bench (build first: cmake -S . -B build && cmake --build build)" >&2
  exit 2
fi
# Base 10 from here on: in (( )) "08" is a bad octal number, an error that
# makes the test false and the limit silently ignored.
runs=$((10#$runs))
within=$((10#$within))
if [ -n "${BENCH_JSON_DIR:-}" ]; then
  out="$BENCH_JSON_DIR"; mkdir -p "$out"
else
  out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
fi
torch_flags=(${MNIST_DIR:+--data-dir "$MNIST_DIR"})
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --repeats|--data-dir) torch_flags+=("${args[i]}" "${args[i + 1]:-}") ;;
  esac
done
missing=""
ours=(); torch=()
started=$SECONDS
longest=0
for ((k = 1; k <= runs; k++)); do
  if ((k > 1 && within > 0 && SECONDS - started + longest > within)); then
    echo "bench_compare.sh: stopped after $((k - 1)) of $runs runs: another (up to ${longest} s) would pass --within $within"
    runs=$((k - 1))
    break
  fi
  run_started=$SECONDS
  sfx=""
  if ((runs > 1)); then sfx="-$k"; echo "bench_compare.sh: run $k of $runs"; fi
  "$build/mnist_bench" --json "$out/ours$sfx.json" "$@"
  echo
  ours+=("$out/ours$sfx.json")
  rm -f "$out/torch$sfx.json"  # none from an earlier run in $BENCH_JSON_DIR
  if ((k == 1)); then
    if ! python3 -c 'import torch' >/dev/null 2>&1; then
      missing="PyTorch is not installed (pip install torch)"
    elif ! python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' \
        >/dev/null 2>&1; then
      missing="PyTorch sees no CUDA GPU"
    fi
  fi
  if [ -z "$missing" ]; then
    # shellcheck disable=SC2086  # TORCH_BENCH_FLAGS is a list of words
    python3 "$here/scripts/bench_pytorch.py" --json "$out/torch$sfx.json" \
      ${torch_flags[@]+"${torch_flags[@]}"} ${TORCH_BENCH_FLAGS:-}
    [ ! -f "$out/torch$sfx.json" ] || torch+=("$out/torch$sfx.json")
  fi
  if ((SECONDS - run_started > longest)); then longest=$((SECONDS - run_started)); fi
done
if [ -n "$missing" ]; then
  if ((runs == 1)); then
    echo "bench_compare.sh: $missing: only mnist_bench's table"
    exit 0
  fi
  echo "bench_compare.sh: $missing: only mnist_bench's rows over the runs"
fi
((${#torch[@]} > 0)) || ((runs > 1)) || exit 0
if ((${#torch[@]} > 0 && ${#torch[@]} < runs)); then
  echo "bench_compare.sh: bench_pytorch.py wrote no JSON in some runs: ours alone over the runs"
  torch=()
fi
python3 "$here/scripts/bench_runs.py" --ours "${ours[@]}" ${torch[@]+--torch "${torch[@]}"}
