"""plot_common.py: what the scripts share (plot_log.py, plot_bench.py,
bench_runs.py, bench_merge.py and bench_pytorch.py, and the file checks of
eval_checkpoint_pytorch.py and replay_step_pytorch.py): failing with the
script's name and an exit code; reading a file only when it is a regular
file within a size bound (a FIFO would block, /dev/zero never ends: exit 2
naming it, before a byte is read); reading the benchmark JSON files (exit 2
naming the file, the row and the field); the name of a PyTorch row's
variant; matplotlib on the Agg backend (exit 3 saying how to install it when
missing); and writing the picture (exit 1 when it cannot be written)."""
import json
import math
import os
import stat
import sys

# The largest text file read (a --log CSV, a benchmark JSON): far above
# any the programs write (a CSV row per epoch is under 100 bytes).
MAX_TEXT_BYTES = 64 << 20
# The largest idx file (MNIST's raw training images: 47 MB) and checkpoint
# (the C reader's limit, checkpoint/safetensors.h) the PyTorch scripts read.
MAX_IDX_BYTES = 64 << 20
MAX_CHECKPOINT_BYTES = 4 << 30


def fail(prog, msg, code=2):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(code)


def _kind(mode):
    """What a file that is not a regular one is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "something other than a regular file"


def check_file(prog, path, what, limit):
    """The size of `path` when it is a regular file of at most `limit` bytes;
    else exit 2 naming it, what was expected (`what`) and what was found.
    Looks without opening for reading: nothing waits, nothing is read."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        fail(prog, f"{path}: no such file")
    except OSError as e:
        fail(prog, f"{path}: cannot look at it: {e.strerror}")
    if not stat.S_ISREG(info.st_mode):
        fail(prog, f"{path}: expected {what}, a regular file, found {_kind(info.st_mode)}")
    if info.st_size > limit:
        fail(prog, f"{path}: expected {what} of at most {limit} bytes, found "
             f"{info.st_size} bytes")
    return info.st_size


def read_bytes(prog, path, what, limit=MAX_TEXT_BYTES):
    """The bytes of `path`, a regular file of at most `limit` bytes, judged on
    the file opened (O_NONBLOCK: a FIFO put there meanwhile does not block)
    and read no further than the limit; exit 2 naming it otherwise."""
    check_file(prog, path, what, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        fail(prog, f"{path}: cannot open: {e.strerror}")
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            fail(prog, f"{path}: expected {what}, a regular file, found "
                 f"{_kind(info.st_mode)}")
        os.set_blocking(fd, True)
        try:
            data = f.read(limit + 1)
        except OSError as e:
            fail(prog, f"{path}: cannot read: {e.strerror}")
    if len(data) > limit:
        fail(prog, f"{path}: expected {what} of at most {limit} bytes, found more "
             "(it grew while read)")
    return data


def read_text(prog, path, what, limit=MAX_TEXT_BYTES):
    """read_bytes as UTF-8 text (exit 2 naming the file when it is not)."""
    try:
        return read_bytes(prog, path, what, limit).decode("utf-8")
    except UnicodeDecodeError as e:
        fail(prog, f"{path}: cannot read: not UTF-8 text ({e.reason} at byte {e.start})")


def load(prog, path, what):
    """The whole document of a benchmark JSON file, after checking that it has
    a "training" list; `what` names the program that writes such files."""
    text = read_text(prog, path, f"a JSON file of {what}")
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
