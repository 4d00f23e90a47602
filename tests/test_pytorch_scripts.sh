#!/usr/bin/env bash
# test_pytorch_scripts.sh SOURCE_DIR: the PyTorch scripts without PyTorch
# (hidden behind a stand-in package that fails to import, so the test means
# the same where torch is installed): eval_checkpoint_pytorch.py,
# replay_step_pytorch.py, bench_pytorch.py and nvmath_step.py exit 3 saying
# what is missing and the pip command (a command run for an answer does not
# report success without one); nvmath_step.py also with torch there and
# nvmath-python missing; before that, the checkpoints given must be regular
# files within the reader's bound: /dev/zero, a FIFO, a folder or a missing
# file exit 2 naming it, at once (run under a memory and a time limit, so a
# regression cannot take the machine down); bad flags exit 2 before any
# import; scripts/bench_compare.sh, where PyTorch is optional, checks for it
# itself: it prints mnist_bench's table (a stand-in mnist_bench here), says
# PyTorch is not installed and how to install it, and exits 0.
# Then, on hand-made JSON: bench_pytorch.py's compile verdict
# (compile_check) on proofs that pass and that fail; bench_runs.py's
# "PyTorch best" (the fastest variant, compiled ones counted, fp8 also
# against bf16's best, per run over runs); a compiled row without a passed
# check refused (exit 2) by bench_runs.py and bench_merge.py; and
# bench_merge.py joining the parts of a split run (rows concatenated, a row
# in two parts, two GPUs or two kinds of file refused).
# Needs python3 (exit 77 without it).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
if ! command -v python3 >/dev/null; then
  echo "SKIP: python3 is not installed"; exit 77
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/notorch/torch" "$work/build"
echo 'raise ImportError("torch hidden by test_pytorch_scripts.sh", name="torch")' \
  >"$work/notorch/torch/__init__.py"
# run COMMAND...: with torch hidden, under 2 GB of address space and 60 s;
# output in $work/out, code in $code.
run() {
  (cd "$work" && ulimit -v 2000000 && PYTHONPATH="$work/notorch" timeout 60 "$@") \
    >"$work/out" 2>&1
  code=$?
  echo "--- $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }

echo "not read without torch" >"$work/a.st"
cp "$work/a.st" "$work/b.st"
for script in "eval_checkpoint_pytorch.py a.st" \
              "replay_step_pytorch.py a.st b.st" "bench_pytorch.py" \
              "nvmath_step.py a.st b.st"; do
  name="${script%% *}"
  # shellcheck disable=SC2086 # the script and its arguments
  run python3 "$src/scripts/"$script
  check "$name without torch: exit 3" test "$code" = 3
  check "$name without torch: says so, with the pip command" \
    has "^$name: needs torch: pip install torch"
done

# Files that are not a checkpoint: refused before torch is imported.
mkfifo "$work/fifo"
for script in "eval_checkpoint_pytorch.py|/dev/zero|found a character device" \
              "eval_checkpoint_pytorch.py|fifo|found a FIFO" \
              "replay_step_pytorch.py|a.st .|found a folder" \
              "replay_step_pytorch.py|fifo b.st|found a FIFO" \
              "eval_checkpoint_pytorch.py|missing.st|no such file"; do
  IFS='|' read -r name files words <<<"$script"
  # shellcheck disable=SC2086 # the files, split
  run python3 "$src/scripts/$name" $files
  check "$name $files: exit 2" test "$code" = 2
  check "$name $files: named, at once" has "^$name: .*$words"
done

# bench_compare.sh with a stand-in mnist_bench that writes an empty table.
cat >"$work/build/mnist_bench" <<'SH'
#!/bin/sh
echo "ours: the mnist_bench table"
while [ $# -gt 0 ]; do
  [ "$1" = --json ] && echo '{"training": []}' >"$2"
  shift
done
SH
chmod +x "$work/build/mnist_bench"
run "$src/scripts/bench_compare.sh" "$work/build"
check "bench_compare without torch: exit 0" test "$code" = 0
check "bench_compare without torch: mnist_bench's table" has "ours: the mnist_bench table"
check "bench_compare without torch: says PyTorch is missing and how to install it" \
  has "PyTorch.*pip install torch"

run python3 "$src/scripts/nvmath_step.py" a.st b.st
check "nvmath_step without torch: the pip command names nvmath-python" \
  has "nvmath-python\[cu13\]"

# Bad flags: exit 2 naming the flag, before torch is imported (hidden here).
for args in "--variants eager,bogus" "--compile-mode fast" "--networks 100" \
            "--networks x:256" "--repeats 0" "--precisions fp64"; do
  # shellcheck disable=SC2086 # the flags
  run python3 "$src/scripts/bench_pytorch.py" $args
  check "bench_pytorch.py $args: exit 2" test "$code" = 2
  check "bench_pytorch.py $args: names the flag" has "error: .*${args%% *}"
done
run python3 "$src/scripts/nvmath_step.py" a.st
check "nvmath_step.py with one checkpoint: exit 2" test "$code" = 2
run python3 "$src/scripts/nvmath_step.py" a.st b.st --epochs 101
check "nvmath_step.py --epochs 101: exit 2, named" test "$code" = 2
check "nvmath_step.py --epochs 101: says the range" has "epochs: expected 0 to 100"

# nvmath_step.py with PyTorch and safetensors there (stand-ins that import)
# but nvmath-python missing: exit 3 naming nvmath and the pip command.
mkdir -p "$work/nonvmath/torch" "$work/nonvmath/safetensors" "$work/nonvmath/nvmath"
: >"$work/nonvmath/torch/__init__.py"
: >"$work/nonvmath/safetensors/__init__.py"
: >"$work/nonvmath/safetensors/torch.py"
echo 'raise ImportError("nvmath hidden by test_pytorch_scripts.sh", name="nvmath")' \
  >"$work/nonvmath/nvmath/__init__.py"
(cd "$work" && PYTHONPATH="$work/nonvmath" python3 "$src/scripts/nvmath_step.py" a.st b.st) \
  >"$work/out" 2>&1
code=$?
check "nvmath_step without nvmath: exit 3" test "$code" = 3
check "nvmath_step without nvmath: says so, with the pip command" \
  has "^nvmath_step.py: needs nvmath: pip install .*nvmath-python"

# bench_pytorch.py's verdict on a compiled row (no torch needed to judge).
verdict() { # verdict PROOF COUNTERS SHAPES: prints passed and the problems
  (cd "$src/scripts" && python3 -c "import bench_pytorch as b; import json
v = b.compile_check($1, $2, $3); print('passed' if v['passed'] else 'failed', v['problems'])")
}
good='{"graphs": 2, "calls": 9, "captured_calls": [1, 1], "backward": "CompiledFunctionBackward"}'
counts='{"unique_graphs": 2, "graph_breaks": 0}'
check "compile_check: two shapes, each compiled once and called in its capture: passed" \
  test "$(verdict "$good" "$counts" "[256, 96]")" = "passed []"
check "compile_check: a graph break fails it" \
  grep -q "^failed.*1 graph breaks" <<<"$(verdict "$good" \
    '{"unique_graphs": 2, "graph_breaks": 1}' "[256, 96]")"
check "compile_check: a recompile (3 graphs for 2 shapes) fails it" \
  grep -q "^failed.*dynamo compiled 3 graphs for 2 shapes" <<<"$(verdict "$good" \
    '{"unique_graphs": 3, "graph_breaks": 0}' "[256, 96]")"
check "compile_check: a capture that ran no compiled code fails it" \
  grep -q "^failed.*compiled calls during the captures \[1, 0\]" <<<"$(verdict \
    '{"graphs": 2, "calls": 9, "captured_calls": [1, 0], "backward": "CompiledFunctionBackward"}' \
    "$counts" "[256, 96]")"
check "compile_check: an eager backward fails it" \
  grep -q "^failed.*backward is MeanBackward0" <<<"$(verdict \
    '{"graphs": 1, "calls": 4, "captured_calls": [1], "backward": "MeanBackward0"}' \
    '{"unique_graphs": 1, "graph_breaks": 0}' "[256]")"

# The table: hand-made JSON of one run (ours and PyTorch), then of two.
mkdir -p "$work/j"
proof='"compiled": true, "compile_check": {"passed": true, "problems": []}'
torch_row() { # torch_row PREC VARIANT MS [MODE]: one bench_pytorch.py row
  local extra=""
  [ "$2" = compiled ] && extra=", $proof, \"compile_mode\": \"${4:-default}\""
  echo "{\"network\": \"784-100-10\", \"batch\": 256, \"precision\": \"$1\", \"variant\": \"$2\", \"ms_per_epoch\": $3$extra}"
}
ours_row() { # ours_row PREC MODE MS
  echo "{\"network\": \"784-100-10\", \"batch\": 256, \"precision\": \"$1\", \"mode\": \"$2\", \"graphs\": true, \"ms_per_epoch\": $3}"
}
doc() { # doc FILE ROW...: a JSON file of rows (GPU "G", torch "2.11")
  local file="$1"; shift
  local IFS=,
  echo "{\"gpu\": \"G\", \"torch\": \"2.11\", \"training\": [$*]}" >"$file"
}
doc "$work/j/ours1.json" "$(ours_row bf16 fused 8)" "$(ours_row bf16 auto 5)" \
  "$(ours_row fp8 fused 10)"
doc "$work/j/torch1.json" "$(torch_row bf16 eager 200)" "$(torch_row bf16 graph 21)" \
  "$(torch_row bf16 compiled 17)" "$(torch_row fp8 graph 30)" "$(torch_row fp8 compiled 40)"
run python3 "$src/scripts/bench_runs.py" --ours j/ours1.json --torch j/torch1.json
check "table: exit 0" test "$code" = 0
check "table: bf16 best is compiled (17), speedup 17 / ours best 5" \
  grep -Eq "^784-100-10 +256 bf16 +8.00 +5.00 +5.00 auto +200.00 +21.00 +17.00 +17.00 compiled +3.40x +-$" "$work/out"
check "table: fp8 best is graph (compiled is slower), 30 / 10, and bf16 best 17 / 10" \
  grep -Eq "^784-100-10 +256 fp8 +10.00 +- +10.00 fused +- +30.00 +40.00 +30.00 graph +3.00x +1.70x$" "$work/out"

# Run 2: graph is the bf16 best; the two compile modes of one run both count.
doc "$work/j/ours2.json" "$(ours_row bf16 fused 10)" "$(ours_row bf16 auto 4)" \
  "$(ours_row fp8 fused 8)"
doc "$work/j/torch2.json" "$(torch_row bf16 eager 300)" "$(torch_row bf16 graph 16)" \
  "$(torch_row bf16 compiled 18)" "$(torch_row bf16 compiled 19 max-autotune-no-cudagraphs)" \
  "$(torch_row fp8 graph 24)" "$(torch_row fp8 compiled 12 max-autotune-no-cudagraphs)"
run python3 "$src/scripts/bench_runs.py" --ours j/ours1.json j/ours2.json \
  --torch j/torch1.json j/torch2.json
check "over 2 runs: exit 0" test "$code" = 0
check "over 2 runs: torch best per run, named (compiled, then graph)" \
  grep -Eq "^784-100-10 +256 bf16 +torch best +2 +16.50 +16.00-17.00 +- +- +\(compiled,graph\)$" "$work/out"
check "over 2 runs: ours auto against the best of its run (17/5, 16/4)" \
  grep -Eq "^784-100-10 +256 bf16 +ours auto +2 +4.50 +4.00-5.00 +3.70x +3.40-4.00$" "$work/out"
check "over 2 runs: the other compile mode is a row of its own" \
  grep -Eq "^784-100-10 +256 bf16 +torch compiled-autotune +1 +19.00 " "$work/out"
check "over 2 runs: fp8 against torchao's best (30/10, 12/8) and bf16's (17/10, 16/8)" \
  grep -Eq "^784-100-10 +256 fp8 +ours fused +2 +9.00 +8.00-10.00 +2.25x +1.50-3.00  vs bf16 1.85x 1.70-2.00$" "$work/out"

# A compiled row without a passed check is refused, whatever the variant says.
doc "$work/j/bad1.json" "$(torch_row bf16 graph 21)" \
  '{"network": "784-100-10", "batch": 256, "precision": "bf16", "variant": "compiled", "ms_per_epoch": 9, "compiled": true, "compile_check": {"passed": false, "problems": ["1 graph breaks"]}}'
doc "$work/j/bad2.json" \
  '{"network": "784-100-10", "batch": 256, "precision": "fp8", "variant": "graph", "ms_per_epoch": 9, "compiled": true}'
doc "$work/j/bad3.json" \
  '{"network": "784-100-10", "batch": 256, "precision": "bf16", "variant": "compiled", "ms_per_epoch": 9}'
for bad in bad1 bad2 bad3; do
  run python3 "$src/scripts/bench_runs.py" --ours j/ours1.json --torch "j/$bad.json"
  check "table: $bad.json (a compiled row without a passed check): exit 2" test "$code" = 2
  check "table: $bad.json: names the file and the row, and says why" \
    has "j/$bad.json: training row [12] .* is refused: a compiled row without proof"
  run python3 "$src/scripts/bench_merge.py" -o j/m.json j/torch1.json "j/$bad.json"
  check "merge: $bad.json refused too (exit 2)" test "$code" = 2
done
check "table: the failed check's reason is quoted" \
  grep -q "compile_check not passed; 1 graph breaks" <<<"$(cd "$work" &&
    python3 "$src/scripts/bench_runs.py" --ours j/ours1.json --torch j/bad1.json 2>&1)"

# The merge of a split run: two calls' parts, one file each.
doc "$work/j/partA.json" "$(torch_row bf16 eager 200)" "$(torch_row bf16 graph 21)"
doc "$work/j/partB.json" "$(torch_row bf16 compiled 17)" "$(torch_row fp8 graph 30)" \
  "$(torch_row fp8 compiled 40)"
run python3 "$src/scripts/bench_merge.py" -o j/merged.json j/partA.json j/partB.json
check "merge: exit 0" test "$code" = 0
check "merge: says how many rows from how many parts" has "j/merged.json: 5 rows from 2 parts"
check "merge: the merged table equals the one-call table" \
  test "$(cd "$work" && python3 "$src/scripts/bench_runs.py" --ours j/ours1.json \
    --torch j/merged.json)" = "$(cd "$work" && python3 "$src/scripts/bench_runs.py" \
    --ours j/ours1.json --torch j/torch1.json)"
check "merge: the parts are named in the file" \
  python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(d['merged_from'] != ['j/partA.json', 'j/partB.json'] or d['complete'] is not True)" \
  "$work/j/merged.json"
run python3 "$src/scripts/bench_merge.py" -o j/m.json j/partA.json j/torch1.json
check "merge: a row in two parts: exit 2" test "$code" = 2
check "merge: a row in two parts: names both" \
  has "j/torch1.json: training row 1 (784-100-10 256 bf16 relu eager) is also j/partA.json's row 1"
sed 's/"gpu": "G"/"gpu": "H"/' "$work/j/partB.json" >"$work/j/otherGPU.json"
run python3 "$src/scripts/bench_merge.py" -o j/m.json j/partA.json j/otherGPU.json
check "merge: parts from two GPUs: exit 2, named" test "$code" = 2
check "merge: parts from two GPUs: says so" has "parts from more than one gpu"
run python3 "$src/scripts/bench_merge.py" -o j/m.json j/partA.json j/ours1.json
check "merge: a PyTorch part with an ours part: exit 2" test "$code" = 2
check "merge: two kinds: says so" has "parts of two kinds"
doc "$work/j/oursB.json" "$(ours_row fp8 fused 10)"
doc "$work/j/oursA.json" "$(ours_row bf16 fused 8)" "$(ours_row bf16 auto 5)"
run python3 "$src/scripts/bench_merge.py" -o j/ours-merged.json j/oursA.json j/oursB.json
check "merge: ours parts too" test "$code" = 0
check "merge: merged ours give the one-call table" \
  test "$(cd "$work" && python3 "$src/scripts/bench_runs.py" --ours j/ours-merged.json \
    --torch j/merged.json)" = "$(cd "$work" && python3 "$src/scripts/bench_runs.py" \
    --ours j/ours1.json --torch j/torch1.json)"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
