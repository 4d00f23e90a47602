#!/usr/bin/env bash
# test_gpu_verify_script.sh SOURCE_DIR: scripts/gpu_verify.sh on a machine
# without a GPU (a stand-in nvidia-smi on PATH that fails, lists nothing,
# or lists a GPU that CUDA_VISIBLE_DEVICES hides) stops at once, exit 1,
# saying there is no GPU and why, before any part runs. No GPU, no build.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/scripts" "$work/smi"
cp "$src/scripts/gpu_verify.sh" "$work/root/scripts/"

# run SMI_BODY [VAR=VALUE...]: gpu_verify.sh with an nvidia-smi whose
# script body is SMI_BODY; output in $work/out, exit code in $code.
run() {
  local body="$1" t0; shift
  printf '#!/bin/sh\n%s\n' "$body" >"$work/smi/nvidia-smi"
  chmod +x "$work/smi/nvidia-smi"
  t0=$(date +%s)
  timeout 60 env PATH="$work/smi:$PATH" "$@" "$work/root/scripts/gpu_verify.sh" \
    --log "$work/logs" >"$work/out" 2>&1
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

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
