# common.sh: what session 31's calls A and B share (sourced after sessions 27's, 29's and 30's):
# the working tree against HEAD after the GPU suite. The calls ran it inline; it moved here
# afterwards, the commands unchanged.

# against_head DIR: the probe's outputs at four shapes and its casts under ncu, the default fp8
# runs, every fp8 mnist_bench row of both builds (old, new, old, new) compared by rows_ratio.py.
against_head() {
  cast_outputs $1
  cast_ncu $1 old new
  fp8_runs $1
  fp8_rows $1 all old new old new
  python3 docs/bench/session30/rows_ratio.py $1/bench-fp8-old-*.txt -- $1/bench-fp8-new-*.txt
}
