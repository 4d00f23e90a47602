#!/usr/bin/env python3
"""bench_runs.py --ours OURS.json [...] [--torch TORCH.json [...]]: ours
(`mnist_bench --json`, the rows with CUDA graphs) against PyTorch
(`scripts/bench_pytorch.py --json`), per network, batch and precision;
scripts/bench_compare.sh calls it after its runs, the files in run order.
A run split across GPU calls is first merged into one file per program
(scripts/bench_merge.py).

"PyTorch best" is, per network, batch, precision and activation, the fastest
PyTorch variant of the same run (eager, graph, compiled, compiled-autotune);
a compiled row counts only with its compile check passed, and a file with a
row that claims to be compiled without that proof is refused (exit 2). FP8
rows are torchao's; our FP8 rows are also set against PyTorch's BF16 best.
With one OURS file: one table, ours fused, auto and best (the fastest mode)
against PyTorch's variants and its best, speedup = PyTorch best / our best,
and for FP8 "vs bf16" = PyTorch BF16 best / our FP8 best.
With K OURS files (and K TORCH files, or none): one line per row (network,
batch, precision, and our mode, our best, a PyTorch variant or PyTorch's
best) with the median over the runs of each run's median ms per epoch, its
range (min-max over the runs), and for our rows the speedup PyTorch best /
ours taken in each run, as the median over the runs with its range (FP8
rows: then the same against PyTorch's BF16 best); PyTorch's best row names
the variant that was best in each run.
Exit code 0; 2 for bad usage or a bad file (naming it).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402
from plot_common import variant_label  # noqa: E402

PROG = "bench_runs.py"
PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8")


def read_ours(path):
    """{(network, batch, precision, activation): {mode: ms}} of the rows with
    CUDA graphs; a mode with padded units is named MODE+pad. (An older
    mnist_bench wrote "math": "FP32" | "FP32*" | "TF32" for the precision.)"""
    doc = plot_common.load(PROG, path, "mnist_bench --json")
    mine = {}
    for i, o in enumerate(doc["training"]):
        if not plot_common.field(PROG, path, i, o, "graphs", (bool,)):
            continue
        prec = plot_common.field(PROG, path, i, o, "precision", (str,), True,
                                 plot_common.field(PROG, path, i, o, "math", (str,), True, ""))
        key = (plot_common.field(PROG, path, i, o, "network", (str,)),
               plot_common.field(PROG, path, i, o, "batch", (int,)), prec.lower(),
               plot_common.field(PROG, path, i, o, "activation", (str,), True, "relu"))
        mode = plot_common.field(PROG, path, i, o, "mode", (str,))
        if plot_common.field(PROG, path, i, o, "pad_units", (bool,), True, False):
            mode += "+pad"
        mine.setdefault(key, {})[mode] = plot_common.ms(PROG, path, i, o)
    return doc.get("gpu"), mine


def read_torch(path):
    """{(network, batch, precision, activation): {variant label: ms}}, every
    compiled row checked to carry its passed compile check."""
    doc = plot_common.load(PROG, path, "bench_pytorch.py --json")
    if doc.get("complete") is False:
        print(f"{PROG}: note: {path}: " + (
            f"{len(doc['training'])} of {doc['rows_planned']} planned rows (its run stopped "
            "early)" if "rows_planned" in doc else "a part's run stopped early"))
    peer = {}
    for i, t in enumerate(doc["training"]):
        key = (plot_common.field(PROG, path, i, t, "network", (str,)),
               plot_common.field(PROG, path, i, t, "batch", (int,)),
               plot_common.field(PROG, path, i, t, "precision", (str,)),
               plot_common.field(PROG, path, i, t, "activation", (str,), True, "relu"))
        variant = plot_common.field(PROG, path, i, t, "variant", (str,))
        mode = plot_common.field(PROG, path, i, t, "compile_mode", (str,), True, "default")
        plot_common.check_compiled(PROG, path, i, t)
        label = variant_label(variant, mode)
        if label in peer.get(key, {}):
            plot_common.fail(PROG, f"{path}: training row {i + 1}: a second {label} row for "
                             f"{' '.join(map(str, key))}")
        peer.setdefault(key, {})[label] = plot_common.ms(PROG, path, i, t)
    return doc.get("gpu"), peer


def keys_in_order(runs):
    """Every (network, batch, precision, activation) of the runs: ReLU then
    GELU, networks as they first appear, precisions in PRECISIONS order
    (others are left out, as are other activations)."""
    keys = list(dict.fromkeys(k for mine, peer in runs for k in list(mine) + list(peer)))
    nets = list(dict.fromkeys(k[:2] for k in keys))
    order = [(n + (p, a)) for a in ("relu", "gelu") for n in nets for p in PRECISIONS]
    return [k for k in order if k in keys]


def best(modes):
    """(mode, ms) of the fastest of our modes or PyTorch's variants, or None."""
    return min(modes.items(), key=lambda m: m[1], default=None)


def bf16_key(key):
    """The PyTorch BF16 row an FP8 row is also set against."""
    return (key[0], key[1], "bf16", key[3])


def ratio(ref, ours):
    return f"{ref / ours:.2f}x" if ref is not None and ours is not None else "-"


def one_run(mine, peer):
    def ms(v):
        return f"{v:.2f}" if v is not None else "-"

    print("\nours (CUDA graphs) against PyTorch in the same precision, same GPU, same run;"
          " ms per epoch; torch best = the fastest PyTorch variant (compiled ones with their"
          " compile check passed);")
    print("speedup = torch best / our best; fp8: torch is torchao, and vs bf16 = PyTorch's"
          " bf16 best / our fp8 best")
    head = ("network", "batch", "prec", "ours fused", "ours auto", "ours best", "(mode)",
            "torch eager", "torch graph", "torch compiled", "torch best", "(variant)",
            "speedup", "vs bf16")
    fmt = ("{:18s} {:>6} {:7s} {:>10} {:>10} {:>10} {:8s} {:>11} {:>11} {:>14} {:>10} "
           "{:17s} {:>8} {:>8}")
    print(fmt.format(*head))
    for key in keys_in_order([(mine, peer)]):
        modes, variants = mine.get(key, {}), peer.get(key, {})
        if not modes and not variants:
            continue
        top, ref = best(modes), best(variants)
        compiled = best({v: t for v, t in variants.items() if v.startswith("compiled")})
        bf16 = best(peer.get(bf16_key(key), {})) if key[2] == "fp8" else None
        print(fmt.format(key[0], key[1], key[2] + ("/g" if key[3] == "gelu" else ""),
                         ms(modes.get("fused")), ms(modes.get("auto")),
                         ms(top[1] if top else None), top[0] if top else "-",
                         ms(variants.get("eager")), ms(variants.get("graph")),
                         ms(compiled[1] if compiled else None), ms(ref[1] if ref else None),
                         ref[0] if ref else "-",
                         ratio(ref and ref[1], top and top[1]),
                         ratio(bf16 and bf16[1], top and top[1])))


def spread(values, fmt):
    """'median  min-max' of values, each formatted with fmt."""
    if not values:
        return "-", "-"
    return fmt.format(statistics.median(values)), \
        fmt.format(min(values)) + "-" + fmt.format(max(values))


def many_runs(runs, gpus):
    k = len(runs)
    print(f"\nours (CUDA graphs) against PyTorch in the same precision over {k} runs;"
          f" the runs share one machine and one GPU ({', '.join(gpus) or 'unnamed'}),"
          " one after the other in one call of bench_compare.sh (or merged parts).")
    print("ms per epoch: the median over the runs of each run's median, and its range"
          " (min-max over the runs);")
    print("torch best = the fastest PyTorch variant of each run (compiled ones with their"
          " compile check passed), the variant named per run;")
    print("speedup = PyTorch best / ours in the same run: the median over the runs,"
          " and its range; fp8 rows (torch: torchao) then the same against PyTorch's bf16"
          " best; 'runs' counts the runs that have the row.")
    fmt = "{:18s} {:>6} {:7s} {:23s} {:>4} {:>10} {:>17} {:>8} {:>13}"
    print(fmt.format("network", "batch", "prec", "row", "runs", "median ms", "range",
                     "speedup", "range"))
    for key in keys_in_order(runs):
        prec = key[2] + ("/g" if key[3] == "gelu" else "")
        per_run = [(mine.get(key, {}), peer.get(key, {})) for mine, peer in runs]
        refs = [best(v) for _, v in per_run]
        bf16s = [best(peer.get(bf16_key(key), {})) for _, peer in runs]
        modes = list(dict.fromkeys(m for modes, _ in per_run for m in modes))
        rows = [(f"ours {m}", [modes_.get(m) for modes_, _ in per_run]) for m in modes]
        if modes:
            rows.append(("ours best", [t[1] if (t := best(m)) else None for m, _ in per_run]))
        variants = list(dict.fromkeys(v for _, vs in per_run for v in vs))
        torch_rows = [(f"torch {v}", [vs.get(v) for _, vs in per_run]) for v in variants]
        if variants:
            torch_rows.append(("torch best", [r[1] if r else None for r in refs]))
        for name, times in rows:
            line = run_line(key, prec, name, times, [r and r[1] for r in refs], fmt)
            if key[2] == "fp8":
                r = [b / t for t, b in zip(times, [b and b[1] for b in bf16s])
                     if t is not None and b is not None]
                rmed, rrng = spread(r, "{:.2f}")
                line += f"  vs bf16 {rmed}{'x' if r else ''} {rrng}"
            print(line)
        for name, times in torch_rows:
            line = run_line(key, prec, name, times, [None] * len(times), fmt)
            if name == "torch best":
                line += "  (" + ",".join(r[0] if r else "-" for r in refs) + ")"
            print(line)


def run_line(key, prec, name, times, refs, fmt):
    """One row over the runs: median and range of its times, and of the
    speedups ref / time within each run."""
    have = [t for t in times if t is not None]
    ratios = [g / t for t, g in zip(times, refs) if t is not None and g is not None]
    med, rng = spread(have, "{:.2f}")
    rmed, rrng = spread(ratios, "{:.2f}")
    return fmt.format(key[0], key[1], prec, name, len(have), med, rng,
                      rmed + ("x" if ratios else ""), rrng)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", nargs="+", required=True, metavar="OURS.json",
                    help="mnist_bench --json output, one file per run")
    ap.add_argument("--torch", nargs="+", default=[], metavar="TORCH.json",
                    help="bench_pytorch.py --json output, one file per run, same order")
    args = ap.parse_args()
    if args.torch and len(args.torch) != len(args.ours):
        plot_common.fail(PROG, f"--torch: expected one file per --ours file "
                         f"({len(args.ours)}), found {len(args.torch)}")
    runs, gpus = [], []
    for i, path in enumerate(args.ours):
        gpu, mine = read_ours(path)
        tgpu, peer = read_torch(args.torch[i]) if args.torch else (None, {})
        for g in (gpu, tgpu):
            if isinstance(g, str) and g not in gpus:
                gpus.append(g)
        runs.append((mine, peer))
    if len(runs) == 1:
        one_run(*runs[0])
    else:
        many_runs(runs, gpus)


if __name__ == "__main__":
    main()
