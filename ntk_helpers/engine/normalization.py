"""Normalization layers: chapter 4.4.1, lesson 05a.

- ``layer_norm()`` after a dense or conv layer (zero-mean pre-activations). At infinite width the
  channel statistics of an input are its kernel diagonal, so (lesson 05a, section 4.4.1; the map of
  neural-tangents' ``stax.LayerNorm``, Novak et al. 2020)
  ``Sigma -> Sigma / sqrt((Sigma(x,x) + eps)(Sigma(x',x') + eps))`` and the NTK likewise; the
  Jacobian's projection terms are O(1/width) and vanish.
- ``batch_norm()`` with batch statistics has no closed form: a unit's output depends on the whole
  batch, which stays finite as width grows (Yang et al. 2019). Its finite network exists; use
  :func:`ntk_helpers.monte_carlo_kernel`. ``batch_norm(frozen=True)`` is eval mode with the initial
  running statistics (mean 0, variance 1): an affine map with the exact kernel ``Sigma / (1 + eps)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .._checks import check_nonnegative
from . import rules
from .kernel import Kernel, NoClosedForm
from .layer import Layer


class FeatureNorm(nn.Module):
    """Normalize over the feature (channel) axis 1 with statistics of each example (layer norm, no
    affine parameters) or of the whole batch (batch norm with batch statistics), or with frozen
    statistics mean 0, variance 1 (batch norm in eval mode at initialization)."""

    def __init__(self, over: str, eps: float):
        super().__init__()
        self.over, self.eps = over, float(eps)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.over == "frozen":
            return h / math.sqrt(1 + self.eps)
        dims = (1,) if self.over == "features" else (0,) + tuple(range(2, h.ndim))
        mean = h.mean(dims, keepdim=True)
        var = h.var(dims, unbiased=False, keepdim=True)
        return (h - mean) / torch.sqrt(var + self.eps)

    def extra_repr(self) -> str:
        return f"over={self.over}, eps={self.eps:g}"


def _scale(t: torch.Tensor, s1: torch.Tensor, s2: torch.Tensor) -> torch.Tensor:
    """t / (s1 outer s2) with s1 (n1, *space), s2 (n2, *space) for cross (n1, n2, *space, *space)."""
    n1, n2 = s1.shape[0], s2.shape[0]
    space = s1.shape[1:]
    flat = (1,) * len(space)
    return t / s1.reshape(n1, 1, *space, *flat) / s2.reshape(1, n2, *flat, *space)


def _scale_self(t: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    n, space = s.shape[0], s.shape[1:]
    flat = (1,) * len(space)
    return t / s.reshape(n, *space, *flat) / s.reshape(n, *flat, *space)


@dataclass(frozen=True, repr=False)
class LayerNorm(Layer):
    eps: float
    needs_gaussian_input = True
    keeps_same_position_pairs = True

    def transform(self, k: Kernel) -> Kernel:
        s1, s2 = k.map_self(lambda _, i: (k.diagonal(i) + self.eps).sqrt())           # (n, *space)
        if k.same_position:                                   # only p = p': cross (n1, n2, *space), self (n, *space)
            cross = lambda t: t / s1[:, None] / s2[None, :]
            var1, var2 = k.map_self(lambda var, i: var / (s1 if i == 1 else s2) / (s1 if i == 1 else s2))
        else:
            cross = lambda t: _scale(t, s1, s2)
            var1, var2 = k.map_self(lambda var, i: _scale_self(var, s1 if i == 1 else s2))
        return k.replace(nngp=cross(k.nngp), ntk=cross(k.ntk), var1=var1, var2=var2, ntk_is_zero=k.ntk_is_zero)

    def pair_rule(self) -> rules.Normalize:
        return rules.Normalize(self.eps)

    def build(self, in_shape, context):
        return [FeatureNorm("features", self.eps)], in_shape

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return gaussian_input                  # a Gaussian divided by its (deterministic, infinite-width) scale

    def __repr__(self) -> str:
        return "layer_norm()"


@dataclass(frozen=True, repr=False)
class BatchNorm(Layer):
    frozen: bool
    eps: float
    keeps_same_position_pairs = True

    def transform(self, k: Kernel) -> Kernel:
        if not self.frozen:
            raise NoClosedForm("batch_norm() with batch statistics has no infinite-width closed form (the batch "
                               "stays finite); estimate it with nh.monte_carlo_kernel(...), or use "
                               "batch_norm(frozen=True)")
        return k.map(lambda t: t / (1 + self.eps))

    def pair_rule(self) -> rules.Rule:
        if not self.frozen:
            return rules.Unsupported(f"{self!r} has no closed form (batch statistics)")
        return rules.Scale(1 + self.eps)

    def build(self, in_shape, context):
        return [FeatureNorm("frozen" if self.frozen else "batch", self.eps)], in_shape

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return gaussian_input and self.frozen

    @property
    def batch_coupled(self) -> bool:
        return not self.frozen

    def __repr__(self) -> str:
        return f"batch_norm(frozen={self.frozen})"


def layer_norm(eps: float = 1e-5) -> LayerNorm:
    """Normalize each example over its features (channels), without affine parameters; put it
    right after ``dense()`` or ``conv()``."""
    return LayerNorm(check_nonnegative("eps", eps))


def batch_norm(*, frozen: bool = False, eps: float = 1e-5) -> BatchNorm:
    """Normalize each feature over the batch (and positions), without affine parameters.

    ``frozen=False``: batch statistics (training mode), batch-coupled, Monte Carlo kernels only.
    ``frozen=True``: fixed statistics mean 0, variance 1 (eval mode at initialization), exact kernel.
    """
    if not isinstance(frozen, bool):
        raise TypeError(f"frozen must be True or False, got {frozen!r}")
    return BatchNorm(frozen, check_nonnegative("eps", eps))
