#!/bin/bash
# Session 23: sourced by the call scripts. rows ROUND NET...: every mnist_bench row of each network (--no-layers,
# --show-plans, --json) under --autotune exact, then under --autotune off, each a process of its own, with a tuning
# cache folder of the round's own (so each round's exact tunes afresh); the tables, reports and JSON go to
# /tmp/$CALL/rows, and save (the caller's) runs after each process. against_off.py reads the JSON.
rows() {
  local r=$1 net tune S
  shift
  mkdir -p /tmp/$CALL/rows
  for net in "$@"; do
    for tune in exact off; do
      S=$SECONDS
      MNIST_TUNE_CACHE_DIR=/tmp/tc-r$r timeout 280 build/mnist_bench --data-dir data/mnist --network $net \
        --autotune $tune --no-layers --show-plans --json /tmp/$CALL/rows/$net-$tune-r$r.json \
        > /tmp/$CALL/rows/$net-$tune-r$r.txt 2>&1
      echo "rows $net $tune round $r: rc $? in $((SECONDS - S)) s"
      save
    done
  done
}
