"""The activation layer: an elementwise nonlinearity in both worlds (chapter 4.1, lessons 02 and 06).

For a centred Gaussian pair (u, v) with covariance [[var1, cov], [cov, var2]] the *dual* of an
activation phi is the pair

    E    = E[phi(u)  phi(v)]      (carries the NNGP kernel through the activation)
    Edot = E[phi'(u) phi'(v)]     (carries the NTK:  Theta_after = Edot * Theta_before)

An :class:`Activation` applies ``fn`` in the finite network (:class:`Elementwise`) and its dual to the kernel:
on vectors (n1, n2), on image pixel-pair tensors (n1, n2, H, W, H, W), or on the same-position pairs
(n1, n2, H, W) that a flatten readout needs. The activations themselves, with their closed-form duals, are
registered in :mod:`.activations`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
from torch import nn

from . import quadrature, rules
from .kernel import Kernel
from .layer import Layer

Tensor = torch.Tensor
Dual = Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]


@dataclass(frozen=True, repr=False)
class Activation(Layer):
    """An elementwise nonlinearity: ``fn`` for finite networks, its dual for infinite ones.

    Kernel rule: ``Sigma' = E[phi(u) phi(v)]``, ``Theta' = E[phi'(u) phi'(v)] * Theta``, both over the
    Gaussian (u, v) whose covariance is the incoming triple (Sigma(x,x), Sigma(x',x'), Sigma(x,x')).
    ``closed_form(var1, var2, cov) -> (E, Edot)`` works elementwise on broadcastable float64 tensors;
    ``None`` means "integrate numerically" (trapezoidal quadrature, :mod:`.quadrature`).

    For the compiled paths (:mod:`.rules`, ``engine/compiled/``) a closed form is also declared per pair of
    floats: ``piecewise_linear = (a, b)`` when phi(x) = a min(x, 0) + b max(x, 0) (ReLU (0, 1), leaky ReLU,
    identity (1, 1)), else ``scalar_dual(cov, var1, var2) -> (E, Edot)``, the same dual written with ``math`` on
    floats (see :class:`~ntk_helpers.engine.rules.Dual`). An activation without either takes the eager path.
    """

    name: str
    fn: Callable[[Tensor], Tensor]
    closed_form: Optional[Dual] = field(default=None)
    piecewise_linear: Optional[tuple[float, float]] = field(default=None)
    scalar_dual: Optional[Callable[[float, float, float], tuple[float, float]]] = field(default=None)
    keeps_same_position_pairs = True

    def pair_rule(self) -> rules.Rule:
        if self.piecewise_linear is not None:
            return rules.Dual(piecewise_linear=tuple(float(v) for v in self.piecewise_linear))
        if self.scalar_dual is not None:
            return rules.Dual(scalar=self.scalar_dual)
        how = "no closed-form dual (its kernel is integrated by quadrature)" if self.closed_form is None else \
            "a torch closed form but no scalar_dual for the compiled path"
        return rules.Unsupported(f"{self!r} has {how}")

    def dual(self, var1: Tensor, var2: Tensor, cov: Tensor) -> tuple[Tensor, Tensor]:
        """``(E[phi(u)phi(v)], E[phi'(u)phi'(v)])`` for (u, v) ~ N(0, [[var1, cov], [cov, var2]])."""
        if self.closed_form is not None:
            return self.closed_form(var1, var2, cov)
        return quadrature.pair_expectations(self.fn, var1, var2, cov)

    def diagonal(self, var: Tensor) -> tuple[Tensor, Tensor]:
        """``(E[phi(u)^2], E[phi'(u)^2])`` for u ~ N(0, var): the variance (q) maps of mean-field theory."""
        if self.closed_form is not None:
            return self.closed_form(var, var, var)
        return quadrature.diagonal_expectations(self.fn, var)

    @property
    def has_closed_form(self) -> bool:
        return self.closed_form is not None

    def transform(self, k: Kernel) -> Kernel:
        if not k.space:
            return self._transform_vectors(k)
        if k.same_position:
            return self._transform_same_position(k)
        flat = (1,) * len(k.space)
        d1, d2 = k.diagonal(1), k.diagonal(2)                                     # (n1, H, W), (n2, H, W)
        n1, n2 = d1.shape[0], d2.shape[0]
        e, e_dot = self.dual(d1.reshape(n1, 1, *k.space, *flat),                  # cross: (n1, n2, H, W, H, W)
                             d2.reshape(1, n2, *flat, *k.space), k.nngp)
        var1, var2 = k.map_self(lambda var, i: self._self_tensor(var, k.diagonal(i)))
        ntk = k.ntk if k.ntk_is_zero else e_dot.mul_(k.ntk)
        return k.replace(nngp=e, ntk=ntk, var1=var1, var2=var2, ntk_is_zero=k.ntk_is_zero)

    def _transform_same_position(self, k: Kernel) -> Kernel:
        """Only the pairs p = p': each needs Sigma_pp(x, x), Sigma_pp(x', x') and Sigma_pp(x, x')."""
        e, e_dot = self.dual(k.var1[:, None], k.var2[None, :], k.nngp)           # (n1, n2, H, W)
        var1, var2 = k.map_self(lambda var, _: self.dual(var, var, var)[0])
        ntk = k.ntk if k.ntk_is_zero else e_dot.mul_(k.ntk)
        return k.replace(nngp=e, ntk=ntk, var1=var1, var2=var2, ntk_is_zero=k.ntk_is_zero)

    def _self_tensor(self, var, diag):
        flat = (1,) * (diag.ndim - 1)
        n, space = diag.shape[0], diag.shape[1:]
        return self.dual(diag.reshape(n, *space, *flat), diag.reshape(n, *flat, *space), var)[0]

    def _transform_vectors(self, k: Kernel) -> Kernel:
        if k.is_gram and not self.has_closed_form:
            e, e_dot = self._symmetric_dual(k)                                          # half the quadrature
        else:
            e, e_dot = self.dual(k.var1[:, None], k.var2[None, :], k.nngp)              # (n1, n2) each
        var1, e_dot_self = self.diagonal(k.var1)
        if k.is_gram:
            # One value for Sigma(x, x): the pair rule at correlation 1 and the variance map round differently,
            # and in the chaotic phase every layer amplifies that gap (tanh at sigma_w = 2.5, depth 100: 0.04
            # instead of q* = 3.96). The variance map is the accurate one.
            e.diagonal().copy_(var1)
            e_dot.diagonal().copy_(e_dot_self)
        var2 = var1 if k.is_gram else self.diagonal(k.var2)[0]
        return k.replace(nngp=e, ntk=_times(e_dot, k.ntk), var1=var1, var2=var2, ntk_is_zero=k.ntk_is_zero)

    def _symmetric_dual(self, k: Kernel):
        """For a Gram matrix (x2 = x1) evaluate the dual on the upper triangle only and mirror it."""
        n = k.nngp.shape[0]
        i, j = torch.triu_indices(n, n, device=k.nngp.device)
        out = []
        for values in self.dual(k.var1[i], k.var1[j], k.nngp[i, j]):
            full = torch.empty_like(k.nngp)
            full[i, j] = values
            full[j, i] = values
            out.append(full)
        return tuple(out)

    def build(self, in_shape, context):
        return [Elementwise(self)], in_shape

    def __repr__(self) -> str:
        return self.name if self.name.endswith(")") else f"{self.name}()"


class Elementwise(nn.Module):
    """Applies an :class:`Activation`'s ``fn`` elementwise (the finite network's side)."""

    def __init__(self, activation: Activation):
        super().__init__()
        self.activation = activation

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.activation.fn(h)

    def extra_repr(self) -> str:
        return self.activation.name


def _times(e_dot: Tensor, ntk: Tensor) -> Tensor:
    """``e_dot * ntk``, in place when ``e_dot`` is a fresh full tensor (the duals here return one)."""
    if e_dot.shape == ntk.shape and 0 not in e_dot.stride():
        return e_dot.mul_(ntk)
    return e_dot * ntk


__all__ = ["Activation", "Elementwise", "Dual"]
