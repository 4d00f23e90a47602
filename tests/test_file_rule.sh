#!/usr/bin/env bash
# test_file_rule.sh SOURCE_DIR BUILD_DIR: the downloader and the loader agree
# on which MNIST file is read (the one rule: for each of the four files the
# names NAME.gz, NAME, STEM.idxN-ubyte.gz, STEM.idxN-ubyte, in that order;
# the downloader verifies every copy present under those names and moves the
# others aside; the loader reads every copy present and refuses copies that
# differ or do not parse).
#
# For each folder state in the table below:
#   [loader alone]  BUILD_DIR/mnist_train --check-data on the folder as it
#                   is either reads published MNIST or fails naming the bad
#                   copy (never trains on something else);
#   [downloader]    scripts/download_mnist.sh --from <published MNIST> DIR
#                   succeeds, leaves only verified copies under the loader's
#                   names, moved the bad ones aside (NAME.unverified, content
#                   intact) saying so, and a second run changes nothing;
#   [loader after]  mnist_train --check-data DIR succeeds, reads 60000 + 10000
#                   samples and names the files it read, each a published
#                   MNIST file.
# Without BUILD_DIR/mnist_train the loader checks do not run (said, exit 77
# when nothing failed). Needs the gzipped MNIST (MNIST_DIR, or data/mnist,
# or ../shared/data/mnist); rows with Fashion-MNIST need it too.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
build="${2:-}"
script="$src/scripts/download_mnist.sh"
find_data "$src"
if [ -z "$mnist" ] || [ ! -f "$mnist/train-images-idx3-ubyte.gz" ]; then
  echo "SKIP: no gzipped MNIST copy to take the files from (set MNIST_DIR)"; exit 77
fi
[ -n "$fashion" ] && [ -f "$fashion/train-images-idx3-ubyte.gz" ] || fashion=""
bin="$build/mnist_train"
if [ -z "$build" ] || [ ! -x "$bin" ]; then
  echo "note: no mnist_train in '$build': the [loader] checks do not run"
  bin=""
fi

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

stems=(train-images train-labels t10k-images t10k-labels)
kinds=(idx3 idx1 idx3 idx1)
# The published MNIST SHA-256, gz then raw (yann.lecun.com's files).
gz_sums=(440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609
         3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c
         8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6
         f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6)
raw_sums=(ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
          65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
          0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
          ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2)

# name I FORM NAMING: file I's name, FORM gz|raw, NAMING std|dot.
name() {
  local sep=-; [ "$3" = dot ] && sep=.
  printf '%s%s%s-ubyte%s' "${stems[$1]}" "$sep" "${kinds[$1]}" "$([ "$2" = gz ] && echo .gz)"
}
# index_of BASENAME: the file index (0-3) BASENAME is a loader name of.
index_of() {
  local i f n
  for i in 0 1 2 3; do
    for f in gz raw; do for n in std dot; do
      [ "$1" = "$(name "$i" "$f" "$n")" ] && { echo "$i"; return 0; }
    done; done
  done
  return 1
}
published() { # published PATH I
  local s
  [ -f "$1" ] || return 1
  s=$(sha256sum <"$1") || return 1
  s="${s%% *}"
  [ "$s" = "${gz_sums[$2]}" ] || [ "$s" = "${raw_sums[$2]}" ]
}
fingerprint() { # what a bad copy is, to find it intact after the move
  if [ -L "$1" ]; then echo "link:$(readlink "$1")"
  elif [ -d "$1" ]; then echo "dir"
  else sha256sum <"$1" | cut -d' ' -f1; fi
}

# The material: published gz, raw, Fashion-MNIST gz and raw, all hard links
# or copies in $work (nothing writes into a file in place).
mkdir -p "$work/gz" "$work/raw" "$work/fgz" "$work/fraw"
for i in 0 1 2 3; do
  g="$(name "$i" gz std)"
  cp "$mnist/$g" "$work/gz/$g"
  gunzip -c "$mnist/$g" >"$work/raw/$(name "$i" raw std)"
  if [ -n "$fashion" ]; then
    cp "$fashion/$g" "$work/fgz/$g"
    gunzip -c "$fashion/$g" >"$work/fraw/$(name "$i" raw std)"
  fi
done
# put SET FORM NAMING DIR [I...]: links file(s) I of SET (mnist|fashion) in
# FORM (gz|raw) under the NAMING (std|dot) names into DIR.
put() {
  local set="$1" form="$2" naming="$3" d="$4" from i; shift 4
  case "$set$form" in mnistgz) from="$work/gz" ;; mnistraw) from="$work/raw" ;;
                      fashiongz) from="$work/fgz" ;; fashionraw) from="$work/fraw" ;; esac
  [ $# -gt 0 ] || set -- 0 1 2 3
  for i in "$@"; do
    ln -f "$from/$(name "$i" "$form" std)" "$d/$(name "$i" "$form" "$naming")"
  done
}

# The table. Each row fills $d and sets: bad (the names that must go
# aside), before (ok: the loader alone reads published MNIST; names: it
# fails naming one of bad; fails: it fails), needs (fashion when it does).
row_names=(); row_descs=()
add_row() { row_names+=("$1"); row_descs+=("$2"); }
add_row gz_only "the four published gz files"
row_gz_only() { put mnist gz std "$d"; bad=(); before=ok; }
add_row raw_only "the four raw files"
row_raw_only() { put mnist raw std "$d"; bad=(); before=ok; }
add_row both "gz and raw of each, identical data"
row_both() { put mnist gz std "$d"; put mnist raw std "$d"; bad=(); before=ok; }
add_row nothing "an empty folder"
row_nothing() { bad=(); before=fails; }
add_row fashion_gz_mnist_raw "Fashion-MNIST gz beside MNIST raw"
row_fashion_gz_mnist_raw() {
  needs=fashion; [ -n "$fashion" ] || return 0
  put fashion gz std "$d"; put mnist raw std "$d"
  bad=(); for i in 0 1 2 3; do bad+=("$(name "$i" gz std)"); done
  before=names
}
add_row truncated_gz "a truncated gz beside the verified raw files (and an old .unverified)"
row_truncated_gz() {
  put mnist raw std "$d"
  head -c 5000 "$work/gz/train-images-idx3-ubyte.gz" >"$d/train-images-idx3-ubyte.gz"
  echo "an earlier one" >"$d/train-images-idx3-ubyte.gz.unverified"
  bad=(train-images-idx3-ubyte.gz); before=names
}
add_row truncated_raw_alone "a truncated raw labels file alone"
row_truncated_raw_alone() {
  head -c 100 "$work/raw/t10k-labels-idx1-ubyte" >"$d/t10k-labels-idx1-ubyte"
  bad=(t10k-labels-idx1-ubyte); before=fails
}
add_row dotted "dotted names: gz images, raw labels"
row_dotted() {
  put mnist gz dot "$d" 0 2; put mnist raw dot "$d" 1 3
  bad=(); before=ok
}
add_row dotted_fashion "a dotted Fashion-MNIST raw file beside the published gz"
row_dotted_fashion() {
  needs=fashion; [ -n "$fashion" ] || return 0
  put mnist gz std "$d"; put fashion raw dot "$d" 1
  bad=(train-labels.idx1-ubyte); before=names
}
add_row raw_named_gz "published raw bytes under the .gz name (gzip is told by content)"
row_raw_named_gz() {
  put mnist gz std "$d" 1 2 3
  ln -f "$work/raw/train-images-idx3-ubyte" "$d/train-images-idx3-ubyte.gz"
  bad=(); before=ok
}
add_row folder "a folder under a raw name beside the published gz"
row_folder() {
  put mnist gz std "$d"; mkdir "$d/train-images-idx3-ubyte"
  bad=(train-images-idx3-ubyte); before=names
}
add_row link_loop "a symbolic link loop under a dotted name beside the published gz"
row_link_loop() {
  put mnist gz std "$d"; ln -s t10k-images.idx3-ubyte "$d/t10k-images.idx3-ubyte"
  bad=(t10k-images.idx3-ubyte); before=names
}

# check_data DIR: runs mnist_train --check-data; output in $work/load.
check_data() {
  (unset MNIST_DIR; "$bin" --check-data --data-dir "$1") >"$work/load" 2>&1
}
# names_read DIR: checks that the loader's output names, for each of the
# four files, a file it read, and that every file it names is published.
names_read() {
  local tok b i seen=(0 0 0 0) ok=0
  while read -r tok; do
    tok="${tok%%[.:]}"; b="${tok##*/}"
    i=$(index_of "$b") || continue
    seen[i]=1
    published "$1/$b" "$i" || { echo "    named but not published MNIST: $1/$b"; ok=1; }
  done < <(tr -s " \t\"'(),;=" '\n' <"$work/load")
  for i in 0 1 2 3; do
    [ "${seen[i]}" = 1 ] || { echo "    names no ${stems[i]} file it read"; ok=1; }
  done
  return "$ok"
}
# only_verified DIR: every loader name present in DIR is published MNIST,
# each file has one, nothing else but NAME.unverified* is there.
only_verified() {
  local p b i ok=0 have=(0 0 0 0)
  for p in "$1"/* "$1"/.[!.]*; do
    [ -e "$p" ] || [ -L "$p" ] || continue
    b="${p##*/}"
    case "$b" in *.unverified|*.unverified.[0-9]*) continue ;; esac
    if i=$(index_of "$b"); then
      if published "$p" "$i"; then have[i]=1; else echo "    not verified: $p"; ok=1; fi
    else
      echo "    left in the folder: $p"; ok=1
    fi
  done
  for i in 0 1 2 3; do [ "${have[i]}" = 1 ] || { echo "    no copy of ${stems[i]}"; ok=1; }; done
  return "$ok"
}
has() { grep -q -- "$1" "$2"; }

for r in "${!row_names[@]}"; do
  row="${row_names[$r]}"
  echo "== $row: ${row_descs[$r]}"
  d="$work/rows/$row"; mkdir -p "$d"
  bad=(); before=ok; needs=""
  "row_$row"
  if [ "$needs" = fashion ] && [ -z "$fashion" ]; then
    skip "$row: needs Fashion-MNIST (set FASHION_MNIST_DIR)"; continue
  fi
  declare -A fp=()
  for b in "${bad[@]}"; do fp[$b]=$(fingerprint "$d/$b"); done
  existing_unverified=$(find "$d" -name '*.unverified*' | wc -l)

  if [ -n "$bin" ]; then
    check_data "$d"; code=$?
    sed 's/^/    loader: /' "$work/load"
    case "$before" in
      ok)
        check "$row: [loader alone] reads the folder" test "$code" = 0
        check "$row: [loader alone] names the files it read, published MNIST" names_read "$d" ;;
      names)
        check "$row: [loader alone] refuses the folder" test "$code" != 0
        named=1
        for b in "${bad[@]}"; do has "$b" "$work/load" && named=0; done
        check "$row: [loader alone] names the bad copy (${bad[*]})" test "$named" = 0 ;;
      fails)
        check "$row: [loader alone] refuses the folder" test "$code" != 0 ;;
    esac
  fi

  "$script" --from "$mnist" "$d" >"$work/dl" 2>&1; code=$?
  sed 's/^/    download: /' "$work/dl"
  check "$row: [downloader] succeeds" test "$code" = 0
  check "$row: [downloader] leaves only published copies under the loader's names" only_verified "$d"
  for b in "${bad[@]}"; do
    found=""
    for p in "$d/$b".unverified*; do
      [ -e "$p" ] || [ -L "$p" ] || continue
      [ "$(fingerprint "$p")" = "${fp[$b]}" ] && found="$p"
    done
    check "$row: [downloader] $b moved aside intact" test -n "$found"
    check "$row: [downloader] the move is said, with the reason" \
      grep -q "aside *$d/$b -> $found: " "$work/dl"
  done
  check "$row: [downloader] nothing deleted" \
    test "$(find "$d" -name '*.unverified*' | wc -l)" = "$((existing_unverified + ${#bad[@]}))"
  "$script" --from "$mnist" "$d" >"$work/dl2" 2>&1; code=$?
  check "$row: [downloader] a second run succeeds" test "$code" = 0
  check "$row: [downloader] a second run moves and fetches nothing" \
    test "$(grep -c -e '^aside' -e 'SHA-256 verified' "$work/dl2")" = 0

  if [ -n "$bin" ]; then
    check_data "$d"; code=$?
    sed 's/^/    loader: /' "$work/load"
    check "$row: [loader after] reads the folder" test "$code" = 0
    check "$row: [loader after] 60000 train and 10000 test samples" has "60000 train, 10000 test" "$work/load"
    check "$row: [loader after] names the files it read, published MNIST" names_read "$d"
  fi
  unset fp
done
[ -n "$bin" ] || skip "the [loader] checks: no mnist_train in '$build'"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
