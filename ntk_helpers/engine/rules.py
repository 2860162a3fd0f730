"""Each layer's kernel rule for one pair of inputs, declared as data: the primitives a fused backend compiles.

A layer has two kernel rules. ``transform(kernel)`` is the reference: torch operations on whole tensors of pairs
(vectors (n1, n2), pixel pairs (n1, n2, H, W, H, W)). ``pair_rule()`` says the same thing as one of the small frozen
records below, so that :mod:`~ntk_helpers.engine.compiled` (numba) can assemble one fused function for a whole
architecture from its layers' records, without knowing any layer class: it reads records and nothing else, and a
layer (or a registered activation) that declares a record is compiled with no change to the backend.

The layers import this module and the backend reads it; this module imports neither (nor numba: see :func:`jitable`).
Conventions are those of :mod:`.kernel` (neural-tangents' ``stax``: ``sigma_w`` = ``W_std``, ``sigma_b`` = ``b_std``,
NTK parameterization). For a pair of inputs (x, x') the state is the NNGP Sigma and the NTK Theta of every pixel
pair (p, p') (one entry for vectors), and the self covariances Sigma_pp(x, x), Sigma_p'p'(x', x').

- :class:`Affine` (``dense``, ``conv``): ``Sigma' = sigma_w^2 mean_a Sigma_{p+a, p'+a} + sigma_b^2`` and
  ``Theta' = Sigma' + sigma_w^2 mean_a Theta_{p+a, p'+a}``, the mean over the filter's offsets a shared by both
  positions (no offsets for a dense layer), with the conv's stride, dilation and padding;
- :class:`Dual` (activations): ``Sigma' = E(Sigma_pp'; Sigma_pp, Sigma_p'p')``, ``Theta' = Edot * Theta`` where
  (E, Edot) = (E[phi(u) phi(v)], E[phi'(u) phi'(v)]) is the dual of phi, given either as the constants (a, b) of a
  piecewise-linear phi = a min(x, 0) + b max(x, 0) (the arc-cosine kernel, Cho & Saul 2009) or as a scalar function
  ``scalar(cov, var1, var2) -> (E, Edot)`` on floats (see :class:`Dual`);
- :class:`Pool` (``avg_pool``): ``K -> A K A^T`` on each position;
- :class:`Readout`: ``"global_avg_pool"`` (the mean over all pairs (p, p')) or ``"flatten"`` (over p = p' only);
- :class:`Normalize` (``layer_norm``): ``Sigma_pp' / sqrt((Sigma_pp(x, x) + eps)(Sigma_p'p'(x', x') + eps))``, the
  NTK likewise;
- :class:`Scale` (``batch_norm(frozen=True)``): Sigma and Theta divided by a constant;
- :class:`Residual`: ``x + alpha branch(x)``: Sigma and Theta plus alpha^2 times the branch's;
- :class:`Unsupported`: no compiled rule, and why (quadrature duals, max pooling, batch statistics, muP...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Union


@dataclass(frozen=True)
class Affine:
    """A layer of fresh weights: dense (``kernel_size == ()``) or conv (the other fields as ``conv()`` has them)."""

    sigma_w2: float
    sigma_b2: float
    kernel_size: tuple[int, ...] = ()
    stride: tuple[int, ...] = ()
    dilation: tuple[int, ...] = ()
    padding: Optional[str] = None


@dataclass(frozen=True)
class Dual:
    """An activation's dual: ``piecewise_linear = (a, b)`` for phi = a min(x, 0) + b max(x, 0), else ``scalar``.

    ``scalar(cov, var1, var2) -> (E, Edot)`` takes and returns Python floats (float64). The backend compiles it
    with numba (nopython mode), so it may use arithmetic, ``math`` functions, conditional expressions and helpers
    marked with :func:`jitable` (such as :func:`angle`), and it should be written with selects rather than
    branches (``x if c else y``), so that the loop calling it vectorizes. It must agree with the layer's torch
    closed form to rounding (tests/test_compiled.py compares every registered activation's pair of them).
    """

    piecewise_linear: Optional[tuple[float, float]] = None
    scalar: Optional[Callable[[float, float, float], tuple[float, float]]] = None

    def __post_init__(self):
        if (self.piecewise_linear is None) == (self.scalar is None):
            raise ValueError("Dual needs exactly one of piecewise_linear=(a, b) or scalar=function")


@dataclass(frozen=True)
class Pool:
    """Average pooling over ``window`` with ``stride`` (no padding)."""

    window: tuple[int, int]
    stride: tuple[int, int]


@dataclass(frozen=True)
class Readout:
    """``kind`` = ``"global_avg_pool"`` (mean over every pixel pair) or ``"flatten"`` (over the pairs p = p')."""

    kind: str


@dataclass(frozen=True)
class Normalize:
    """Layer norm (no affine parameters) with ``eps``."""

    eps: float


@dataclass(frozen=True)
class Scale:
    """NNGP and NTK divided by ``divisor``."""

    divisor: float


@dataclass(frozen=True)
class Residual:
    """``x + alpha branch(x)`` with ``alpha2 = alpha**2`` and the branch's rules in order."""

    alpha2: float
    branch: tuple


@dataclass(frozen=True)
class Unsupported:
    """No compiled rule; ``reason`` says why (it ends up in ``kernel(compiled=True)``'s error)."""

    reason: str


Rule = Union[Affine, Dual, Pool, Readout, Normalize, Scale, Residual, Unsupported]


# -- helpers for scalar duals ------------------------------------------------------------------------------------

_JITABLE: list[Callable] = []


def jitable(function: Callable) -> Callable:
    """Mark a plain-Python helper of scalar duals as callable from compiled code; returns it unchanged (it still
    runs in Python). The backend registers every marked helper with numba (``numba.extending.register_jitable``,
    inlined) before it compiles a dual, so importing the layers does not import numba."""
    _JITABLE.append(function)
    return function


def jitable_helpers() -> tuple[Callable, ...]:
    """Every function marked with :func:`jitable` so far (the backend registers them)."""
    return tuple(_JITABLE)


# Cephes atan (S. L. Moshier): atan(u) = u + u z P(z) / Q(z), z = u^2, for |u| <= tan(pi / 8)
_P0, _P1, _P2, _P3, _P4 = (-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
                           -1.228866684490136173410e2, -6.485021904942025371773e1)
_Q0, _Q1, _Q2, _Q3, _Q4 = (2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
                           4.853903996359136964868e2, 1.945506571482613964425e2)
_TAN_PI_8 = math.tan(math.pi / 8)


@jitable
def angle(r, c):
    """atan2(r, c) for r >= 0, in [0, pi], without branches (selects only), so that loops calling it vectorize;
    exact to rounding (the coefficients of Moshier's Cephes ``atan``; tests/test_compiled.py compares it with the
    C library over 600 decades)."""
    ac = abs(c)
    swap = r > ac
    big = r if swap else ac
    small = ac if swap else r
    m = 1.0 if small > _TAN_PI_8 * big else 0.0              # reduce: atan(t) = pi/4 + atan((t-1)/(t+1))
    den = big + m * small
    u = (small - m * big) / (den if den > 0.0 else 1.0)
    z = u * u
    a = m * (math.pi / 4) + (u + u * z * ((((_P0 * z + _P1) * z + _P2) * z + _P3) * z + _P4) /
                             (((((z + _Q0) * z + _Q1) * z + _Q2) * z + _Q3) * z + _Q4))
    s = 1.0 if swap else 0.0                                  # atan(r / |c|) = pi/2 - atan(|c| / r)
    a = s * (math.pi / 2) + (1.0 - 2.0 * s) * a
    n = 1.0 if c < 0.0 else 0.0                               # c < 0: pi - angle
    return n * math.pi + (1.0 - 2.0 * n) * a


@jitable
def signed_angle(y, x):
    """atan2(y, x) for x >= 0, in [-pi/2, pi/2], from :func:`angle` (exact for small |y| / x as well)."""
    return math.copysign(angle(abs(y), x), y)


__all__ = ["Affine", "Dual", "Pool", "Readout", "Normalize", "Scale", "Residual", "Unsupported", "Rule",
           "jitable", "jitable_helpers", "angle", "signed_angle"]
