"""How kernel time and memory grow with the number of inputs and the image size (not a test; run on demand).

    python benchmarks/bench_scaling.py [--quick]

Architecture: 3 x (conv 3x3 "same", ReLU) + a readout + dense(1) in float64 (the issue's CNN), Gram kernels
of n one-channel images of side s. Each measurement runs in a fresh process (so peak memory is that call's),
with the default thread settings and memory budget. Prints one line per point and the fitted exponents of
time ~ n^a and ~ s^b (least squares on log-log), for

- the pooled readout (global_avg_pool, the compiled path): (s^2)^2 pixel pairs per pair of inputs, so time
  should grow like n^2 s^4 (n^2 pairs; the Gram symmetry halves the constant, not the exponent);
- the flatten readout: same-position pairs only, s^2 entries per pair: time like n^2 s^2.

Peak memory stays bounded by the memory budget (1 GiB by default) whatever n and s are: that is the point of
the automatic blocks. ``--quick`` runs fewer points.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np

POINT = r"""
import json, math, resource, time, torch
import ntk_helpers as nh
n, side, readout = {n}, {side}, "{readout}"
g = torch.Generator().manual_seed(0)
x = torch.randn(n, 1, side, side, generator=g, dtype=torch.float64)
conv = lambda: nh.conv(sigma_w=math.sqrt(2))
head = nh.global_avg_pool() if readout == "gap" else nh.flatten()
net = nh.serial(conv(), nh.relu(), conv(), nh.relu(), conv(), nh.relu(), head, nh.dense(1))
net.kernel(x[:2])                      # load (or compile) the compiled path outside the clock
start = time.perf_counter()
k = net.kernel(x)
seconds = time.perf_counter() - start
assert k.is_finite()
print(json.dumps(dict(seconds=seconds, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def measure(n: int, side: int, readout: str) -> dict:
    code = POINT.format(n=n, side=side, readout=readout)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def exponent(xs, ys) -> float:
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def sweep(readout: str, ns, sides, fixed_side: int, fixed_n: int) -> None:
    print(f"\n{readout} readout")
    by_n = [measure(n, fixed_side, readout) for n in ns]
    for n, r in zip(ns, by_n):
        print(f"  n = {n:4d}, {fixed_side} x {fixed_side}: {r['seconds']:7.2f} s, peak {r['peak_mb']:6.0f} MB")
    by_side = [measure(fixed_n, s, readout) for s in sides]
    for s, r in zip(sides, by_side):
        print(f"  n = {fixed_n:4d}, {s:2d} x {s:<2d}: {r['seconds']:7.2f} s, peak {r['peak_mb']:6.0f} MB")
    print(f"  time ~ n^{exponent(ns, [r['seconds'] for r in by_n]):.2f} (expected 2),"
          f" ~ side^{exponent(sides, [r['seconds'] for r in by_side]):.2f}"
          f" (expected {4 if readout == 'gap' else 2}); peak memory {max(r['peak_mb'] for r in by_n + by_side):.0f} MB"
          " at most")


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    ns = [100, 200, 400] if quick else [100, 200, 400, 800]
    sweep("gap", ns, [8, 12, 16] if quick else [8, 16, 32], fixed_side=8, fixed_n=20)
    sweep("flatten", ns, [8, 16, 32], fixed_side=8, fixed_n=100)


if __name__ == "__main__":
    main(sys.argv[1:])
