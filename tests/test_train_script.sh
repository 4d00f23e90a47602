#!/usr/bin/env bash
# test_train_script.sh SOURCE_DIR BUILD_DIR: scripts/train.sh's handling of
# flags and data, without the network and without training. It runs a copy
# of scripts/ in a scratch folder with MNIST_TRAIN_BIN pointing at a stub
# that logs each call and runs BUILD_DIR/mnist_train with --check-data
# added (real flag parsing, real loading; no GPU). Mirrors: a refused local
# port (MNIST_MIRRORS). Checks: a bad flag exits 2 before any download;
# --check-flags is answered by mnist_train once, fetching nothing;
# --help fetches nothing; offline fails in seconds naming the commands;
# --from DIR / --from=DIR fill data/mnist and never reach mnist_train;
# --data-dir and MNIST_DIR skip the fetch; a second run is a no-op;
# --help answers before any install or build; a build (stand-in cmake on
# PATH) says what it is doing and shows its progress, or its error.
# Needs BUILD_DIR/mnist_train (exit 77 without it); the rows with data need
# the gzipped MNIST (MNIST_DIR, data/mnist or ../shared/data/mnist).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
build="${2:-}"
real="$build/mnist_train"
if [ -z "$build" ] || [ ! -x "$real" ]; then
  echo "SKIP: no mnist_train in '$build' (build it first)"; exit 77
fi
find_data "$src"
unset MNIST_DIR FASHION_MNIST_DIR MNIST_FETCH_TIMEOUT
export MNIST_MIRRORS="http://127.0.0.1:9/a http://127.0.0.1:9/b"

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

cat >"$work/mnist_train" <<EOF
#!/usr/bin/env bash
printf '%s\n' "\$*" >>"$work/calls"
case " \$* " in *" --check-flags "*|*" --help "*) exec "$real" "\$@" ;; esac
exec "$real" --check-data "\$@"
EOF
chmod +x "$work/mnist_train"
export MNIST_TRAIN_BIN="$work/mnist_train"

n=0
# fresh: a new scratch checkout (scripts/ and the file-name list) in $root,
# no calls logged.
fresh() {
  n=$((n + 1)); root="$work/root$n"
  mkdir -p "$root/scripts" "$root/data"
  cp "$src/scripts/train.sh" "$src/scripts/download_mnist.sh" "$src/scripts/ensure_deps.sh" "$root/scripts/"
  cp "$src/data/mnist_names.txt" "$root/data/"
  : >"$work/calls"
}
# train [VAR=VALUE...] -- FLAGS...: runs the scratch train.sh from $work;
# output in $work/out, exit code in $code, seconds in $took.
train() {
  local envs=() t0
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  t0=$(date +%s)
  (cd "$work" && timeout 120 env ${envs[@]+"${envs[@]}"} "$root/scripts/train.sh" "$@") >"$work/out" 2>&1
  code=$?
  took=$(($(date +%s) - t0))
  echo "--- train.sh $* (exit $code, ${took}s)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
calls() { grep -c '' "$work/calls"; }
last_call_has() { tail -n 1 "$work/calls" | grep -q -- "$1"; }
no_data() { [ ! -e "$root/data/mnist" ]; }
# no_download: none of download_mnist.sh's lines in the output.
no_download() { ! grep -q -e '^ok  ' -e '^failed  ' -e '^missing  ' -e 'curl: (' -e 'files verified in' "$work/out"; }
not_in_calls() { ! grep -q -- "$1" "$work/calls"; }

fresh; train -- --bogus
check "bad flag: exit 2" test "$code" = 2
check "bad flag: named" has "'--bogus'"
check "bad flag: no download attempted" no_download
check "bad flag: no data folder made" no_data
check "bad flag: only --check-flags ran" test "$(calls):$(cat "$work/calls")" = "1:--check-flags --bogus"

# --check-flags given: mnist_train answers it once (it said "--check-flags
# given twice"), saying what would run; nothing fetched.
fresh; train -- --check-flags --epochs 3
check "--check-flags: exit 0" test "$code" = 0
check "--check-flags: says what would run" has "mnist_train: flags ok: would train"
check "--check-flags: not given twice" eval '! has "given twice"'
check "--check-flags: no download attempted" no_download
check "--check-flags: one call, as given" test "$(calls):$(cat "$work/calls")" = "1:--check-flags --epochs 3"
fresh; train -- --check-flags --bogus
check "--check-flags, a bad flag: exit 2" test "$code" = 2
check "--check-flags, a bad flag: named" has "'--bogus'"

fresh; train -- --epochs many
check "bad value: exit 2" test "$code" = 2
check "bad value: no download attempted" no_download
check "bad value: no data folder made" no_data

fresh; train -- --help
check "--help: exit 0" test "$code" = 0
check "--help: train.sh's own flags" has "--from DIR"
check "--help: mnist_train's flags" has "--epochs N"
check "--help: no download attempted" no_download
check "--help: no data folder made" no_data

fresh; train -- --epochs 1
check "offline: exit 1" test "$code" = 1
check "offline: fails in seconds (took ${took}s)" test "$took" -le 10
check "offline: curl's own reason" has "curl: (7)"
check "offline: names train.sh --from PATH" has "train.sh --from PATH"
check "offline: names download_mnist.sh --from PATH" has "download_mnist.sh --from PATH"
check "offline: names --data-dir PATH and MNIST_DIR=PATH" \
  eval 'has "--data-dir PATH" && has "MNIST_DIR=PATH"'
check "offline: mnist_train not run after the failure" test "$(calls)" = 1

fresh; train -- --from
check "--from without a folder: exit 2" test "$code" = 2
fresh; train -- --from "$work/no such dir" --epochs 1
check "--from a missing folder: exit 2" test "$code" = 2
check "--from a missing folder: named" has "$work/no such dir"
check "--from a missing folder: nothing run" test "$(calls)" = 0
fresh; train -- --from "$work" --data-dir "$work"
check "--from with --data-dir: exit 2" test "$code" = 2
check "--from with --data-dir: says why" has "give one of them"

if [ -z "$mnist" ]; then
  skip "the rows with data need the gzipped MNIST (set MNIST_DIR)"
else
  fresh; train -- --from "$mnist" --epochs 1
  check "--from DIR: exit 0" test "$code" = 0
  check "--from DIR: four verified files in data/mnist" \
    test "$(find "$root/data/mnist" -name '*-ubyte.gz' | wc -l)" = 4
  check "--from DIR: mnist_train read them" has "60000 train, 10000 test"
  check "--from DIR: not passed to mnist_train" not_in_calls --from
  check "--from DIR: mnist_train given data/mnist" last_call_has "--data-dir $root/data/mnist"
  check "--from DIR: the other flags passed on" last_call_has "--epochs 1"

  train -- --epochs 1
  check "second run: exit 0" test "$code" = 0
  check "second run: the files are kept, verified" test "$(grep -c 'already verified' "$work/out")" = 4
  check "second run: nothing fetched" eval '! has "curl\|SHA-256 verified"'

  fresh; train -- "--from=$mnist" --quiet
  check "--from=DIR: exit 0" test "$code" = 0
  check "--from=DIR: not passed to mnist_train" not_in_calls --from
  check "--from=DIR: four verified files" test "$(find "$root/data/mnist" -name '*-ubyte.gz' | wc -l)" = 4

  fresh; train -- --data-dir "$mnist" --epochs 1
  check "--data-dir: exit 0" test "$code" = 0
  check "--data-dir: nothing fetched" no_download
  check "--data-dir: no data/mnist made" no_data
  check "--data-dir: passed to mnist_train" last_call_has "--data-dir $mnist"

  fresh; train MNIST_DIR="$mnist" -- --epochs 1
  check "MNIST_DIR: exit 0" test "$code" = 0
  check "MNIST_DIR: nothing fetched" no_download
  check "MNIST_DIR: no data/mnist made" no_data

  fresh; mkdir -p "$work/here"; cp "$mnist"/*-ubyte.gz "$work/here/"
  train -- --data-dir here --epochs 1
  check "relative --data-dir: read from the caller's folder" test "$code" = 0
fi

# The build, with stand-ins for cmake and nvcc (no real build, no GPU):
# --help answers before anything is installed or built; a build says what
# it is doing before it starts and shows its progress; a failed one shows
# the build's own error.
fresh; train -u MNIST_TRAIN_BIN -- --help
check "--help unbuilt: exit 0" test "$code" = 0
check "--help unbuilt: train.sh's own flags" has "--from DIR"
check "--help unbuilt: says mnist_train is not built" has "not built yet"
check "--help unbuilt: nothing configured or built" test ! -e "$root/build"
check "--help unbuilt: answered at once (took ${took}s)" test "$took" -le 2

. "$src/scripts/ensure_deps.sh"
if ! have_package pkg-config || ! have_package zlib1g-dev || ! have_package libcjson-dev; then
  skip "the build rows need pkg-config, zlib1g-dev and libcjson-dev installed"
else
  mkdir -p "$work/tools"
  # cmake stand-in: configure makes -B's folder; --build prints three
  # steps, then fails when FAKE_BUILD_FAIL is set, else writes an
  # mnist_train that logs its call.
  cat >"$work/tools/cmake" <<EOF
#!/usr/bin/env bash
case "\$1" in
  --build)
    for p in 33 66 100; do echo "[ \$p%] Building step \$p"; done
    if [ -n "\${FAKE_BUILD_FAIL:-}" ]; then echo "layers/mlp.c:1: error: boom"; exit 2; fi
    printf '#!/bin/sh\necho "built mnist_train \$*" >>"$work/calls"\n' >"\$2/mnist_train"
    chmod +x "\$2/mnist_train" ;;
  *) while [ \$# -gt 0 ]; do [ "\$1" = -B ] && mkdir -p "\$2"; shift; done ;;
esac
EOF
  printf '#!/bin/sh\necho "nvcc stand-in"\n' >"$work/tools/nvcc"
  printf '#!/bin/sh\nexit 9\n' >"$work/tools/nvidia-smi"
  chmod +x "$work/tools/cmake" "$work/tools/nvcc" "$work/tools/nvidia-smi"
  fresh; cp "$src/scripts/cuda_arch.sh" "$root/scripts/"
  train -u MNIST_TRAIN_BIN PATH="$work/tools:$PATH" -- --data-dir "$work" --epochs 1
  check "build: exit 0" test "$code" = 0
  check "build: says what it builds" has "train.sh: building build/mnist_train"
  check "build: one dot per build step" has "^\.\.\.$"
  check "build: says it is built" has "train.sh: built build/mnist_train"
  check "build: the line comes before the dots" \
    test "$(grep -n -m 1 'building build/mnist_train' "$work/out" | cut -d: -f1)" \
      -lt "$(grep -n -m 1 '^\.\.\.' "$work/out" | cut -d: -f1)"
  check "build: the built mnist_train ran" last_call_has "built mnist_train --data-dir $work --epochs 1"
  fresh; cp "$src/scripts/cuda_arch.sh" "$root/scripts/"
  train -u MNIST_TRAIN_BIN PATH="$work/tools:$PATH" FAKE_BUILD_FAIL=1 -- --epochs 1
  check "failed build: exit 1" test "$code" = 1
  check "failed build: the build's error shown" has "layers/mlp.c:1: error: boom"
  check "failed build: says it failed" has "the build failed"
  check "failed build: never says built" eval '! has "train.sh: built"'
  check "failed build: nothing run" test "$(calls)" = 0
fi

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
