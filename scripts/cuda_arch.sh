# shellcheck shell=bash
# cuda_arch.sh: sourced by train.sh and test.sh: which CUDA architectures
# to build for. Defines
#   cuda_arch_visible       the distinct compute capabilities of the GPUs
#                           nvidia-smi reports and CUDA_VISIBLE_DEVICES
#                           leaves visible, as a CMake list ("86-real;89-real");
#                           empty without nvidia-smi or a GPU
#   cuda_arch_choose NAME   sets cuda_arch_args, the cmake flags: that list
#                           when there is one, else -UCMAKE_CUDA_ARCHITECTURES
#                           (CMakeLists.txt's default, also replacing another
#                           list an earlier run left in the cache); prints one
#                           line, "NAME: building for ...", saying which.
# CUDA_VISIBLE_DEVICES: "" or -1 hides every GPU; UUIDs (GPU-...) select
# those GPUs; indices select by nvidia-smi's index only with
# CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default order may differ from
# nvidia-smi's), else every GPU counts, which builds for a superset.

cuda_arch_visible() {
  local rows
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  rows=$(nvidia-smi --query-gpu=index,uuid,compute_cap --format=csv,noheader 2>/dev/null) || return 0
  printf '%s\n' "$rows" | awk -F', *' -v set="${CUDA_VISIBLE_DEVICES-unset}" \
      -v pci="${CUDA_DEVICE_ORDER:-}" '
    BEGIN { n = split(set, want, ",") }
    function visible(index_, uuid,   i, w) {
      if (set == "unset") return 1
      for (i = 1; i <= n; i++) {
        w = want[i]; gsub(/ /, "", w)
        if (w == "" || w ~ /^-/) return 0           # CUDA stops at an invalid entry
        if (w ~ /^GPU-/ && index(uuid, w) == 1) return 1
        if (w ~ /^[0-9]+$/ && (pci != "PCI_BUS_ID" || w == index_)) return 1
      }
      return 0
    }
    $3 ~ /^[0-9]+\.[0-9]+$/ && visible($1, $2) { split($3, v, "."); print v[1] v[2] }
  ' | sort -un | awk '{ printf "%s%s-real", (NR > 1 ? ";" : ""), $1 }'
}

cuda_arch_choose() {
  local list
  list=$(cuda_arch_visible)
  if [ -n "$list" ]; then
    cuda_arch_args=("-DCMAKE_CUDA_ARCHITECTURES=$list")
    echo "$1: building for the GPU here: CMAKE_CUDA_ARCHITECTURES=$list (from nvidia-smi)"
  else
    cuda_arch_args=(-UCMAKE_CUDA_ARCHITECTURES)
    echo "$1: no GPU seen by nvidia-smi: building for every supported GPU (CMakeLists.txt's default architectures)"
  fi
}
