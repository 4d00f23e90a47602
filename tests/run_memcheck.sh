#!/usr/bin/env bash
# run_memcheck.sh [--racecheck] PROGRAM [ARGS...]: runs a GPU test binary
# under compute-sanitizer's memcheck (with --racecheck: its racecheck, the
# shared-memory hazards), failing (exit 1) on any error it reports.
# Skips (77) when compute-sanitizer is not installed (it comes with the
# CUDA toolkit; CI machines without a GPU have none) and passes the
# program's own exit code through otherwise (77 without a GPU).
set -u
tool="$(command -v compute-sanitizer || true)"
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/nvidia/*/bin; do
  [ -n "$tool" ] && break
  [ -x "$d/compute-sanitizer" ] && tool="$d/compute-sanitizer"
done
if [ -z "$tool" ]; then
  echo "SKIP memcheck: compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
  exit 77
fi
if [ "${1:-}" = --racecheck ]; then
  shift
  exec "$tool" --tool racecheck --error-exitcode 1 "$@"
fi
exec "$tool" --tool memcheck --leak-check full --error-exitcode 1 "$@"
