"""Activations: a torch function next to its dual kernel.

For a centred Gaussian pair (u, v) with covariance [[var1, cov], [cov, var2]] the *dual* of an
activation phi is the pair

    E    = E[phi(u)  phi(v)]      (carries the NNGP kernel through the activation)
    Edot = E[phi'(u) phi'(v)]     (carries the NTK:  Theta_after = Edot * Theta_before)

Closed forms (all float64, written in the arctan2 form that stays accurate near cov = ±var):

- ReLU / leaky ReLU (``a * min(x, 0) + b * max(x, 0)``): arc-cosine kernels (Cho & Saul 2009);
  with r = sqrt(var1 var2 - cov^2) and theta = arctan2(r, cov),
  ``Edot = (a^2 + b^2)/2 - (a - b)^2 theta / (2 pi)`` and ``E = (a - b)^2 r / (2 pi) + Edot cov``.
- Erf: Williams (1997), ``E = (2/pi) arcsin(2 cov / sqrt((1 + 2 var1)(1 + 2 var2)))``.
- GELU (x Phi(x)): Tsuchida et al. 2021 (arXiv:2002.08517), the form neural-tangents uses.
- identity: ``E = cov``, ``Edot = 1``.

Anything else (tanh, or your own function via :func:`ntk_helpers.elementwise`) goes through
:mod:`ntk_helpers.quadrature`. To add an activation with a closed form, write its ``dual`` below
and register a constructor; nothing else in the package changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch

from . import quadrature

Tensor = torch.Tensor
Dual = Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]


@dataclass(frozen=True)
class Activation:
    """An elementwise nonlinearity: ``fn`` for finite networks, ``dual`` for infinite ones.

    ``dual(var1, var2, cov) -> (E, Edot)`` works elementwise on broadcastable float64 tensors.
    ``dual=None`` means "integrate numerically" (see :mod:`ntk_helpers.quadrature`).
    """

    name: str
    fn: Callable[[Tensor], Tensor] = field(repr=False)
    dual_closed_form: Optional[Dual] = field(default=None, repr=False)

    def dual(self, var1: Tensor, var2: Tensor, cov: Tensor) -> tuple[Tensor, Tensor]:
        """``(E[phi(u)phi(v)], E[phi'(u)phi'(v)])`` for (u, v) ~ N(0, [[var1, cov], [cov, var2]])."""
        if self.dual_closed_form is not None:
            return self.dual_closed_form(var1, var2, cov)
        return quadrature.pair_expectations(self.fn, var1, var2, cov)

    def diagonal(self, var: Tensor) -> tuple[Tensor, Tensor]:
        """``(E[phi(u)^2], E[phi'(u)^2])`` for u ~ N(0, var): the variance (q) maps of mean-field theory."""
        if self.dual_closed_form is not None:
            return self.dual_closed_form(var, var, var)
        return quadrature.diagonal_expectations(self.fn, var)

    @property
    def has_closed_form(self) -> bool:
        return self.dual_closed_form is not None


def _abrelu_dual(a: float, b: float) -> Dual:
    """Dual of ``a * min(x, 0) + b * max(x, 0)`` (ReLU: a=0, b=1; leaky ReLU: a=slope, b=1).

    Written with in-place operations on fresh temporaries: image kernels call it on tensors of
    millions of entries (lesson 03).
    """
    jump = (a - b) ** 2 / (2 * math.pi)
    mean_slope_sq = (a * a + b * b) / 2

    def dual(var1, var2, cov):
        # r = sqrt(var1 var2 - cov^2): product and square rounded alike, so r is exactly 0 where an
        # input meets itself (an FMA would leave ~1e-8 there)
        prod = var1 * var2
        r = (prod.sub_(cov * cov) if prod.shape == cov.shape else prod - cov * cov).clamp_min_(0).sqrt_()
        theta = torch.atan2(r, cov)
        if bool((var1 == 0).any()) or bool((var2 == 0).any()):
            # a unit with zero variance has no direction: use pi/2, the neural-tangents convention,
            # so that Edot takes its uncorrelated value
            theta = torch.where((r == 0) & (cov == 0), torch.full_like(r, math.pi / 2), theta)
        e_dot = torch.rsub(theta, mean_slope_sq, alpha=jump)      # (a^2+b^2)/2 - jump * theta
        return r.mul_(jump).addcmul_(e_dot, cov), e_dot            # jump * r + Edot * cov

    return dual


def _erf_dual(var1, var2, cov):
    a, b = 1 + 2 * var1, 1 + 2 * var2
    ab = a * b
    e = (2 / math.pi) * torch.asin((2 * cov / ab.sqrt()).clamp(-1, 1))
    e_dot = (4 / math.pi) / (ab - 4 * cov * cov).clamp_min(1e-300).sqrt()
    return e, e_dot


def _gelu_dual(var1, var2, cov):
    prod = var1 * var2
    prod_plus = (1 + var1) * (1 + var2)
    # (1 + var1)(1 + var2) - cov^2, summed so that the diagonal (cov = var1 = var2) is exactly 1 + 2 var: the
    # product form cancels catastrophically once var passes ~1e8 (deep alpha = 1 ResNets reach 1e16 and more).
    delta_sq = (1 + var1 + var2 + (prod - cov * cov)).clamp_min(1e-300)     # >= 1 + var1 + var2 > 0
    delta = delta_sq.sqrt()
    angle = torch.atan2(cov, delta)
    e = ((cov * cov + prod * delta_sq) / (prod_plus * delta) + cov * angle) / (2 * math.pi) + cov / 4
    e_dot = cov / (2 * math.pi * delta) * (1 / delta_sq + (1 - prod) / prod_plus + 1) + 0.25 + angle / (2 * math.pi)
    return e, e_dot


def _identity_dual(var1, var2, cov):
    cov = torch.broadcast_tensors(var1, var2, cov)[2]
    return cov.clone(), torch.ones_like(cov)


def _gelu(x):
    return torch.nn.functional.gelu(x)


def relu_activation() -> Activation:
    return Activation("relu", torch.relu, _abrelu_dual(0.0, 1.0))


def leaky_relu_activation(negative_slope: float = 0.01) -> Activation:
    slope = float(negative_slope)
    if not math.isfinite(slope):
        raise ValueError(f"negative_slope must be a finite number, got {negative_slope!r}")
    return Activation(
        f"leaky_relu({slope:g})",
        lambda x: torch.nn.functional.leaky_relu(x, slope),
        _abrelu_dual(slope, 1.0),
    )


def erf_activation() -> Activation:
    return Activation("erf", torch.erf, _erf_dual)


def gelu_activation() -> Activation:
    return Activation("gelu", _gelu, _gelu_dual)


def tanh_activation() -> Activation:
    return Activation("tanh", torch.tanh, None)


def identity_activation() -> Activation:
    return Activation("identity", lambda x: x, _identity_dual)


#: Activation names accepted wherever an activation is given by name (``mlp(activation=...)``).
ACTIVATIONS: dict[str, Callable[[], Activation]] = {
    "relu": relu_activation,
    "leaky_relu": leaky_relu_activation,
    "erf": erf_activation,
    "gelu": gelu_activation,
    "tanh": tanh_activation,
    "identity": identity_activation,
}


def activation_by_name(name: str) -> Activation:
    """Look up an activation by name; unknown names raise ``ValueError`` listing the allowed ones."""
    if not isinstance(name, str):
        raise TypeError(f"activation must be a name ({', '.join(ACTIVATIONS)}) or an activation layer, got {name!r}")
    if name not in ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; allowed values: {', '.join(ACTIVATIONS)}")
    return ACTIVATIONS[name]()


__all__ = ["Activation", "ACTIVATIONS", "activation_by_name"]
