#!/usr/bin/env bash
# test.sh [--data DIR] [--no-sanitize]: configures, builds and runs the
# whole test suite, then the CPU tests once more under AddressSanitizer and
# UndefinedBehaviorSanitizer. Installs what is missing (check, pkg-config,
# zlib1g-dev, cmake) with apt-get when it can. GPU tests skip (exit 77)
# without a GPU; tests on the real data skip without the data.
#
#   --data DIR     MNIST folder for the tests on real data (its sibling
#                  fashion-mnist/ is used too when present)
#   --no-sanitize  skip the sanitizer pass
# Exit code: non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sanitize=1
while [ $# -gt 0 ]; do
  case "$1" in
    --data) [ $# -ge 2 ] || { echo "test.sh: --data needs a folder" >&2; exit 2; }
            export MNIST_DIR="$(cd "$2" && pwd)"
            [ -d "$MNIST_DIR/../fashion-mnist" ] &&
              export FASHION_MNIST_DIR="$(cd "$MNIST_DIR/../fashion-mnist" && pwd)"
            shift ;;
    --no-sanitize) sanitize=0 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

# What the build needs, as Debian packages.
. "$root/scripts/ensure_deps.sh"
ensure_packages cmake pkg-config check zlib1g-dev || exit 1
ensure_nvcc || exit 1

jobs="$(nproc 2>/dev/null || echo 2)"
echo "== build (Release)"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j "$jobs"
echo "== tests"
ctest --test-dir "$root/build" --output-on-failure

if [ "$sanitize" = 1 ]; then
  echo "== CPU tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DMNIST_SANITIZE=ON >/dev/null
  cmake --build "$root/build-asan" -j "$jobs"
  # protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow
  # gap would be, should a test binary initialise it.
  ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir "$root/build-asan" -L cpu --output-on-failure
fi
echo "test.sh: all passed"
