"""The registered activations: each a torch function next to its dual kernel (see :mod:`.activation`).

Closed forms (all float64, written in the arctan2 form that stays accurate near cov = ±var):

- ReLU / leaky ReLU (``a * min(x, 0) + b * max(x, 0)``): arc-cosine kernels (Cho & Saul 2009);
  with r = sqrt(var1 var2 - cov^2) and theta = arctan2(r, cov),
  ``Edot = (a^2 + b^2)/2 - (a - b)^2 theta / (2 pi)`` and ``E = (a - b)^2 r / (2 pi) + Edot cov``.
- Erf: Williams (1997), ``E = (2/pi) arcsin(2 cov / sqrt((1 + 2 var1)(1 + 2 var2)))``.
- GELU (x Phi(x)): Tsuchida et al. 2021 (arXiv:2002.08517), the form neural-tangents uses.
- identity: ``E = cov``, ``Edot = 1``.

Anything else (tanh, or your own function via :func:`ntk_helpers.elementwise`) goes through
:mod:`~ntk_helpers.engine.quadrature`. An :class:`Activation` is a layer: its finite network applies ``fn``,
its kernel rule is the dual. To add an activation, write one constructor below with ``@register`` (and its
closed-form dual if it has one): ``mlp(activation=name)``, the sliders and the tests pick it up. A closed form is
given twice: on tensors (``closed_form``, the eager path) and on floats (``scalar_dual``, which the compiled paths
of ``engine/compiled/`` compile into their fused loops; see :class:`~ntk_helpers.engine.rules.Dual`), or as the
constants of a piecewise-linear function; tests/test_compiled.py checks that both forms agree.
"""

from __future__ import annotations

import math
import warnings
from typing import Callable

import torch
from torch import nn

from . import quadrature
from .activation import Activation, Dual
from .rules import signed_angle

Tensor = torch.Tensor


# -- closed-form duals -------------------------------------------------------------------------

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


def _erf_scalar(cov, var1, var2):
    """:func:`_erf_dual` on floats (Williams 1997), with asin(2 cov / sqrt(ab)) written as atan2(2 cov, sqrt(ab -
    4 cov^2)), the clamped root that Edot divides by: the same numbers, and a branch-free angle."""
    ab = (1.0 + 2.0 * var1) * (1.0 + 2.0 * var2)
    d = ab - 4.0 * cov * cov
    r = math.sqrt(d if d > 1e-300 else 1e-300)
    return (2 / math.pi) * signed_angle(2.0 * cov, r), (4 / math.pi) / r


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


def _gelu_scalar(cov, var1, var2):
    """:func:`_gelu_dual` on floats, operation for operation (the form neural-tangents uses)."""
    prod = var1 * var2
    prod_plus = (1.0 + var1) * (1.0 + var2)
    delta_sq = 1.0 + var1 + var2 + (prod - cov * cov)
    delta_sq = delta_sq if delta_sq > 1e-300 else 1e-300
    delta = math.sqrt(delta_sq)
    angle = signed_angle(cov, delta)                      # atan2(cov, delta), delta > 0
    e = ((cov * cov + prod * delta_sq) / (prod_plus * delta) + cov * angle) / (2 * math.pi) + cov / 4
    e_dot = cov / (2 * math.pi * delta) * (1 / delta_sq + (1 - prod) / prod_plus + 1) + 0.25 + angle / (2 * math.pi)
    return e, e_dot


def _identity_dual(var1, var2, cov):
    cov = torch.broadcast_tensors(var1, var2, cov)[2]
    return cov.clone(), torch.ones_like(cov)


# -- the registry: one constructor per activation ----------------------------------------------

#: Activation names accepted wherever an activation is given by name (``mlp(activation=...)``), each with
#: the constructor that builds it. ``@register`` adds one; the tests run every oracle on every entry.
ACTIVATIONS: dict[str, Callable[[], Activation]] = {}


def register(constructor: Callable[[], Activation]) -> Callable[[], Activation]:
    """Add an activation constructor to :data:`ACTIVATIONS` under its function name."""
    ACTIVATIONS[constructor.__name__] = constructor
    return constructor


@register
def relu() -> Activation:
    """ReLU, with the arc-cosine closed form (Cho & Saul 2009)."""
    return Activation("relu", torch.relu, _abrelu_dual(0.0, 1.0), piecewise_linear=(0.0, 1.0))


@register
def leaky_relu(negative_slope: float = 0.01) -> Activation:
    """Leaky ReLU ``max(x, 0) + negative_slope * min(x, 0)``, closed form (neural-tangents' ABRelu)."""
    slope = float(negative_slope)
    if not math.isfinite(slope):
        raise ValueError(f"negative_slope must be a finite number, got {negative_slope!r}")
    return Activation(f"leaky_relu({slope:g})", lambda x: nn.functional.leaky_relu(x, slope),
                      _abrelu_dual(slope, 1.0), piecewise_linear=(slope, 1.0))


@register
def erf() -> Activation:
    """The error function, with Williams' (1997) closed form (on tensors and on floats)."""
    return Activation("erf", torch.erf, _erf_dual, scalar_dual=_erf_scalar)


@register
def gelu() -> Activation:
    """GELU ``x Phi(x)`` (exact, not the tanh approximation), closed form (on tensors and on floats)."""
    return Activation("gelu", nn.functional.gelu, _gelu_dual, scalar_dual=_gelu_scalar)


@register
def tanh() -> Activation:
    """tanh; its dual kernel is computed by quadrature."""
    return Activation("tanh", torch.tanh)


@register
def identity() -> Activation:
    """No nonlinearity (a deep linear network): ``E = Sigma``, ``E[phi' phi'] = 1``."""
    return Activation("identity", lambda x: x, _identity_dual, piecewise_linear=(1.0, 1.0))


def elementwise(fn: Callable[[Tensor], Tensor], name: str = "elementwise") -> Activation:
    """Any smooth elementwise torch function; its dual kernel is computed by quadrature (warns when ``fn`` has
    a kink, where the quadrature is inaccurate)."""
    if not callable(fn):
        raise TypeError(f"fn must be a callable elementwise torch function, got {fn!r}")
    jumps = quadrature.kinks(fn)
    if jumps:
        warnings.warn(f"elementwise({name!r}): the derivative jumps at x = {jumps}; the quadrature dual is accurate "
                      "for smooth functions only (about 10% off for a ReLU-like kink). Register the activation with "
                      "its closed-form dual instead (ntk_helpers/engine/activations.py)", stacklevel=2)
    return Activation(name, fn)


def as_activation(activation) -> Activation:
    """An activation given by name (see :data:`ACTIVATIONS`) or as a layer such as ``relu()``; unknown names
    raise ``ValueError`` listing the allowed ones."""
    if isinstance(activation, Activation):
        return activation
    if not isinstance(activation, str):
        raise TypeError(f"activation must be a name ({', '.join(ACTIVATIONS)}) or an activation layer such as "
                        f"relu(), got {activation!r}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; allowed values: {', '.join(ACTIVATIONS)}")
    return ACTIVATIONS[activation]()


__all__ = ["ACTIVATIONS", "register", "as_activation", "elementwise", "relu", "leaky_relu", "erf",
           "gelu", "tanh", "identity"]
