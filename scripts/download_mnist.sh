#!/usr/bin/env bash
# download_mnist.sh: fetches the MNIST (or Fashion-MNIST) idx files into a
# folder and verifies each against its published SHA-256.
#
#   scripts/download_mnist.sh [--fashion] [--from PATH] [DIR]
#
# DIR defaults to data/mnist (data/fashion-mnist with --fashion). Files
# already present and verified are kept (idempotent). Each file is tried
# from every mirror in turn. --from PATH copies from a local folder of
# gzipped or raw idx files instead, verified the same way.
set -euo pipefail

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

fashion=0
from=""
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fashion) fashion=1 ;;
    --from) [ $# -ge 2 ] || { echo "download_mnist.sh: --from needs a folder" >&2; exit 2; }
            from="$2"; shift ;;
    --from=*) from="${1#--from=}" ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "download_mnist.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "download_mnist.sh: one folder only, found '$dir' and '$1'" >&2; exit 2; }
       dir="$1" ;;
  esac
  shift
done

files=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)
if [ "$fashion" = 1 ]; then
  dir="${dir:-data/fashion-mnist}"
  mirrors=("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com"
           "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion")
  # SHA-256 of the .gz files, then of the unzipped files.
  gz_sums=(3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84
           a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845
           346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073
           67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5)
  raw_sums=(c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888
            bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9
            5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b
            0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34)
else
  dir="${dir:-data/mnist}"
  mirrors=("https://ossci-datasets.s3.amazonaws.com/mnist"
           "https://storage.googleapis.com/cvdf-datasets/mnist"
           "http://yann.lecun.com/exdb/mnist")
  gz_sums=(440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609
           3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c
           8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6
           f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6)
  raw_sums=(ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
            65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
            0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
            ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2)
fi

command -v sha256sum >/dev/null || { echo "download_mnist.sh: needs sha256sum (coreutils)" >&2; exit 1; }
mkdir -p "$dir"

sum_of() { sha256sum "$1" | cut -d' ' -f1; }

# fetch URL OUT: curl or wget, whichever exists.
fetch() {
  if command -v curl >/dev/null; then
    curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1"
  elif command -v wget >/dev/null; then
    wget -q -T 20 -t 2 -O "$2" "$1"
  else
    echo "download_mnist.sh: needs curl or wget to download (or use --from PATH)" >&2
    return 1
  fi
}

failed=0
for i in "${!files[@]}"; do
  name="${files[$i]}"
  gz="$dir/$name.gz"
  if [ -f "$gz" ] && [ "$(sum_of "$gz")" = "${gz_sums[$i]}" ]; then
    echo "ok       $gz (already verified)"
    continue
  fi
  if [ -f "$dir/$name" ] && [ "$(sum_of "$dir/$name")" = "${raw_sums[$i]}" ]; then
    echo "ok       $dir/$name (already verified)"
    continue
  fi
  tmp="$dir/.$name.part"
  got=""
  if [ -n "$from" ]; then
    for candidate in "$from/$name.gz" "$from/$name" "$from/${name/-idx/.idx}" "$from/${name/-idx/.idx}.gz"; do
      [ -f "$candidate" ] || continue
      cp "$candidate" "$tmp"
      s=$(sum_of "$tmp")
      if [ "$s" = "${gz_sums[$i]}" ]; then got="$gz"; break; fi
      if [ "$s" = "${raw_sums[$i]}" ]; then got="$dir/$name"; break; fi
      echo "mismatch $candidate: SHA-256 $s is not the published one" >&2
    done
    [ -n "$got" ] || echo "missing  $name: no verified copy in $from (looked for $name.gz and $name)" >&2
  else
    for mirror in "${mirrors[@]}"; do
      if fetch "$mirror/$name.gz" "$tmp" 2>/dev/null; then
        s=$(sum_of "$tmp")
        if [ "$s" = "${gz_sums[$i]}" ]; then got="$gz"; break; fi
        echo "mismatch $mirror/$name.gz: SHA-256 $s is not the published one; trying the next mirror" >&2
      else
        echo "failed   $mirror/$name.gz; trying the next mirror" >&2
      fi
    done
    [ -n "$got" ] || echo "missing  $name.gz: no mirror gave a verified copy" >&2
  fi
  if [ -n "$got" ]; then
    mv "$tmp" "$got"
    echo "ok       $got (SHA-256 verified)"
  else
    rm -f "$tmp"
    failed=1
  fi
done

if [ "$failed" != 0 ]; then
  echo "download_mnist.sh: some files could not be fetched and verified into $dir." >&2
  echo "  Check the network, or copy the four files from elsewhere with --from PATH." >&2
  exit 1
fi
echo "all four files verified in $dir"
