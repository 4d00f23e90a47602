# shellcheck shell=bash
# script_lib.sh: what the scripts that take a GPU machine (ab_chain.sh,
# ab_rows.sh, gpu_verify.sh) share; sourced, it defines:
#   script_help FILE               FILE's header comment (line 2 up to the
#                                  first line that is not a comment),
#                                  without the "# " marks
#   script_value PROG FLAG ARGS..  exits 2 ("PROG: FLAG: expected a value,
#                                  found none") unless ARGS holds a value
#                                  for FLAG that is not itself a flag;
#                                  call it as script_value PROG "$@"
#   script_count VAR PROG FLAG VALUE LOW HIGH
#                                  sets VAR to VALUE as a base-10 number
#                                  ("08" is 8) when it is whole digits from
#                                  LOW to HIGH, else exits 2 naming the
#                                  flag (no overflow: "99999999999999999999"
#                                  is out of range, not a wrapped number)
#   no_gpu_reason                  prints nothing when a GPU is visible,
#                                  else why not, in one line
#   script_need_gpu PROG           exits 1 saying why when no GPU is there
#   script_exit FAILURES           exits with FAILURES capped at 125 (an
#                                  exit code is taken modulo 256, and 126
#                                  and above mean other things)

script_help() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$1"
}

script_value() {
  local prog="$1" flag="$2"
  if [ $# -lt 3 ]; then
    echo "$prog: $flag: expected a value, found none" >&2
    exit 2
  fi
  case "$3" in
    --*) echo "$prog: $flag: expected a value, found the flag '$3'" >&2; exit 2 ;;
  esac
}

script_count() {
  local prog="$2" flag="$3" value="$4" low="$5" high="$6" digits
  digits="${value#"${value%%[!0]*}"}" # without its leading zeros
  case "$value" in
    '' | *[!0-9]*) ;;
    *) if [ "${#digits}" -le 9 ] && ((10#${digits:-0} >= low && 10#${digits:-0} <= high)); then
         printf -v "$1" '%d' "$((10#${digits:-0}))"; return 0
       fi ;;
  esac
  echo "$prog: $flag: expected a whole number from $low to $high, found '$value'" >&2
  exit 2
}

no_gpu_reason() {
  local list
  command -v nvidia-smi >/dev/null 2>&1 || { echo "nvidia-smi is not installed (no NVIDIA driver)"; return; }
  list=$(nvidia-smi -L 2>&1) || {
    echo "nvidia-smi -L failed (exit $?)${list:+: $(printf '%s\n' "$list" | head -n 1)}"; return
  }
  printf '%s\n' "$list" | grep -q '^GPU [0-9]' || { echo "nvidia-smi -L lists no GPU"; return; }
  case "${CUDA_VISIBLE_DEVICES-unset}" in
    ''|-1*) echo "CUDA_VISIBLE_DEVICES='${CUDA_VISIBLE_DEVICES}' hides every GPU" ;;
  esac
}

script_need_gpu() {
  local why
  why=$(no_gpu_reason)
  [ -z "$why" ] && return 0
  echo "$1: no GPU here: $why" >&2
  echo "  it times and trains on the GPU: run it on a machine with an NVIDIA GPU" >&2
  echo "  (the CPU tests alone: ctest --test-dir build -L cpu)" >&2
  exit 1
}

script_exit() {
  (($1 == 0)) || exit $(($1 > 125 ? 125 : $1))
  exit 0
}
