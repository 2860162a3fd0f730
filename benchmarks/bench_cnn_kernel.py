"""Analytic kernel timings and peak memory: the package's default path against the plain reference path.

    python benchmarks/bench_cnn_kernel.py            # every case, 3 interleaved rounds, minimum reported
    python benchmarks/bench_cnn_kernel.py --rounds 1 --cases gap100-8 flat400-8

Cases (float64, Gram matrices, NTK + NNGP; ``cnn`` = 3 x (conv 3x3 "same", sigma_w^2 = 2, ReLU)):

- ``gap400-8``:  cnn + global_avg_pool + dense(1), 400 one-channel 8x8 images
- ``gap100-16``: the same on 100 images 16x16
- ``gap100-8``:  the same on 100 images 8x8
- ``flat400-8``: cnn + flatten + dense(1), 400 images 8x8
- ``mlp2048``:   depth-3 ReLU MLP on 2048 points of the sphere S^31

Variants, each run in a fresh process (so that its peak RSS, ``ru_maxrss``, is its own):

- ``reference``: the plain eager path as it was before the planning: every layer's rule on the full
  (n1, n2, H, W, H, W) pixel-pair tensors, in blocks of 20 images (images) or one block (vectors), with
  ``malloc_trim`` after every block;
- ``eager``: ``arch.kernel(x, compiled=False)``: the layers' rules on pair tensors, with same-position
  pairs before a flatten readout, blocks chosen from the memory budget (1 GiB) and heap-sized, freed
  memory reused during the call;
- ``default``: ``arch.kernel(x)``: the compiled paths (``engine/compiled/``; pooled: one pair of images at a time,
  all layers fused) for the pooled cases and the MLP, the eager path for flatten; the compiled code is compiled
  (or loaded from numba's disk cache) before the clock starts, once per process;
- ``float32``: ``arch.kernel(x, pair_dtype=torch.float32)`` (the eager path with float32 pair tensors), with
  its largest relative error against ``default`` (NTK entries, relative to the largest entry).

neural-tangents 0.6.5 (jit, batched; measured on this machine for issue 13): gap400-8 46.7 s, gap100-16
46.7 s, gap100-8 2.8 s, flat400-8 0.44 s, mlp2048 0.18 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import torch

import ntk_helpers as nh
from ntk_helpers.engine.kernel import Kernel

NEURAL_TANGENTS = {"gap400-8": 46.7, "gap100-16": 46.7, "gap100-8": 2.8, "flat400-8": 0.44, "mlp2048": 0.18}
CASES = list(NEURAL_TANGENTS)
VARIANTS = ("reference", "eager", "default", "float32")


def case(name: str):
    if name == "mlp2048":
        return nh.mlp(3, "relu"), nh.sphere(2048, 32, seed=0)
    readout, n, side = {"gap400-8": (nh.global_avg_pool, 400, 8), "gap100-16": (nh.global_avg_pool, 100, 16),
                        "gap100-8": (nh.global_avg_pool, 100, 8), "flat400-8": (nh.flatten, 400, 8)}[name]
    conv = lambda: nh.conv(sigma_w=2 ** 0.5)
    arch = nh.serial(conv(), nh.relu(), conv(), nh.relu(), conv(), nh.relu(), readout(), nh.dense(1))
    x = torch.randn(n, 1, side, side, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    return arch, x


def _malloc_trim():
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def reference_kernel(arch, x, block: int = 20) -> torch.Tensor:
    """The plain path: each layer's own rule on all pixel pairs, Gram blocks i <= j, malloc_trim per block."""
    def run(k):
        for layer in arch.layers:
            k = layer.transform(k)
        return k
    if x.ndim == 2:
        return run(Kernel.from_inputs(x)).ntk
    n = x.shape[0]
    out = torch.empty(n, n, dtype=torch.float64)
    for i in range(0, n, block):
        for j in range(i, n, block):
            k = run(Kernel.from_inputs(x[i:i + block]) if i == j else
                    Kernel.from_inputs(x[i:i + block], x[j:j + block]))
            out[i:i + block, j:j + block] = k.ntk
            out[j:j + block, i:i + block] = k.ntk.T
            del k
            _malloc_trim()
    return out


def one(name: str, variant: str) -> dict:
    """Run one case in this process: seconds, peak RSS, page faults, and the NTK (for the error)."""
    arch, x = case(name)
    if variant == "default":
        arch.kernel(x[:2])                            # compile (or load the compiled code) outside the clock
    start_usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    if variant == "reference":
        ntk = reference_kernel(arch, x)
    elif variant == "eager":
        ntk = arch.kernel(x, compiled=False).ntk
    elif variant == "default":
        ntk = arch.kernel(x).ntk
    else:
        ntk = arch.kernel(x, pair_dtype=torch.float32).ntk
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result = {"seconds": seconds, "peak_gb": usage.ru_maxrss / 2 ** 20,
              "faults": usage.ru_minflt - start_usage.ru_minflt}
    if variant == "float32":
        exact = arch.kernel(x).ntk
        result["error"] = float((ntk - exact).abs().max() / exact.abs().max())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", nargs="*", default=CASES, choices=CASES)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, load {os.getloadavg()[0]:.2f}")
    best: dict = {}
    for _ in range(args.rounds):                      # interleaved: every variant of every case per round
        for name in args.cases:
            for variant in args.variants:
                out = subprocess.run([sys.executable, __file__, "--one", name, variant], capture_output=True,
                                     text=True, check=True)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                old = best.get((name, variant))
                if old is None or r["seconds"] < old["seconds"]:
                    best[name, variant] = r
    print(f"load after: {os.getloadavg()[0]:.2f}")
    print(f"{'case':<10} {'variant':<10} {'seconds':>8} {'peak GB':>8} {'faults':>9} {'vs ref':>7} {'vs NT':>7}  error")
    for name in args.cases:
        for variant in args.variants:
            r = best[name, variant]
            ref = best.get((name, "reference"), {}).get("seconds")
            speed = f"{ref / r['seconds']:6.1f}x" if ref else "      -"
            error = f"{r['error']:.1e}" if "error" in r else ""
            print(f"{name:<10} {variant:<10} {r['seconds']:8.2f} {r['peak_gb']:8.2f} {r['faults']:9d} {speed} "
                  f"{NEURAL_TANGENTS[name] / r['seconds']:6.2f}x  {error}")


if __name__ == "__main__":
    main()
