#!/usr/bin/env bash
# test_gpu_verify_script.sh SOURCE_DIR: scripts/gpu_verify.sh on a machine
# without a GPU (a stand-in nvidia-smi on PATH that fails, lists nothing,
# or lists a GPU that CUDA_VISIBLE_DEVICES hides) stops at once, exit 1,
# saying there is no GPU and why, before any part runs; bad flags (a value
# missing, --soak or --bench-rounds not a number in range, --old without
# the old binaries) exit 2 naming the flag before that; --dry-run on a
# stand-in GPU of compute capability 9.0 shows FP8 trained, sanitized and
# soaked, and on one of 8.0 says why it is not. No GPU, no build.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/scripts" "$work/smi"
cp "$src/scripts/gpu_verify.sh" "$src/scripts/script_lib.sh" "$work/root/scripts/"

# run SMI_BODY [VAR=VALUE...]: gpu_verify.sh with an nvidia-smi whose
# script body is SMI_BODY; output in $work/out, exit code in $code.
# FLAGS=(...) are given to gpu_verify.sh after --log.
FLAGS=()
run() {
  local body="$1" t0; shift
  printf '#!/bin/sh\n%s\n' "$body" >"$work/smi/nvidia-smi"
  chmod +x "$work/smi/nvidia-smi"
  t0=$(date +%s)
  timeout 60 env PATH="$work/smi:$PATH" "$@" "$work/root/scripts/gpu_verify.sh" \
    --log "$work/logs" ${FLAGS[@]+"${FLAGS[@]}"} >"$work/out" 2>&1
  code=$?
  took=$(($(date +%s) - t0))
  echo "--- nvidia-smi: $body $* (exit $code, ${took}s)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
no_part_ran() { ! grep -q '^== ' "$work/out" && [ ! -e "$work/logs" ]; }

while IFS='|' read -r name body envs why; do
  # shellcheck disable=SC2086 # envs: VAR=VALUE words, or none
  run "$body" $envs
  check "$name: exit 1" test "$code" = 1
  check "$name: says there is no GPU" has "gpu_verify.sh: no GPU here"
  check "$name: says why" has "$why"
  check "$name: stops at once (took ${took}s)" test "$took" -le 2
  check "$name: no part ran" no_part_ran
done <<'ROWS'
nvidia-smi fails|echo "NVIDIA-SMI has failed" >&2; exit 9||nvidia-smi -L failed (exit 9): NVIDIA-SMI has failed
no GPU listed|echo "No devices were found"||nvidia-smi -L lists no GPU
hidden by CUDA_VISIBLE_DEVICES|echo "GPU 0: NVIDIA H200 (UUID: GPU-aa)"|CUDA_VISIBLE_DEVICES=|CUDA_VISIBLE_DEVICES='' hides every GPU
ROWS

# Bad flags: exit 2 before the GPU is looked for (here there is none).
mkdir -p "$work/old-build"
while IFS='|' read -r name flags words; do
  read -ra FLAGS <<<"$flags"
  run 'echo "No devices were found"'
  check "$name: exit 2" test "$code" = 2
  check "$name: named" has "$words"
  check "$name: before the GPU check" eval '! has "no GPU here"'
done <<ROWS
--soak without a value|--soak|gpu_verify.sh: --soak: expected a value, found none
--soak x|--soak x|gpu_verify.sh: --soak: expected a whole number from 0 to 86400, found 'x'
--soak too long|--soak 99999999999999999999|--soak: expected a whole number from 0 to 86400
--bench-rounds 0|--bench-rounds 0|--bench-rounds: expected a whole number from 1 to 100, found '0'
--log a flag|--log --soak|gpu_verify.sh: --log: expected a value, found the flag '--soak'
--old without binaries|--old $work/old-build|--old $work/old-build: expected a folder holding an earlier build's mnist_train and mnist_bench, found no mnist_train
ROWS

# --dry-run on a stand-in GPU: what each part would run, nothing run.
gpu() { # the body of an nvidia-smi with a GPU of compute capability $1
  printf 'case "$*" in -L) echo "GPU 0: Test GPU (UUID: GPU-t)" ;;\n'
  printf '*compute_cap*) echo %s ;; *) echo "Test GPU, 1.0, 1 MHz" ;; esac' "$1"
}
FLAGS=(--dry-run --soak 5 --no-bench)
run "$(gpu 9.0)"
check "dry run, 9.0: exit 0" test "$code" = 0
check "dry run, 9.0: runs nothing" has "gpu_verify.sh: dry run, nothing run"
check "dry run, 9.0: trains fp8 fused" has "would run: build/mnist_train --epochs 5 --log $work/logs/new-fp8.csv --precision fp8\$"
check "dry run, 9.0: trains fp8 unfused and auto" \
  has "new-fp8-unfused.csv --precision fp8 --mode unfused\$"
check "dry run, 9.0: soaks the fp8 suites" has "would run, 10 at a time for 5 s: .*test_mlp_fp8 "
run "$(gpu 8.0)"
check "dry run, 8.0: exit 0" test "$code" = 0
check "dry run, 8.0: says why fp8 is not trained" \
  has "fp8 not trained: compute capability 8.0 (FP8 needs 8.9 or newer)"
check "dry run, 8.0: no fp8 run" eval '! has "precision fp8"'
check "dry run, 8.0: no fp8 suite" eval '! has "test_mlp_fp8"'

# --help: the whole header comment (it was cut off before the exit code).
"$work/root/scripts/gpu_verify.sh" --help >"$work/out" 2>&1; code=$?
code_at=$(grep -vn '^#' "$src/scripts/gpu_verify.sh" | head -1 | cut -d: -f1)
header=$(sed -n "2,$((code_at - 1))p" "$src/scripts/gpu_verify.sh" | sed 's/^# \{0,1\}//')
check "--help: exit 0" test "$code" = 0
check "--help: the whole header comment, nothing else" test "$(cat "$work/out")" = "$header"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
