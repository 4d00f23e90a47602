#!/usr/bin/env python3
"""bench_merge.py -o OUT.json PART.json [...]: one benchmark JSON from the
parts of a run split across GPU calls, for scripts/bench_runs.py and
scripts/plot_bench.py. The parts are all `mnist_bench --json` files or all
`scripts/bench_pytorch.py --json` files (not a mix), from one GPU model (and,
for PyTorch, one torch version); their rows are concatenated in the order
given. A row that two parts both hold (same network, batch, precision,
activation and our mode, padding, graphs and chain, or PyTorch variant and
compile mode) is refused: each row must come from one part.

OUT keeps the top-level fields that every part has with one value; the
others (for mnist_bench: the matmul rates and launch cost each call
measured) are left out and named in "differs_between_parts". It adds
"merged_from" (the parts, in order) and "complete" (false when a part says
its run stopped early). A merged run's rows come from different GPU
calls: a margin between rows of different parts carries the spread between
calls (docs/performance.md says how large it was measured).

  # call 1 and call 2 on the GPU machine, each its own folder:
  BENCH_JSON_DIR=out/c1 TORCH_BENCH_FLAGS="--networks 100:256,1024-1024:256" \\
      scripts/bench_compare.sh build -- --network seed
  ...
  # afterwards, anywhere:
  scripts/bench_merge.py -o out/ours.json out/c1/ours.json out/c2/ours.json
  scripts/bench_merge.py -o out/torch.json out/c1/torch.json out/c2/torch.json
  scripts/bench_runs.py --ours out/ours.json --torch out/torch.json

Exit code: 0 when OUT is written; 2 for bad usage or a bad part (naming it:
missing, not JSON, parts of two kinds, GPUs or torch versions, a row twice,
a compiled row without its passed compile check); 1 when OUT cannot be
written.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROG = "bench_merge.py"


def fail(msg, code=2):
    plot_common.fail(PROG, msg, code)


def kind_of(path, doc):
    """'torch' (rows with a variant), 'ours' (rows with a mode) or None
    (no rows)."""
    kinds = {"torch" if "variant" in r else "ours" if "mode" in r else "?"
             for r in doc["training"] if isinstance(r, dict)}
    if "?" in kinds or len(kinds) > 1 or len(doc["training"]) != sum(
            isinstance(r, dict) for r in doc["training"]):
        fail(f"{path}: rows of neither or both kinds (a \"variant\" for PyTorch, a \"mode\" "
             f"for mnist_bench)")
    return kinds.pop() if kinds else None


def row_key(path, i, row, kind):
    """What names a row in a table: two parts must not both hold it."""
    f = plot_common.field
    common = (f(PROG, path, i, row, "network", (str,)), f(PROG, path, i, row, "batch", (int,)),
              f(PROG, path, i, row, "precision", (str,), True,
                f(PROG, path, i, row, "math", (str,), True, "")).lower(),
              f(PROG, path, i, row, "activation", (str,), True, "relu"))
    if kind == "torch":
        return common + (plot_common.variant_label(
            f(PROG, path, i, row, "variant", (str,)),
            f(PROG, path, i, row, "compile_mode", (str,), True, "default")),)
    return common + (f(PROG, path, i, row, "mode", (str,)),
                     f(PROG, path, i, row, "pad_units", (bool,), True, False),
                     f(PROG, path, i, row, "graphs", (bool,)),
                     f(PROG, path, i, row, "chain", (str,), True, "none"))


def merge(paths):
    """The merged document of the parts."""
    docs = [(p, plot_common.load(PROG, p, "mnist_bench or bench_pytorch.py --json")) for p in paths]
    kinds = {p: kind_of(p, d) for p, d in docs}
    named = {k for k in kinds.values() if k}
    if len(named) > 1:
        fail("parts of two kinds: " + ", ".join(f"{p} ({k or 'no rows'})" for p, k in kinds.items()))
    for field in ("gpu", "torch"):
        values = {p: d.get(field) for p, d in docs if d.get(field) is not None}
        if len(set(values.values())) > 1:
            fail(f"parts from more than one {field}: "
                 + ", ".join(f"{p}: {v}" for p, v in values.items()))
    seen, rows = {}, []
    for p, d in docs:
        kind = kinds[p]
        for i, row in enumerate(d["training"]):
            if kind == "torch":
                plot_common.check_compiled(PROG, p, i, row)  # no merge launders one
            key = row_key(p, i, row, kind)
            if key in seen:
                fail(f"{p}: training row {i + 1} ({' '.join(map(str, key))}) is also "
                     f"{seen[key]}: each row must come from one part")
            seen[key] = f"{p}'s row {i + 1}"
            rows.append(row)
    out, differ = {}, []
    for key in dict.fromkeys(k for _, d in docs for k in d):
        if key in ("training", "rows_planned", "complete", "merged_from"):
            continue
        values = [json.dumps(d[key], sort_keys=True) for _, d in docs if key in d]
        if len(set(values)) == 1 and len(values) == len(docs):
            out[key] = next(d[key] for _, d in docs)
        else:
            differ.append(key)
    if differ:
        out["differs_between_parts"] = differ  # e.g. each call's own matmul rates
    out["complete"] = all(d.get("complete", True) is not False for _, d in docs)
    out["merged_from"] = list(paths)
    out["training"] = rows
    return out


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("-o", "--output", required=True, metavar="OUT.json")
    ap.add_argument("parts", nargs="+", metavar="PART.json")
    args = ap.parse_args()
    if os.path.abspath(args.output) in map(os.path.abspath, args.parts):
        fail(f"-o {args.output}: is also a part; write the merge elsewhere")
    doc = merge(args.parts)
    tmp = f"{args.output}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
        os.replace(tmp, args.output)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        fail(f"cannot write {args.output}: {e}", 1)
    print(f"{PROG}: {args.output}: {len(doc['training'])} rows from {len(args.parts)} parts"
          + ("" if doc["complete"] else " (some part's run stopped early)"))


if __name__ == "__main__":
    main()
