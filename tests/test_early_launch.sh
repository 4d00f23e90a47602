#!/usr/bin/env bash
# test_early_launch.sh SOURCE_DIR: the step's kernels may start early
# (programmatic dependent launch, gpu/gpu_launch.cuh) only in a build whose
# every CUDA architecture is sm_90 or later, where each kernel's first
# statement waits for its predecessor. A build that also carries older code
# (whose PTX a Hopper GPU would JIT without the wait) must launch plainly.
# Configures the project for a few architecture lists and reads the
# MNIST_EARLY_LAUNCH definition off compile_commands.json. Exit 77 where
# the project cannot be configured (no nvcc, CMake or a library).
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# early_launch ARCHS: the MNIST_EARLY_LAUNCH value xent.cu is compiled with.
early_launch() {
  local dir; dir=$(mktemp -d "$work/build.XXXX")
  cmake -S "$src" -B "$dir" -DCMAKE_CUDA_ARCHITECTURES="$1" \
    -DMNIST_BUILD_TESTS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$dir.log" 2>&1 ||
    { echo "configuring for '$1' failed:"; tail -5 "$dir.log"; return 1; }
  python3 - "$dir/compile_commands.json" <<'PY'
import json, re, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"].endswith("layers/xent.cu"):
        found = re.findall(r"-DMNIST_EARLY_LAUNCH=(\d)", entry["command"])
        print(found[0] if found else "none")
PY
}
is() { [ "$(early_launch "$1")" = "$2" ]; }

# This machine must be able to configure the project at all (CMake, the
# CUDA toolkit, zlib, cJSON); where it cannot, nothing here can be checked.
if ! cmake -S "$src" -B "$work/probe" -DMNIST_BUILD_TESTS=OFF >"$work/probe.log" 2>&1; then
  echo "SKIP: the project does not configure on this machine:"
  grep -m3 -iE "error|not found|could not" "$work/probe.log"
  exit 77
fi

check "sm_90 only: early start" is 90 1
check "sm_90 and sm_100: early start" is "90;100" 1
check "sm_80 and sm_90: plain launches" is "80;90" 0
check "sm_80 only: plain launches" is 80 0

echo "test_early_launch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
