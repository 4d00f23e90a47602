#!/usr/bin/env bash
# test_download_mirrors.sh SOURCE_DIR: scripts/download_mnist.sh against
# mirrors on this machine only (MNIST_MIRRORS), never the network:
#   - a refused port: fails in seconds with exit 1, prints curl's own reason
#     once per mirror (an unreachable mirror is not tried again for the other
#     files), names the commands that take a local copy, leaves no file;
#   - the same through wget when curl is not on PATH;
#   - a mirror that accepts and never answers: bounded by MNIST_FETCH_TIMEOUT;
#   - local HTTP mirrors (python3 -m http.server): a 404 mirror is tried for
#     every file, one serving Fashion-MNIST is refused by SHA-256, one
#     serving MNIST gives four verified files;
#   - --from a local copy: the copies get the usual mode (0666 under the
#     umask: 0644 under 022, 0600 under 077), as the sources do not decide.
# Rows that need python3 or the real data say why they did not run; the
# test exits 77 when something did not run and nothing failed.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
script="$src/scripts/download_mnist.sh"
work=$(mktemp -d)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
# run SECONDS COMMAND...: output in $work/out, exit code in $code, wall
# seconds in $took; killed (code 124) after SECONDS.
run() {
  local limit="$1" t0; shift
  t0=$(date +%s)
  timeout "$limit" "$@" >"$work/out" 2>&1
  code=$?
  took=$(($(date +%s) - t0))
}
has() { grep -q -- "$1" "$work/out"; }
count() { grep -c -- "$1" "$work/out"; }
files_in() { find "$1" -mindepth 1 | wc -l; }
show() { echo "--- output of: $*"; sed 's/^/    /' "$work/out"; }

refused="http://127.0.0.1:9"

# 1. Offline: a refused port, two mirrors on it.
run 60 env MNIST_MIRRORS="$refused/a $refused/b" "$script" "$work/offline"
show "download_mnist.sh, mirrors refused"
check "offline: exit 1" test "$code" = 1
check "offline: fails in seconds (took ${took}s)" test "$took" -le 10
check "offline: curl's own reason is shown" has "curl: (7)"
check "offline: the mirror's host is named" has "127.0.0.1:9"
check "offline: each mirror tried once, not once per file" test "$(count "curl: (7)")" = 2
check "offline: names download_mnist.sh --from PATH DIR" has "download_mnist.sh --from PATH $work/offline"
check "offline: names train.sh --from PATH" has "train.sh --from PATH"
check "offline: names --data-dir PATH" has "train.sh --data-dir PATH"
check "offline: names MNIST_DIR=PATH" has "MNIST_DIR=PATH"
check "offline: leaves nothing behind (not even the folder it made)" test ! -e "$work/offline"

# 2. The same through wget: a PATH that has every tool but curl.
if command -v wget >/dev/null; then
  mkdir -p "$work/bin"
  for t in bash env sha256sum mkdir mktemp mv rm cp cat chmod dirname awk timeout wget find; do
    p=$(command -v "$t") && ln -s "$p" "$work/bin/$t"
  done
  run 60 env PATH="$work/bin" MNIST_MIRRORS="$refused/a $refused/b" "$work/bin/bash" "$script" "$work/wget"
  show "download_mnist.sh with wget only"
  check "wget: exit 1" test "$code" = 1
  check "wget: fails in seconds (took ${took}s)" test "$took" -le 10
  check "wget: its reason is shown" has "wget: failed: Connection refused"
  check "wget: each mirror tried once" test "$(count "wget: failed")" = 2
else
  skip "wget is not installed: the wget rows did not run"
fi

if ! command -v python3 >/dev/null; then
  skip "python3 is not installed: no local mirror, the stalled and served rows did not run"
else
  # 3. A mirror that accepts the connection and never answers.
  python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
held = []
while True:
    c, _ = s.accept(); held.append(c)
' >"$work/stall.port" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$work/stall.port" ] && break; sleep 0.1; done
  port=$(head -n 1 "$work/stall.port")
  run 60 env MNIST_MIRRORS="http://127.0.0.1:$port" MNIST_FETCH_TIMEOUT=2 "$script" "$work/stall"
  show "download_mnist.sh, mirror never answers, MNIST_FETCH_TIMEOUT=2"
  check "stalled: exit 1" test "$code" = 1
  check "stalled: bounded by MNIST_FETCH_TIMEOUT (took ${took}s)" test "$took" -le 8
  check "stalled: curl's timeout is shown" has "curl: (28)"
  check "stalled: not tried again for the other files" test "$(count "curl: (28)")" = 1

  # 4. Served mirrors: 404, Fashion-MNIST, MNIST.
  find_data "$src"
  if [ -z "$mnist" ] || [ -z "$fashion" ] || [ ! -f "$mnist/train-images-idx3-ubyte.gz" ] ||
     [ ! -f "$fashion/train-images-idx3-ubyte.gz" ]; then
    skip "the served-mirror row needs gzipped MNIST and Fashion-MNIST (set MNIST_DIR and FASHION_MNIST_DIR)"
  else
    mkdir -p "$work/www/mnist" "$work/www/fashion" "$work/www/empty"
    cp "$mnist"/*-ubyte.gz "$work/www/mnist/"
    cp "$fashion"/*-ubyte.gz "$work/www/fashion/"
    (cd "$work/www" && exec python3 -m http.server --bind 127.0.0.1 0 >"$work/http.log" 2>&1) &
    pids+=($!)
    port=""
    for _ in $(seq 50); do
      port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$work/http.log" | head -n 1)
      [ -n "$port" ] && break; sleep 0.1
    done
    if [ -z "$port" ]; then
      check "local http server started" false
    else
      web="http://127.0.0.1:$port"
      run 120 env MNIST_MIRRORS="$web/empty $web/fashion $web/mnist" "$script" "$work/served"
      show "download_mnist.sh, mirrors: 404, Fashion-MNIST, MNIST"
      check "served: exit 0" test "$code" = 0
      check "served: a 404 mirror is tried for every file" test "$(count "curl: (22)")" = 4
      check "served: the Fashion-MNIST copy is refused and named" test "$(count "mismatch.*Fashion-MNIST file")" = 4
      check "served: four verified gz files" test "$(find "$work/served" -name "*-ubyte.gz" | wc -l)" = 4
      check "served: identical to the published files" \
        cmp -s "$work/served/train-images-idx3-ubyte.gz" "$mnist/train-images-idx3-ubyte.gz"
      check "served: nothing else left in the folder" test "$(files_in "$work/served")" = 4
    fi
  fi
fi

# 5. --from a local copy keeps the usual mode (umask), not mktemp's 0600.
find_data "$src"
if [ -z "$mnist" ]; then
  skip "the --from mode row needs the gzipped MNIST (set MNIST_DIR)"
else
  for mask in 022 077; do
    want=$(printf '%o' $((0666 & ~8#$mask)))
    run 60 bash -c "umask $mask && exec \"\$0\" --from \"\$1\" \"\$2\"" \
      "$script" "$mnist" "$work/from$mask"
    show "download_mnist.sh --from, umask $mask"
    check "--from, umask $mask: exit 0" test "$code" = 0
    modes=$(find "$work/from$mask" -name '*-ubyte*' -exec stat -c %a {} + | sort -u)
    check "--from, umask $mask: the copies are $want (found: $(echo $modes))" test "$modes" = "$want"
  done
fi

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
