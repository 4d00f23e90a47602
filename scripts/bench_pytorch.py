#!/usr/bin/env python3
"""The peer: trains the same MLPs as mnist_bench in PyTorch, as a speed-minded
user writes it, in each precision (fp32, tf32, bf16, fp16, fp8) and two
variants: eager, and the whole training step captured in a CUDA graph.
fp8 is torchao's float8 training (convert_to_float8_training, tensorwise
scales, the model compiled with torch.compile as torchao asks) under BF16
autocast; it converts only the Linear layers whose sizes are multiples of
16 (the row names them); without torchao the fp8 rows are skipped, saying
so. Data already on
the GPU, same batch, learning rate, momentum and epochs, timed the same way
(CUDA events around each training epoch, one warm-up epoch excluded, median of
the rest), then test accuracy. Prints one line per row and, with --json FILE,
writes the numbers for scripts/bench_compare.sh.

Without PyTorch, or a GPU that PyTorch sees, it exits 3 saying what is
missing (scripts/bench_compare.sh, where PyTorch is optional, checks first).
"""
import argparse
import contextlib
import gzip
import json
import os
import statistics
import sys

LR, MOMENTUM = 0.05, 0.9
# precision: (TF32 matmuls allowed, autocast dtype name or None)
PRECISIONS = {"fp32": (False, None), "tf32": (True, None),
              "bf16": (False, "bfloat16"), "fp16": (False, "float16"),
              "fp8": (False, "bfloat16")}
VARIANTS = ("eager", "graph")
GRAPH_WARMUP_STEPS = 3


def load_idx(path):
    import numpy as np
    with open(path, "rb") as f:
        opener = gzip.open if f.read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def find(folder, stem):
    for name in (stem + ".gz", stem, stem.replace("-idx", ".idx"),
                 stem.replace("-idx", ".idx") + ".gz"):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    sys.exit(f"bench_pytorch.py: no {stem}[.gz] in {folder}")


def load_split(torch, folder, prefix, dev):
    """Images as flat float pixels in [0, 1] and labels as int64, on dev."""
    images = torch.tensor(load_idx(find(folder, prefix + "-images-idx3-ubyte")), device=dev)
    labels = torch.tensor(load_idx(find(folder, prefix + "-labels-idx1-ubyte")), device=dev)
    return images.reshape(len(images), -1).float() / 255.0, labels.long()


def parse_list(text, allowed, flag):
    items = [s for s in text.split(",") if s]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        sys.exit(f"bench_pytorch.py: {flag} takes a comma list of {', '.join(allowed)}")
    return items


ACTIVATIONS = ("relu", "gelu")


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


def float8_model(torch, model):
    """torchao's float8 training on the Linear layers it can take (in and
    out features multiples of 16), then torch.compile (torchao's advice: it
    fuses the casts and amax reductions). Returns the model, the converted
    layers' names, and True (compiled: torch.compile compiles at the first
    call, so a machine that cannot compile fails the row there)."""
    from torchao.float8 import convert_to_float8_training
    names = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)
             and m.in_features % 16 == 0 and m.out_features % 16 == 0]
    convert_to_float8_training(model, module_filter_fn=lambda m, fqn: fqn in names)
    return torch.compile(model), names, True


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


def make_step(torch, model, opt, dtype, loss_scale):
    """One training step on (x, y), gradients already None: forward and loss
    under autocast (FP32 master weights), backward, optimiser step."""
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        with autocast(torch, dtype):
            loss = loss_fn(model(x), y)
        (loss * loss_scale if loss_scale != 1 else loss).backward()
        opt.step()
        return loss
    return step


def eager_runner(step, opt, x_all, y_all):
    def run(idx):
        opt.zero_grad(set_to_none=True)
        step(x_all[idx], y_all[idx])
    return run


def capture(torch, step, opt, x, y, pool=None):
    graph = torch.cuda.CUDAGraph()
    # Gradients None before capture: the captured backward writes them
    # afresh each replay instead of accumulating into the last ones.
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph, pool=pool):
        step(x, y)
    return graph


def graph_runner(torch, step, opt, x_all, y_all, batch, model):
    """PyTorch's whole-network capture: static input and label tensors,
    warm-up steps on a side stream, one graph of the whole step, replayed
    after each batch is gathered into the static tensors. The last, partial
    batch has another shape: it gets a second graph of its own, sharing the
    first one's memory pool (safe: they never run at the same time and no
    tensor of one is read by the other)."""
    sizes = [batch] + ([len(x_all) % batch] if len(x_all) % batch else [])
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
        graphs[b] = capture(torch, step, opt, *statics[b], pool=pool)
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
    return run


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
    """The fraction right, as mnist_bench's JSON has it."""
    model.eval()
    with torch.no_grad(), autocast(torch, dtype):
        correct = (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct / len(y)


def bench_row(torch, args, data, widths, batch, precision, variant, activation):
    """Trains one fresh model for repeats + 1 epochs; returns its JSON row."""
    x_train, y_train, x_test, y_test = data
    tf32, dtype_name = PRECISIONS[precision]
    dtype = getattr(torch, dtype_name) if dtype_name else None
    # fp16 needs loss scaling; a static scale S: backward on loss * S, lr / S.
    # With plain SGD + momentum and no weight decay the momentum buffer is
    # S times the unscaled one and the update (lr / S) * buffer is exactly
    # the unscaled update (S a power of two: exact unless it overflows).
    scale = args.fp16_loss_scale if precision == "fp16" else 1.0
    extra = {}
    with tf32_matmuls(torch, tf32):
        model = build_model(torch, widths, "cuda", activation)
        if precision == "fp8":
            params = model
            model, names, compiled = float8_model(torch, model)
            extra = {"float8_layers": names, "compiled": compiled}
            opt, sgd = make_sgd(torch, params, LR / scale)
        else:
            opt, sgd = make_sgd(torch, model, LR / scale)
        step = make_step(torch, model, opt, dtype, scale)
        if variant == "graph":
            run = graph_runner(torch, step, opt, x_train, y_train, batch, model)
        else:
            run = eager_runner(step, opt, x_train, y_train)
        times = timed_epochs(torch, run, len(x_train), batch, args.repeats + 1)
        accuracy = test_accuracy(torch, model, x_test, y_test, dtype)
    return {"network": "-".join(str(w) for w in widths), "batch": batch,
            "precision": precision, "variant": variant, "activation": activation,
            "ms_per_epoch": statistics.median(times), "ms_min": min(times),
            "ms_max": max(times), "repeats": args.repeats, "test_accuracy": accuracy,
            "sgd": sgd, "loss_scale": scale, **extra}


def print_row(row):
    print(f"pytorch {row['variant']:5s} {row['precision']} {row['activation']} "
          f"{row['network']:18s} "
          f"batch {row['batch']:5d}: {row['ms_per_epoch']:9.2f} ms/epoch "
          f"({row['ms_min']:.2f}-{row['ms_max']:.2f}) acc {100 * row['test_accuracy']:.2f}%"
          + (f" float8 layers {','.join(row['float8_layers'])}"
             f"{'' if row['compiled'] else ' (not compiled)'}" if "float8_layers" in row else ""),
          flush=True)


def load_data(torch, folder):
    """Train and test splits on the GPU, normalised by the training pixels'
    mean and standard deviation."""
    x_train, y_train = load_split(torch, folder, "train", "cuda")
    x_test, y_test = load_split(torch, folder, "t10k", "cuda")
    mean, std = x_train.mean(), x_train.std()
    return (x_train - mean) / std, y_train, (x_test - mean) / std, y_test


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("MNIST_DIR", "data/mnist"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    parser.add_argument("--networks", default="100:256,1024-1024:256,4096-4096:4096",
                        help="hidden widths and batch, e.g. 100:256")
    parser.add_argument("--precisions", default=",".join(PRECISIONS))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--activations", default=",".join(ACTIVATIONS))
    parser.add_argument("--fp16-loss-scale", type=float, default=1024.0,
                        help="static loss scale of the fp16 rows")
    args = parser.parse_args()
    args.precisions = parse_list(args.precisions, PRECISIONS, "--precisions")
    args.variants = parse_list(args.variants, VARIANTS, "--variants")
    args.activations = parse_list(args.activations, ACTIVATIONS, "--activations")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
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


def main():
    args = parse_args()
    torch = import_torch("bench_pytorch.py")
    torch.backends.cudnn.allow_tf32 = False
    data = load_data(torch, args.data_dir)
    if "fp8" in args.precisions:
        try:
            import torchao.float8  # noqa: F401
        except ImportError as e:
            print(f"bench_pytorch.py: fp8 rows skipped: torchao's float8 training "
                  f"cannot be imported ({e}); pip install torchao", file=sys.stderr)
            args.precisions = [p for p in args.precisions if p != "fp8"]
    rows = []
    for spec in args.networks.split(","):
        hidden, batch = spec.split(":")
        widths = [784] + [int(w) for w in hidden.split("-")] + [10]
        for activation in args.activations:
            for precision in args.precisions:
                for variant in args.variants:
                    rows.append(bench_row(torch, args, data, widths, int(batch), precision,
                                          variant, activation))
                    print_row(rows[-1])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "training": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
