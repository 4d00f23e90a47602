# find_data.sh: sourced by the shell tests. find_data SRC sets mnist and
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
