# common.sh: what session 29's device calls share (sourced after session 27's
# common.sh, whose call_start, probe_ncu and ncu_summary.py they use).
# probe_compare29 DIR F N: each probe build's casts at F features by a batch
# of N dumped, new's compared with old's (compare_dumps.py), dumps removed.
probe_compare29() {
  local dir=$1 F=$2 N=$3 v c
  for v in old new; do
    timeout 60 pack/probe_$v 3 $dir/dump-$v-$F-$N $F $N > $dir/dump-$v-$F-$N.txt 2>&1
    echo "dump $v $F x $N rc $?"
  done
  for c in relu_l1 gelu_l1 relu_l2; do
    python3 docs/bench/session29/compare_dumps.py $dir/dump-old-$F-$N-$c.bin $dir/dump-new-$F-$N-$c.bin $F $N
  done
  rm -f $dir/*.bin
}

# probe_events29 DIR F N: 30 rounds of events, old then new, twice.
probe_events29() {
  local dir=$1 F=$2 N=$3 round v
  for round in 1 2; do
    for v in old new; do
      timeout 60 pack/probe_$v 30 - $F $N > $dir/events-$v-$F-$N-$round.txt 2>&1
      echo "$v $F x $N round $round rc $?"; grep "^events" $dir/events-$v-$F-$N-$round.txt
    done
  done
}
