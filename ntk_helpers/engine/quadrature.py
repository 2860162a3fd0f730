"""Gaussian expectations of an arbitrary elementwise function, by quadrature.

Used for activations without a closed-form dual kernel (tanh, or any function you pass to
:func:`ntk_helpers.elementwise`). For a centred Gaussian pair (u, v) with covariance
``[[var1, cov], [cov, var2]]`` we need

    E[phi(u) phi(v)]    and    E[phi'(u) phi'(v)].

We write ``u = sqrt(var1) z1`` and ``v = sqrt(var2) (rho z1 + sqrt(1 - rho^2) z2)`` with
independent standard normals z1, z2 and integrate over (z1, z2) with the trapezoidal rule on a
uniform grid, weighted by the normal density. Why not Gauss–Hermite? Its nodes
near 0 are spaced about pi/sqrt(2N) apart, while phi'(sqrt(q) z) for tanh is a bump of width
1/sqrt(q): at q = 5, 64 Gauss–Hermite nodes miss E[tanh'(u)^2] by 1%. The trapezoidal rule on
the real line converges exponentially for analytic integrands, and we choose its spacing from the
largest variance, ``h = min(0.3, 0.33 / sqrt(q))`` on [-7, 7]: relative error below 1e-8 for
tanh and GELU at every variance up to :data:`MAX_VARIANCE` (guarded in ``tests/test_activations.py``).

That holds for smooth activations only. Where phi' jumps (a kink, as in ReLU or |x|) the rule converges
like h^2 and autograd's one-sided derivative at a node on the kink adds an O(h) error: E[phi' phi'] of
ReLU comes out about 13% low. :func:`kinks` finds such points; :func:`~ntk_helpers.elementwise` warns about
them (give such an activation its closed form, as relu and leaky_relu have).
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from .._checks import DTYPE

#: Largest variance the quadrature accepts; beyond it the grid would need > 900 points per axis.
MAX_VARIANCE = 500.0
_HALF_RANGE = 7.0        # integrate z over [-7, 7]: the normal tail beyond is below 3e-12
_MAX_STEP = 0.3
_STEP_SCALE = 0.33
_MAX_ELEMENTS = 1 << 22  # work in blocks of at most 4M grid evaluations (32 MB in float64)


def derivative(fn: Callable[[torch.Tensor], torch.Tensor], u: torch.Tensor) -> torch.Tensor:
    """Elementwise derivative ``phi'(u)`` of an elementwise torch function, by autograd."""
    with torch.enable_grad():
        u = u.detach().requires_grad_(True)
        (grad,) = torch.autograd.grad(fn(u).sum(), u)
    return grad.detach()


def kinks(fn: Callable[[torch.Tensor], torch.Tensor], *, low: float = -8.0, high: float = 8.0,
          points: int = 16001) -> list[float]:
    """Where ``phi'`` jumps on [low, high]: the points at which a change of ``phi'`` between neighbouring grid
    points is both above 1e-3 and ten times larger than the changes on either side (a smooth ``phi'`` changes
    gradually). Returns the locations, rounded to the grid spacing; [] for smooth functions."""
    x = torch.linspace(low, high, points, dtype=DTYPE)
    change = (derivative(fn, x).diff()).abs()                       # (points - 1,)
    around = torch.maximum(change.roll(1), change.roll(-1))
    jump = (change > 1e-3) & (change > 10 * around)
    jump[0] = jump[-1] = False
    return [round(float(x[i] + x[i + 1]) / 2, 3) for i in torch.nonzero(jump).flatten().tolist()]


def grid(max_variance: float, device: torch.device | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Nodes z and normalized weights w (sum 1) of the trapezoidal rule for E[g(z)], z ~ N(0, 1)."""
    if not math.isfinite(max_variance) or max_variance > MAX_VARIANCE:
        raise ValueError(
            f"pre-activation variance {max_variance:.3g} exceeds {MAX_VARIANCE:g}, the largest the "
            "quadrature handles accurately; normalize the inputs, lower sigma_w / sigma_b, "
            "or use an activation with a closed form (relu, leaky_relu, erf, gelu, identity)"
        )
    step = min(_MAX_STEP, _STEP_SCALE / math.sqrt(max(max_variance, 1e-12)))
    half = math.ceil(_HALF_RANGE / step)
    z = torch.arange(-half, half + 1, dtype=DTYPE, device=device) * step
    w = torch.exp(-0.5 * z * z)
    return z, w / w.sum()


def diagonal_expectations(fn, var: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(E[phi(u)^2], E[phi'(u)^2])`` for u ~ N(0, var), elementwise over ``var``."""
    var = var.to(DTYPE)
    z, w = grid(float(var.max()) if var.numel() else 1.0, var.device)
    u = var.clamp_min(0).sqrt().reshape(-1, 1) * z              # (S, N)
    phi, dphi = fn(u), derivative(fn, u)
    mean_sq = (phi * phi) @ w
    mean_dsq = (dphi * dphi) @ w
    return mean_sq.reshape(var.shape), mean_dsq.reshape(var.shape)


def pair_expectations(fn, var1: torch.Tensor, var2: torch.Tensor, cov: torch.Tensor):
    """``(E[phi(u) phi(v)], E[phi'(u) phi'(v)])`` for centred Gaussian pairs, elementwise.

    ``var1``, ``var2`` and ``cov`` broadcast to a common shape S; the results have shape S.
    """
    var1, var2, cov = torch.broadcast_tensors(var1.to(DTYPE), var2.to(DTYPE), cov.to(DTYPE))
    shape = cov.shape
    s1 = var1.clamp_min(0).sqrt().reshape(-1)
    s2 = var2.clamp_min(0).sqrt().reshape(-1)
    scale = s1 * s2
    rho = torch.where(scale > 0, cov.reshape(-1) / scale.clamp_min(1e-300), torch.zeros_like(scale))
    rho = rho.clamp(-1.0, 1.0)
    perp = (1 - rho * rho).clamp_min(0).sqrt()
    z, w = grid(float(torch.maximum(var1.max(), var2.max())), cov.device)
    n = z.numel()
    mean, mean_dot = torch.empty_like(rho), torch.empty_like(rho)
    block = max(1, _MAX_ELEMENTS // (n * n))
    for start in range(0, rho.numel(), block):
        sl = slice(start, start + block)
        u = s1[sl, None] * z                                               # (B, N)
        v = s2[sl, None, None] * (rho[sl, None, None] * z[:, None] + perp[sl, None, None] * z)  # (B, N, N)
        mean[sl] = torch.einsum("bi,i,bij,j->b", fn(u), w, fn(v), w)
        mean_dot[sl] = torch.einsum("bi,i,bij,j->b", derivative(fn, u), w, derivative(fn, v), w)
    return mean.reshape(shape), mean_dot.reshape(shape)
