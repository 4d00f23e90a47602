#!/usr/bin/env python3
"""plot_bench.py BENCH.json... [--torch TORCH.json...] -o bench.png: ms per
epoch as grouped bars (log scale), one panel per network (and batch), one
group per precision, one bar each for our fused, unfused and auto rows and,
with --torch, PyTorch compiled (torch.compile, the step in a CUDA graph; its
max-autotune-no-cudagraphs rows apart), graphed, and eager (hatched). Our
rows drawn are those with CUDA graphs, without --pad-units and with ReLU
(rows without an "activation" are ReLU); so are PyTorch's.
Several files of each program are runs of the same rows: a bar is the
median over the files that have its row, and a line on it spans their
minimum to maximum (scripts/bench_compare.sh --runs N leaves ours-K.json and
torch-K.json per run K). Every file after --torch is a PyTorch file, so give
ours first. A compiled PyTorch row without its passed compile check (the
proof bench_pytorch.py writes) is refused, as bench_runs.py refuses it.

  scripts/plot_bench.py docs/bench/ours-[123].json \\
      --torch docs/bench/torch-[123].json -o docs/bench.png

BENCH.json is what `mnist_bench --json FILE` writes, TORCH.json what
`scripts/bench_pytorch.py --json FILE` writes (scripts/bench_compare.sh with
BENCH_JSON_DIR=DIR leaves both there). Needs matplotlib (pip install
matplotlib); draws with the Agg backend, no display needed.
Exit code: 0 when the picture is written; 2 for bad usage or a bad file (a
missing file, bad JSON, rows without the fields, nothing to draw), naming
the file; 3 without matplotlib; 1 when the picture cannot be written.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROG = "plot_bench.py"
PRECISIONS = ["fp32", "tf32", "bf16", "fp16", "fp8"]
OURS_MODES = ["fused", "unfused", "auto"]
TORCH_VARIANTS = ["compiled", "compiled-autotune", "graph", "eager"]
# series: (key, legend label, colour, hatch)
SERIES = [(("ours", "fused"), "ours fused", "#1f77b4", None),
          (("ours", "unfused"), "ours unfused", "#aec7e8", None),
          (("ours", "auto"), "ours auto", "#2ca02c", None),
          (("torch", "compiled"), "PyTorch compiled+graph", "#d62728", None),
          (("torch", "compiled-autotune"), "PyTorch compiled (autotune)+graph", "#ff9896",
           None),
          (("torch", "graph"), "PyTorch graph", "#ff7f0e", None),
          (("torch", "eager"), "PyTorch eager", "#ffbb78", "//")]


def fail(msg, code=2):
    plot_common.fail(PROG, msg, code)


def load(path, what):
    return plot_common.load(PROG, path, what)


def field(path, i, row, key, types, optional=False, default=None):
    return plot_common.field(PROG, path, i, row, key, types, optional, default)


def ms(path, i, row):
    return plot_common.ms(PROG, path, i, row)


def over_runs(values):
    """A bar's (median, minimum, maximum) over its runs' ms per epoch."""
    v = sorted(values)
    return statistics.median(v), v[0], v[-1]


def main():
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", metavar="BENCH.json", nargs="+",
                    help="mnist_bench --json output, one file per run")
    ap.add_argument("--torch", metavar="TORCH.json", nargs="+",
                    help="scripts/bench_pytorch.py --json output, one file per run")
    ap.add_argument("-o", "--output", required=True, metavar="PNG",
                    help="the picture to write (PNG)")
    ap.add_argument("--no-eager", action="store_true", help="leave PyTorch eager out")
    ap.add_argument("--dpi", type=int, default=100, help="resolution (default 100)")
    args = ap.parse_args()
    if args.dpi < 10 or args.dpi > 1000:
        fail(f"--dpi {args.dpi}: expected 10 to 1000")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        fail(f"-o {args.output}: no folder {out_dir}")

    # values[(network, batch)][precision][series key][path] = ms per epoch
    values = {}
    panels = []  # (network, batch) in order of first appearance

    def put(path, net, batch, prec, key, v):
        p = (net, batch)
        if p not in values:
            values[p] = {}
            panels.append(p)
        runs = values[p].setdefault(prec, {}).setdefault(key, {})
        if path in runs:
            print(f"{PROG}: {path}: a second {' '.join(key)} row for {net}, batch {batch}, "
                  f"{prec}; the first is drawn", file=sys.stderr)
            return
        runs[path] = v

    gpu = None
    for path in args.bench:
        doc = load(path, "mnist_bench --json")
        if gpu is None and isinstance(doc.get("gpu"), str):
            gpu = doc["gpu"]
        for i, row in enumerate(doc["training"]):
            net = field(path, i, row, "network", (str,))
            batch = field(path, i, row, "batch", (int,))
            mode = field(path, i, row, "mode", (str,))
            prec = field(path, i, row, "precision", (str,))
            graphs = field(path, i, row, "graphs", (bool,))
            pad = field(path, i, row, "pad_units", (bool,), optional=True, default=False)
            act = field(path, i, row, "activation", (str,), optional=True, default="relu")
            v = ms(path, i, row)
            if mode in OURS_MODES and graphs and not pad and act == "relu":
                put(path, net, batch, prec, ("ours", mode), v)
    torch_version = None
    for path in args.torch or []:
        tdoc = load(path, "bench_pytorch.py --json")
        if torch_version is None and isinstance(tdoc.get("torch"), str):
            torch_version = tdoc["torch"]
        if gpu is None and isinstance(tdoc.get("gpu"), str):
            gpu = tdoc["gpu"]
        for i, row in enumerate(tdoc["training"]):
            plot_common.check_compiled(PROG, path, i, row)  # never drawn as compiled
            net = field(path, i, row, "network", (str,))
            batch = field(path, i, row, "batch", (int,))
            prec = field(path, i, row, "precision", (str,))
            variant = plot_common.variant_label(
                field(path, i, row, "variant", (str,)),
                field(path, i, row, "compile_mode", (str,), optional=True, default="default"))
            act = field(path, i, row, "activation", (str,), optional=True, default="relu")
            v = ms(path, i, row)
            if variant in TORCH_VARIANTS and act == "relu" and \
                    not (args.no_eager and variant == "eager"):
                put(path, net, batch, prec, ("torch", variant), v)
    for cells in values.values():
        for cell in cells.values():
            for key, runs in cell.items():
                cell[key] = over_runs(runs.values())
    if not panels:
        fail(f"{' '.join(args.bench)}: no rows to draw (rows with mode fused, unfused or auto, "
             f"graphs true, pad_units false, activation relu)")

    series = [s for s in SERIES
              if any(s[0] in cell for p in panels for cell in values[p].values())]

    plt = plot_common.pyplot(PROG)
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(max(4.6 * n, 6), 4.4), squeeze=False)
    width = 0.8 / len(series)
    for ax, p in zip(axes[0], panels):
        precs = [q for q in PRECISIONS if q in values[p]] + \
                sorted(q for q in values[p] if q not in PRECISIONS)
        for j, (key, _label, color, hatch) in enumerate(series):
            xs, ys, lows, highs = [], [], [], []
            for g, q in enumerate(precs):
                if key in values[p][q]:
                    mid, low, high = values[p][q][key]
                    xs.append(g + (j - (len(series) - 1) / 2) * width)
                    ys.append(mid)
                    lows.append(mid - low)
                    highs.append(high - mid)
            if not xs:
                continue
            bars = ax.bar(xs, ys, width, color=color, hatch=hatch,
                          edgecolor="#555555" if hatch else color, linewidth=0.5)
            if any(lows) or any(highs):
                ax.errorbar(xs, ys, yerr=[lows, highs], fmt="none", ecolor="#222222",
                            elinewidth=0.6, capsize=1.5)
            for b, y in zip(bars, ys):
                text = f"{y:.0f}" if y >= 100 else f"{y:.1f}" if y >= 10 else f"{y:.2f}"
                ax.annotate(text, (b.get_x() + b.get_width() / 2, y),
                            xytext=(0, 2), textcoords="offset points", ha="center",
                            va="bottom", fontsize=6, rotation=90)
        ax.set_yscale("log")
        lo = min(v[1] for cell in values[p].values() for k, v in cell.items()
                 if k in [s[0] for s in series])
        hi = max(v[2] for cell in values[p].values() for k, v in cell.items()
                 if k in [s[0] for s in series])
        ax.set_ylim(lo / 1.6, hi * 1.8)  # room for the labels on the tallest bars
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(range(len(precs)))
        ax.set_xticklabels(precs)
        ax.set_title(f"{p[0]}, batch {p[1]}", fontsize="medium")
        ax.grid(True, axis="y", which="both", alpha=0.25)
        ax.set_axisbelow(True)
    axes[0][0].set_ylabel("ms per epoch (log scale; lower is better)")
    handles = [Patch(facecolor=c, edgecolor="#555555" if h else c, hatch=h, label=lab)
               for _k, lab, c, h in series]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize="small",
               frameon=False)
    title = f"MNIST MLP training, ms per epoch on {gpu or 'an unnamed GPU'}"
    if torch_version:
        title += f" (PyTorch {torch_version})"
    runs = max(len(args.bench), len(args.torch or []))
    if runs > 1:
        title += f"\nmedian of {runs} runs; lines: min to max"
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    plot_common.save(PROG, fig, args.output, args.dpi)
    print(f"{PROG}: wrote {args.output} ({n} network{'s' if n != 1 else ''})")


if __name__ == "__main__":
    main()
