#!/usr/bin/env bash
# train.sh [--from DIR] [mnist_train flags]: the one command to train.
# Installs what the build needs when it can (cmake, zlib1g-dev, libcjson-dev,
# pkg-config), builds build/mnist_train (Release) for the GPUs nvidia-smi
# shows (else for every supported GPU; scripts/cuda_arch.sh), checks the flags (a bad
# one stops here, exit 2, before any download), makes sure the data is
# there, then runs build/mnist_train with the flags given, e.g.
#   scripts/train.sh --epochs 5
#   scripts/train.sh --hidden 100 --batch 256 --mode unfused
#   scripts/train.sh --from ~/mnist --epochs 5   (a local copy, no network)
#   scripts/train.sh --data-dir /data/mnist      (a folder used as it is)
#
# The data: with --data-dir DIR or MNIST_DIR=DIR, mnist_train reads DIR as
# it is and nothing is fetched. Otherwise scripts/download_mnist.sh data/mnist
# runs first: it keeps the files there that verify, fetches the missing ones,
# and does nothing when all four are there and verified.
#   --from DIR   (also --from=DIR) train.sh's own flag: copy the files from
#                the local folder DIR (gzipped or raw) into data/mnist
#                instead of downloading them; not passed to mnist_train
#   --help       this text and mnist_train's flags (when built); fetches,
#                installs and builds nothing
#   --check-flags  (mnist_train's flag) builds, then runs mnist_train
#                --check-flags with the flags given, saying what would run;
#                fetches nothing
# Environment: MNIST_DIR (like --data-dir), MNIST_MIRRORS and
# MNIST_FETCH_TIMEOUT (see scripts/download_mnist.sh), MNIST_TRAIN_BIN=PATH
# (run that mnist_train and build nothing: another build, or a stub in tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Run from where we were called, so that relative --data-dir, --log, --from
# and MNIST_DIR mean what they meant there; short names from the root.
top="$root/"; [ "$PWD" != "$root" ] || top=""

usage() { # the header above, without the comment marks
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

# train.sh's own flags come out; the rest go to mnist_train as they are.
from=""; help=0; data_dir=0; check_only=0
flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --from) if [ $# -lt 2 ] || [ -z "$2" ]; then echo "train.sh: --from needs a folder" >&2; exit 2; fi
            from="$2"; shift ;;
    --from=*) from="${1#--from=}"
              [ -n "$from" ] || { echo "train.sh: --from needs a folder" >&2; exit 2; } ;;
    -h|--help) help=1 ;;
    *) case "$1" in --data-dir|--data-dir=*) data_dir=1 ;; --check-flags) check_only=1 ;; esac
       flags+=("$1") ;;
  esac
  shift
done
if [ -n "$from" ] && [ "$data_dir" = 1 ]; then
  echo "train.sh: --from copies the data into data/mnist, --data-dir reads a folder as it is: give one of them" >&2
  exit 2
fi
if [ -n "$from" ] && [ ! -d "$from" ]; then
  echo "train.sh: --from $from: no such folder (expected a folder holding the four MNIST idx files, gzipped or raw)" >&2
  exit 2
fi

# --help at once: nothing installed or built for it; mnist_train's flags
# from a binary already there.
if [ "$help" = 1 ]; then
  usage
  echo
  bin="${MNIST_TRAIN_BIN:-$root/build/mnist_train}"
  if [ -x "$bin" ]; then
    echo "mnist_train's flags:"
    exec "$bin" --help
  fi
  echo "mnist_train's flags: build/mnist_train is not built yet (any training run of"
  echo "train.sh builds it); then build/mnist_train --help lists them"
  exit 0
fi

if [ -n "${MNIST_TRAIN_BIN:-}" ]; then
  bin="$MNIST_TRAIN_BIN"
else
  # shellcheck source=scripts/ensure_deps.sh
  . "$root/scripts/ensure_deps.sh"
  ensure_packages cmake pkg-config zlib1g-dev libcjson-dev || exit 1
  ensure_nvcc || exit 1
  # The tests need Check; training does not.
  tests=OFF
  pkg-config --exists check 2>/dev/null && tests=ON
  # shellcheck source=scripts/cuda_arch.sh
  . "$root/scripts/cuda_arch.sh"
  cuda_arch_choose train.sh
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DMNIST_BUILD_TESTS=$tests \
    "${cuda_arch_args[@]}" >/dev/null
  # One line before, one dot per build step, the log's tail on failure.
  echo "train.sh: building build/mnist_train (Release; a fresh clone takes a minute or so; log: build/train_sh_build.log)"
  code=0
  cmake --build "$root/build" -j "$(nproc 2>/dev/null || echo 2)" --target mnist_train 2>&1 |
    tee "$root/build/train_sh_build.log" | awk '{ printf "."; fflush() } END { if (NR) print "" }' ||
    code=$?
  if [ "$code" != 0 ]; then
    tail -n 20 "$root/build/train_sh_build.log" >&2
    echo "train.sh: the build failed (exit $code): the whole log is build/train_sh_build.log" >&2
    exit 1
  fi
  echo "train.sh: built build/mnist_train"
  bin="${top}build/mnist_train"
fi

# --check-flags asked for: mnist_train answers it (once), nothing fetched.
[ "$check_only" = 0 ] || exec "$bin" "${flags[@]}"
# The flags, before anything is fetched (exit 2 and the usage when wrong;
# what would run is said by the run itself).
code=0
"$bin" --check-flags ${flags[@]+"${flags[@]}"} >/dev/null || code=$?
[ "$code" = 0 ] || exit "$code"

if [ -z "$from" ] && { [ "$data_dir" = 1 ] || [ -n "${MNIST_DIR:-}" ]; }; then
  exec "$bin" ${flags[@]+"${flags[@]}"}   # mnist_train checks that folder
fi
data="${top}data/mnist"
if [ -n "${MNIST_DIR:-}" ]; then
  echo "train.sh: --from given: training on $data, not MNIST_DIR=$MNIST_DIR"
fi
code=0
"${top}scripts/download_mnist.sh" ${from:+--from "$from"} "$data" || code=$?
[ "$code" = 0 ] || exit "$code"
exec "$bin" --data-dir "$data" ${flags[@]+"${flags[@]}"}
