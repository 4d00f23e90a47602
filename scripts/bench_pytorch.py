#!/usr/bin/env python3
"""The peer: trains the same MLPs as mnist_bench in PyTorch, as a speed-minded
user writes it, in each precision (fp32, tf32, bf16, fp16, fp8) and three
variants:
  eager     the step as written, launched from Python;
  graph     the whole training step (forward, loss, backward, optimiser)
            captured by hand in one CUDA graph and replayed;
  compiled  the forward and loss compiled with torch.compile (fullgraph,
            static shapes; --compile-mode default or
            max-autotune-no-cudagraphs), its backward compiled with it by
            AOTAutograd, and the whole step captured by hand in one CUDA
            graph, as `graph`.
fp8 is torchao's float8 training (convert_to_float8_training, tensorwise
scales) under BF16 autocast, in the same three variants; it converts only the
Linear layers whose sizes are multiples of 16 (the row names them); without
torchao the fp8 rows are skipped, saying so.

Same data (already on the GPU), batch, learning rate, momentum and epochs as
mnist_bench, timed the same way (CUDA events around each training epoch, one
warm-up epoch excluded, median of the rest), then test accuracy. The last,
partial batch of an epoch (60000 % batch samples) is trained, as mnist_train
trains it (with plans of its own): here as a static shape of its own, with
its own CUDA graph and, compiled, its own specialisation (dynamic=False:
never a symbolic shape).

Every compiled row proves that it ran compiled, or is an error, never a row:
torch._dynamo.reset() before it (the inductor cache on disk is kept),
fullgraph=True (a graph break raises), dynamic=False,
fail_on_recompile_limit_hit and no suppressed errors (a fallback to eager
raises), and after the capture: one compiled graph per static shape and no
graph break (dynamo's counters), each CUDA graph's capture called the
compiled code once (a counter in the backend around inductor), and the
captured loss's backward is AOTAutograd's compiled one. The row's JSON
records these ("compile_check"); "compiled" is true only when they hold.

Prints one line per row and, with --json FILE, writes the numbers for
scripts/bench_compare.sh, rewritten after every row ("complete" false until
the last), so a run stopped early keeps the rows it finished. A run too
long for one call is split with --networks, --precisions, --variants and
--compile-mode, each call its own --json, and the parts joined by
scripts/bench_merge.py.

Exit code: 0; 1 when a row fails (a compiled row whose check fails
included; the rows before it stay in --json); 2 for bad usage; 3 without
PyTorch or a GPU that PyTorch sees, saying what is missing
(scripts/bench_compare.sh, where PyTorch is optional, checks first).
"""
import argparse
import contextlib
import functools
import gzip
import json
import os
import statistics
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import variant_label  # noqa: E402

PROG = "bench_pytorch.py"
LR, MOMENTUM = 0.05, 0.9
# precision: (TF32 matmuls allowed, autocast dtype name or None)
PRECISIONS = {"fp32": (False, None), "tf32": (True, None),
              "bf16": (False, "bfloat16"), "fp16": (False, "float16"),
              "fp8": (False, "bfloat16")}
VARIANTS = ("eager", "graph", "compiled")
COMPILE_MODES = ("default", "max-autotune-no-cudagraphs")
ACTIVATIONS = ("relu", "gelu")
GRAPH_WARMUP_STEPS = 3
IDX_MAX_BYTES = 64 << 20  # the largest MNIST file is 47 MB raw


def load_idx(path):
    """An idx file (raw or gzip) as a numpy array; refuses anything but a
    regular file and reads at most IDX_MAX_BYTES of it."""
    import numpy as np
    if not os.path.isfile(path):
        sys.exit(f"{PROG}: {path}: not a regular file")
    with open(path, "rb") as f:
        opener = gzip.open if f.read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        data = f.read(IDX_MAX_BYTES + 1)
    if len(data) > IDX_MAX_BYTES or len(data) < 4 or data[:3] != b"\0\0\x08" \
            or not 1 <= data[3] <= 3:
        sys.exit(f"{PROG}: {path}: expected an idx file of unsigned bytes (magic 0x0000080N, "
                 f"N 1 to 3) of at most {IDX_MAX_BYTES} bytes, found {len(data)} bytes "
                 f"starting {data[:4].hex()}")
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    count = 1
    for d in dims:
        count *= d
    if len(data) != 4 + 4 * rank + count:
        sys.exit(f"{PROG}: {path}: dimensions {dims} need {4 + 4 * rank + count} bytes, "
                 f"found {len(data)}")
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def find(folder, stem):
    for name in (stem + ".gz", stem, stem.replace("-idx", ".idx"),
                 stem.replace("-idx", ".idx") + ".gz"):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    sys.exit(f"{PROG}: no {stem}[.gz] in {folder}")


def load_split(torch, folder, prefix, dev):
    """Images as flat float pixels in [0, 1] and labels as int64, on dev."""
    images = torch.tensor(load_idx(find(folder, prefix + "-images-idx3-ubyte")), device=dev)
    labels = torch.tensor(load_idx(find(folder, prefix + "-labels-idx1-ubyte")), device=dev)
    return images.reshape(len(images), -1).float() / 255.0, labels.long()


def parse_list(parser, text, allowed, flag):
    items = [s for s in text.split(",") if s]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        parser.error(f"{flag}: expected a comma list of {', '.join(allowed)}, found '{text}'")
    return items


def parse_networks(parser, text):
    """[(widths, batch)] from 'H1-H2:BATCH,...' (784 in front, 10 behind)."""
    nets = []
    for spec in text.split(","):
        hidden, _, batch = spec.partition(":")
        try:
            widths = [784] + [int(w) for w in hidden.split("-")] + [10]
            size = int(batch)
        except ValueError:
            widths, size = [], 0
        if size < 1 or min(widths, default=0) < 1:
            parser.error(f"--networks: expected hidden widths and a batch such as "
                         f"100:256 or 1024-1024:256, found '{spec}'")
        nets.append((widths, size))
    return nets


def build_model(torch, widths, dev, activation="relu"):
    """nn.Sequential of Linear layers with ReLU or GELU between them; GELU
    in its tanh form, the one cuBLASLt's GELU epilogues compute (and so
    mnist_bench's --activation gelu rows)."""
    torch.manual_seed(1)  # same weights and epoch permutations for every row
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(torch.nn.GELU(approximate="tanh") if activation == "gelu"
                          else torch.nn.ReLU())
    return torch.nn.Sequential(*layers).to(dev)


def float8_convert(torch, model):
    """torchao's float8 training on the Linear layers it can take (in and
    out features multiples of 16), in place; returns their names. Not
    compiled here: the compiled variant compiles it like any model."""
    from torchao.float8 import convert_to_float8_training
    names = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)
             and m.in_features % 16 == 0 and m.out_features % 16 == 0]
    convert_to_float8_training(model, module_filter_fn=lambda m, fqn: fqn in names)
    return names


def make_sgd(torch, model, lr):
    """SGD with momentum; the fused kernel (one launch per step) where this
    torch has it, else the default foreach one. SGD keeps no step counter,
    so it needs no capturable flag to be captured in a graph."""
    try:
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=MOMENTUM, fused=True), "fused"
    except (TypeError, RuntimeError):
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=MOMENTUM), "foreach"


@contextlib.contextmanager
def tf32_matmuls(torch, allowed):
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allowed
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def autocast(torch, dtype):
    # PyTorch's CUDA-graph notes ask for the autocast cache off when
    # capturing; it saves nothing here (each weight is cast once a forward).
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=dtype, cache_enabled=False)


def make_forward_loss(torch, model, dtype):
    """(x, y) -> mean cross-entropy of model(x), under autocast: the part
    the compiled variant compiles."""
    loss_fn = torch.nn.CrossEntropyLoss()

    def forward_loss(x, y):
        with autocast(torch, dtype):
            return loss_fn(model(x), y)
    return forward_loss


def counting_inductor(mode, proof):
    """A torch.compile backend that is inductor with `mode`'s options (what
    torch.compile(mode=...) passes to compile_fx), and counts in `proof`
    the graphs it compiles ("graphs") and every call of compiled code
    ("calls"): Python-level calls, so during a CUDA graph's capture the
    count rises by one exactly when the captured step ran compiled code."""
    from torch._inductor import list_mode_options
    from torch._inductor.compile_fx import compile_fx
    patches = list_mode_options(mode, False) if mode != "default" else {}

    def backend(gm, example_inputs):
        proof["graphs"] += 1
        inner = compile_fx(gm, example_inputs, config_patches=patches)

        def run(*args, **kwargs):
            proof["calls"] += 1
            return inner(*args, **kwargs)
        return functools.update_wrapper(run, inner)  # same calling convention
    return backend


def compile_forward(torch, forward_loss, mode, proof):
    """forward_loss compiled whole (fullgraph), for static shapes, with no
    way back to eager: a graph break, a recompile past the limit or a
    compile error raises."""
    torch._dynamo.config.fail_on_recompile_limit_hit = True
    torch._dynamo.config.suppress_errors = False
    torch._dynamo.config.automatic_dynamic_shapes = False
    return torch.compile(forward_loss, backend=counting_inductor(mode, proof),
                         fullgraph=True, dynamic=False)


def compile_check(proof, counters, shapes):
    """The verdict on one compiled row: {"passed": bool, "problems": [...],
    and the evidence}. proof: the backend's "graphs" and "calls", the
    compiled calls made during each shape's capture ("captured_calls") and
    the captured loss's backward ("backward"); counters: dynamo's
    {"unique_graphs", "graph_breaks"} after the capture; shapes: the static
    batch sizes captured."""
    problems = []
    n = len(shapes)
    if counters["graph_breaks"] != 0:
        problems.append(f"{counters['graph_breaks']} graph breaks")
    if counters["unique_graphs"] != n:
        problems.append(f"dynamo compiled {counters['unique_graphs']} graphs for {n} shapes")
    if proof["graphs"] != n:
        problems.append(f"inductor compiled {proof['graphs']} graphs for {n} shapes")
    calls = proof.get("captured_calls", [])
    if len(calls) != n or any(c != 1 for c in calls):
        problems.append(f"compiled calls during the captures {calls}, expected 1 for each "
                        f"of {n} shapes")
    if not str(proof.get("backward", "")).startswith("CompiledFunction"):
        problems.append(f"the captured loss's backward is {proof.get('backward')}, not "
                        "AOTAutograd's CompiledFunctionBackward")
    return {"passed": not problems, "problems": problems, "fullgraph": True, "dynamic": False,
            "fail_on_recompile_limit_hit": True, "shapes": list(shapes),
            "unique_graphs": counters["unique_graphs"],
            "graph_breaks": counters["graph_breaks"], "inductor_graphs": proof["graphs"],
            "captured_calls": list(calls), "backward": proof.get("backward")}


def dynamo_counters(torch):
    counters = torch._dynamo.utils.counters
    return {"unique_graphs": counters["stats"]["unique_graphs"],
            "graph_breaks": sum(counters["graph_break"].values())}


def make_step(forward_loss, opt, loss_scale):
    """One training step on (x, y), gradients already None: forward and loss
    (FP32 master weights), backward, optimiser step; returns the loss."""
    def step(x, y):
        loss = forward_loss(x, y)
        (loss * loss_scale if loss_scale != 1 else loss).backward()
        opt.step()
        return loss
    return step


def eager_runner(step, opt, x_all, y_all):
    def run(idx):
        opt.zero_grad(set_to_none=True)
        step(x_all[idx], y_all[idx])
    return run


def capture(torch, step, opt, x, y, proof, pool=None):
    """One CUDA graph of step(x, y); with proof, records the compiled calls
    made while capturing and the captured loss's backward."""
    graph = torch.cuda.CUDAGraph()
    # Gradients None before capture: the captured backward writes them
    # afresh each replay instead of accumulating into the last ones.
    opt.zero_grad(set_to_none=True)
    before = proof["calls"] if proof is not None else 0
    with torch.cuda.graph(graph, pool=pool):
        loss = step(x, y)
    if proof is not None:
        proof.setdefault("captured_calls", []).append(proof["calls"] - before)
        proof["backward"] = type(loss.grad_fn).__name__
    return graph


def batch_sizes(n, batch):
    """The static shapes of an epoch: the batch, and the last partial one."""
    return [batch] + ([n % batch] if n % batch else [])


def graph_runner(torch, step, opt, x_all, y_all, batch, model, proof=None):
    """PyTorch's whole-network capture: static input and label tensors,
    warm-up steps on a side stream (the compiled variant compiles there),
    one graph of the whole step per static shape, replayed after each batch
    is gathered into the static tensors. The partial batch's graph shares
    the first one's memory pool (safe: they never run at the same time and
    no tensor of one is read by the other)."""
    sizes = batch_sizes(len(x_all), batch)
    statics = {b: (x_all[:b].clone(), y_all[:b].clone()) for b in sizes}
    initial = [p.detach().clone() for p in model.parameters()]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for b in sizes:
            for _ in range(GRAPH_WARMUP_STEPS):
                opt.zero_grad(set_to_none=True)
                step(*statics[b])
    torch.cuda.current_stream().wait_stream(side)
    graphs = {}
    for b in sizes:
        pool = graphs[batch].pool() if graphs else None
        graphs[b] = capture(torch, step, opt, *statics[b], proof, pool=pool)
    # Undo the warm-up steps, in place (the graphs hold these tensors), so
    # the graphed row trains exactly like the eager one. A zero momentum
    # buffer gives the same update as a fresh one (0.9 * 0 + g = g).
    with torch.no_grad():
        for p, p0 in zip(model.parameters(), initial):
            p.copy_(p0)
            opt.state[p]["momentum_buffer"].zero_()

    def run(idx):
        x, y = statics[len(idx)]
        # The one-kernel form of x.copy_(x_all[idx]).
        torch.index_select(x_all, 0, idx, out=x)
        torch.index_select(y_all, 0, idx, out=y)
        graphs[len(idx)].replay()
    return run, sizes


def timed_epochs(torch, run, n, batch, epochs):
    """ms of each epoch after the first (a fresh permutation each epoch,
    drawn on the GPU; the last partial batch kept)."""
    times = []
    for epoch in range(epochs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        order = torch.randperm(n, device="cuda")
        for first in range(0, n, batch):
            run(order[first:first + batch])
        stop.record()
        torch.cuda.synchronize()
        if epoch > 0:
            times.append(start.elapsed_time(stop))
    return times


def test_accuracy(torch, model, x, y, dtype):
    """The fraction right, as mnist_bench's JSON has it; the plain module
    (never the compiled function: no grad-mode recompile)."""
    model.eval()
    with torch.no_grad(), autocast(torch, dtype):
        correct = (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct / len(y)


def bench_row(torch, args, data, widths, batch, precision, variant, activation):
    """Trains one fresh model for repeats + 1 epochs; returns its JSON row,
    or raises when a compiled row fails its check."""
    x_train, y_train, x_test, y_test = data
    tf32, dtype_name = PRECISIONS[precision]
    dtype = getattr(torch, dtype_name) if dtype_name else None
    # fp16 needs loss scaling; a static scale S: backward on loss * S, lr / S.
    # With plain SGD + momentum and no weight decay the momentum buffer is
    # S times the unscaled one and the update (lr / S) * buffer is exactly
    # the unscaled update (S a power of two: exact unless it overflows).
    scale = args.fp16_loss_scale if precision == "fp16" else 1.0
    extra = {}
    torch._dynamo.reset()  # no compiled code of an earlier row; the disk cache stays
    torch._dynamo.utils.counters.clear()
    with tf32_matmuls(torch, tf32):
        model = build_model(torch, widths, "cuda", activation)
        if precision == "fp8":
            extra["float8_layers"] = float8_convert(torch, model)
        opt, sgd = make_sgd(torch, model, LR / scale)
        forward_loss = make_forward_loss(torch, model, dtype)
        proof = None
        if variant == "compiled":
            proof = {"graphs": 0, "calls": 0}
            forward_loss = compile_forward(torch, forward_loss, args.compile_mode, proof)
        step = make_step(forward_loss, opt, scale)
        started = time.monotonic()
        if variant == "eager":
            run, sizes = eager_runner(step, opt, x_train, y_train), []
        else:
            run, sizes = graph_runner(torch, step, opt, x_train, y_train, batch, model, proof)
        check = None
        if proof is not None:
            check = compile_check(proof, dynamo_counters(torch), sizes)
            if not check["passed"]:
                raise RuntimeError("compile check failed: " + "; ".join(check["problems"]))
            extra.update(compile_mode=args.compile_mode, compile_check=check,
                         compile_s=round(time.monotonic() - started, 1))
        times = timed_epochs(torch, run, len(x_train), batch, args.repeats + 1)
        accuracy = test_accuracy(torch, model, x_test, y_test, dtype)
    return {"network": "-".join(str(w) for w in widths), "batch": batch,
            "precision": precision, "variant": variant, "activation": activation,
            "ms_per_epoch": statistics.median(times), "ms_min": min(times),
            "ms_max": max(times), "repeats": args.repeats, "test_accuracy": accuracy,
            "sgd": sgd, "loss_scale": scale, "last_batch": len(x_train) % batch,
            "compiled": bool(check and check["passed"]), **extra}


def print_row(row):
    label = variant_label(row["variant"], row.get("compile_mode", "default"))
    check = row.get("compile_check")
    print(f"pytorch {label:17s} {row['precision']} {row['activation']} "
          f"{row['network']:18s} "
          f"batch {row['batch']:5d}: {row['ms_per_epoch']:9.2f} ms/epoch "
          f"({row['ms_min']:.2f}-{row['ms_max']:.2f}) acc {100 * row['test_accuracy']:.2f}%"
          + (f" float8 layers {','.join(row['float8_layers'])}" if "float8_layers" in row else "")
          + (f" [compiled: {check['unique_graphs']} graphs for shapes "
             f"{'+'.join(map(str, check['shapes']))}, {check['graph_breaks']} breaks, "
             f"{row['compile_s']} s]" if check else ""),
          flush=True)


def load_data(torch, folder):
    """Train and test splits on the GPU, normalised by the training pixels'
    mean and standard deviation."""
    x_train, y_train = load_split(torch, folder, "train", "cuda")
    x_test, y_test = load_split(torch, folder, "t10k", "cuda")
    mean, std = x_train.mean(), x_train.std()
    return (x_train - mean) / std, y_train, (x_test - mean) / std, y_test


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--data-dir", default=os.environ.get("MNIST_DIR", "data/mnist"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="write the rows here (rewritten after every row)")
    parser.add_argument("--networks", default="100:256,1024-1024:256,4096-4096:4096",
                        help="hidden widths and batch, comma-separated, e.g. 100:256")
    parser.add_argument("--precisions", default=",".join(PRECISIONS))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--activations", default=",".join(ACTIVATIONS))
    parser.add_argument("--compile-mode", default="default", choices=COMPILE_MODES,
                        help="torch.compile's mode for the compiled rows (default: default)")
    parser.add_argument("--fp16-loss-scale", type=float, default=1024.0,
                        help="static loss scale of the fp16 rows")
    args = parser.parse_args(argv)
    args.nets = parse_networks(parser, args.networks)
    args.precisions = parse_list(parser, args.precisions, PRECISIONS, "--precisions")
    args.variants = parse_list(parser, args.variants, VARIANTS, "--variants")
    args.activations = parse_list(parser, args.activations, ACTIVATIONS, "--activations")
    if not 1 <= args.repeats <= 100:
        parser.error(f"--repeats: expected 1 to 100, found {args.repeats}")
    return args


def import_torch(prog, also=(), gpu=True):
    """torch (and the modules named in `also`, imported), or exit 3 saying
    what is missing and the pip command; with gpu, also when PyTorch sees
    no CUDA GPU."""
    try:
        import torch
        for name in also:
            __import__(name)
    except ImportError as e:
        packages = " ".join(["torch", *also])
        print(f"{prog}: needs {e.name or 'torch'}: pip install {packages}", file=sys.stderr)
        sys.exit(3)
    if gpu and not torch.cuda.is_available():
        print(f"{prog}: needs a CUDA GPU that PyTorch sees (torch.cuda.is_available() "
              "is False)", file=sys.stderr)
        sys.exit(3)
    return torch


def write_json(path, head, rows, planned):
    """The rows so far, replacing path whole (a temporary beside it, renamed)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({**head, "complete": len(rows) == planned, "rows_planned": planned,
                   "training": rows}, f, indent=2)
    os.replace(tmp, path)


def drop_fp8_without_torchao(args):
    if "fp8" not in args.precisions:
        return None
    try:
        import torchao
        import torchao.float8  # noqa: F401
        return getattr(torchao, "__version__", "unknown")
    except ImportError as e:
        print(f"{PROG}: fp8 rows skipped: torchao's float8 training cannot be imported "
              f"({e}); pip install torchao", file=sys.stderr)
        args.precisions = [p for p in args.precisions if p != "fp8"]
        return None


def main():
    args = parse_args()
    torch = import_torch(PROG)
    torch.backends.cudnn.allow_tf32 = False
    torchao_version = drop_fp8_without_torchao(args)
    data = load_data(torch, args.data_dir)
    plan = [(w, b, p, v, a) for w, b in args.nets for a in args.activations
            for p in args.precisions for v in args.variants]
    head = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "torchao": torchao_version, "compile_mode": args.compile_mode,
            "selection": {"networks": args.networks, "precisions": args.precisions,
                          "variants": args.variants, "activations": args.activations}}
    print(f"{PROG}: {len(plan)} rows; the last partial batch of an epoch "
          f"({len(data[0])} % batch samples) is trained as its own static shape, as "
          "mnist_train trains it", flush=True)
    rows = []
    for widths, batch, precision, variant, activation in plan:
        try:
            rows.append(bench_row(torch, args, data, widths, batch, precision, variant,
                                  activation))
        except Exception as e:  # the row's name with whatever stopped it, and where
            name = f"{variant} {precision} {activation} {'-'.join(map(str, widths))} batch {batch}"
            print(f"{PROG}: row {name}: {type(e).__name__}: {e}\n{traceback.format_exc()}"
                  f"{PROG}: stopped; the {len(rows)} rows before it are in "
                  f"{args.json or 'the lines above'}", file=sys.stderr)
            return 1
        print_row(rows[-1])
        if args.json:
            write_json(args.json, head, rows, len(plan))
    if args.json and not rows:
        write_json(args.json, head, rows, len(plan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
