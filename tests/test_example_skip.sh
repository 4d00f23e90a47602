#!/usr/bin/env bash
# test_example_skip.sh SOURCE_DIR BUILD_DIR: examples/epilogue_layer without
# a GPU (every device hidden: CUDA_VISIBLE_DEVICES empty, so this holds on a
# GPU machine too) exits 77, ctest's "skipped", saying why in a SKIP line,
# the line scripts/test.sh shows as the reason (it said "exit code 77, no
# reason printed").
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"; build="${2:-}"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
example="$build/epilogue_layer"
[ -x "$example" ] || { echo "SKIP: no epilogue_layer in '$build'"; exit 77; }
out=$(CUDA_VISIBLE_DEVICES='' timeout 60 "$example" 2>&1); code=$?
echo "--- CUDA_VISIBLE_DEVICES='' epilogue_layer (exit $code)"
printf '    %s\n' "$out"
said() { grep -q "^SKIP epilogue_layer: no CUDA GPU (.\+)$" <<<"$out"; }
check "no GPU: exit 77" test "$code" = 77
check "no GPU: says why, in a SKIP line" said
echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ]
