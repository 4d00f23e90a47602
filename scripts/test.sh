#!/usr/bin/env bash
# test.sh [--data DIR] [--no-sanitize] [--no-format]: checks the formatting
# (scripts/check_format.sh), configures, builds and runs the whole test
# suite (built for the GPUs nvidia-smi shows, else for every supported GPU:
# scripts/cuda_arch.sh), then the CPU tests once more under AddressSanitizer and
# UndefinedBehaviorSanitizer, and ends with a summary: how many suites
# passed, failed and were skipped, and why each skipped one was skipped (a
# suite that ran some parts counts as passed or failed, its parts not run
# listed).
# Installs what is missing (check, pkg-config, zlib1g-dev, libcjson-dev,
# cmake, clang-format) with apt-get when it can. GPU tests skip (exit 77) without
# a GPU; tests on the real data skip without the data.
#
#   --data DIR     MNIST folder for the tests on real data (its sibling
#                  fashion-mnist/ is used too when present); a DIR that is
#                  not a folder holding MNIST files stops here (exit 2), and
#                  one whose files do not load (build/mnist_train
#                  --check-data) stops after the build, before the tests
#   --no-sanitize  skip the sanitizer pass
#   --no-format    skip the formatting check (e.g. with a clang-format of
#                  another version than CI's, which formats differently)
# Exit code: 0 when nothing failed (skipped suites are listed), 1 when
# something failed, 2 for bad usage.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() { # the header above, without the comment marks
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

# data_dir DIR: DIR must be a folder holding an MNIST training images file.
data_dir() {
  local d="$1" c
  if [ ! -d "$d" ]; then
    echo "test.sh: --data $d: no such folder" >&2
    echo "  fetch the data with: scripts/download_mnist.sh $d" >&2
    exit 2
  fi
  # The names the loader accepts: data/mnist_names.txt.
  while IFS= read -r c; do
    case "$c" in ''|'#'*) continue ;; esac
    c="${c//STEM/train-images}"
    [ -e "$d/${c//KIND/idx3}" ] && return 0
  done <"$root/data/mnist_names.txt"
  echo "test.sh: --data $d: no MNIST files there (expected train-images-idx3-ubyte.gz or the other names)" >&2
  echo "  fetch the data with: scripts/download_mnist.sh $d" >&2
  exit 2
}

# data_loads NAME DIR: build/mnist_train --check-data reads DIR (NAME: the
# flag or variable it came from), or test.sh stops (exit 2) with the
# loader's message, before any suite runs on it.
data_loads() {
  local bin="$root/build/mnist_train" out
  if [ ! -x "$bin" ]; then
    echo "test.sh: no build/mnist_train to check $1 with: its files are not checked up front"
    return 0
  fi
  if ! out=$("$bin" --check-data --data-dir "$2" 2>&1); then
    echo "test.sh: $1: the data there does not load; the tests on it would fail:" >&2
    printf '%s\n' "$out" | sed 's/^/  /' >&2
    echo "  fetch a fresh copy with: scripts/download_mnist.sh $2" >&2
    exit 2
  fi
}

sanitize=1
format=1
data_flag=""
while [ $# -gt 0 ]; do
  case "$1" in
    --data|--data=*)
      if [ "$1" = --data ]; then
        [ $# -ge 2 ] || { echo "test.sh: --data needs a folder" >&2; exit 2; }
        dir="$2"; shift
      else
        dir="${1#--data=}"
      fi
      data_dir "$dir"
      data_flag="$dir"
      MNIST_DIR="$(cd "$dir" && pwd)"
      export MNIST_DIR
      if [ -d "$MNIST_DIR/../fashion-mnist" ]; then
        FASHION_MNIST_DIR="$(cd "$MNIST_DIR/../fashion-mnist" && pwd)"
        export FASHION_MNIST_DIR
      fi ;;
    --no-sanitize) sanitize=0 ;;
    --no-format) format=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

# What the build needs, as Debian packages.
# shellcheck source=scripts/ensure_deps.sh
. "$root/scripts/ensure_deps.sh"
ensure_packages cmake pkg-config check zlib1g-dev libcjson-dev || exit 1
ensure_nvcc || exit 1

total_passed=0; total_failed=0; total_skipped=0
failed_names=()
report=()   # the summary, printed at the end

# summarize LABEL JUNIT [TAG]: counts ctest's results from its JUnit file
# and adds them to the summary: one line of counts, then each skipped suite
# with the reason it printed (its "SKIP ...: reason" line, else its last
# line; a reason naming MNIST_DIR also names --data DIR) and each failed
# one (TAG appended to its name in the list of failures). A test ctest
# could not start is a failure, not a skip. A suite that exited 77 after
# running parts (its "N passed, M failed, K not run" line, N + M > 0) is
# counted as passed (M = 0) or failed, with its parts not run listed.
summarize() {
  local label="$1" junit="$2" tag="${3:-}" counts line
  if [ ! -s "$junit" ]; then
    report+=("$label: no results ($junit was not written): counted as a failure")
    total_failed=$((total_failed + 1)); failed_names+=("$label")
    return
  fi
  counts=$(mktemp)
  while IFS= read -r line; do report+=("$line"); done < <(awk -v label="$label" -v counts="$counts" -v tag="$tag" '
    function unxml(s) {
      gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
      gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s); return s
    }
    function attr(s, key) {
      if (!match(s, key "=\"[^\"]*\"")) return ""
      return unxml(substr(s, RSTART + length(key) + 2, RLENGTH - length(key) - 3))
    }
    function reason(   why) {
      why = skipline != "" ? skipline : last
      sub(/^SKIP[^:]*: */, "", why)
      if (why ~ /MNIST_DIR/) why = why " (or give test.sh --data DIR)"
      return why
    }
    function close_case(   why) {
      if (status == "run") { passed++; return }
      if (status == "notrun" && skipmsg ~ /^SKIP_/ && parts_run > 0) {
        if (parts_failed > 0) { failed++; names = names " " name tag; lines[++n] = "  FAILED  " name ": " tally; return }
        passed++; lines[++n] = "  partly run " name ": " tally (skipline != "" ? "; not run: " reason() : ""); return
      }
      if (status == "disabled" || (status == "notrun" && skipmsg ~ /^SKIP_/)) {
        why = reason()
        if (why == "") why = (status == "disabled" ? "disabled" : "exit code 77, no reason printed")
        skipped++; lines[++n] = "  skipped " name ": " why; return
      }
      why = (status == "notrun" && skipmsg != "") ? skipmsg : last
      failed++; names = names " " name tag; lines[++n] = "  FAILED  " name (why != "" ? ": " why : "")
    }
    !inout && /<testcase / { name = attr($0, "name"); status = attr($0, "status"); skipmsg = ""; skipline = ""; last = ""; parts_run = 0 }
    !inout && /<skipped / { skipmsg = attr($0, "message") }
    !inout && /<system-out>/ { inout = 1; sub(/.*<system-out>/, "") }
    inout {
      done = sub(/<\/system-out>.*/, "")
      text = unxml($0)
      if (text ~ /[^ \t]/) { last = text; if (text ~ /^SKIP/ && skipline == "") skipline = text }
      if (match(text, /[0-9]+ passed, [0-9]+ failed, [0-9]+ (not run|skipped)$/)) {
        tally = substr(text, RSTART, RLENGTH); split(tally, t, /[^0-9]+/)
        parts_run = t[1] + t[2]; parts_failed = t[2]
      }
      if (done) inout = 0
      next
    }
    /<\/testcase>/ { close_case() }
    END {
      printf "%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped
      for (i = 1; i <= n; i++) print lines[i]
      print passed + 0, failed + 0, skipped + 0, names > counts
    }' "$junit")
  local p f s names
  read -r p f s names <"$counts"; rm -f "$counts"
  total_passed=$((total_passed + p)); total_failed=$((total_failed + f)); total_skipped=$((total_skipped + s))
  # shellcheck disable=SC2206 # names are ctest test names, no blanks
  [ -z "$names" ] || failed_names+=($names)
}

if [ "$format" = 1 ]; then
  echo "== format (scripts/check_format.sh; skip with --no-format)"
  ensure_packages clang-format || true
  if "$root/scripts/check_format.sh"; then
    report+=("format: passed"); total_passed=$((total_passed + 1))
  else
    report+=("format: FAILED (files above; or run test.sh --no-format with another clang-format)")
    total_failed=$((total_failed + 1)); failed_names+=(format)
  fi
fi

jobs="$(nproc 2>/dev/null || echo 2)"
echo "== build (Release)"
# shellcheck source=scripts/cuda_arch.sh
. "$root/scripts/cuda_arch.sh"
cuda_arch_choose test.sh
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "${cuda_arch_args[@]}" >/dev/null
cmake --build "$root/build" -j "$jobs"
if [ -n "$data_flag" ]; then
  data_loads "--data $data_flag" "$MNIST_DIR"
  [ -z "${FASHION_MNIST_DIR:-}" ] || data_loads "$FASHION_MNIST_DIR (beside --data $data_flag)" "$FASHION_MNIST_DIR"
fi
echo "== tests"
rm -f "$root/build/ctest-junit.xml"
ctest --test-dir "$root/build" --output-on-failure --output-junit "$root/build/ctest-junit.xml" || true
summarize "tests" "$root/build/ctest-junit.xml"

if [ "$sanitize" = 1 ]; then
  echo "== CPU tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DMNIST_SANITIZE=ON \
    "${cuda_arch_args[@]}" >/dev/null
  cmake --build "$root/build-asan" -j "$jobs"
  # protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow
  # gap would be, should a test binary initialise it.
  rm -f "$root/build-asan/ctest-junit.xml"
  ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir "$root/build-asan" -L cpu --output-on-failure \
          --output-junit "$root/build-asan/ctest-junit.xml" || true
  summarize "CPU tests under sanitizers" "$root/build-asan/ctest-junit.xml" "[sanitizers]"
fi

echo "== summary"
printf '%s\n' "${report[@]}"
counts="$total_passed passed, $total_failed failed, $total_skipped skipped"
if [ "$total_failed" -gt 0 ]; then
  echo "test.sh: FAILED: $counts (failed: ${failed_names[*]})"
  exit 1
fi
if [ "$total_skipped" -gt 0 ]; then
  echo "test.sh: all passed that ran: $counts (the skipped ones and why are listed above)"
else
  echo "test.sh: all passed: $counts"
fi
