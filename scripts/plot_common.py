"""plot_common.py: what plot_log.py and plot_bench.py share: failing with
the script's name and an exit code, matplotlib on the Agg backend (exit 3
saying how to install it when missing), and writing the picture (exit 1
when it cannot be written)."""
import sys


def fail(prog, msg, code=2):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(code)


def pyplot(prog):
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(prog, "needs matplotlib: pip install matplotlib", 3)
    return plt


def save(prog, fig, path, dpi):
    try:
        fig.savefig(path, dpi=dpi, metadata={"Software": None})
    except (OSError, ValueError) as e:
        fail(prog, f"cannot write {path}: {e}", 1)
