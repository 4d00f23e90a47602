#!/usr/bin/env python3
"""nvmath_step.py INIT.safetensors AFTER.safetensors: one training step of
a one-hidden-layer MLP (784-100-10, batch 256) written the way NVIDIA's
nvmath-python backpropagation tutorial writes it (stateful
nvmath.linalg.advanced.Matmul objects with the RELU_AUX_BIAS, BIAS,
DRELU_BGRAD and BGRADB epilogues, on PyTorch tensors), from mnist_train's
checkpoint INIT and the same first batch, compared with the weights
mnist_train saved after that one step (AFTER); then an epoch of such steps,
timed, as a fidelity row beside the benchmark.

  build/mnist_train --hidden 100 --batch 256 --order file --schedule constant \\
      --steps 0 --save init.safetensors
  build/mnist_train --hidden 100 --batch 256 --order file --schedule constant \\
      --steps 1 --load init.safetensors --save after.safetensors
  scripts/nvmath_step.py init.safetensors after.safetensors --data-dir data/mnist

What is reproduced (AFTER's metadata gives it; anything else is refused):
`--order file` trains the training file's first `batch` images first, so
the step's batch is images 0..255 and their labels; pixels become
x = pixel * pixel_scale + pixel_shift (the metadata's FP32 constants, the
training split's mean and deviation), rounded once to FP32 as mnist_train's
gather kernel does (nvcc contracts the multiply-add into one FMA; an
unfused one would differ by an ulp, which the bound below allows); the loss
is the mean softmax cross-entropy, its gradient (softmax - onehot) / batch;
FP32 keeps a loss scale of 1; SGD with momentum from a zero buffer,
v = momentum * v + g, p = p - lr * v, with `--schedule constant` the rate
of every step is lr (the cosine schedule's first step is lr too).

The bounds. Every call adds in FP32 (u = 2^-24) sums of k products in some
order: within 2 (k + 2) u times the sum of the |terms| of the exact sum
(Higham 3.1; the per-call bound the GPU tests hold every call to,
tests/test_call_check.c, cited in docs/backprop.md section 12; a factor 2
to spare). Two checks use it:
1. Each of nvmath's five calls against the same call in float64 on
   nvmath's own inputs: every element within its bound, every mask bit
   equal to (Z >= 0) where |Z| exceeds its bound. Sharp: correct calls
   use a small fraction of it, while a wrong mask, index, operand or
   epilogue is off by whole terms, far outside it.
2. The weights after the step against mnist_train's. Both programs start
   from the same stored inputs, so each quantity of the step is bounded in
   turn, in float64 on the GPU, from the bounds of its inputs and its own
   call's: Z1 = W1 X + b1 (k = 784), Y1 = ReLU(Z1) (1-Lipschitz),
   Z2 = W2 Y1 + b2 (k = 100), the softmax (its Jacobian and a few
   roundings), dZ2, then dW2 and db2 (k = batch), dZ1 = (W2^T dZ2) masked
   (k = 10; where |Z1| is within its bound of 0 the mask may go either
   way, and the whole term is allowed), db1 and dW1 (k = batch). A
   gradient within E of the exact one gives weights within lr E (+ the
   update's roundings, u (lr |v| + |p|)) of the exact update; nvmath's and
   mnist_train's weights are then within twice that of each other: the
   per-call FP32 bound, chained, times lr. Rigorous but loose: worst-case
   sums and the cancellation in the batch sums make it of the order of the
   change itself for many elements, so it fails gross errors only; check 1
   is the sharp one, and the largest difference over the largest change
   (scripts/replay_step_pytorch.py's measure, 1e-3 there) is printed beside
   it.
PASS when both hold for every element.

The layout, and where nvmath insists on column-major: nvmath-python derives
each operand's layout from its strides (row-major: CUBLASLT_ORDER_ROW;
column-major: ORDER_COL) and chooses the result's. For every epilogue used
here its handlers require the result D, and so the epilogue's vectors and
mask, in column order (nvmath/linalg/_internal/epilog_protocol.py: the
BIAS, RELU_AUX, DRELU and BGRAD handlers' `order` is COL; BGRADB's "to
work around a library issue"), it refuses a row-major C with BGRADA/BGRADB,
and for BGRADB it transposes B itself and runs it with OP_T (cuBLASLt's
BGRADB needs transb = T, docs/backprop.md section 4). So every D below is
column-major, which is PyTorch's row-major (batch, features) tensor, as in
the C trainer. Inputs may be either: the weights go in as PyTorch stores
them, row-major (the tutorial's way), where the C wrapper describes the
same bytes as the column-major Wt with op T; a result D goes into the next
call as it is, column-major.

Exit code: 0 when both checks pass (and the epoch ran); 1 when one does
not, or a call fails; 2 for bad usage or checkpoints that do
not describe one FP32 ReLU step of a one-hidden-layer network in file
order with a constant rate; 3 without PyTorch, nvmath-python, safetensors or
a GPU, saying which and the pip command.
"""
import argparse
import importlib
import json
import math
import os
import statistics
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import find, load_idx  # noqa: E402

PROG = "nvmath_step.py"
U = 2.0 ** -24  # FP32 unit roundoff
PIP = "pip install torch safetensors 'nvmath-python[cu13]'"
CHECKPOINT_MAX_BYTES = 1 << 30


def usage_error(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def import_packages():
    """torch, nvmath (with nvmath.linalg.advanced) and safetensors, or exit 3
    naming what is missing and the pip command; exit 3 also when PyTorch
    sees no CUDA GPU."""
    try:
        import torch
        importlib.import_module("safetensors.torch")
        import nvmath
        importlib.import_module("nvmath.linalg.advanced")
    except ImportError as e:
        print(f"{PROG}: needs {e.name or 'a package'}: {PIP}\n  ({e})", file=sys.stderr)
        sys.exit(3)
    if not torch.cuda.is_available():
        print(f"{PROG}: needs a CUDA GPU that PyTorch sees (torch.cuda.is_available() is "
              "False)", file=sys.stderr)
        sys.exit(3)
    return torch, nvmath


def read_checkpoint(torch, path):
    """(tensors on the GPU, metadata) of a safetensors file of mnist_train;
    a regular file of at most CHECKPOINT_MAX_BYTES."""
    from safetensors import safe_open
    from safetensors.torch import load_file
    if not os.path.isfile(path):
        usage_error(f"{path}: expected a checkpoint file (mnist_train --save), found "
                    f"{'a folder' if os.path.isdir(path) else 'nothing'}")
    if os.path.getsize(path) > CHECKPOINT_MAX_BYTES:
        usage_error(f"{path}: over {CHECKPOINT_MAX_BYTES} bytes: not a 784-H-10 checkpoint")
    try:
        with safe_open(path, framework="pt") as f:
            meta = f.metadata() or {}
        return load_file(path, device="cuda"), meta
    except Exception as e:  # safetensors raises its own error types
        usage_error(f"{path}: cannot read as safetensors: {e}")


def run_settings(after_path, meta, init_meta):
    """The step's settings from AFTER's metadata, checked to be what this
    script reproduces; exit 2 naming what differs."""
    def need(key):
        if key not in meta:
            usage_error(f"{after_path}: the metadata has no '{key}' (expected mnist_train --save)")
        return meta[key]
    expected = {"precision": "fp32", "activation": "relu", "order": "file",
                "schedule": "constant", "steps": "1"}
    absent = {"precision": "fp32", "activation": "relu"}  # files from before they were kept
    for key, value in expected.items():
        found = meta.get(key, absent.get(key))
        if found != value:
            usage_error(f"{after_path}: expected {key} {value} (mnist_train --{key} {value}), "
                        f"found {found}")
    widths = [int(w) for w in need("widths").split("-")]
    if len(widths) != 3 or widths[0] != 784:
        usage_error(f"{after_path}: expected one hidden layer, 784-H-C, found {need('widths')}")
    if init_meta.get("widths") != need("widths"):
        usage_error(f"the two checkpoints hold different networks: {init_meta.get('widths')} "
                    f"and {need('widths')}")
    import numpy as np
    f32 = np.float32
    return {"widths": widths, "batch": int(need("batch")),
            "lr": float(f32(float(need("lr")))), "momentum": float(f32(float(need("momentum")))),
            "scale": float(f32(float(need("pixel_scale")))),
            "shift": float(f32(float(need("pixel_shift")))), "mode": meta.get("mode", "fused")}


def load_train(torch, folder, scale, shift):
    """The training split in file order: x (60000, 784) FP32 on the GPU,
    fl(pixel * scale + shift) rounded once (exact in float64: an 8-bit
    pixel times a 24-bit scale has at most 32 significant bits), the pixels
    as they were, and the labels."""
    images = load_idx(find(folder, "train-images-idx3-ubyte"))
    labels = load_idx(find(folder, "train-labels-idx1-ubyte"))
    pixels = torch.tensor(images.reshape(len(images), -1), device="cuda").double()
    x = (pixels * scale + shift).float()
    return x, pixels * scale, torch.tensor(labels, device="cuda").long()


class NvmathStep:
    """The five matmuls of one training step at one batch size, each a
    stateful nvmath Matmul planned on its first use (the tutorial's lazy
    way) and given new operands with reset_operands afterwards. Shapes as
    the math reads them: I inputs, H hidden, C classes, n the batch;
    "col-major" is a tensor whose first index moves fastest (strides
    (1, rows)), which is PyTorch's row-major tensor of the transposed
    shape."""

    def __init__(self, nvmath, params):
        self.nvmath = nvmath
        self.w1, self.b1, self.w2, self.b2 = params  # (H, I), (H), (C, H), (C)
        self.mm = {}

    def _call(self, name, epilog, a, b, planned_inputs=None, step_inputs=None):
        """Matmul `name` of a @ b with `epilog`: created and planned the first
        time (with the epilogue inputs that stay: the bias, updated in place
        by SGD), its operands reset afterwards (with the inputs that change
        every step: the mask); returns what execute() returns."""
        adv = self.nvmath.linalg.advanced
        mm = self.mm.get(name)
        if mm is None:
            # FP32 products and sums, no TF32: mnist_train --precision fp32.
            options = {"compute_type": self.nvmath.linalg.ComputeType.COMPUTE_32F}
            mm = adv.Matmul(a, b, options=options)
            mm.plan(epilog=getattr(adv.MatmulEpilog, epilog) if epilog else None,
                    epilog_inputs={**(planned_inputs or {}), **(step_inputs or {})} or None)
            self.mm[name] = mm
        elif step_inputs:
            mm.reset_operands(a=a, b=b, epilog_inputs=step_inputs)
        else:
            mm.reset_operands(a=a, b=b)
        return mm.execute()

    def free(self):
        """Releases every Matmul's resources (the tutorial's __del__)."""
        for mm in self.mm.values():
            mm.free()
        self.mm = {}

    def gradients(self, torch, x, labels):
        """One forward and backward pass on x (n, I) row-major and labels [n];
        returns every tensor of it by name: "grads" (dW1 (H, I), db1 (H),
        dW2 (C, H), db2 (C), in the parameters' own layout), "loss", and the
        intermediates the per-call check reads."""
        n = x.shape[0]
        # Forward, hidden layer. C: layers/linear.c:linear_forward_call
        # (RELU_AUX_BIAS; m = H, n, k = I; A = Wt (I, H) with op T, B = X (I, n)).
        # Y1 (H, n) col-major = ReLU(W1 (H, I) @ X^T (I, n) + b1), and the
        # mask: bit i % 8 of byte (i / 8, j) is set where Z1 (i, j) >= 0;
        # aux["relu_aux"] is uint8 (round_up(ceil(H / 8), 16), n) col-major,
        # 128 bits a column: the C trainer's AUX_LD = round_up(H, 128).
        y1, aux = self._call("forward hidden", "RELU_AUX_BIAS", self.w1, x.T,
                             planned_inputs={"bias": self.b1})
        mask = aux["relu_aux"]
        # Forward, output layer. C: layers/linear.c:linear_forward_call (BIAS;
        # m = C, n, k = H). logits (C, n) col-major = W2 (C, H) @ Y1 (H, n) + b2.
        logits = self._call("forward output", "BIAS", self.w2, y1,
                            planned_inputs={"bias": self.b2})
        # The loss and its gradient. C: layers/xent.cu:xent_loss_grad.
        # dZ2 (C, n) col-major = (softmax(logits) - onehot(labels)) / n.
        z = logits.T  # (n, C) row-major: one sample's logits contiguous
        p = torch.softmax(z, dim=1)
        loss = -torch.log(p[torch.arange(n, device=z.device), labels]).mean()
        p[torch.arange(n, device=z.device), labels] -= 1.0
        dz2 = (p / n).T
        # Weights, output layer. C: layers/linear.c:linear_backward_weights_call
        # (BGRADB; m = H, n = C, k = batch; A = Y1 (H, n), B = dZ2 (C, n) with
        # op T). dW2^T (H, C) col-major = Y1 (H, n) @ dZ2^T (n, C); BGRADB sums
        # op(B) = dZ2^T over k: db2[C] = sum over the batch of dZ2. nvmath
        # transposes B itself for BGRADB (OP_T on the col-major dZ2), as the C does.
        dw2_t, aux = self._call("weights output", "BGRADB", y1, dz2.T)
        db2 = aux["bgradb"]
        # Data, into the hidden layer. C: layers/linear.c:linear_backward_data_call
        # (DRELU_BGRAD; m = H, n, k = C; A = Wt (H, C) = W2 as stored, op N;
        # B = dZ2 (C, n)). dZ1 (H, n) col-major = (W2^T (H, C) @ dZ2 (C, n))
        # masked by the hidden layer's bits; db1[H] = the sum of dZ1 over the batch.
        dz1, aux = self._call("data hidden", "DRELU_BGRAD", self.w2.T, dz2,
                              step_inputs={"relu_aux": mask})
        db1 = aux["drelu_bgrad"]
        # Weights, hidden layer. C: layers/linear.c:linear_backward_weights_call
        # (DEFAULT; m = I, n = H, k = batch; A = X (I, n), B = dZ1 (H, n) with
        # op T; its bias gradient came from DRELU_BGRAD above). dW1^T (I, H)
        # col-major = X^T (I, n) @ dZ1^T (n, H); nvmath describes dZ1^T as a
        # row-major (n, H) layout where the C says dZ1 with op T: the same bytes.
        dw1_t = self._call("weights hidden", None, x.T, dz1.T)
        return {"grads": (dw1_t.T, db1, dw2_t.T, db2), "loss": loss, "x": x, "y1": y1,
                "mask": mask, "logits": logits, "dz2": dz2, "dz1": dz1}


def sgd_update(params, grads, velocity, lr, momentum):
    """C: layers/sgd.cu:sgd_update (layers/sgd_step.cuh): v = momentum v + g,
    p = p - lr v, in place, in FP32."""
    for p, g, v in zip(params, grads, velocity):
        v.mul_(momentum).add_(g)
        p.add_(v, alpha=-lr)


def mask_bits(torch, mask, rows):
    """The (rows, n) 0/1 matrix of a ReLU mask: bit i % 8 of byte (i / 8, j)
    (the cuBLASLt rule measured by tests/test_lt_facts.c)."""
    i = torch.arange(rows, device=mask.device)
    return (mask[i // 8, :] >> (i % 8).to(torch.uint8)[:, None]) & 1


def call_checks(torch, t, params):
    """Each of nvmath's five calls against the same call in float64 on
    nvmath's own inputs (so no error carried in): every element within
    2 (k + 2) u (sum of |terms| + |bias|), and the mask bit equal to
    (Z >= 0) wherever |Z| exceeds that bound. Returns rows of (call, k,
    largest |nvmath - float64| / bound, mask bits compared, bits wrong)."""
    def d(v):
        return v.double()

    def ratio(got, ref, bound):
        off = (d(got) - ref).abs()
        return torch.where(off == 0, 0.0, off / bound).max().item()
    w1, b1, w2, b2 = [d(p) for p in params]
    x, y1, dz2, dz1 = d(t["x"]), d(t["y1"]), d(t["dz2"]), d(t["dz1"])
    n, inputs = x.shape
    hidden, classes = w1.shape[0], w2.shape[0]

    def gamma(k):
        return 2.0 * (k + 2) * U
    rows = []
    z1 = w1 @ x.T + b1[:, None]
    e = gamma(inputs) * (w1.abs() @ x.abs().T + b1.abs()[:, None])
    bits = mask_bits(torch, t["mask"], hidden).bool()
    decided = z1.abs() > e
    wrong = int((bits != (z1 >= 0))[decided].sum().item())
    rows.append(("forward hidden, RELU_AUX_BIAS", inputs, ratio(t["y1"], z1.clamp(min=0), e),
                 int(decided.sum().item()), wrong))
    z2 = w2 @ y1 + b2[:, None]
    e = gamma(hidden) * (w2.abs() @ y1.abs() + b2.abs()[:, None])
    rows.append(("forward output, BIAS", hidden, ratio(t["logits"], z2, e), 0, 0))
    dw1, db1, dw2, db2 = t["grads"]
    e = gamma(n) * (dz2.abs() @ y1.abs().T)
    rows.append(("weights output, BGRADB: dW2", n, ratio(dw2, dz2 @ y1.T, e), 0, 0))
    rows.append(("weights output, BGRADB: db2", n, ratio(db2, dz2.sum(dim=1),
                                                         gamma(n) * dz2.abs().sum(dim=1)), 0, 0))
    g1 = (w2.T @ dz2) * bits.double()  # masked by nvmath's own bits
    e = gamma(classes) * (w2.T.abs() @ dz2.abs())
    rows.append(("data hidden, DRELU_BGRAD: dZ1", classes, ratio(t["dz1"], g1, e), 0, 0))
    # Its bias gradient sums D before or after D's rounding: each term
    # within e of g1, then n more terms.
    rows.append(("data hidden, DRELU_BGRAD: db1", n,
                 ratio(db1, g1.sum(dim=1), e.sum(dim=1) + gamma(n) * (g1.abs() + e).sum(dim=1)),
                 0, 0))
    e = gamma(n) * (dz1.abs() @ x.abs())
    rows.append(("weights hidden, DEFAULT: dW1", n, ratio(dw1, dz1 @ x, e), 0, 0))
    return rows


def step_bound(torch, x, x_product, labels, params, lr):
    """Per parameter element, the bound on |FP32 step - exact step| for
    either program, and the exact (float64) weights after the step; the
    derivation is in the module's help. Returns (bounds, exact, ambiguous
    pre-activations)."""
    w1, b1, w2, b2 = [t.double() for t in params]
    n, i_in = x.shape
    hidden, classes = w1.shape[0], w2.shape[0]

    def gamma(k):
        return 2.0 * (k + 2) * U
    X = x.double()
    e_x = U * (x_product.abs() + 2.0 * X.abs())  # an unfused multiply-add differs by this
    z1 = w1 @ X.T + b1[:, None]  # (H, n)
    e_z1 = w1.abs() @ e_x.T + gamma(i_in) * (w1.abs() @ (X.abs() + e_x).T + b1.abs()[:, None])
    y1 = z1.clamp(min=0)
    z2 = w2 @ y1 + b2[:, None]  # (C, n)
    e_z2 = w2.abs() @ e_z1 + gamma(hidden) * (w2.abs() @ (y1.abs() + e_z1) + b2.abs()[:, None])
    p = torch.softmax(z2, dim=0)
    zmax = z2.max(dim=0).values
    log_sum = torch.logsumexp(z2 - zmax, dim=0)
    e_p = p * (e_z2 + (p * e_z2).sum(dim=0)) \
        + p * U * (2.0 * (z2 - zmax).abs() + 3.0 * log_sum.abs() + 2 * classes + 12)
    onehot = torch.zeros_like(p)
    onehot[labels, torch.arange(n, device=p.device)] = 1.0
    dz2 = (p - onehot) / n
    e_dz2 = (e_p + U * (p - onehot).abs()) / n + U * dz2.abs()
    dw2 = dz2 @ y1.T  # (C, H)
    e_dw2 = e_dz2 @ y1.T.abs() + dz2.abs() @ e_z1.T \
        + gamma(n) * ((dz2.abs() + e_dz2) @ (y1.abs() + e_z1).T)
    db2 = dz2.sum(dim=1)
    e_db2 = e_dz2.sum(dim=1) + gamma(n) * (dz2.abs() + e_dz2).sum(dim=1)
    g1 = w2.T @ dz2  # (H, n)
    e_g1 = w2.T.abs() @ e_dz2 + gamma(classes) * (w2.T.abs() @ (dz2.abs() + e_dz2))
    ambiguous = z1.abs() <= e_z1  # the ReLU bit may go either way here
    dz1 = torch.where(z1 >= 0, g1, torch.zeros_like(g1))
    e_dz1 = torch.where(ambiguous, g1.abs() + e_g1, e_g1)
    db1 = dz1.sum(dim=1)
    e_db1 = e_dz1.sum(dim=1) + gamma(n) * (dz1.abs() + e_dz1).sum(dim=1)
    dw1 = dz1 @ X  # (H, I)
    e_dw1 = e_dz1 @ X.abs() + dz1.abs() @ e_x \
        + gamma(n) * ((dz1.abs() + e_dz1) @ (X.abs() + e_x))
    bounds, exact = [], []
    for p0, g, e_g in ((w1, dw1, e_dw1), (b1, db1, e_db1), (w2, dw2, e_dw2), (b2, db2, e_db2)):
        after = p0 - lr * g
        # lr * (the gradient's bound), then the update's roundings: of lr * v
        # (|v| <= |g| + e_g; none when fused into an FMA, as in the C) and of
        # the new weight (|p| <= |after| + lr e_g).
        bounds.append(lr * e_g + U * (lr * (g.abs() + e_g) + after.abs() + lr * e_g))
        exact.append(after)
    return bounds, exact, int(ambiguous.sum().item())


def compare(torch, names, ours, theirs, exact, start, bounds):
    """Prints, per tensor, nvmath against the exact step (its own bound) and
    against mnist_train (twice the bound); returns (passed, rows)."""
    print("per tensor: the largest |nvmath - mnist_train|, the largest change the step made "
          "and their ratio (scripts/replay_step_pytorch.py's measure), the median of the "
          "elements' bounds (twice the chained per-call bound times lr), and the largest "
          "difference over its own bound, against mnist_train and against the exact step:")
    print(f"{'tensor':9s} {'max |nv - C|':>13s} {'max |change|':>13s} {'/ change':>9s} "
          f"{'median bound':>13s} {'nv-C/(2 bound)':>15s} {'nv-exact/bound':>15s} verdict")
    passed, rows = True, []
    for name, a, b, x, s, e in zip(names, ours, theirs, exact, start, bounds):
        diff = (a.double() - b.double()).abs()
        off = (a.double() - x).abs()
        to_c = torch.where(diff == 0, 0.0, diff / (2.0 * e)).max().item()
        to_exact = torch.where(off == 0, 0.0, off / e).max().item()
        change = (b.double() - s.double()).abs().max().item()
        ok = to_c <= 1.0 and to_exact <= 1.0
        passed &= ok
        rows.append({"tensor": name, "max_diff": diff.max().item(), "max_change": change,
                     "median_bound": 2.0 * e.median().item(), "max_bound": 2.0 * e.max().item(),
                     "diff_over_bound": to_c, "exact_over_bound": to_exact, "pass": ok})
        print(f"{name:9s} {rows[-1]['max_diff']:13.3g} {change:13.3g} "
              f"{rows[-1]['max_diff'] / change if change else 0.0:9.3g} "
              f"{rows[-1]['median_bound']:13.3g} "
              f"{to_c:15.3g} {to_exact:15.3g} {'PASS' if ok else 'FAIL'}")
    return passed, rows


def report_calls(checks):
    """Prints the per-call table; True when every call is within its bound
    and no decided mask bit differs."""
    print("each nvmath call against the same call in float64 on its own inputs "
          "(bound 2 (k + 2) u sum|terms|):")
    print(f"  {'call':32s} {'k':>5s} {'max off/bound':>14s} {'mask bits':>10s} {'wrong':>6s}")
    ok = True
    for name, k, r, bits, wrong in checks:
        good = r <= 1.0 and wrong == 0
        ok &= good
        print(f"  {name:32s} {k:5d} {r:14.3g} {bits or '-':>10} {wrong if bits else '-':>6} "
              f"{'PASS' if good else 'FAIL'}")
    return ok


def check_step(torch, nvmath, settings, batch, start, theirs, names):
    """One nvmath step from `start` on batch (x, pixel * scale, labels), its
    calls checked one by one, and its weights against `theirs` (mnist_train's)
    and the exact step; returns (passed, result)."""
    x, x_product, y = batch
    params = [t.clone() for t in start]
    velocity = [torch.zeros_like(t) for t in params]
    step = NvmathStep(nvmath, params)
    t = step.gradients(torch, x, y)
    checks = call_checks(torch, t, start)  # before SGD changes the weights in place
    sgd_update(params, t["grads"], velocity, settings["lr"], settings["momentum"])
    torch.cuda.synchronize()
    step.free()
    calls_ok = report_calls(checks)
    bounds, exact, ambiguous = step_bound(torch, x, x_product, y, start, settings["lr"])
    print(f"first batch: loss {t['loss'].item():.6f}; {ambiguous} of the hidden pre-activations "
          "within their bound of 0: their ReLU bit may go either way, and the bounds of the "
          "gradients that read them allow the whole term")
    weights_ok, rows = compare(torch, names, params, theirs, exact, start, bounds)
    passed = calls_ok and weights_ok
    print(f"{'PASS' if passed else 'FAIL'}: " + (
        "every nvmath call within its FP32 bound, and nvmath's weights within the per-call "
        "bound times lr of mnist_train's (and of the exact step's)" if passed else
        "see FAIL above"))
    return passed, {"pass": passed, "calls": [dict(zip(("call", "k", "off_over_bound",
                                                         "mask_bits", "mask_wrong"), c))
                                              for c in checks],
                    "tensors": rows, "ambiguous_relu": ambiguous}


def timed_epochs(torch, nvmath, x_all, y_all, params, batch, settings, epochs):
    """ms of each of `epochs` epochs after one warm-up epoch of nvmath steps
    and SGD (file order, the partial last batch trained with Matmul objects
    of its own), and the mean loss of the last epoch."""
    params = [p.clone() for p in params]
    velocity = [torch.zeros_like(p) for p in params]
    steps = {}
    times, loss_sum = [], None
    for epoch in range(epochs + 1):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        loss_sum = torch.zeros((), device="cuda")
        start.record()
        for first in range(0, len(x_all), batch):
            x, y = x_all[first:first + batch], y_all[first:first + batch]
            if len(x) not in steps:
                steps[len(x)] = NvmathStep(nvmath, params)
            t = steps[len(x)].gradients(torch, x, y)
            loss_sum += t["loss"] * len(x)
            sgd_update(params, t["grads"], velocity, settings["lr"], settings["momentum"])
        stop.record()
        torch.cuda.synchronize()
        if epoch > 0:
            times.append(start.elapsed_time(stop))
    for step in steps.values():
        step.free()
    return times, loss_sum.item() / len(x_all)


def fidelity_row(torch, nvmath, data, start, settings, epochs, widths):
    """Times `epochs` epochs of nvmath steps (after one warm-up), prints the
    fidelity row and returns it as a dict."""
    batch = settings["batch"]
    times, mean_loss = timed_epochs(torch, nvmath, *data, start, batch, settings, epochs)
    print(f"nvmath fidelity row: {widths} batch {batch} fp32, the tutorial's way "
          "(a stateful Matmul per call, reset_operands each step, host-launched, no CUDA "
          f"graph; loss and SGD in PyTorch): {statistics.median(times):.2f} ms per epoch "
          f"(median of {len(times)}, {min(times):.2f}-{max(times):.2f}) after one warm-up "
          f"epoch; last epoch's mean loss {mean_loss:.4f}")
    return {"ms_per_epoch": statistics.median(times), "ms_min": min(times),
            "ms_max": max(times), "epochs": len(times),
            "mean_loss": mean_loss if math.isfinite(mean_loss) else None}


def parse_args():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("init", metavar="INIT.safetensors", help="mnist_train --steps 0 --save")
    ap.add_argument("after", metavar="AFTER.safetensors",
                    help="mnist_train --steps 1 --load INIT --save")
    ap.add_argument("--data-dir", default=os.environ.get("MNIST_DIR", "data/mnist"))
    ap.add_argument("--epochs", type=int, default=3,
                    help="timed epochs after one warm-up (0: no fidelity row; default 3)")
    ap.add_argument("--json", metavar="FILE", help="also write the results here")
    args = ap.parse_args()
    if not 0 <= args.epochs <= 100:
        ap.error(f"--epochs: expected 0 to 100, found {args.epochs}")
    return args


def main():
    args = parse_args()
    torch, nvmath = import_packages()
    torch.backends.cuda.matmul.allow_tf32 = False
    init, init_meta = read_checkpoint(torch, args.init)
    after, meta = read_checkpoint(torch, args.after)
    settings = run_settings(args.after, meta, init_meta)
    names = ["0.weight", "0.bias", "2.weight", "2.bias"]
    for label, tensors, path in (("INIT", init, args.init), ("AFTER", after, args.after)):
        if sorted(tensors) != sorted(names):
            usage_error(f"{path} ({label}): expected the tensors {', '.join(names)}, found "
                        f"{', '.join(sorted(tensors))}")
    x_all, x_product, y_all = load_train(torch, args.data_dir, settings["scale"],
                                         settings["shift"])
    batch = settings["batch"]
    x, y = x_all[:batch], y_all[:batch]
    start = [init[k].contiguous() for k in names]
    try:
        cublaslt = nvmath.bindings.cublasLt.get_version()  # loads the library
    except Exception as e:
        print(f"{PROG}: nvmath cannot load cuBLASLt: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"{PROG}: nvmath-python {nvmath.__version__}, cuBLASLt {cublaslt}, PyTorch "
          f"{torch.__version__}, {torch.cuda.get_device_name()}; "
          f"{meta['widths']} batch {batch}, lr {settings['lr']:.9g}, momentum "
          f"{settings['momentum']:.9g}; mnist_train's step: {args.after} (mode "
          f"{settings['mode']})")
    try:
        passed, result = check_step(torch, nvmath, settings, (x, x_product[:batch], y),
                                    start, [after[k] for k in names], names)
    except Exception as e:  # nvmath's and cuBLASLt's errors, named, with where
        print(f"{PROG}: the nvmath step failed: {type(e).__name__}: {e}\n"
              f"{traceback.format_exc()}", file=sys.stderr)
        return 1
    result.update(nvmath=nvmath.__version__, cublaslt=cublaslt, torch=torch.__version__,
                  gpu=torch.cuda.get_device_name(), network=meta["widths"], batch=batch)
    if args.epochs:
        try:
            result["fidelity"] = fidelity_row(torch, nvmath, (x_all, y_all), start, settings,
                                              args.epochs, meta["widths"])
        except Exception as e:
            print(f"{PROG}: the timed epochs failed: {type(e).__name__}: {e}\n"
                  f"{traceback.format_exc()}", file=sys.stderr)
            return 1
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
