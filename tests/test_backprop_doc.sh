#!/usr/bin/env bash
# test_backprop_doc.sh SRC BUILD: docs/backprop.md's worked example is what
# build/worked_example prints now (the oracle and the shape builders), byte
# for byte, so the document's numbers cannot go stale; and the example says
# what the page claims of it (an exact zero with its mask bit set, masked
# gradients of exactly 0).
set -uo pipefail
src="$1"; build="$2"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
doc="$src/docs/backprop.md"
printed="$("$build/worked_example")"
in_doc="$(sed -n '/^<!-- example:begin/,/^<!-- example:end -->/p' "$doc")"
same() { [ "$printed" = "$in_doc" ]; }
check "docs/backprop.md holds worked_example's output" same
if ! same; then
  diff <(echo "$in_doc") <(echo "$printed") | head -20
  echo "regenerate: copy the output of build/worked_example into docs/backprop.md §6"
fi
check "mask bit of the exact zero is set" grep -q "sample 0: 0x01" <<<"$printed"
check "the example has its exact zero" grep -q "^| 0 | 0 | 1.75 |" <<<"$printed"
check "the timeline picture exists" test -s "$src/docs/step_timeline.svg"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
