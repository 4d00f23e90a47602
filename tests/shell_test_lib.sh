# shellcheck shell=bash
# shell_test_lib.sh: sourced by the shell tests.
#   check NAME COMMAND...  counts a check: passed when COMMAND succeeds,
#                          else prints "FAIL: NAME" (counters passed, failed)
#   skip WHY...            counts a check that could not run (skipped)
#   need_command NAME      exits 77 (the test is skipped) saying so when
#                          NAME is not on PATH
#   find_data SRC          the gzipped data sets (below)
#   fake_nvidia_smi DIR    writes DIR/nvidia-smi, a stand-in that lists one
#                          GPU ("Test GPU 9000"), or none when $NOGPU is set
passed=0; failed=0; skipped=0
check() {
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); else echo "FAIL: $name"; failed=$((failed + 1)); fi
}
skip() { echo "SKIP: $*"; skipped=$((skipped + 1)); }
need_command() { command -v "$1" >/dev/null || { echo "SKIP: $1 is not installed"; exit 77; }; }

# find_data SRC sets mnist and
# fashion to the folders holding the gzipped data sets: $MNIST_DIR and
# $FASHION_MNIST_DIR when set, else SRC/data/..., else SRC/../shared/data/...;
# each is "" when no folder holds its train-images-idx3-ubyte.gz.
find_data() {
  local c
  mnist="${MNIST_DIR:-}"
  for c in "$1/data/mnist" "$1/../shared/data/mnist"; do
    [ -n "$mnist" ] || { [ -f "$c/train-images-idx3-ubyte.gz" ] && mnist="$c"; }
  done
  fashion="${FASHION_MNIST_DIR:-}"
  for c in "$1/data/fashion-mnist" "$1/../shared/data/fashion-mnist"; do
    [ -n "$fashion" ] || { [ -f "$c/train-images-idx3-ubyte.gz" ] && fashion="$c"; }
  done
  [ -n "$mnist" ] && [ -f "$mnist/train-images-idx3-ubyte.gz" ] || mnist=""
  [ -n "$fashion" ] && [ -f "$fashion/train-images-idx3-ubyte.gz" ] || fashion=""
  return 0
}

fake_nvidia_smi() {
  mkdir -p "$1"
  cat >"$1/nvidia-smi" <<'SH'
#!/bin/sh
[ -z "${NOGPU:-}" ] || { echo "No devices were found"; exit 0; }
case "$*" in
  -L) echo "GPU 0: Test GPU 9000 (UUID: GPU-test)" ;;
  *) echo "Test GPU 9000" ;;
esac
SH
  chmod +x "$1/nvidia-smi"
}
