"""The ``Kernel`` object: what an infinite-width layer maps to what.

Conventions are those of neural-tangents' ``stax`` (Novak et al. 2020), so numbers can be compared:
the input kernel is ``x . x' / d``; ``nngp`` is the covariance of one output unit over the random
initialization; ``ntk`` is the neural tangent kernel of one output unit in the NTK
parameterization. Both are float64 tensors of shape (n1, n2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

Tensor = torch.Tensor


@dataclass(frozen=True)
class Kernel:
    """Infinite-width NNGP and NTK of a layer's output on inputs x1 (n1 rows) and x2 (n2 rows).

    Attributes:
        nngp: (n1, n2) covariance Sigma(x1_i, x2_j) of one unit at initialization.
        ntk:  (n1, n2) neural tangent kernel Theta(x1_i, x2_j) of one unit.
        var1: (n1,) Sigma(x1_i, x1_i), needed by the next activation (the "triple" of AUDIT App. B.1).
        var2: (n2,) Sigma(x2_j, x2_j).
        is_gram: True when x2 is x1 (then var2 is var1 and the matrices are symmetric).
    """

    nngp: Tensor
    ntk: Tensor
    var1: Tensor
    var2: Tensor
    is_gram: bool = False

    @classmethod
    def from_inputs(cls, x1: Tensor, x2: Tensor | None = None) -> "Kernel":
        """The input "layer": ``nngp = x1 x2^T / d``, ``ntk = 0`` (inputs have no parameters)."""
        d = x1.shape[1]
        if x2 is None:
            # Take the variances from the Gram matrix itself: then cov == var exactly on its
            # diagonal and the angle there is exactly 0 (sqrt(var^2 - cov^2) would turn a
            # rounding error of 1e-16 into an angle of 1e-8).
            nngp = x1 @ x1.T / d                                     # (n1, n1)
            var1 = var2 = torch.diagonal(nngp).clone()               # (n1,)
        else:
            nngp = x1 @ x2.T / d                                     # (n1, n2)
            var1, var2 = (x1 * x1).sum(1) / d, (x2 * x2).sum(1) / d  # (n1,), (n2,)
        return cls(nngp=nngp, ntk=torch.zeros_like(nngp), var1=var1, var2=var2, is_gram=x2 is None)

    def replace(self, **changes) -> "Kernel":
        return replace(self, **changes)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.nngp.shape)

    def is_finite(self) -> bool:
        return all(bool(torch.isfinite(t).all()) for t in (self.nngp, self.ntk, self.var1, self.var2))

    def __repr__(self) -> str:
        return f"Kernel(shape={self.shape}, nngp={_preview(self.nngp)}, ntk={_preview(self.ntk)})"


def _preview(t: Tensor) -> str:
    return f"[{float(t.flatten()[0]):.4g}, ...]" if t.numel() else "[]"
