#!/usr/bin/env bash
# test_test_script.sh SOURCE_DIR [BUILD_DIR]: scripts/test.sh on a tiny stand-in project
# (a copy of scripts/ beside a CMakeLists.txt whose tests pass, fail, skip
# with a reason, or cannot start, chosen through the environment), so that
# its argument checks and its summary are tested with the real cmake and
# ctest in seconds:
#   - --data with a missing folder, or one without MNIST files, stops at
#     once (exit 2, the path named, nothing built); one whose files do not
#     load (BUILD_DIR/mnist_train --check-data, put in the stand-in's build)
#     stops before any suite runs, naming the file and the reason;
#   - the summary counts passed, failed and skipped suites and gives each
#     skipped suite's reason; "all passed" only when nothing failed;
#   - a test ctest cannot start counts as failed, not skipped;
#   - a suite that exited 77 after running parts ("5 passed, 0 failed,
#     2 not run") counts as passed (or failed), not skipped;
#   - a skip reason naming MNIST_DIR also names test.sh's --data DIR;
#   - it builds for the GPU a (fake) nvidia-smi reports, and for the
#     default after that when there is none, saying which;
#   - the formatting check runs first and its failure fails the run
#     (needs clang-format; said when it is missing); --no-format skips it.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
build="${2:-}"
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# The stand-in project.
root="$work/root"
mkdir -p "$root/scripts" "$root/app" "$root/empty" "$root/data"
cp "$src/scripts/test.sh" "$src/scripts/ensure_deps.sh" "$src/scripts/cuda_arch.sh" "$root/scripts/"
cp "$src/data/mnist_names.txt" "$root/data/"
[ ! -f "$src/scripts/check_format.sh" ] || cp "$src/scripts/check_format.sh" "$root/scripts/"
cp "$src/.clang-format" "$root/"
printf 'int answer(void) {\n  return 42;\n}\n' >"$root/app/ok.c"
cat >"$root/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(tiny NONE)
option(MNIST_SANITIZE "unused here" OFF)
file(WRITE ${CMAKE_BINARY_DIR}/archs.txt "${CMAKE_CUDA_ARCHITECTURES}")
enable_testing()
add_test(NAME t_pass COMMAND sh -c "echo fine")
add_test(NAME t_gpu COMMAND sh -c "echo 'Running suite(s): gpu'; echo 'SKIP gpu_suite: no usable CUDA device: <none> & no driver'; exit 77")
add_test(NAME t_data COMMAND sh -c "echo 'MNIST: not checked'; echo 'the real data sets are needed (set MNIST_DIR)'; exit 77")
if(DEFINED ENV{TINY_TRAIN})
  file(WRITE ${CMAKE_BINARY_DIR}/mnist_train "#!/bin/sh\nexec '$ENV{TINY_TRAIN}' \"$@\"\n")
  file(CHMOD ${CMAKE_BINARY_DIR}/mnist_train PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
else()
  file(REMOVE ${CMAKE_BINARY_DIR}/mnist_train)
endif()
if(DEFINED ENV{TINY_PARTIAL})
  add_test(NAME t_partial COMMAND sh -c "echo 'SKIP: the rows with fonts need fonts'; echo '5 passed, $ENV{TINY_PARTIAL} failed, 2 not run'; exit 77")
  set_tests_properties(t_partial PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
endif()
add_test(NAME t_maybe_fail COMMAND sh -c "echo 'checked 3 things'; if [ -n \"$TINY_FAIL\" ]; then echo 'expected 1, found 2'; exit 1; fi")
if(DEFINED ENV{TINY_MISSING})
  add_test(NAME t_missing COMMAND /no/such/test_binary)
endif()
set_tests_properties(t_pass t_data t_maybe_fail PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
set_tests_properties(t_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
EOF

# run [VAR=VALUE...] -- ARGS...: test.sh in the stand-in; output in
# $work/out, exit code in $code, seconds in $took.
run() {
  local envs=() t0
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  t0=$(date +%s)
  timeout 300 env ${envs[@]+"${envs[@]}"} "$root/scripts/test.sh" "$@" >"$work/out" 2>&1
  code=$?
  took=$(($(date +%s) - t0))
  echo "--- test.sh $* (exit $code, ${took}s)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
last_line_has() { tail -n 1 "$work/out" | grep -q -- "$1"; }
line_of() { grep -n -m 1 -- "$1" "$work/out" | cut -d: -f1; }

# 1. --data that is not a data folder (no other flag: it must stop by itself).
run -- --data /no/such/dir
check "missing --data: exit 2" test "$code" = 2
check "missing --data: the path is named" has "/no/such/dir"
check "missing --data: says how to get the data" has "download_mnist.sh"
check "missing --data: stops before building" test ! -e "$root/build"
check "missing --data: no 'all passed'" eval '! has "all passed"'
run -- --data "$root/empty"
check "--data without MNIST files: exit 2" test "$code" = 2
check "--data without MNIST files: the path is named" has "$root/empty"
check "--data without MNIST files: stops before building" test ! -e "$root/build"

# The rest runs test.sh to the end, which first makes sure its build needs
# are installed (installing them where it can): on a machine without them
# and without a package registry (the GPU machines), it cannot get there.
. "$src/scripts/ensure_deps.sh"
for need in cmake pkg-config check zlib1g-dev libcjson-dev; do
  if ! have_package "$need"; then
    echo "SKIP: the summary checks need $need installed (test.sh installs"
    echo "      it where apt-get can reach a registry; this machine has neither)"
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ] && exit 77
    exit 1
  fi
done

# 2. Passes and skips: counted, each skip with its reason.
run -- --no-sanitize --no-format
check "skips: exit 0" test "$code" = 0
check "skips: counted" has "tests: 2 passed, 0 failed, 2 skipped"
check "skips: the GPU suite's reason" has "skipped t_gpu: no usable CUDA device: <none> & no driver"
check "skips: the data suite's reason (its last line)" has "skipped t_data: the real data sets are needed (set MNIST_DIR)"
check "skips: MNIST_DIR's reason names --data DIR" has "(set MNIST_DIR) (or give test.sh --data DIR)"
check "skips: the last line counts them" last_line_has "2 passed, 0 failed, 2 skipped"
check "skips: 'all passed' when nothing failed" last_line_has "all passed"

# 2b. The architectures: the GPU nvidia-smi reports, then (none) the
# default, the cached list removed (test_cuda_arch.sh checks the choice).
mkdir -p "$work/smi"
printf '#!/bin/sh\necho "0, GPU-aaaa, 8.9"\n' >"$work/smi/nvidia-smi"
chmod +x "$work/smi/nvidia-smi"
run PATH="$work/smi:$PATH" -- --no-sanitize --no-format
check "a GPU: built for it" test "$(cat "$root/build/archs.txt")" = "89-real"
check "a GPU: said so" has "test.sh: building for the GPU here: CMAKE_CUDA_ARCHITECTURES=89-real"
printf '#!/bin/sh\nexit 9\n' >"$work/smi/nvidia-smi"
run PATH="$work/smi:$PATH" -- --no-sanitize --no-format
check "no GPU: the cached 89-real is gone" test "$(cat "$root/build/archs.txt")" = ""
check "no GPU: said so" has "test.sh: no GPU seen by nvidia-smi"

# 3. A failure: counted and named, never "all passed", exit 1.
run TINY_FAIL=1 -- --no-sanitize --no-format
check "failure: exit 1" test "$code" = 1
check "failure: counted" has "tests: 1 passed, 1 failed, 2 skipped"
check "failure: named with its last line" has "FAILED  t_maybe_fail: expected 1, found 2"
check "failure: the last line names it" last_line_has "FAILED.*t_maybe_fail"
check "failure: no 'all passed'" eval '! has "all passed"'

# 4. A test that cannot start is a failure, not a skip.
run TINY_MISSING=1 -- --no-sanitize --no-format
check "cannot start: exit 1" test "$code" = 1
check "cannot start: counted as failed" has "tests: 2 passed, 1 failed, 2 skipped"
check "cannot start: named" has "FAILED  t_missing"

# 4b. A suite that ran parts and then exited 77: what it was, not skipped.
run TINY_PARTIAL=0 -- --no-sanitize --no-format
check "partly run: exit 0" test "$code" = 0
check "partly run: counted as passed" has "tests: 3 passed, 0 failed, 2 skipped"
check "partly run: listed with its tally and reason" \
  has "partly run t_partial: 5 passed, 0 failed, 2 not run; not run: the rows with fonts need fonts"
check "partly run: not listed as skipped" eval '! has "skipped t_partial"'
run TINY_PARTIAL=1 -- --no-sanitize --no-format
check "partly run, a part failed: exit 1" test "$code" = 1
check "partly run, a part failed: counted as failed" has "tests: 2 passed, 1 failed, 2 skipped"
check "partly run, a part failed: named" last_line_has "FAILED.*t_partial"

# 4c. --data with files that do not load (a truncated train-images copy):
# stopped after the build, before any suite, with the loader's message
# (the real mnist_train's); a good copy passes the check.
find_data "$src"
if [ -z "$build" ] || [ ! -x "$build/mnist_train" ]; then
  skip "no mnist_train in '$build': the --data load rows did not run"
elif [ -z "$mnist" ]; then
  skip "no gzipped MNIST: the --data load rows did not run (set MNIST_DIR)"
else
  mkdir -p "$work/damaged"
  cp "$mnist"/*-ubyte.gz "$work/damaged/"
  truncate -s 100000 "$work/damaged/train-images-idx3-ubyte.gz"
  run TINY_TRAIN="$build/mnist_train" -- --data "$work/damaged" --no-sanitize --no-format
  check "damaged --data: exit 2" test "$code" = 2
  check "damaged --data: the flag named" has "test.sh: --data $work/damaged: the data there does not load"
  check "damaged --data: the file named" has "$work/damaged/train-images-idx3-ubyte.gz: "
  check "damaged --data: the reason given" has "truncated\|end of the data\|unexpected end"
  check "damaged --data: no suite ran" eval '! has "== tests" && ! has "t_pass"'
  check "damaged --data: says how to get a fresh copy" has "download_mnist.sh $work/damaged"
  run TINY_TRAIN="$build/mnist_train" -- --data "$mnist" --no-sanitize --no-format
  check "good --data: exit 0" test "$code" = 0
  check "good --data: the suites ran" has "tests: 2 passed, 0 failed, 2 skipped"
fi

# 5. The sanitizer pass is summarized too (the cpu label only).
run -- --no-format
check "sanitizer pass: exit 0" test "$code" = 0
check "sanitizer pass: counted" has "CPU tests under sanitizers: 2 passed, 0 failed, 1 skipped"
check "sanitizer pass: the totals" last_line_has "4 passed, 0 failed, 3 skipped"

# 6. The formatting check: first, and a failure fails the run.
if ! command -v clang-format >/dev/null; then
  skip "clang-format is not installed: the formatting rows did not run"
else
  run -- --no-sanitize
  check "formatted: exit 0" test "$code" = 0
  check "formatted: the check ran and passed" has "format: passed"
  check "formatted: the version is printed" has "clang-format version"
  printf 'int   badly (void){return 1;}\n' >"$root/app/bad.c"
  run -- --no-sanitize
  check "unformatted: exit 1" test "$code" = 1
  check "unformatted: the file is named" has "  app/bad.c"
  check "unformatted: the formatted file is not" eval '! has "  app/ok.c"'
  check "unformatted: checked before the build" \
    test "$(line_of 'app/bad.c')" -lt "$(line_of '== build')"
  check "unformatted: the tests still ran" has "tests: 2 passed, 0 failed, 2 skipped"
  check "unformatted: the last line names it" last_line_has "FAILED.*format"
  run -- --no-sanitize --no-format
  check "--no-format: exit 0 despite app/bad.c" test "$code" = 0
  check "--no-format: no check" eval '! has "app/bad.c"'
  rm -f "$root/app/bad.c"
fi

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
