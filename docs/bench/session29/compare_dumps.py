"""compare_dumps.py OLD NEW F N: two probe_cast29 dumps of one cast compared:
the codes (q, then q^T) and the counts byte for byte, the amax exactly, the
partial row sums within 2 * 130 * 2^-24 of their magnitude (the order of an
FP32 sum of 128 values differs between the kernels; test_fp8_cast's bound)."""
import struct
import sys

import numpy as np


def ld(n, unit):
    return (n + unit - 1) // unit * unit


old, new = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
F, n = int(sys.argv[3]), int(sys.argv[4])
q = ld(F, 16) * n
qt = ld(n, 16) * F
tiles = (n + 127) // 128
parts = tiles * F * 4
assert len(old) == len(new) == q + qt + parts + 16, (len(old), len(new))
name = sys.argv[2]
same_q = old[:q] == new[:q]
same_qt = old[q:q + qt] == new[q:q + qt]
po = np.frombuffer(old[q + qt:q + qt + parts], dtype=np.float32)
pn = np.frombuffer(new[q + qt:q + qt + parts], dtype=np.float32)
worst = float(np.max(np.abs(po.astype(np.float64) - pn)))
mag = float(np.max(np.abs(po)))
meta_o = struct.unpack("<fIII", old[-16:])
meta_n = struct.unpack("<fIII", new[-16:])
ok = same_q and same_qt and meta_o == meta_n and worst <= 2 * 130 * 2**-24 * 128 * mag
print(f"{name}: q {'same' if same_q else 'DIFFERENT'}, q^T {'same' if same_qt else 'DIFFERENT'}, "
      f"amax/saturated/flushed/nan old {meta_o} new {meta_n}, partials max |diff| {worst:.3g} "
      f"(largest {mag:.3g}): {'AGREE' if ok else 'DISAGREE'}")
