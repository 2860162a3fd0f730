"""Signal propagation through depth: kernels of every depth at once, q/c maps, chi_1, phases.

Mean-field theory of deep networks (Poole et al. 2016; Schoenholz et al. 2017), in the same
conventions as the kernel engine (AUDIT §2(c)):

- q-map: ``q_{l+1} = sigma_w^2 E[phi(sqrt(q_l) z)^2] + sigma_b^2``, fixed point q*;
- c-map: the correlation of two inputs after one more layer, at the fixed point q*;
- ``chi_1 = sigma_w^2 E[phi'(sqrt(q*) z)^2]``, the slope of the c-map at c = 1:
  chi_1 < 1 ordered (c -> 1), chi_1 > 1 chaotic (c -> c* < 1), chi_1 = 1 edge of chaos.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._checks import DTYPE, check_int, check_nonnegative, check_pair
from .kernel import Kernel
from .layers import as_activation_layer, dense


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
    act = as_activation_layer(activation)
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
    act = as_activation_layer(activation).activation
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
    act = as_activation_layer(activation).activation
    return w2 * act.diagonal(q)[1]


def correlation_map(c, activation="relu", *, sigma_w2: float = 2.0, sigma_b2: float = 0.0, q: float = 1.0):
    """One layer of the correlation map at constant variance ``q``: c_l -> c_{l+1}.

    For ReLU at sigma_w^2 = 2, sigma_b = 0 it is (sqrt(1 - c^2) + (pi - arccos c) c) / pi.
    """
    act = as_activation_layer(activation).activation
    c = torch.as_tensor(c, dtype=DTYPE)
    qt = torch.full_like(c, q)
    q_next = sigma_w2 * act.diagonal(qt)[0] + sigma_b2
    return (sigma_w2 * act.dual(qt, qt, c * qt)[0] + sigma_b2) / q_next


def correlation_trajectory(c0, depth: int, activation="relu", *, sigma_w2: float = 2.0,
                           sigma_b2: float = 0.0, q0: float = 1.0) -> torch.Tensor:
    """Correlations c_0..c_depth of two inputs with variance q0 and correlation c0 (tracks q too)."""
    act = as_activation_layer(activation).activation
    c = torch.as_tensor(c0, dtype=DTYPE)
    q = torch.full_like(c, float(q0))
    out = [c]
    for _ in range(check_int("depth", depth, minimum=1)):
        e_cross = act.dual(q, q, c * q)[0]
        q = sigma_w2 * act.diagonal(q)[0] + sigma_b2
        c = ((sigma_w2 * e_cross + sigma_b2) / q).clamp(-1, 1)
        out.append(c)
    return torch.stack(out)
