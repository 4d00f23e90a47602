#!/usr/bin/env bash
# test_download.sh SOURCE_DIR: scripts/download_mnist.sh without a network,
# through --from: gz and raw copies verify, a second run skips verified
# files, a damaged copy is refused and named, --fashion works.
# Skips (77) when the real data sets are not on this machine.
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
script="$src/scripts/download_mnist.sh"
find_data "$src"
if [ -z "$mnist" ] || [ ! -f "$mnist/train-images-idx3-ubyte.gz" ]; then
  echo "SKIP: no gzipped MNIST copy to download from (set MNIST_DIR)"; exit 77
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
out() { "$@" >"$work/out" 2>&1; echo $? >"$work/code"; }

out "$script" --from "$mnist" "$work/a"
check "gz copy verifies" test "$(cat "$work/code")" = 0
check "four gz files" test "$(ls "$work/a"/*.gz | wc -l)" = 4
out "$script" --from "$mnist" "$work/a"
check "second run skips" grep -q "already verified" "$work/out"
check "second run succeeds" test "$(cat "$work/code")" = 0

mkdir -p "$work/raw"
for f in "$mnist"/*.gz; do gunzip -c "$f" >"$work/raw/$(basename "$f" .gz)"; done
out "$script" --from "$work/raw" "$work/b"
check "raw copy verifies" test "$(cat "$work/code")" = 0
check "raw files kept raw" test -f "$work/b/train-images-idx3-ubyte"

cp "$work/raw/t10k-labels-idx1-ubyte" "$work/bad-labels"
printf 'x' | dd of="$work/raw/t10k-labels-idx1-ubyte" bs=1 seek=100 conv=notrunc 2>/dev/null
out "$script" --from "$work/raw" "$work/c"
check "damaged copy fails" test "$(cat "$work/code")" = 1
check "damaged copy named" grep -q "mismatch.*t10k-labels-idx1-ubyte" "$work/out"
check "failure says what to do" grep -q -- "--from PATH" "$work/out"
check "no unverified file left" test ! -e "$work/c/t10k-labels-idx1-ubyte"

out "$script" --bogus
check "unknown option is refused" test "$(cat "$work/code")" = 2

if [ -n "$fashion" ] && [ -f "$fashion/train-images-idx3-ubyte.gz" ]; then
  out "$script" --fashion --from "$fashion" "$work/f"
  check "fashion verifies" test "$(cat "$work/code")" = 0
  out "$script" --fashion --from "$mnist" "$work/g"
  check "mnist is not fashion" test "$(cat "$work/code")" = 1
else
  echo "Fashion-MNIST not checked: no copy found"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
