#!/usr/bin/env python3
"""bench_runs.py --ours OURS.json [...] [--torch TORCH.json [...]]: ours
(`mnist_bench --json`, the rows with CUDA graphs) against PyTorch
(`scripts/bench_pytorch.py --json`), per network, batch and precision;
scripts/bench_compare.sh calls it after its runs, the files in run order.

With one OURS file: one table, ours fused, auto and best (the fastest mode)
against PyTorch eager and graphed, speedup = PyTorch graph / our best.
With K OURS files (and K TORCH files, or none): one line per row (network,
batch, precision, and our mode, our best or a PyTorch variant) with the
median over the runs of each run's median ms per epoch, its range (min-max
over the runs), and for our rows the speedup PyTorch graph / ours taken in
each run, as the median over the runs with its range.
Exit code 0; 2 for bad usage or a bad file (naming it).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

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
    """{(network, batch, precision, activation): {variant: ms}}."""
    doc = plot_common.load(PROG, path, "bench_pytorch.py --json")
    peer = {}
    for i, t in enumerate(doc["training"]):
        key = (plot_common.field(PROG, path, i, t, "network", (str,)),
               plot_common.field(PROG, path, i, t, "batch", (int,)),
               plot_common.field(PROG, path, i, t, "precision", (str,)),
               plot_common.field(PROG, path, i, t, "activation", (str,), True, "relu"))
        variant = plot_common.field(PROG, path, i, t, "variant", (str,))
        peer.setdefault(key, {})[variant] = plot_common.ms(PROG, path, i, t)
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
    """(mode, ms) of the fastest of our modes, or None."""
    return min(modes.items(), key=lambda m: m[1], default=None)


def one_run(mine, peer):
    def ms(v):
        return f"{v:.2f}" if v is not None else "-"

    print("\nours (CUDA graphs) against PyTorch in the same precision, same GPU, same run;"
          " ms per epoch, speedup = PyTorch graph / our best")
    head = ("network", "batch", "prec", "ours fused", "ours auto", "ours best", "(mode)",
            "torch eager", "torch graph", "speedup")
    fmt = "{:18s} {:>6} {:7s} {:>10} {:>10} {:>10} {:8s} {:>11} {:>11} {:>8}"
    print(fmt.format(*head))
    for key in keys_in_order([(mine, peer)]):
        modes, variants = mine.get(key, {}), peer.get(key, {})
        if not modes and "eager" not in variants and "graph" not in variants:
            continue
        top, graph = best(modes), variants.get("graph")
        speedup = f"{graph / top[1]:.2f}x" if top and graph else "-"
        print(fmt.format(key[0], key[1], key[2] + ("/g" if key[3] == "gelu" else ""),
                         ms(modes.get("fused")), ms(modes.get("auto")),
                         ms(top[1] if top else None), top[0] if top else "-",
                         ms(variants.get("eager")), ms(variants.get("graph")), speedup))


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
          " one after the other in one call of bench_compare.sh.")
    print("ms per epoch: the median over the runs of each run's median, and its range"
          " (min-max over the runs);")
    print("speedup = PyTorch graph / ours in the same run: the median over the runs,"
          " and its range; 'runs' counts the runs that have the row.")
    fmt = "{:18s} {:>6} {:7s} {:16s} {:>4} {:>10} {:>17} {:>8} {:>13}"
    print(fmt.format("network", "batch", "prec", "row", "runs", "median ms", "range",
                     "speedup", "range"))
    for key in keys_in_order(runs):
        prec = key[2] + ("/g" if key[3] == "gelu" else "")
        per_run = [(mine.get(key, {}), peer.get(key, {})) for mine, peer in runs]
        modes = list(dict.fromkeys(m for modes, _ in per_run for m in modes))
        rows = [(f"ours {m}", [(modes.get(m), v.get("graph")) for modes, v in per_run])
                for m in modes]
        if modes:
            tops = [best(m) for m, _ in per_run]
            rows.append(("ours best", [(t[1] if t else None, v.get("graph"))
                                       for t, (_, v) in zip(tops, per_run)]))
        variants = list(dict.fromkeys(v for _, vs in per_run for v in vs))
        rows += [(f"torch {v}", [(vs.get(v), None) for _, vs in per_run]) for v in variants]
        for name, pairs in rows:
            times = [t for t, _ in pairs if t is not None]
            ratios = [g / t for t, g in pairs if t is not None and g is not None]
            med, rng = spread(times, "{:.2f}")
            rmed, rrng = spread(ratios, "{:.2f}")
            print(fmt.format(key[0], key[1], prec, name, len(times), med, rng,
                             rmed + ("x" if ratios else ""), rrng))


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
