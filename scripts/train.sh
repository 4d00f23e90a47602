#!/usr/bin/env bash
# train.sh [mnist_train flags]: the one command to train. Installs what the
# build needs when it can (cmake, zlib1g-dev, pkg-config), builds into
# build/ (Release), fetches and verifies MNIST into data/mnist when no data
# is there (and no --data-dir or $MNIST_DIR points elsewhere), then runs
# build/mnist_train with the flags given, e.g.
#   scripts/train.sh --epochs 5
#   scripts/train.sh --hidden 100 --batch 256 --mode unfused
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

. "$root/scripts/ensure_deps.sh"
ensure_packages cmake pkg-config zlib1g-dev || exit 1
ensure_nvcc || exit 1

# The tests need Check; training does not.
tests=OFF
pkg-config --exists check 2>/dev/null && tests=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMNIST_BUILD_TESTS=$tests >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target mnist_train >/dev/null

given=0
for arg in "$@"; do
  case "$arg" in --data-dir|--data-dir=*|--help) given=1 ;; esac
done
if [ "$given" = 0 ] && [ -z "${MNIST_DIR:-}" ] &&
   ! ls data/mnist/train-images*idx3-ubyte* >/dev/null 2>&1; then
  echo "train.sh: no data in data/mnist; fetching it"
  scripts/download_mnist.sh data/mnist
fi
exec build/mnist_train "$@"
