"""plot_common.py: what plot_log.py, plot_bench.py, bench_runs.py,
bench_merge.py and bench_pytorch.py share: failing with the script's name
and an exit code, reading the benchmark JSON files (exit 2 naming the file,
the row and the field), the name of a PyTorch row's variant, matplotlib on
the Agg backend (exit 3 saying how to install it when missing), and writing
the picture (exit 1 when it cannot be written)."""
import json
import math
import os
import sys

MAX_JSON_BYTES = 64 << 20  # a benchmark file is kilobytes; refuse anything huge


def fail(prog, msg, code=2):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(code)


def load(prog, path, what):
    """The whole document of a benchmark JSON file (a regular file of at most
    MAX_JSON_BYTES), after checking that it has a "training" list; `what`
    names the program that writes such files."""
    if os.path.isdir(path):
        fail(prog, f"{path}: is a folder, not a JSON file")
    if os.path.exists(path) and not os.path.isfile(path):
        fail(prog, f"{path}: not a regular file (expected {what} output)")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_JSON_BYTES + 1)
    except FileNotFoundError:
        fail(prog, f"{path}: no such file")
    except (OSError, UnicodeDecodeError) as e:
        fail(prog, f"{path}: cannot read: {e}")
    if len(text) > MAX_JSON_BYTES:
        fail(prog, f"{path}: over {MAX_JSON_BYTES} bytes: not {what} output")
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


def variant_label(variant, mode):
    """A PyTorch row's name in tables: its variant (eager, graph, compiled),
    the compiled rows of torch.compile's max-autotune-no-cudagraphs mode
    (anything but "default") named compiled-autotune."""
    return "compiled-autotune" if variant == "compiled" and mode != "default" else variant


def check_compiled(prog, path, i, row):
    """Exit 2 for PyTorch row i when it is, or claims to be, compiled
    without a passed compile check (bench_pytorch.py's proof): a row that
    fell back to eager is no compiled row."""
    variant = field(prog, path, i, row, "variant", (str,))
    claims = field(prog, path, i, row, "compiled", (bool,), True, False)
    if variant != "compiled" and not claims:
        return
    check = row.get("compile_check")
    if isinstance(check, dict) and check.get("passed") is True:
        return
    why = "no compile_check" if not isinstance(check, dict) else \
        "; ".join(["compile_check not passed", *map(str, check.get("problems", []))])
    fail(prog, f"{path}: training row {i + 1} ({variant} {row.get('precision')} "
         f"{row.get('network')}) is refused: a compiled row without proof that it ran "
         f"compiled ({why}); bench_pytorch.py writes none")


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
