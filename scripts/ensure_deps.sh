# shellcheck shell=bash
# ensure_deps.sh: sourced by test.sh and train.sh. Defines
#   ensure_packages NAME...  installs the Debian packages that are missing
#                            (apt-get, as root), or says what to install
#   ensure_nvcc              puts the CUDA toolkit's nvcc on PATH, or fails
# Names understood: cmake, pkg-config, check, zlib1g-dev, libcjson-dev,
# clang-format
# (others are looked up with dpkg).

have_package() {
  case "$1" in
    cmake|pkg-config|clang-format) command -v "$1" >/dev/null ;;
    check) pkg-config --exists check 2>/dev/null ;;
    zlib1g-dev) [ -f /usr/include/zlib.h ] || pkg-config --exists zlib 2>/dev/null ;;
    libcjson-dev) pkg-config --exists libcjson 2>/dev/null ;;
    *) dpkg -s "$1" >/dev/null 2>&1 ;;
  esac
}

ensure_packages() {
  local missing=() name
  for name in "$@"; do have_package "$name" || missing+=("$name"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]})" >&2
    return 1
  fi
}

ensure_nvcc() {
  local d
  if ! command -v nvcc >/dev/null; then
    for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
      [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
    done
  fi
  command -v nvcc >/dev/null && return 0
  echo "the CUDA toolkit (nvcc) is needed; install it and put nvcc on PATH" >&2
  return 1
}
