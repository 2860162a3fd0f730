"""Which regime a deep MLP is in: ordered, edge of chaos, chaotic, or without a finite positive variance fixed point.

Mean-field theory (Poole et al. 2016; Schoenholz et al. 2017) in the conventions of :mod:`.depth`: ``sigma_w``,
``sigma_b`` are standard deviations, the variance map is the activation's ``diagonal`` map followed by the dense
rule ``affine`` (lesson 02's explorer, section 4.1.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .._checks import DTYPE, check_nonnegative
from ..engine.activations import as_activation
from ..engine.dense import affine

#: The names :func:`signal_regime` can return.
REGIMES = ("ordered", "edge of chaos", "chaotic", "vanishing variance", "growing variance")

_SCAN_STEPS = 40          # scan the variance map over q0 * 2^-40 .. q0 * 2^40 (about 1e-12 .. 1e12 times q0)


@dataclass(frozen=True)
class SignalRegime:
    """Where the signal of a deep MLP ends up; see :func:`signal_regime`.

    Attributes:
        name: one of :data:`REGIMES`.
        q_star: the limit of the variance q_l (0.0 for "vanishing variance", ``math.inf`` for
            "growing variance").
        chi1: ``sigma_w^2 E[phi'(sqrt(q) z)^2]`` at q = q_star: the slope of the correlation map at c = 1
            (for the last two regimes: its limit, evaluated at q0 * 2^-40 or q0 * 2^40).
        c_star: the correlation that every pair of distinct inputs approaches: 1.0 (ordered; edge of
            chaos with chi1 <= 1), the stable fixed point c* < 1 of the correlation map (chaotic; edge
            of chaos with chi1 > 1), None otherwise.
        depth_scale: layers over which correlations approach c_star: -1/ln chi1 (ordered),
            -1/ln chi_c with chi_c the slope of the correlation map at c_star (chaotic), ``math.inf``
            (edge of chaos: a polynomial approach), None otherwise.
    """

    name: str
    q_star: float
    chi1: float
    c_star: float | None
    depth_scale: float | None


def signal_regime(activation="relu", *, sigma_w: float, sigma_b: float, q0: float = 1.0,
                  edge_tolerance: float = 1e-2) -> SignalRegime:
    """The regime of a deep MLP: ordered, edge of chaos, chaotic, or no finite positive fixed point q*.

    The variance map ``Q(q) = sigma_w^2 E[phi(sqrt(q) z)^2] + sigma_b^2`` increases with q for relu,
    leaky_relu, erf, tanh, gelu and identity, so from ``q0`` (the first layer's variance) the
    variance moves monotonically to the nearest fixed point in its direction of motion. This
    function finds that point by a scan in factors of 2 and bisection, which is fast even where
    plain iteration converges only polynomially (tanh at sigma_w = 1, sigma_b = 0). Then

    - "vanishing variance" (only possible with sigma_b = 0): no fixed point between q0 * 2^-40
      and q0, so q_l -> q* = 0, the degenerate case: a smooth activation becomes linear near 0;
    - "growing variance" (unbounded activations): no fixed point between q0 and q0 * 2^40;
    - otherwise, with ``chi1 = sigma_w^2 E[phi'(sqrt(q*) z)^2]``: "edge of chaos" if
      ``|chi1 - 1| <= edge_tolerance`` (correlations then move on a depth scale of at least about
      1/edge_tolerance layers, which over the ~100 layers of a lesson looks like the polynomial
      approach at chi1 = 1; c_star is still the true limit: 1.0 if chi1 <= 1, the stable fixed point
      c* < 1 if chi1 > 1); "ordered" if chi1 < 1 (correlations -> 1); "chaotic" if chi1 > 1
      (correlations -> c* < 1).

    A start q0 at which the map moves q by at most 1e-12 q0 counts as a fixed point (relu at
    sigma_w = sqrt(2), sigma_b = 0 preserves every variance). Poole et al. 2016; Schoenholz et al. 2017.
    """
    act = as_activation(activation)
    sigma_w = check_nonnegative("sigma_w", sigma_w)
    sigma_b = check_nonnegative("sigma_b", sigma_b)
    w2 = sigma_w ** 2
    q0 = check_nonnegative("q0", q0)
    if q0 == 0:
        raise ValueError("q0 must be > 0 (the variance of the first layer's pre-activations)")
    edge_tolerance = check_nonnegative("edge_tolerance", edge_tolerance)

    def moments(q: float) -> tuple[float, float]:
        e, e_dot = act.diagonal(torch.tensor(q, dtype=DTYPE))
        return float(e), float(e_dot)

    gap = lambda q: affine(moments(q)[0], sigma_w, sigma_b) - q          # Q(q) - q
    start = gap(q0)
    if abs(start) <= 1e-12 * q0:
        q_star = q0
    else:
        factor = 2.0 if start > 0 else 0.5
        low, high = q0, None
        for _ in range(_SCAN_STEPS):
            candidate = low * factor
            value = gap(candidate)
            if not math.isfinite(value):
                break
            if value == 0 or (value > 0) != (start > 0):
                high = candidate
                break
            low = candidate
        if high is None:
            name = "vanishing variance" if factor < 1 else "growing variance"
            edge_q = q0 * factor ** _SCAN_STEPS
            return SignalRegime(name, 0.0 if factor < 1 else math.inf, w2 * moments(edge_q)[1], None, None)
        for _ in range(200):                               # bisection: gap(low) has the sign of start
            middle = 0.5 * (low + high)
            if middle in (low, high):
                break
            if (gap(middle) > 0) == (start > 0):
                low = middle
            else:
                high = middle
        q_star = 0.5 * (low + high)
    chi = w2 * moments(q_star)[1]
    if abs(chi - 1) <= edge_tolerance:
        c_star = _stable_correlation(act, sigma_w, sigma_b, q_star) if chi > 1 else 1.0
        return SignalRegime("edge of chaos", q_star, chi, c_star, math.inf)
    if chi < 1:
        return SignalRegime("ordered", q_star, chi, 1.0, 0.0 if chi == 0 else -1 / math.log(chi))
    c_star = _stable_correlation(act, sigma_w, sigma_b, q_star)
    chi_c = w2 * float(act.dual(*(torch.tensor(v, dtype=DTYPE) for v in (q_star, q_star, c_star * q_star)))[1])
    return SignalRegime("chaotic", q_star, chi, c_star, -1 / math.log(chi_c) if chi_c < 1 else math.inf)


def _stable_correlation(act, sigma_w: float, sigma_b: float, q: float) -> float:
    """The fixed point c* < 1 of the correlation map at variance q, in the chaotic phase (slope > 1 at c = 1)."""

    def gap(c: float) -> float:                            # C(c) - c
        t = torch.tensor(q, dtype=DTYPE)
        return affine(float(act.dual(t, t, torch.tensor(c * q, dtype=DTYPE))[0]), sigma_w, sigma_b) / q - c

    at_zero = gap(0.0)
    if abs(at_zero) <= 1e-12:
        return 0.0                                         # odd activation without bias: c* = 0 exactly
    if at_zero > 0:                                        # the fixed point lies in (0, 1)
        low = 0.0
        high = next((1 - d for d in (1e-2, 1e-3, 1e-4, 1e-5) if gap(1 - d) < 0), 1.0)
    else:                                                  # in (-1, 0)
        low, high = -1.0, 0.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if gap(middle) > 0:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


__all__ = ["REGIMES", "SignalRegime", "signal_regime"]
