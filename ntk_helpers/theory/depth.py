"""Signal propagation through depth: kernels of every depth at once, q/c maps, chi_1, phases.

Mean-field theory of deep networks (Poole et al. 2016; Schoenholz et al. 2017), in the same
conventions as the kernel engine (NTK parameterization, ``sigma_w2`` = sigma_w^2, ``sigma_b2`` =
sigma_b^2; lesson 02, section 4.1.1):

- q-map: ``q_{l+1} = sigma_w^2 E[phi(sqrt(q_l) z)^2] + sigma_b^2``, fixed point q*;
- c-map: the correlation of two inputs after one more layer, at the fixed point q*;
- ``chi_1 = sigma_w^2 E[phi'(sqrt(q*) z)^2]``, the slope of the c-map at c = 1:
  chi_1 < 1 ordered (c -> 1), chi_1 > 1 chaotic (c -> c* < 1), chi_1 = 1 edge of chaos;
- :func:`signal_regime` names the regime, including the two cases without a finite, positive
  fixed point: q* = 0 (no bias, the variance dies out) and q -> infinity (unbounded activations).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .._checks import DTYPE, check_int, check_nonnegative, check_pair
from ..engine.activations import as_activation
from ..engine.dense import dense
from ..engine.kernel import Kernel


@dataclass(frozen=True)
class KernelsByDepth:
    """``nngp[l]``, ``ntk[l]``: (n1, n2) kernels of ``mlp(l + 1, ...)``, for l = 0 .. depth-1."""

    depths: torch.Tensor     # (L,) = 1, 2, ..., depth
    nngp: torch.Tensor       # (L, n1, n2)
    ntk: torch.Tensor        # (L, n1, n2)


def mlp_kernels_by_depth(x1, x2=None, *, depth: int, activation="relu",
                         sigma_w: float = 2 ** 0.5, sigma_b: float = 0.0) -> KernelsByDepth:
    """The kernels of ``mlp(l, activation, sigma_w, sigma_b)`` for every l = 1..depth in one pass.

    Uses the very same layer transforms as :func:`~ntk_helpers.mlp`, so entry l - 1 equals
    ``mlp(l, ...).kernel(x1, x2)``; a depth slider can then just index the result.
    """
    depth = check_int("depth", depth, minimum=1)
    t1, t2 = check_pair(x1, x2)
    hidden = dense(sigma_w=sigma_w, sigma_b=sigma_b)
    readout = dense(1, sigma_w=sigma_w, sigma_b=sigma_b)
    act = as_activation(activation)
    k = Kernel.from_inputs(t1, t2)
    nngp, ntk = [], []
    for layer in range(depth):
        k = act.transform(hidden.transform(k))
        out = readout.transform(k)
        if not out.is_finite():
            raise OverflowError(f"the kernel left the float64 range at depth {layer + 1}; lower sigma_w or the depth")
        nngp.append(out.nngp)
        ntk.append(out.ntk)
    return KernelsByDepth(torch.arange(1, depth + 1), torch.stack(nngp), torch.stack(ntk))


def q_fixed_point(activation="tanh", *, sigma_w2, sigma_b2, q0: float = 1.0, iterations: int = 300):
    """Fixed point q* of the variance map, elementwise over (broadcastable) sigma_w2, sigma_b2 grids."""
    act = as_activation(activation)
    w2 = torch.as_tensor(sigma_w2, dtype=DTYPE)
    b2 = torch.as_tensor(sigma_b2, dtype=DTYPE)
    w2, b2 = torch.broadcast_tensors(w2, b2)
    if (w2 < 0).any() or (b2 < 0).any():
        raise ValueError("sigma_w2 and sigma_b2 must be >= 0")
    q = torch.full_like(w2, check_nonnegative("q0", q0))
    for _ in range(check_int("iterations", iterations, minimum=1)):
        q = w2 * act.diagonal(q)[0] + b2
    return q


def chi1(activation="tanh", *, sigma_w2, sigma_b2, q0: float = 1.0) -> torch.Tensor:
    """``chi_1 = sigma_w^2 E[phi'(sqrt(q*) z)^2]`` at the variance fixed point (elementwise over grids)."""
    w2 = torch.as_tensor(sigma_w2, dtype=DTYPE)
    q = q_fixed_point(activation, sigma_w2=sigma_w2, sigma_b2=sigma_b2, q0=q0)
    act = as_activation(activation)
    return w2 * act.diagonal(q)[1]


def correlation_map(c, activation="relu", *, sigma_w2: float = 2.0, sigma_b2: float = 0.0, q: float = 1.0):
    """One layer of the correlation map at constant variance ``q``: c_l -> c_{l+1}.

    For ReLU at sigma_w^2 = 2, sigma_b = 0 it is (sqrt(1 - c^2) + (pi - arccos c) c) / pi.
    """
    act = as_activation(activation)
    c = torch.as_tensor(c, dtype=DTYPE)
    qt = torch.full_like(c, q)
    q_next = sigma_w2 * act.diagonal(qt)[0] + sigma_b2
    return (sigma_w2 * act.dual(qt, qt, c * qt)[0] + sigma_b2) / q_next


def correlation_trajectory(c0, depth: int, activation="relu", *, sigma_w2: float = 2.0,
                           sigma_b2: float = 0.0, q0: float = 1.0) -> torch.Tensor:
    """Correlations c_0..c_depth of two inputs with variance q0 and correlation c0 (tracks q too)."""
    act = as_activation(activation)
    c = torch.as_tensor(c0, dtype=DTYPE)
    q = torch.full_like(c, float(q0))
    out = [c]
    for _ in range(check_int("depth", depth, minimum=1)):
        e_cross = act.dual(q, q, c * q)[0]
        q = sigma_w2 * act.diagonal(q)[0] + sigma_b2
        c = ((sigma_w2 * e_cross + sigma_b2) / q).clamp(-1, 1)
        out.append(c)
    return torch.stack(out)


def self_kernels_by_depth(q0: float, *, depth: int, activation="relu", sigma_w: float = 2 ** 0.5,
                          sigma_b: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """``Sigma(x, x)`` and ``Theta(x, x)`` of ``mlp(l, ...)`` for l = 1..depth, for an input with x.x/d = q0.

    The diagonal of :func:`mlp_kernels_by_depth`, from the variance map alone: returns two (depth,)
    float64 tensors. Use it to normalize cross kernels. An input paired with itself has correlation
    exactly 1, but in the chaotic phase (chi_1 > 1) the pair formula amplifies the rounding error
    of c = 1 by about chi_1 per layer: with tanh after ~50 layers a cross kernel of two identical
    inputs drifts visibly from the value computed here.
    """
    depth = check_int("depth", depth, minimum=1)
    q0 = check_nonnegative("q0", q0)
    w2 = check_nonnegative("sigma_w", sigma_w) ** 2
    b2 = check_nonnegative("sigma_b", sigma_b) ** 2
    act = as_activation(activation)
    q = torch.tensor(w2 * q0 + b2, dtype=DTYPE)          # the first dense layer: Sigma^(1) = Theta^(1)
    theta = q.clone()
    nngp, ntk = [], []
    for layer in range(depth):
        e, e_dot = act.diagonal(q)
        q = w2 * e + b2                                   # the readout (or next dense layer)
        theta = q + w2 * (e_dot * theta)                  # the same operations as dense() and the activation
        if not (torch.isfinite(q) and torch.isfinite(theta)):
            raise OverflowError(f"the kernel left the float64 range at depth {layer + 1}; lower sigma_w or the depth")
        nngp.append(q)
        ntk.append(theta)
    return torch.stack(nngp), torch.stack(ntk)


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


def signal_regime(activation="tanh", *, sigma_w2: float, sigma_b2: float, q0: float = 1.0,
                  edge_tolerance: float = 1e-2) -> SignalRegime:
    """The regime of a deep MLP: ordered, edge of chaos, chaotic, or no finite positive fixed point q*.

    The variance map ``Q(q) = sigma_w2 E[phi(sqrt(q) z)^2] + sigma_b2`` increases with q for relu,
    leaky_relu, erf, tanh, gelu and identity, so from ``q0`` (the first layer's variance) the
    variance moves monotonically to the nearest fixed point in its direction of motion. This
    function finds that point by a scan in factors of 2 and bisection, which is fast even where
    plain iteration converges only polynomially (tanh at sigma_w2 = 1, sigma_b2 = 0). Then

    - "vanishing variance" (only possible with sigma_b2 = 0): no fixed point between q0 * 2^-40
      and q0, so q_l -> q* = 0, the degenerate case: a smooth activation becomes linear near 0;
    - "growing variance" (unbounded activations): no fixed point between q0 and q0 * 2^40;
    - otherwise, with ``chi1 = sigma_w2 E[phi'(sqrt(q*) z)^2]``: "edge of chaos" if
      ``|chi1 - 1| <= edge_tolerance`` (correlations then move on a depth scale of at least about
      1/edge_tolerance layers, which over the ~100 layers of a lesson looks like the polynomial
      approach at chi1 = 1; c_star is still the true limit: 1.0 if chi1 <= 1, the stable fixed point
      c* < 1 if chi1 > 1); "ordered" if chi1 < 1 (correlations -> 1); "chaotic" if chi1 > 1
      (correlations -> c* < 1).

    A start q0 at which the map moves q by at most 1e-12 q0 counts as a fixed point (relu at
    sigma_w2 = 2, sigma_b2 = 0 preserves every variance). Poole et al. 2016; Schoenholz et al. 2017.
    """
    act = as_activation(activation)
    w2 = check_nonnegative("sigma_w2", sigma_w2)
    b2 = check_nonnegative("sigma_b2", sigma_b2)
    q0 = check_nonnegative("q0", q0)
    if q0 == 0:
        raise ValueError("q0 must be > 0 (the variance of the first layer's pre-activations)")
    edge_tolerance = check_nonnegative("edge_tolerance", edge_tolerance)

    def moments(q: float) -> tuple[float, float]:
        e, e_dot = act.diagonal(torch.tensor(q, dtype=DTYPE))
        return float(e), float(e_dot)

    gap = lambda q: w2 * moments(q)[0] + b2 - q          # Q(q) - q
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
        c_star = _stable_correlation(act, w2, b2, q_star) if chi > 1 else 1.0
        return SignalRegime("edge of chaos", q_star, chi, c_star, math.inf)
    if chi < 1:
        return SignalRegime("ordered", q_star, chi, 1.0, 0.0 if chi == 0 else -1 / math.log(chi))
    c_star = _stable_correlation(act, w2, b2, q_star)
    chi_c = w2 * float(act.dual(*(torch.tensor(v, dtype=DTYPE) for v in (q_star, q_star, c_star * q_star)))[1])
    return SignalRegime("chaotic", q_star, chi, c_star, -1 / math.log(chi_c) if chi_c < 1 else math.inf)


def _stable_correlation(act, w2: float, b2: float, q: float) -> float:
    """The fixed point c* < 1 of the correlation map at variance q, in the chaotic phase (slope > 1 at c = 1)."""

    def gap(c: float) -> float:                            # C(c) - c
        t = torch.tensor(q, dtype=DTYPE)
        return (w2 * float(act.dual(t, t, torch.tensor(c * q, dtype=DTYPE))[0]) + b2) / q - c

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
