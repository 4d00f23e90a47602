#!/usr/bin/env bash
# test_download.sh SOURCE_DIR: scripts/download_mnist.sh without a network,
# through --from: an empty --from and a second --from refused (exit 2,
# nothing fetched, no folder made); gz and raw copies verify, a second run
# skips verified files, a damaged copy is refused and named, also when the
# folder already verifies (nothing copied, the folder as it was), a --from
# folder without MNIST files refused, --fashion works.
# The rows with data skip (77) when the real data sets are not on this
# machine.
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
script="$src/scripts/download_mnist.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
out() { "$@" >"$work/out" 2>&1; echo $? >"$work/code"; }
export MNIST_MIRRORS="http://127.0.0.1:9/refused" # never the network

nothing_done() { ! grep -q "failed  " "$work/out" && [ ! -e "$work/none" ]; }
mkdir -p "$work/elsewhere"
for args in "--from|" "--from=" "--from|$work|--from|$work/elsewhere" \
            "--from=$work|--from=$work/elsewhere"; do
  IFS='|' read -ra words <<<"$args"
  [ "$args" = "--from|" ] && words=(--from "")
  out "$script" "${words[@]}" "$work/none"
  check "${words[*]}: exit 2" test "$(cat "$work/code")" = 2
  check "${words[*]}: says what was expected" \
    grep -q -e "--from: expected a folder, found ''" -e "--from given twice" "$work/out"
  check "${words[*]}: nothing fetched, no folder made" nothing_done
done

find_data "$src"
if [ -z "$mnist" ] || [ ! -f "$mnist/train-images-idx3-ubyte.gz" ]; then
  skip "the rows with data: no gzipped MNIST copy to download from (set MNIST_DIR)"
  echo "$passed passed, $failed failed, $skipped not run"
  [ "$failed" = 0 ] || exit 1
  exit 77
fi

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

# A damaged --from copy is named even when the folder already verifies;
# nothing is copied and the folder is left as it was.
sums=$(cd "$work/a" && sha256sum -- *)
out "$script" --from "$work/raw" "$work/a"
check "damaged copy, folder verified: exit 1" test "$(cat "$work/code")" = 1
check "damaged copy, folder verified: named" grep -q "mismatch.*t10k-labels-idx1-ubyte" "$work/out"
check "damaged copy, folder verified: says nothing was copied" grep -q "nothing copied" "$work/out"
check "damaged copy, folder verified: the folder as it was" \
  test "$(cd "$work/a" && sha256sum -- *)" = "$sums"
out "$script" --from "$work/elsewhere" "$work/a"
check "a --from folder without MNIST files: exit 1" test "$(cat "$work/code")" = 1
check "a --from folder without MNIST files: said" grep -q "found none under the names" "$work/out"

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
