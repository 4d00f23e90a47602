#!/usr/bin/env bash
# test_write_targets.sh SOURCE_DIR BUILD_DIR: mnist_train refuses --log and
# --save targets that cannot be replaced, before the data is read (the data
# folder given does not exist, so a run that gets past the checks fails
# naming it instead), exit 2 (as mnist_bench's --json), naming the path;
# the target is left as it was:
#   - a FIFO, a symbolic link to one, a character device made with mknod
#     (needs root: said and not run where mknod is refused);
#   - /proc/x.st, /sys/x.st (folders where no file can be created);
#   - a file made immutable with chattr +i (needs root and a file system
#     that supports it: said and not run otherwise);
#   - one file given to both --log and --save (by two spellings, by a link);
#   - a symbolic link in a writable folder to a file in a folder where no
#     file can be made (chattr +i, or chmod 0555 when not root; said and not
#     run where neither works), for --log, --save and mnist_bench's --json:
#     the writers replace a link's target, beside it, so this is refused.
# A control run with good targets gets past the checks (fails on the data).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
build="${2:-}"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
bin="$build/mnist_train"
bench="$build/mnist_bench"
if [ ! -x "$bin" ]; then
  echo "SKIP: no mnist_train in '$build'"; exit 77
fi
work=$(mktemp -d)
cleanup() {
  chattr -i "$work/immutable.st" "$work/frozen" 2>/dev/null
  chmod 0755 "$work/frozen" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# run FLAGS...: mnist_train in $work with a data folder that does not exist;
# output in $work/out, exit code in $code.
run() {
  (cd "$work" && env -u MNIST_DIR "$bin" --data-dir no-data-here "$@") \
    >"$work/out" 2>&1
  code=$?
  echo "--- mnist_train $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
# refused NAME WORDS FLAGS...: exit 2, WORDS said, the data never read.
refused() {
  local name="$1" words="$2"; shift 2
  run "$@"
  check "$name: exit 2" test "$code" = 2
  check "$name: says '$words'" has "$words"
  check "$name: refused before the data is read" eval '! has no-data-here'
}

# The control: good targets pass the checks and the run fails on the data.
run --log good.csv --save good.st
check "control: exit 1 on the missing data" test "$code" = 1
check "control: the data folder is named" has no-data-here
check "control: no file written" test ! -e "$work/good.csv" -a ! -e "$work/good.st"
check "control: no probe left" test "$(find "$work" -name '*.partial-*' | wc -l)" = 0

mkfifo "$work/fifo"
ln -s fifo "$work/fifo-link"
for flag in --log --save; do
  refused "$flag fifo" "found a FIFO" "$flag" fifo
  check "$flag fifo: still a FIFO" test -p "$work/fifo"
  refused "$flag link to a fifo" "found a FIFO" "$flag" fifo-link
  check "$flag link to a fifo: still a link to a FIFO" test -L "$work/fifo-link" -a -p "$work/fifo"
done

if mknod "$work/null" c 1 3 2>/dev/null; then
  before=$(stat -c '%F %t:%T %a' "$work/null")
  refused "--log and --save on a device node" "found a character device" \
    --log null --save null
  refused "--save on a device node" "found a character device" --save null
  check "device node: untouched" test "$(stat -c '%F %t:%T %a' "$work/null")" = "$before"
else
  skip "a device node: mknod is refused here (not root, or no CAP_MKNOD)"
fi

for target in /proc/x.st /sys/x.st; do
  [ -d "${target%/*}" ] || { skip "$target: no ${target%/*} here"; continue; }
  refused "--save $target" "$target" --save "$target"
  check "--save $target: says why" has "no file can be created"
  check "--save $target: nothing created" test ! -e "$target"
done
refused "--log /proc/x.csv" "no file can be created" --log /proc/x.csv

echo precious >"$work/immutable.st"
if chattr +i "$work/immutable.st" 2>/dev/null; then
  refused "--save on an immutable file" "does not open for writing" --save immutable.st
  check "immutable file: untouched" test "$(cat "$work/immutable.st")" = precious
  chattr -i "$work/immutable.st"
else
  skip "an immutable file: chattr +i is refused here (not root, or the file system has no such flag)"
fi

refused "one new file for both" "same file" --log both.out --save ./both.out
check "one new file for both: not created" test ! -e "$work/both.out"
echo old >"$work/old.out"
ln -s old.out "$work/old-link"
refused "one file for both through a link" "same file" --log old.out --save old-link
check "one file for both through a link: untouched" test "$(cat "$work/old.out")" = old
ln -s new.st "$work/dangling.csv"
refused "one new file for both through a dangling link" "same file" --log dangling.csv --save new.st
check "dangling link: still a link, nothing made" test -L "$work/dangling.csv" -a ! -e "$work/new.st"

# frozen_folder: $work/frozen holds old.out and takes no new file; 1 when
# neither chattr +i nor (not as root) chmod 0555 makes it so.
frozen_folder() {
  mkdir "$work/frozen" && echo old >"$work/frozen/old.out" || return 1
  chattr +i "$work/frozen" 2>/dev/null || chmod 0555 "$work/frozen"
  ! touch "$work/frozen/probe" 2>/dev/null
}
if frozen_folder; then
  ln -s frozen/old.out "$work/frozen-link"
  for flag in --log --save; do
    refused "$flag link into a frozen folder" "no file can be created in" \
      "$flag" frozen-link
    check "$flag link into a frozen folder: names the target's folder" has "frozen'"
  done
  (cd "$work" && "$bench" --data-dir no-data-here --json frozen-link) >"$work/out" 2>&1
  code=$?
  echo "--- mnist_bench --json frozen-link (exit $code)"; sed 's/^/    /' "$work/out"
  check "--json link into a frozen folder: exit 2" test "$code" = 2
  check "--json link into a frozen folder: says why" has "no file can be created in"
  check "--json link into a frozen folder: refused before the data is read" eval '! has no-data-here'
  check "links into a frozen folder: still a link, target untouched" \
    test -L "$work/frozen-link" -a "$(cat "$work/frozen/old.out")" = old
else
  skip "a folder that takes no new file: neither chattr +i nor chmod 0555 makes one here"
fi

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
