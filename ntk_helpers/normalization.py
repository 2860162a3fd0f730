"""Normalization layers: chapter 4.4, lesson 05.

- ``layer_norm()`` after a dense or conv layer (zero-mean pre-activations). At infinite width the
  channel statistics of an input are its kernel diagonal, so (lesson 05, section 4.4.1; the map of
  neural-tangents' ``stax.LayerNorm``, Novak et al. 2020)
  ``Sigma -> Sigma / sqrt((Sigma(x,x) + eps)(Sigma(x',x') + eps))`` and the NTK likewise; the
  Jacobian's projection terms are O(1/width) and vanish.
- ``batch_norm()`` with batch statistics has no closed form: a unit's output depends on the whole
  batch, which stays finite as width grows (Yang et al. 2019). Its finite network exists; use
  :func:`ntk_helpers.monte_carlo_kernel`. ``batch_norm(frozen=True)`` is eval mode with the initial
  running statistics (mean 0, variance 1): an affine map with the exact kernel ``Sigma / (1 + eps)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._checks import check_nonnegative
from .kernel import Kernel
from .layers import Layer
from .modules import FeatureNorm


class NoClosedForm(NotImplementedError):
    """Raised by layers whose infinite-width kernel has no closed form."""


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
    needs_preactivations = True

    def transform(self, k: Kernel) -> Kernel:
        s1 = (k.diagonal(1) + self.eps).sqrt()
        s2 = s1 if k.is_gram else (k.diagonal(2) + self.eps).sqrt()
        var1 = _scale_self(k.var1, s1)
        return k.replace(nngp=_scale(k.nngp, s1, s2), ntk=_scale(k.ntk, s1, s2), var1=var1,
                         var2=var1 if k.is_gram else _scale_self(k.var2, s2), ntk_is_zero=k.ntk_is_zero)

    def build(self, in_shape, width, generator, dtype):
        return [FeatureNorm("features", self.eps)], in_shape

    def __repr__(self) -> str:
        return "layer_norm()"


@dataclass(frozen=True, repr=False)
class BatchNorm(Layer):
    frozen: bool
    eps: float

    def transform(self, k: Kernel) -> Kernel:
        if not self.frozen:
            raise NoClosedForm("batch_norm() with batch statistics has no infinite-width closed form (the batch "
                               "stays finite); estimate it with nh.monte_carlo_kernel(...), or use "
                               "batch_norm(frozen=True)")
        c = 1 / (1 + self.eps)
        return k.replace(nngp=c * k.nngp, ntk=c * k.ntk, var1=c * k.var1, var2=c * k.var2, ntk_is_zero=k.ntk_is_zero)

    def build(self, in_shape, width, generator, dtype):
        return [FeatureNorm("frozen" if self.frozen else "batch", self.eps)], in_shape

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
