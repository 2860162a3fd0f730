"""Signal propagation through depth: kernels of every depth at once, q/c maps, chi_1, phases.

Mean-field theory of deep networks (Poole et al. 2016; Schoenholz et al. 2017), in the conventions of the
kernel engine and with its layers (NTK parameterization; ``sigma_w``, ``sigma_b`` are standard deviations,
squared inside by :func:`~ntk_helpers.engine.dense.affine`; lesson 02, section 4.1.1):

- q-map: ``q_{l+1} = sigma_w^2 E[phi(sqrt(q_l) z)^2] + sigma_b^2`` (the activation's ``diagonal`` map, then
  ``affine``), fixed point q*;
- c-map: the correlation of two inputs after one more layer, at the fixed point q*;
- ``chi_1 = sigma_w^2 E[phi'(sqrt(q*) z)^2]``, the slope of the c-map at c = 1:
  chi_1 < 1 ordered (c -> 1), chi_1 > 1 chaotic (c -> c* < 1), chi_1 = 1 edge of chaos;
- :func:`~ntk_helpers.theory.regimes.signal_regime` (next module) names the regime.

Every function takes its activation by name or as a layer, "relu" by default; ``sigma_w`` and ``sigma_b`` may be
tensors (grids, elementwise) in :func:`q_fixed_point`, :func:`chi1`, :func:`correlation_map` and
:func:`correlation_trajectory`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .._checks import DTYPE, check_int, check_nonnegative, check_pair
from ..engine.activations import as_activation
from ..engine.architectures import mlp
from ..engine.combinators import Serial
from ..engine.dense import affine
from ..engine.kernel import Kernel


@dataclass(frozen=True)
class KernelsByDepth:
    """``nngp[l]``, ``ntk[l]``: (n1, n2) kernels of ``mlp(l + 1, ...)``, for l = 0 .. depth-1."""

    depths: torch.Tensor     # (L,) = 1, 2, ..., depth
    nngp: torch.Tensor       # (L, n1, n2)
    ntk: torch.Tensor        # (L, n1, n2)


def _by_depth(k: Kernel, depth: int, activation, sigma_w: float, sigma_b: float):
    """Carry ``k`` through ``mlp(depth, ...)``'s layers, reading out after every hidden layer."""
    hidden_layer, act, readout_layer = mlp(1, activation, sigma_w=sigma_w, sigma_b=sigma_b).layers
    block, readout = Serial((hidden_layer, act)), Serial((readout_layer,))      # Serial checks the overflow
    nngp, ntk = [], []
    for layer in range(check_int("depth", depth, minimum=1)):
        try:
            k = block.transform(k)
            out = readout.transform(k)
        except OverflowError as error:
            raise OverflowError(f"depth {layer + 1}: {error}") from None
        nngp.append(out.nngp)
        ntk.append(out.ntk)
    return torch.stack(nngp), torch.stack(ntk)


def mlp_kernels_by_depth(x1, x2=None, *, depth: int, activation="relu",
                         sigma_w: float = 2 ** 0.5, sigma_b: float = 0.0) -> KernelsByDepth:
    """The kernels of ``mlp(l, activation, sigma_w, sigma_b)`` for every l = 1..depth in one pass.

    Uses the layers of :func:`~ntk_helpers.mlp` itself, so entry l - 1 equals ``mlp(l, ...).kernel(x1, x2)``;
    a depth slider can then just index the result. A kernel that leaves the float64 range raises
    ``OverflowError`` naming the depth.
    """
    t1, t2 = check_pair(x1, x2)
    nngp, ntk = _by_depth(Kernel.from_inputs(t1, t2), depth, activation, sigma_w, sigma_b)
    return KernelsByDepth(torch.arange(1, depth + 1), nngp, ntk)


def _sigmas(sigma_w, sigma_b):
    w, b = torch.broadcast_tensors(torch.as_tensor(sigma_w, dtype=DTYPE), torch.as_tensor(sigma_b, dtype=DTYPE))
    if (w < 0).any() or (b < 0).any() or not (torch.isfinite(w).all() and torch.isfinite(b).all()):
        raise ValueError("sigma_w and sigma_b must be finite and >= 0")
    return w, b


def q_fixed_point(activation="relu", *, sigma_w, sigma_b, q0: float = 1.0, iterations: int = 300):
    """Fixed point q* of the variance map, elementwise over (broadcastable) sigma_w, sigma_b grids."""
    act = as_activation(activation)
    w, b = _sigmas(sigma_w, sigma_b)
    q = torch.full_like(w, check_nonnegative("q0", q0))
    for _ in range(check_int("iterations", iterations, minimum=1)):
        q = affine(act.diagonal(q)[0], w, b)
    return q


def chi1(activation="relu", *, sigma_w, sigma_b, q0: float = 1.0) -> torch.Tensor:
    """``chi_1 = sigma_w^2 E[phi'(sqrt(q*) z)^2]`` at the variance fixed point (elementwise over grids)."""
    w, _ = _sigmas(sigma_w, sigma_b)
    q = q_fixed_point(activation, sigma_w=sigma_w, sigma_b=sigma_b, q0=q0)
    return w ** 2 * as_activation(activation).diagonal(q)[1]


def correlation_map(c, activation="relu", *, sigma_w=2 ** 0.5, sigma_b=0.0, q: float = 1.0):
    """One layer of the correlation map at constant variance ``q``: c_l -> c_{l+1}.

    For ReLU at sigma_w^2 = 2, sigma_b = 0 it is (sqrt(1 - c^2) + (pi - arccos c) c) / pi.
    """
    act = as_activation(activation)
    w, b = _sigmas(sigma_w, sigma_b)
    c = torch.as_tensor(c, dtype=DTYPE)
    qt = torch.full_like(c, q)
    return affine(act.dual(qt, qt, c * qt)[0], w, b) / affine(act.diagonal(qt)[0], w, b)


def correlation_trajectory(c0, depth: int, activation="relu", *, sigma_w=2 ** 0.5, sigma_b=0.0,
                           q0: float = 1.0) -> torch.Tensor:
    """Correlations c_0..c_depth of two inputs with variance q0 and correlation c0 (tracks q too)."""
    act = as_activation(activation)
    w, b = _sigmas(sigma_w, sigma_b)
    c = torch.as_tensor(c0, dtype=DTYPE)
    q = torch.full_like(c, float(q0))
    out = [c]
    for _ in range(check_int("depth", depth, minimum=1)):
        e_cross = act.dual(q, q, c * q)[0]
        q = affine(act.diagonal(q)[0], w, b)
        c = (affine(e_cross, w, b) / q).clamp(-1, 1)
        out.append(c)
    return torch.stack(out)


def self_kernels_by_depth(q0: float, *, depth: int, activation="relu", sigma_w: float = 2 ** 0.5,
                          sigma_b: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """``Sigma(x, x)`` and ``Theta(x, x)`` of ``mlp(l, ...)`` for l = 1..depth, for an input with x.x/d = q0.

    The diagonal of :func:`mlp_kernels_by_depth`, from the activation's variance map (``diagonal``) and the dense
    rule (``affine``) alone: returns two (depth,) float64 tensors. Use it to normalize cross kernels. An input
    paired with itself has correlation exactly 1, but in the chaotic phase (chi_1 > 1) the pair formula amplifies
    the rounding error of c = 1 by about chi_1 per layer: with tanh after ~50 layers a cross kernel of two
    identical inputs drifts visibly from the value computed here.
    """
    depth = check_int("depth", depth, minimum=1)
    sigma_w, sigma_b = check_nonnegative("sigma_w", sigma_w), check_nonnegative("sigma_b", sigma_b)
    act = as_activation(activation)
    q = affine(torch.tensor(check_nonnegative("q0", q0), dtype=DTYPE), sigma_w, sigma_b)   # Sigma^(1) = Theta^(1)
    theta = q.clone()
    nngp, ntk = [], []
    for layer in range(depth):
        e, e_dot = act.diagonal(q)
        q = affine(e, sigma_w, sigma_b)                   # the readout (or next dense layer)
        theta = q + sigma_w ** 2 * (e_dot * theta)        # the same operations as dense() and the activation
        if not (torch.isfinite(q) and torch.isfinite(theta)):
            raise OverflowError(f"depth {layer + 1}: the kernel left the float64 range; lower sigma_w or the depth")
        nngp.append(q)
        ntk.append(theta)
    return torch.stack(nngp), torch.stack(ntk)


__all__ = ["KernelsByDepth", "mlp_kernels_by_depth", "q_fixed_point", "chi1", "correlation_map",
           "correlation_trajectory", "self_kernels_by_depth"]
