#!/usr/bin/env python3
"""Loads a checkpoint of mnist_train --save into PyTorch as it is
(`model.load_state_dict(safetensors.torch.load_file(FILE))` on an
nn.Sequential of Linear and ReLU or GELU(tanh) layers) and prints its test
accuracy, to compare with `mnist_train --load FILE --epochs 0`. The pixel
normalisation comes from the checkpoint's metadata. Runs on the CPU
without a GPU; exits 2 naming the file when the checkpoint (checked
before PyTorch is imported) or an idx file is not a regular file within
its bound, 3 saying what is missing (and the pip command) without PyTorch
or safetensors.

  scripts/eval_checkpoint_pytorch.py model.safetensors --data-dir data/mnist
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402
from bench_pytorch import build_model, import_torch  # noqa: E402
from replay_step_pytorch import meta_value, read_idx  # noqa: E402

PROG = "eval_checkpoint_pytorch.py"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--data-dir", default=os.environ.get("MNIST_DIR", "data/mnist"))
    args = parser.parse_args()
    # The file first (a regular file within the reader's bound: a FIFO would
    # block), then PyTorch.
    plot_common.check_file(PROG, args.checkpoint, "a safetensors checkpoint",
                           plot_common.MAX_CHECKPOINT_BYTES)
    torch = import_torch(PROG, ("safetensors",), gpu=False)
    from safetensors import safe_open
    from safetensors.torch import load_file
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = False
    with safe_open(args.checkpoint, framework="pt") as f:
        meta = f.metadata() or {}
    widths = [int(w) for w in meta_value(meta, "widths").split("-")]
    scale = meta_value(meta, "pixel_scale", float)
    shift = meta_value(meta, "pixel_shift", float)
    model = build_model(torch, widths, dev, meta.get("activation", "relu"))
    model.load_state_dict(load_file(args.checkpoint, device=str(dev)))
    images = torch.tensor(read_idx(PROG, args.data_dir, "t10k-images-idx3-ubyte"), device=dev)
    labels = torch.tensor(read_idx(PROG, args.data_dir, "t10k-labels-idx1-ubyte"),
                          device=dev).long()
    x = images.reshape(len(images), -1).float() * scale + shift
    with torch.no_grad():
        correct = (model(x).argmax(dim=1) == labels).sum().item()
    print(f"PyTorch {torch.__version__}: test accuracy {100.0 * correct / len(labels):.2f}% "
          f"({correct} of {len(labels)}) for {meta['widths']} from {args.checkpoint}; "
          f"mnist_train reported {meta.get('test_accuracy', '?')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
