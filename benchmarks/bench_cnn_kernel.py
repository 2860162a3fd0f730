"""Analytic CNN kernel timing and peak memory (not a test; run on demand).

    python benchmarks/bench_cnn_kernel.py [n_images] [block_size]

NTK + NNGP of a 3-conv ReLU CNN with global average pooling on n one-channel 8x8 images
(the Gram matrix, computed in blocks of ``block_size`` images). Target (issue 3): n = 400 in
<= 11 s with <= 2 GB peak memory on 2 cores; neural-tangents needs 108 s batched.
"""

from __future__ import annotations

import resource
import sys
import time

import torch

import ntk_helpers as nh


def main(n: int = 400, block: int = 20) -> None:
    x = torch.randn(n, 1, 8, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    conv = lambda: nh.conv(sigma_w=2 ** 0.5)
    arch = nh.serial(conv(), nh.relu(), conv(), nh.relu(), conv(), nh.relu(), nh.global_avg_pool(), nh.dense(1))
    start = time.perf_counter()
    kernel = arch.kernel(x, block_size=block)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"3-conv ReLU CNN + GAP, {n} images 8x8, blocks of {block}: {elapsed:.1f} s, peak RSS {peak:.2f} GB, "
          f"NTK shape {tuple(kernel.ntk.shape)}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
