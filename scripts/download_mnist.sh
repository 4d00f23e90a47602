#!/usr/bin/env bash
# download_mnist.sh: fetches the MNIST (or Fashion-MNIST) idx files into a
# folder and verifies each against its published SHA-256.
#
#   scripts/download_mnist.sh [--fashion] [--from PATH] [DIR]
#
# DIR defaults to data/mnist (data/fashion-mnist with --fashion).
#   --fashion    Fashion-MNIST instead of MNIST
#   --from PATH  copy the files from the local folder PATH (gzipped or raw,
#                published or dotted names) instead of downloading them;
#                given once, a folder; every copy in PATH under a name the
#                loader reads must verify (checked first: another data set
#                or a damaged copy there stops it, exit 1, DIR untouched,
#                even when DIR already verifies)
#
# For each of the four files, every copy in DIR under a name that mnist_train
# reads (NAME.gz, NAME, and the dotted STEM.idxN-ubyte.gz, STEM.idxN-ubyte)
# must match the published SHA-256 of the gzipped or of the raw file. A copy
# that does not (another data set, a truncated download) is moved aside to
# NAME.unverified (never deleted), so that mnist_train can only read the
# published data. A file with no verified copy left is fetched as NAME.gz,
# trying each mirror in turn, or copied from --from. Files already there and
# verified are kept: a second run changes nothing.
#
# Each transfer is bounded (10 s to connect, MNIST_FETCH_TIMEOUT in all); a
# mirror that cannot be reached is not tried again in the same run.
# Environment:
#   MNIST_MIRRORS="URL ..."  base URLs to try instead of the built-in
#                            mirrors (NAME.gz is appended), e.g. for tests
#   MNIST_FETCH_TIMEOUT=S    seconds one transfer may take (default 300)
# Exit code: 0 when all four files are verified, 1 when some are not,
# 2 for bad usage.
set -euo pipefail

usage() { # the header above, without the comment marks
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

fashion=0
from=""
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fashion) fashion=1 ;;
    --from | --from=*)
      if [ "$1" = --from ]; then
        [ $# -ge 2 ] || { echo "download_mnist.sh: --from: expected a folder, found none" >&2; exit 2; }
        value="$2"; shift
      else
        value="${1#--from=}"
      fi
      [ -n "$value" ] || { echo "download_mnist.sh: --from: expected a folder, found ''" >&2; exit 2; }
      if [ -n "$from" ]; then
        echo "download_mnist.sh: --from given twice ('$from' and '$value'): expected one folder" >&2
        exit 2
      fi
      from="$value" ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "download_mnist.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "download_mnist.sh: one folder only, found '$dir' and '$1'" >&2; exit 2; }
       dir="$1" ;;
  esac
  shift
done
if [ -n "$from" ] && [ ! -d "$from" ]; then
  echo "download_mnist.sh: --from $from: no such folder (expected a folder holding the four idx files, gzipped or raw)" >&2
  exit 2
fi

stems=(train-images train-labels t10k-images t10k-labels)
kinds=(idx3 idx1 idx3 idx1)
# SHA-256 of the published .gz files, then of the unzipped files, in the
# order of stems; "other" is the other data set, to name it when found.
mnist_gz=(440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609
          3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c
          8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6
          f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6)
mnist_raw=(ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
           65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
           0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
           ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2)
fashion_gz=(3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84
            a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845
            346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073
            67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5)
fashion_raw=(c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888
             bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9
             5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b
             0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34)
if [ "$fashion" = 1 ]; then
  set_name="Fashion-MNIST"; other_name="MNIST"
  dir="${dir:-data/fashion-mnist}"
  mirrors=("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com"
           "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion")
  gz_sums=("${fashion_gz[@]}"); raw_sums=("${fashion_raw[@]}")
  other_sums=("${mnist_gz[@]}" "${mnist_raw[@]}")
else
  set_name="MNIST"; other_name="Fashion-MNIST"
  dir="${dir:-data/mnist}"
  mirrors=("https://ossci-datasets.s3.amazonaws.com/mnist"
           "https://storage.googleapis.com/cvdf-datasets/mnist"
           "http://yann.lecun.com/exdb/mnist")
  gz_sums=("${mnist_gz[@]}"); raw_sums=("${mnist_raw[@]}")
  other_sums=("${fashion_gz[@]}" "${fashion_raw[@]}")
fi
if [ -n "${MNIST_MIRRORS:-}" ]; then
  read -r -a mirrors <<<"$MNIST_MIRRORS"
fi
max_time="${MNIST_FETCH_TIMEOUT:-300}"
case "$max_time" in
  ''|*[!0-9]*|0) echo "download_mnist.sh: MNIST_FETCH_TIMEOUT=$max_time: expected a whole number of seconds > 0" >&2; exit 2 ;;
esac

command -v sha256sum >/dev/null || { echo "download_mnist.sh: needs sha256sum (coreutils)" >&2; exit 1; }

tmp=""
trap '[ -z "$tmp" ] || rm -f -- "$tmp"' EXIT

# The names the loader accepts, in its order: data/mnist_names.txt, the one
# list both read (STEM and KIND to be replaced).
names_file="$(cd "$(dirname "$0")/.." && pwd)/data/mnist_names.txt"
[ -f "$names_file" ] || { echo "download_mnist.sh: expected the list of file names $names_file, found none" >&2; exit 1; }
patterns=()
while IFS= read -r line; do
  case "$line" in ''|'#'*) ;; *) patterns+=("$line") ;; esac
done <"$names_file"

# candidates DIR I: the names of file I in DIR, in the order the loader
# (data/mnist_files.c) takes them; sets the array cand.
candidates() {
  local p
  cand=()
  for p in "${patterns[@]}"; do
    p="${p//STEM/${stems[$2]}}"
    cand+=("$1/${p//KIND/${kinds[$2]}}")
  done
}

# verify PATH I: 0 when PATH holds the published gz or raw file I (sets
# kind to gz or raw); otherwise sets why.
verify() {
  local out s
  kind=""; why=""
  if [ ! -f "$1" ]; then
    if [ -L "$1" ]; then why="a symbolic link to no readable file"
    elif [ -d "$1" ]; then why="a folder, not a file"
    else why="not a regular file"; fi
    return 1
  fi
  if ! out=$( { sha256sum <"$1"; } 2>&1 ); then
    why="cannot be read: ${out##*: }"; return 1
  fi
  s="${out%% *}"
  if [ "$s" = "${gz_sums[$2]}" ]; then kind=gz; return 0; fi
  if [ "$s" = "${raw_sums[$2]}" ]; then kind=raw; return 0; fi
  case " ${other_sums[*]} " in
    *" $s "*) why="SHA-256 $s is the $other_name file, not $set_name's" ;;
    *) why="SHA-256 $s is neither the published gz nor raw file (damaged, truncated or another data set)" ;;
  esac
  return 1
}

# move_aside PATH WHY: renames PATH to PATH.unverified (.1, .2, ... when
# taken) and says so.
move_aside() {
  local to="$1.unverified" n=1
  while [ -e "$to" ] || [ -L "$to" ]; do to="$1.unverified.$n"; n=$((n + 1)); done
  if mv -- "$1" "$to"; then
    echo "aside    $1 -> $to: $2" >&2
  else
    echo "download_mnist.sh: could not move $1 aside ($2); move or remove it yourself" >&2
    return 1
  fi
}

# fetch URL OUT: one bounded transfer with curl or wget. On failure returns
# the tool's exit code and sets fetch_err to its own message; dead=1 when the
# mirror could not be reached at all (not resolved, refused, timed out).
fetch() {
  local code=0
  fetch_err=""; dead=0
  if command -v curl >/dev/null; then
    fetch_err=$(curl -fsSL --connect-timeout 10 --max-time "$max_time" -o "$2" "$1" 2>&1) || code=$?
    case "$code" in 5|6|7|28|35) dead=1 ;; esac
  elif command -v wget >/dev/null; then
    fetch_err=$(timeout "$max_time" wget -nv --tries=1 --timeout=10 -O "$2" "$1" 2>&1) || code=$?
    case "$code" in 4|124) dead=1 ;; esac
    [ "$code" != 124 ] || fetch_err="timed out after $max_time s"
    fetch_err="wget: $(last_line "$fetch_err")"
  else
    fetch_err="needs curl or wget to download (or use --from PATH)"; code=127; dead=1
  fi
  fetch_err=$(last_line "$fetch_err")
  return "$code"
}

last_line() { printf '%s\n' "$1" | awk 'NF { l = $0 } END { print l }'; }

host_of() { local h="${1#*://}"; echo "${h%%/*}"; }

here=$(dirname "$0")
fashion_flag=""; [ "$fashion" = 0 ] || fashion_flag="--fashion "

# --from PATH first, whole: every copy there the loader would read must be
# the published file; one that is not stops the run before DIR is touched
# (it was ignored without a word when DIR already verified).
if [ -n "$from" ]; then
  found=0; bad=0
  for i in "${!stems[@]}"; do
    candidates "$from" "$i"
    for c in "${cand[@]}"; do
      [ -e "$c" ] || [ -L "$c" ] || continue
      found=$((found + 1))
      verify "$c" "$i" || { echo "mismatch $c: $why" >&2; bad=$((bad + 1)); }
    done
  done
  if [ "$found" = 0 ] || [ "$bad" != 0 ]; then
    {
      if [ "$found" = 0 ]; then
        echo "download_mnist.sh: --from $from: expected the $set_name idx files (gzipped or raw), found none under the names the loader reads"
      else
        echo "download_mnist.sh: --from $from: expected only the published $set_name files, found $bad that are not (above); nothing copied, $dir left as it is"
      fi
      echo "  take them from a folder of the published files: $here/download_mnist.sh $fashion_flag--from PATH $dir"
    } >&2
    exit 1
  fi
fi

made_dir=0; [ -d "$dir" ] || made_dir=1
mkdir -p -- "$dir" || { echo "download_mnist.sh: cannot create the folder $dir" >&2; exit 1; }

dead_mirrors=" "
missing=()
for i in "${!stems[@]}"; do
  name="${stems[$i]}-${kinds[$i]}-ubyte"
  # 1. Every copy the loader could read must verify; the others go aside.
  candidates "$dir" "$i"
  have=0
  for c in "${cand[@]}"; do
    [ -e "$c" ] || [ -L "$c" ] || continue
    if verify "$c" "$i"; then
      echo "ok       $c (already verified)"
      have=1
    else
      move_aside "$c" "$why" || { missing+=("$name"); have=1; }
    fi
  done
  [ "$have" = 0 ] || continue

  # 2. No verified copy left: take one from --from or a mirror.
  tmp=$(mktemp "$dir/.$name.XXXXXX")
  got=""
  if [ -n "$from" ]; then
    candidates "$from" "$i"
    for c in "${cand[@]}"; do
      [ -e "$c" ] || [ -L "$c" ] || continue
      if ! verify "$c" "$i"; then
        echo "mismatch $c: $why" >&2
        continue
      fi
      cp -- "$c" "$tmp"
      if verify "$tmp" "$i"; then
        if [ "$kind" = gz ]; then got="$dir/$name.gz"; else got="$dir/$name"; fi
        break
      fi
      echo "mismatch $c: changed while being copied ($why)" >&2
    done
    [ -n "$got" ] || echo "missing  $name: no verified copy in $from (looked for $name.gz, $name and the dotted names)" >&2
  else
    for mirror in "${mirrors[@]}"; do
      host=$(host_of "$mirror")
      case "$dead_mirrors" in *" $mirror "*) continue ;; esac
      if fetch "$mirror/$name.gz" "$tmp"; then
        if verify "$tmp" "$i" && [ "$kind" = gz ]; then got="$dir/$name.gz"; break; fi
        echo "mismatch $mirror/$name.gz: ${why:-the raw file, not the gzipped one}; trying the next mirror" >&2
      else
        echo "failed   $host: $fetch_err" >&2
        [ "$dead" = 0 ] || dead_mirrors="$dead_mirrors$mirror "
      fi
    done
    [ -n "$got" ] || echo "missing  $name.gz: no mirror gave a verified copy (a mirror that could not be reached is not tried again)" >&2
  fi
  if [ -n "$got" ]; then
    # mktemp made it 0600: give it an ordinary file's mode (0666 under the
    # umask), so that other users can read the data as usual.
    chmod "$(printf '%o' $((0666 & ~8#$(umask))))" "$tmp"
    mv -- "$tmp" "$got"
    echo "ok       $got (SHA-256 verified)"
  else
    rm -f -- "$tmp"
    missing+=("$name")
  fi
  tmp=""
done

if [ ${#missing[@]} -gt 0 ]; then
  [ "$made_dir" = 0 ] || rmdir -- "$dir" 2>/dev/null || true   # made here, left empty
  {
    echo "download_mnist.sh: ${#missing[@]} of 4 $set_name files could not be ${from:+copied and }verified into $dir: ${missing[*]}"
    if [ -n "$from" ]; then
      echo "  $from lacks a published copy of them (see the lines above)."
    else
      echo "  The reason for each mirror is above. Without the network, take the files"
      echo "  from a local copy (a folder of the four files, gzipped or raw):"
    fi
    echo "    $here/download_mnist.sh $fashion_flag--from PATH $dir"
    if [ "$fashion" = 0 ]; then
      echo "    $here/train.sh --from PATH [mnist_train flags]"
      echo "  or train on a folder as it is: $here/train.sh --data-dir PATH (or MNIST_DIR=PATH $here/train.sh)"
    else
      echo "  then train with: $here/train.sh --data-dir $dir (or MNIST_DIR=$dir $here/train.sh)"
    fi
  } >&2
  exit 1
fi
echo "all four $set_name files verified in $dir"
