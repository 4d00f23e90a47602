#!/usr/bin/env python3
"""Replays mnist_train's first optimiser steps in PyTorch and compares the
parameters: the way to check the epilogue gradients against autograd.

  build/mnist_train --hidden 100 --batch 256 --order file --steps 0 --save init.safetensors
  build/mnist_train --hidden 100 --batch 256 --order file --steps 3 \
      --load init.safetensors --save after.safetensors
  scripts/replay_step_pytorch.py init.safetensors after.safetensors --data-dir data/mnist

The run's settings (widths, activation, batch, lr, momentum, schedule,
epochs, steps, the pixel normalisation) come from the second file's
metadata; the first gives the starting weights. PyTorch runs the same
network (nn.Sequential of Linear and ReLU or GELU(tanh)), the same batches
(the training file's order), the same loss (mean cross-entropy) and SGD
(momentum, no dampening), with the same per-step learning rate, in FP32
with TF32 off, and prints per tensor the largest difference from
mnist_train's parameters relative to the largest change the steps made.

The bound (FP32): every gradient element is a sum of at most K products
(K = max(batch, widths)) computed in another order, so it is within
2 (K + 2) u of its sum of |terms| (u = 2^-24, Higham 3.1): 1.2e-4 for
K = 1024. Momentum and N steps add such errors N times over; we require a
difference below 1e-3 of the change, ten times that at the sizes used.
A wrong gradient (a wrong index, mask or sign) is off by O(1) of it.
Exit 1 when a tensor exceeds it, 0 otherwise; 2 when a checkpoint or idx
file is not a regular file within its bound (the checkpoints are checked
before PyTorch is imported); 3 with a message (and the pip command) when
PyTorch, safetensors or a GPU is missing.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402
from bench_pytorch import build_model, find, import_torch, load_idx  # noqa: E402

BOUND = 1e-3
PROG = "replay_step_pytorch.py"


def read_idx(prog, folder, stem):
    """The idx file `stem` of `folder` (bench_pytorch's find and load_idx),
    once it is known to be a regular file within MAX_IDX_BYTES."""
    path = find(folder, stem)
    plot_common.check_file(prog, path, "an idx file", plot_common.MAX_IDX_BYTES)
    return load_idx(path)


def meta_value(meta, key, cast=str):
    if key not in meta:
        sys.exit(f"replay_step_pytorch.py: the checkpoint's metadata has no '{key}'")
    return cast(meta[key])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("init")
    parser.add_argument("after")
    parser.add_argument("--data-dir", default=os.environ.get("MNIST_DIR", "data/mnist"))
    args = parser.parse_args()
    # The files first (regular files within the reader's bound: a FIFO
    # would block), then PyTorch.
    for path in (args.init, args.after):
        plot_common.check_file(PROG, path, "a safetensors checkpoint",
                               plot_common.MAX_CHECKPOINT_BYTES)
    torch = import_torch(PROG, ("safetensors",))
    from safetensors import safe_open
    from safetensors.torch import load_file
    torch.backends.cuda.matmul.allow_tf32 = False
    with safe_open(args.after, framework="pt") as f:
        meta = f.metadata() or {}
    widths = [int(w) for w in meta_value(meta, "widths").split("-")]
    batch = meta_value(meta, "batch", int)
    lr = meta_value(meta, "lr", float)
    momentum = meta_value(meta, "momentum", float)
    cosine = meta_value(meta, "schedule") == "cosine"
    # The schedule spans --epochs: "schedule_epochs" (older files: "epochs").
    epochs = int(meta["schedule_epochs"]) if "schedule_epochs" in meta else \
        meta_value(meta, "epochs", int)
    steps = meta_value(meta, "steps", int)
    scale = meta_value(meta, "pixel_scale", float)
    shift = meta_value(meta, "pixel_shift", float)
    activation = meta.get("activation", "relu")
    if meta_value(meta, "order") != "file":
        sys.exit("replay_step_pytorch.py: the run must use --order file")
    if meta.get("precision", "fp32") != "fp32":
        sys.exit("replay_step_pytorch.py: replay an fp32 run (the bound is FP32's)")
    dev = torch.device("cuda")
    images = torch.tensor(read_idx(PROG, args.data_dir, "train-images-idx3-ubyte"), device=dev)
    labels = torch.tensor(read_idx(PROG, args.data_dir, "train-labels-idx1-ubyte"),
                          device=dev).long()
    x_all = images.reshape(len(images), -1).float() * scale + shift
    model = build_model(torch, widths, dev, activation)
    model.load_state_dict(load_file(args.init, device="cuda"))
    start = {k: v.clone() for k, v in model.state_dict().items()}
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    per_epoch = math.ceil(len(x_all) / batch)
    total = per_epoch * epochs
    for s in range(steps):
        first = (s % per_epoch) * batch
        xb, yb = x_all[first:first + batch], labels[first:first + batch]
        rate = lr * 0.5 * (1.0 + math.cos(math.pi * s / total)) if cosine else lr
        for group in opt.param_groups:
            group["lr"] = rate
        opt.zero_grad(set_to_none=True)
        loss_fn(model(xb), yb).backward()
        opt.step()
    ours = load_file(args.after, device="cuda")
    print(f"replayed {steps} steps of {meta['widths']} ({activation}), batch {batch}, "
          f"lr {lr} ({'cosine' if cosine else 'constant'} over {epochs} epochs), "
          f"momentum {momentum}")
    print(f"{'tensor':10s} {'max |torch - ours|':>20s} {'max |change|':>14s} {'relative':>10s}")
    worst = 0.0
    for name, value in model.state_dict().items():
        diff = (value - ours[name]).abs().max().item()
        change = (ours[name] - start[name]).abs().max().item()
        rel = diff / change if change > 0 else (0.0 if diff == 0 else math.inf)
        worst = max(worst, rel)
        print(f"{name:10s} {diff:20.3g} {change:14.3g} {rel:10.3g}")
    verdict = "within" if worst <= BOUND else "OUTSIDE"
    print(f"largest relative difference {worst:.3g}: {verdict} the FP32 bound {BOUND:g}")
    return 0 if worst <= BOUND else 1


if __name__ == "__main__":
    sys.exit(main())
