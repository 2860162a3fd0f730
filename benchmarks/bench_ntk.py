"""Empirical and analytic NTK timings, side by side in one run (not a test; run on demand).

    python benchmarks/bench_ntk.py            # or: make benchmark

Compares, on n = 256 inputs of dimension d = 32 and an MLP with 3 hidden layers of width 512:
- ntk_helpers' layerwise path (the package's own MLPs),
- ntk_helpers' jacobian path (any nn.Module: torch.func, chunked),
- the torch.func tutorial's recipe: vmap(jacrev) Jacobians + one einsum per parameter, unchunked,
- a naive loop with one backward pass per example,
and the analytic 256 x 256 NTK of the depth-3 MLP. Targets (issue 2): layerwise >= 30x faster
than the tutorial recipe; jacobian path on another module <= 1.5x the tutorial's time; analytic
kernel a few milliseconds.
"""

from __future__ import annotations

import time

import torch
from torch import nn
from torch.func import functional_call, jacrev, vmap

import ntk_helpers as nh

N, D, WIDTH, DEPTH = 256, 32, 512, 3


def best_of(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def tutorial_ntk(model, x1, x2):
    """The torch.func tutorial's recipe: full Jacobians of both batches, then sum over parameters."""
    params = {k: v.detach() for k, v in model.named_parameters()}

    def f(p, x):
        return functional_call(model, p, (x.unsqueeze(0),)).squeeze(0)

    j1 = vmap(jacrev(f), (None, 0))(params, x1)
    j2 = vmap(jacrev(f), (None, 0))(params, x2)
    return sum(torch.einsum("Naf,Mbf->NMab", a.flatten(2), b.flatten(2)) for a, b in zip(j1.values(), j2.values()))


def plain_torch_mlp(dtype):
    torch.manual_seed(0)
    layers, fan_in = [], D
    for _ in range(DEPTH):
        layers += [nn.Linear(fan_in, WIDTH, dtype=dtype), nn.ReLU()]
        fan_in = WIDTH
    return nn.Sequential(*layers, nn.Linear(fan_in, 1, dtype=dtype))


def main():
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; n = {N}, d = {D}, MLP {DEPTH} x {WIDTH}")
    arch = nh.mlp(DEPTH, "relu", sigma_w=2 ** 0.5, sigma_b=0.1)
    for dtype in (torch.float32, torch.float64):
        x = nh.sphere(N, D, seed=0).to(dtype)
        model = arch.network(D, width=WIDTH, seed=0, dtype=dtype)
        other = plain_torch_mlp(dtype)
        t_layer = best_of(lambda: nh.empirical_ntk(model, x))
        t_jac = best_of(lambda: nh.empirical_ntk(model, x, method="jacobian"))
        t_tut = best_of(lambda: tutorial_ntk(model, x, x))
        t_other_pkg = best_of(lambda: nh.empirical_ntk(other, x))
        t_other_tut = best_of(lambda: tutorial_ntk(other, x, x))
        t_naive = best_of(lambda: nh.empirical_ntk(model, x, method="naive"), repeats=1)
        print(f"\n{str(dtype).replace('torch.', '')}:")
        print(f"  package MLP, layerwise       {1000 * t_layer:9.1f} ms   ({t_tut / t_layer:5.1f}x faster than the tutorial recipe)")
        print(f"  package MLP, jacobian path   {1000 * t_jac:9.1f} ms   ({t_jac / t_tut:5.2f}x the tutorial's time)")
        print(f"  package MLP, tutorial recipe {1000 * t_tut:9.1f} ms")
        print(f"  package MLP, naive loop      {1000 * t_naive:9.1f} ms")
        print(f"  plain nn.Sequential, package {1000 * t_other_pkg:9.1f} ms   ({t_other_pkg / t_other_tut:5.2f}x the tutorial's time)")
        print(f"  plain nn.Sequential, tutorial{1000 * t_other_tut:9.1f} ms")
    x = nh.sphere(N, D, seed=0)
    t_kernel = best_of(lambda: arch.kernel(x), repeats=20)
    print(f"\nanalytic NTK + NNGP, {N} x {N}, depth {DEPTH} ReLU: {1000 * t_kernel:.2f} ms")
    t_tanh = best_of(lambda: nh.mlp(DEPTH, "tanh").kernel(x), repeats=3)
    print(f"analytic NTK + NNGP, {N} x {N}, depth {DEPTH} tanh (quadrature): {1000 * t_tanh:.0f} ms")


if __name__ == "__main__":
    main()
