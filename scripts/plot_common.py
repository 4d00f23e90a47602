"""plot_common.py: what plot_log.py, plot_bench.py and bench_runs.py share:
failing with the script's name and an exit code, reading the benchmark JSON
files (exit 2 naming the file, the row and the field), matplotlib on the Agg
backend (exit 3 saying how to install it when missing), and writing the
picture (exit 1 when it cannot be written)."""
import json
import math
import sys


def fail(prog, msg, code=2):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(code)


def load(prog, path, what):
    """The whole document of a benchmark JSON file, after checking that it has
    a "training" list; `what` names the program that writes such files."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        fail(prog, f"{path}: no such file")
    except IsADirectoryError:
        fail(prog, f"{path}: is a folder, not a JSON file")
    except (OSError, UnicodeDecodeError) as e:
        fail(prog, f"{path}: cannot read: {e}")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        fail(prog, f"{path}: bad JSON at line {e.lineno}, column {e.colno}: {e.msg} "
             f"(expected {what} output)")
    if not isinstance(doc, dict) or not isinstance(doc.get("training"), list):
        fail(prog, f"{path}: no \"training\" list at the top level (expected {what} output)")
    return doc


def field(prog, path, i, row, key, types, optional=False, default=None):
    """Training row i's `key`, checked to be one of `types` (exit 2 naming the
    file, the row and the key when it is not, or is missing and not optional)."""
    if not isinstance(row, dict):
        fail(prog, f"{path}: training row {i + 1} is not an object")
    if key not in row:
        if optional:
            return default
        fail(prog, f"{path}: training row {i + 1} has no \"{key}\"")
    v = row[key]
    if not isinstance(v, types) or isinstance(v, bool) and bool not in types:
        fail(prog, f"{path}: training row {i + 1}: \"{key}\" is {json.dumps(v)}, "
             f"expected {' or '.join(t.__name__ for t in types)}")
    return v


def ms(prog, path, i, row):
    """Training row i's "ms_per_epoch", a finite number > 0."""
    v = field(prog, path, i, row, "ms_per_epoch", (int, float))
    if not math.isfinite(v) or v <= 0:
        fail(prog, f"{path}: training row {i + 1}: \"ms_per_epoch\" is {v}, expected > 0")
    return float(v)


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
