#!/usr/bin/env bash
# test_cuda_arch.sh SOURCE_DIR: which CUDA architectures the build is for.
#  1. scripts/cuda_arch.sh's choice, with a fake nvidia-smi on PATH: the
#     distinct capabilities of the visible GPUs ("89-real", several GPUs:
#     all of them, once each), CUDA_VISIBLE_DEVICES respected (hidden, by
#     UUID, by index in PCI order), and the default without a GPU, nvidia-smi
#     failing or absent; one line says which.
#  2. The project configured for one list, then with the no-GPU flags: the
#     cache holds CMakeLists.txt's default again (not the stale list), the
#     list reaches gpu/gpu_arch_check.cu as MNIST_CUDA_ARCHITECTURES, and no
#     build-wide early-start switch is left (it is decided per kernel).
#  3. The FP8 cast's trap line (FP8_TRAP_BELOW, layers/fp8_device.cuh) per
#     list: below sm_89 with its cubin, below the lowest PTX otherwise.
# Part 2 skips (counted) where the project cannot be configured.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/cuda_arch.sh
. "$src/scripts/cuda_arch.sh"
default="75-real;80-real;86-real;89-real;90-real;100-real;120-real;90-virtual"

# fake_smi ROWS...: an nvidia-smi printing "index, uuid, compute_cap" rows
# (for the query cuda_arch.sh makes; anything else is an error).
mkdir -p "$work/bin" "$work/tools"
fake_smi() {
  { echo '#!/usr/bin/env bash'
    echo '[ "$1" = --query-gpu=index,uuid,compute_cap ] || exit 64'
    printf 'echo "%s"\n' "$@"; } >"$work/bin/nvidia-smi"
  chmod +x "$work/bin/nvidia-smi"
}
# choice [VAR=VALUE...]: cuda_arch_choose's flags and line, with the fake.
choice() {
  env PATH="$work/bin:$PATH" "$@" bash -c \
    '. "$0"; cuda_arch_choose tester; printf "flags=%s\n" "${cuda_arch_args[*]}"' \
    "$src/scripts/cuda_arch.sh" >"$work/out" 2>&1
}
flags_are() { grep -qx -- "flags=$1" "$work/out"; }
says() { grep -q -- "$1" "$work/out"; }

fake_smi "0, GPU-aaaa-1111, 8.9"
choice env -u CUDA_VISIBLE_DEVICES
check "one L4: its capability" flags_are "-DCMAKE_CUDA_ARCHITECTURES=89-real"
check "one L4: said in a line" says "^tester: building for the GPU here: CMAKE_CUDA_ARCHITECTURES=89-real"

fake_smi "0, GPU-aaaa-1111, 8.6" "1, GPU-bbbb-2222, 9.0" "2, GPU-cccc-3333, 8.6"
choice env -u CUDA_VISIBLE_DEVICES
check "three GPUs, two kinds: both, once each" flags_are "-DCMAKE_CUDA_ARCHITECTURES=86-real;90-real"
choice CUDA_VISIBLE_DEVICES=GPU-bbbb
check "CUDA_VISIBLE_DEVICES by UUID prefix: that GPU only" flags_are "-DCMAKE_CUDA_ARCHITECTURES=90-real"
choice CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID
check "CUDA_VISIBLE_DEVICES by index in PCI order: that GPU only" flags_are "-DCMAKE_CUDA_ARCHITECTURES=86-real"
choice CUDA_VISIBLE_DEVICES=2
check "index in CUDA's own order: every GPU (a superset)" flags_are "-DCMAKE_CUDA_ARCHITECTURES=86-real;90-real"
choice CUDA_VISIBLE_DEVICES=
check "CUDA_VISIBLE_DEVICES empty: no GPU, the default" flags_are "-UCMAKE_CUDA_ARCHITECTURES"
check "no GPU: said in a line" says "^tester: no GPU seen by nvidia-smi: building for every supported GPU"
choice CUDA_VISIBLE_DEVICES=-1,1
check "CUDA_VISIBLE_DEVICES -1: no GPU" flags_are "-UCMAKE_CUDA_ARCHITECTURES"

printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver"\nexit 9\n' >"$work/bin/nvidia-smi"
choice env -u CUDA_VISIBLE_DEVICES
check "nvidia-smi failing: the default" flags_are "-UCMAKE_CUDA_ARCHITECTURES"
rm -f "$work/bin/nvidia-smi"
for t in awk sort bash env; do ln -s "$(command -v "$t")" "$work/tools/$t"; done
env PATH="$work/tools" bash -c '. "$0"; cuda_arch_choose tester; printf "flags=%s\n" "${cuda_arch_args[*]}"' \
  "$src/scripts/cuda_arch.sh" >"$work/out" 2>&1
check "no nvidia-smi at all: the default" flags_are "-UCMAKE_CUDA_ARCHITECTURES"

# 2. The project: a stale list replaced by the default; the list in the code.
cached() { sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$work/b/CMakeCache.txt"; }
configure() {
  cmake -S "$src" -B "$work/b" -DMNIST_BUILD_TESTS=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >"$work/cmake.log" 2>&1
}
if ! configure -DCMAKE_CUDA_ARCHITECTURES=89-real; then
  skip "the project does not configure on this machine: $(grep -m1 -iE 'error|not found' "$work/cmake.log")"
else
  check "configured for 89-real" test "$(cached)" = "89-real"
  cuda_arch_choose tester >/dev/null
  configure "${cuda_arch_args[@]}"
  check "no GPU after 89-real: the cache holds the default again" test "$(cached)" = "$default"
  defined() {
    python3 - "$work/b/compile_commands.json" "$1" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
cmd = [e["command"] for e in entries if e["file"].endswith(sys.argv[2])]
print(cmd[0] if cmd else "")
PY
  }
  check "the list reaches gpu_arch_check.cu" \
    grep -q 'MNIST_CUDA_ARCHITECTURES=.*75-real 80-real 86-real 89-real 90-real 100-real 120-real 90-virtual' \
    <(defined gpu/gpu_arch_check.cu)
  check "no build-wide early-start switch" bash -c '! grep -q MNIST_EARLY_LAUNCH "$0"' "$work/b/compile_commands.json"
  # 3. trap_is LIST N: configured for LIST, fp8_cast.cu traps below N.
  trap_is() {
    configure "-DCMAKE_CUDA_ARCHITECTURES=$1" &&
      grep -q -- "-DFP8_TRAP_BELOW=$2 " <(defined layers/fp8_cast.cu)
  }
  check "fp8 trap: the default list, below sm_89" trap_is "$default" 890
  check "fp8 trap: compute_80 PTX runs on later GPUs, below 80" trap_is "80;89-real" 800
  check "fp8 trap: compute_75 PTX, below 75 (none)" trap_is "75;89-real" 750
  check "fp8 trap: no sm_89 cubin, an sm_89 GPU runs sm_86's" trap_is "80-real;86-real" 800
fi

echo "test_cuda_arch: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
