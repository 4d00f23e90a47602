#!/usr/bin/env python3
"""The peer: trains the same MLP as mnist_bench in eager PyTorch, data
already on the GPU, same batch, learning rate, momentum and epochs, timed
the same way (CUDA events around each training epoch, one warm-up epoch
excluded, median of the rest). Prints one line per network and, with
--json FILE, writes the numbers for scripts/bench_compare.sh.

Optional: exits 0 with a message when PyTorch or a GPU is missing.
"""
import argparse
import gzip
import json
import os
import statistics
import sys


def load_idx(path):
    import numpy as np
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("MNIST_DIR", "data/mnist"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    parser.add_argument("--networks", default="100:256,1024-1024:256,4096-4096:4096",
                        help="hidden widths and batch, e.g. 100:256")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("bench_pytorch.py: skipped: PyTorch is not installed")
        return 0
    if not torch.cuda.is_available():
        print("bench_pytorch.py: skipped: PyTorch sees no CUDA GPU")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    images = torch.tensor(load_idx(find(args.data_dir, "train-images-idx3-ubyte")), device=dev)
    labels = torch.tensor(load_idx(find(args.data_dir, "train-labels-idx1-ubyte")),
                          device=dev).long()
    x_all = images.reshape(len(images), -1).float() / 255.0
    x_all = (x_all - x_all.mean()) / x_all.std()
    results = []
    for spec in args.networks.split(","):
        hidden, batch = spec.split(":")
        widths = [784] + [int(w) for w in hidden.split("-")] + [10]
        batch = int(batch)
        torch.manual_seed(1)
        layers = []
        for i in range(len(widths) - 1):
            layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
            if i + 2 < len(widths):
                layers.append(torch.nn.ReLU())
        model = torch.nn.Sequential(*layers).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        times = []
        for epoch in range(args.repeats + 1):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            order = torch.randperm(len(x_all), device=dev)
            for first in range(0, len(x_all), batch):
                idx = order[first:first + batch]
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(model(x_all[idx]), labels[idx])
                loss.backward()
                opt.step()
            stop.record()
            torch.cuda.synchronize()
            if epoch > 0:
                times.append(start.elapsed_time(stop))
        name = "-".join(str(w) for w in widths)
        row = {"network": name, "batch": batch, "ms_per_epoch": statistics.median(times),
               "ms_min": min(times), "ms_max": max(times), "repeats": args.repeats,
               "torch": torch.__version__}
        results.append(row)
        print(f"pytorch eager {name:18s} batch {batch:5d}: {row['ms_per_epoch']:9.2f} ms/epoch "
              f"({row['ms_min']:.2f}-{row['ms_max']:.2f})", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "training": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
