#!/usr/bin/env python3
"""plot_log.py LOG.csv [LOG2.csv ...] -o curves.png: training curves from the
CSV files `mnist_train --log FILE` writes, one colour per run (labelled with
the file's name without .csv). Two panels side by side: the loss per epoch
(train dashed, test solid, log scale) and the test accuracy in % per epoch.

  scripts/plot_log.py docs/logs/bf16-fused.csv docs/logs/bf16-unfused.csv \\
      docs/logs/bf16-auto.csv -o docs/curves.png

Needs matplotlib (pip install matplotlib); draws with the Agg backend, no
display needed.
Exit code: 0 when the picture is written; 2 for bad usage or a bad log (a
missing or unreadable file, one that is not a regular file or is over 64
MiB, a wrong header, no rows, a row that is not numbers), naming the file;
3 without matplotlib; 1 when the picture cannot be written.
"""
import argparse
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROG = "plot_log.py"
HEADER = ["epoch", "train_loss", "train_accuracy", "test_loss", "test_accuracy",
          "train_ms", "test_ms", "samples_per_s"]


def fail(msg, code=2):
    plot_common.fail(PROG, msg, code)


def read_log(path):
    """The rows of one log as dicts of floats (epoch as int), checked."""
    text = plot_common.read_text(PROG, path, "a log file of mnist_train --log")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        fail(f"{path}: cannot read: {e}")
    rows = [r for r in rows if any(c.strip() for c in r)]  # blank lines
    if not rows:
        fail(f"{path}: empty file; expected the header {','.join(HEADER)}")
    header = [c.strip() for c in rows[0]]
    if header and header[0].startswith("\ufeff"):
        header[0] = header[0][1:]
    if header != HEADER:
        fail(f"{path}: wrong header '{','.join(rows[0])}'; expected "
             f"'{','.join(HEADER)}' (a file written by mnist_train --log)")
    if len(rows) == 1:
        fail(f"{path}: no rows after the header (no epoch was logged)")
    out = []
    for line, r in enumerate(rows[1:], start=2):
        if len(r) != len(HEADER):
            fail(f"{path}: line {line}: {len(r)} fields, expected {len(HEADER)}")
        try:
            vals = [float(c) for c in r]
        except ValueError:
            fail(f"{path}: line {line}: not a number in '{','.join(r)}'")
        rec = dict(zip(HEADER, vals))
        if not math.isfinite(rec["epoch"]) or rec["epoch"] != int(rec["epoch"]):
            fail(f"{path}: line {line}: epoch '{r[0]}' is not a whole number")
        rec["epoch"] = int(rec["epoch"])
        out.append(rec)
    return out


def labels_for(paths):
    """The file stems, with the parent folder added where two stems clash."""
    stems = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    labels = []
    for p, s in zip(paths, stems):
        if stems.count(s) > 1:
            parent = os.path.basename(os.path.dirname(os.path.abspath(p)))
            s = f"{parent}/{s}"
        labels.append(s)
    return labels


def main():
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+", metavar="LOG.csv",
                    help="files written by mnist_train --log")
    ap.add_argument("-o", "--output", required=True, metavar="PNG",
                    help="the picture to write (PNG)")
    ap.add_argument("--dpi", type=int, default=100, help="resolution (default 100)")
    ap.add_argument("--title", default=None, help="a title above both panels")
    args = ap.parse_args()
    if args.dpi < 10 or args.dpi > 1000:
        fail(f"--dpi {args.dpi}: expected 10 to 1000")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        fail(f"-o {args.output}: no folder {out_dir}")

    runs = [(label, read_log(p)) for label, p in zip(labels_for(args.logs), args.logs)]

    plt = plot_common.pyplot(PROG)
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    for i, (label, rows) in enumerate(runs):
        c = colors[i % len(colors)]
        ep = [r["epoch"] for r in rows]
        ax_loss.plot(ep, [r["train_loss"] for r in rows], "--", color=c, marker=".")
        ax_loss.plot(ep, [r["test_loss"] for r in rows], "-", color=c, marker=".")
        final = rows[-1]["test_accuracy"] * 100
        ax_acc.plot(ep, [r["test_accuracy"] * 100 for r in rows], "-", color=c,
                    marker="o", markersize=4, label=f"{label} ({final:.2f} %)")

    ax_loss.set_title("cross-entropy loss")
    ax_loss.set_xlabel("epoch")
    ax_loss.set_ylabel("loss")
    if all(r[k] > 0 for _, rows in runs for r in rows for k in ("train_loss", "test_loss")):
        ax_loss.set_yscale("log")
    styles = [Line2D([], [], color="gray", linestyle="--", label="train"),
              Line2D([], [], color="gray", linestyle="-", label="test")]
    runs_legend = [Line2D([], [], color=colors[i % len(colors)], label=label)
                   for i, (label, _) in enumerate(runs)]
    ax_loss.legend(handles=styles + runs_legend, fontsize="small")

    ax_acc.set_title("test accuracy")
    ax_acc.set_xlabel("epoch")
    ax_acc.set_ylabel("test accuracy (%)")
    ax_acc.legend(fontsize="small", loc="lower right", title="run (last epoch)",
                  title_fontsize="small")
    for ax in (ax_loss, ax_acc):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, which="major", alpha=0.3)
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    plot_common.save(PROG, fig, args.output, args.dpi)
    print(f"{PROG}: wrote {args.output} ({len(runs)} run{'s' if len(runs) != 1 else ''})")


if __name__ == "__main__":
    main()
