"""The ``Kernel`` object: what an infinite-width layer maps to what.

Conventions are those of neural-tangents' ``stax`` (Novak et al. 2020), so numbers can be compared:
the input kernel is ``x . x' / d`` (for images: per pixel pair, summed over channels / C);
``nngp`` is the covariance of one output unit over the random initialization; ``ntk`` is the
neural tangent kernel of one output unit in the NTK parameterization.

Vectors and images share one object. With ``space = ()`` for vectors and ``space = (H, W)`` for
images (torch layout (n, C, H, W)), a kernel holds *cross* tensors between x1 and x2 of shape
(n1, n2, *space, *space) (one entry per pair of inputs and pair of pixels) and *self* tensors of
each input with itself, (n, *space, *space); for vectors the self tensor is just the variance (n,).

A kernel with ``same_position=True`` keeps only the same-position pairs p = p' of an image kernel:
cross tensors (n1, n2, *space) and self tensors (n, *space). That is all a ``flatten()`` readout
looks at, and convolutions (shared offsets move both positions alike), elementwise activations and
layer norm compute the output's pairs p = p' from the input's pairs p = p' alone, so ``serial``
propagates only those when such a stack ends in ``flatten()`` (HW times less work and memory).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

Tensor = torch.Tensor


class NoClosedForm(NotImplementedError):
    """Raised by layers whose infinite-width kernel has no closed form (``max_pool``, ``batch_norm`` with
    batch statistics, the muP parameterization); their finite networks exist: see ``nh.monte_carlo_kernel``."""


class MemoryBudgetError(MemoryError):
    """Even the smallest block of a kernel computation needs more memory than ``memory_budget``
    (``Layer.kernel``, :mod:`.evaluation`; the compiled paths raise it too)."""


@dataclass(frozen=True)
class Kernel:
    """Infinite-width NNGP and NTK of a layer's output on inputs x1 (n1 of them) and x2 (n2).

    Attributes:
        nngp: (n1, n2, *space, *space) covariance Sigma(x1_i, x2_j) of one unit (channel).
        ntk:  (n1, n2, *space, *space) neural tangent kernel Theta(x1_i, x2_j).
        var1: (n1, *space, *space) Sigma(x1_i, x1_i), the self covariance ((n1,) for vectors);
              the next activation needs its diagonal (the variance "triple": lesson 02, §4.1.1).
        var2: (n2, *space, *space) Sigma(x2_j, x2_j).
        is_gram: True when x2 is x1 (then var2 is var1 and the matrices are symmetric).
        ntk_is_zero: True for raw inputs (no parameters yet); lets the first layer skip work.
        same_position: True when only the pixel pairs p = p' are kept (see the module docstring): then
            nngp/ntk are (n1, n2, *space) and var1/var2 (n, *space).
    """

    nngp: Tensor
    ntk: Tensor
    var1: Tensor
    var2: Tensor
    is_gram: bool = False
    ntk_is_zero: bool = False
    same_position: bool = False

    @classmethod
    def from_inputs(cls, x1: Tensor, x2: Tensor | None = None, *, same_position: bool = False) -> "Kernel":
        """The input "layer": ``nngp = x1 . x2 / d`` (per pixel pair for images), ``ntk = 0``.

        ``same_position=True`` (images only) keeps only the pairs p = p': (n1, n2, H, W)."""
        same_position = bool(same_position) and x1.ndim == 4
        if x1.ndim == 2:
            product = lambda a, b: a @ b.T / a.shape[1]                                   # (n1, n2)
            self_product = lambda a: (a * a).sum(1) / a.shape[1]                          # (n,)
            gram_diagonal = lambda k: torch.diagonal(k).clone()
        elif same_position:
            # one elementwise formula for both, so an input that is in x1 and x2 meets itself exactly
            product = lambda a, b: (a[:, None] * b[None]).sum(2) / a.shape[1]             # (n1, n2, H, W)
            self_product = lambda a: (a * a).sum(1) / a.shape[1]                          # (n, H, W)
            gram_diagonal = lambda k: torch.diagonal(k, dim1=0, dim2=1).movedim(-1, 0).clone()
        else:
            product = lambda a, b: torch.einsum("ichw,jcHW->ijhwHW", a, b) / a.shape[1]  # (n1, n2, H, W, H, W)
            self_product = lambda a: torch.einsum("ichw,icHW->ihwHW", a, a) / a.shape[1]  # (n, H, W, H, W)
            gram_diagonal = lambda k: torch.diagonal(k, dim1=0, dim2=1).movedim(-1, 0).clone()
        if x2 is None:
            # Take the self covariances from the Gram tensor itself: then cov == var exactly where
            # an input meets itself, and the angle there is exactly 0 (sqrt(var^2 - cov^2) would
            # turn a rounding error of 1e-16 into an angle of 1e-8).
            nngp = product(x1, x1)
            var1 = var2 = gram_diagonal(nngp)
        else:
            nngp = product(x1, x2)
            var1, var2 = self_product(x1), self_product(x2)
        return cls(nngp=nngp, ntk=torch.zeros_like(nngp), var1=var1, var2=var2, is_gram=x2 is None,
                   ntk_is_zero=True, same_position=same_position)

    def to_same_position(self) -> "Kernel":
        """The same kernel with only its pixel pairs p = p' (see the module docstring); no-op for vectors."""
        if self.same_position or not self.space:
            return self
        diag = lambda t: _pair_diagonal(t).contiguous()
        var1 = diag(self.var1)
        return replace(self, nngp=diag(self.nngp), ntk=diag(self.ntk), var1=var1,
                       var2=var1 if self.is_gram else diag(self.var2), same_position=True)

    def replace(self, **changes) -> "Kernel":
        """A copy with some fields changed; a new ``ntk`` is assumed nonzero unless said otherwise."""
        if "ntk" in changes:
            changes.setdefault("ntk_is_zero", False)
        return replace(self, **changes)

    def map(self, linear) -> "Kernel":
        """Apply one linear map to all four tensors: a readout, a pool, a fixed rescaling.

        ``linear`` takes a cross tensor (n1, n2, *space, *space) or a self tensor (n, *space, *space) and acts
        on the trailing position axes only; for a Gram kernel the self tensor of x2 is that of x1.
        """
        var1 = linear(self.var1)
        return self.replace(nngp=linear(self.nngp), ntk=linear(self.ntk), var1=var1,
                            var2=var1 if self.is_gram else linear(self.var2), ntk_is_zero=self.ntk_is_zero)

    def map_self(self, rule) -> tuple[Tensor, Tensor]:
        """``(rule(var1, 1), rule(var2, 2))``, the second computed only when x2 is not x1."""
        var1 = rule(self.var1, 1)
        return var1, (var1 if self.is_gram else rule(self.var2, 2))

    @property
    def space(self) -> tuple[int, ...]:
        """() for vectors, (H, W) for images."""
        if self.same_position:
            return tuple(self.var1.shape[1:])
        return tuple(self.var1.shape[1:1 + (self.var1.ndim - 1) // 2])

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.nngp.shape)

    def diagonal(self, which: int) -> Tensor:
        """Self variances Sigma_pp(x, x) of every input and pixel: (n,) or (n, H, W)."""
        var = self.var1 if which == 1 else self.var2
        if var.ndim == 1 or self.same_position:
            return var
        return _pair_diagonal(var)

    def is_finite(self) -> bool:
        return all(bool(torch.isfinite(t).all()) for t in (self.nngp, self.ntk, self.var1, self.var2))

    def __repr__(self) -> str:
        return f"Kernel(shape={self.shape}, nngp={_preview(self.nngp)}, ntk={_preview(self.ntk)})"


def _pair_diagonal(t: Tensor) -> Tensor:
    """(..., H, W, H, W) -> (..., H, W): the entries p = p' (a view)."""
    # diagonal over (h, h') -> (..., W, W, H); then over (w, w') -> (..., H, W)
    return torch.diagonal(torch.diagonal(t, dim1=-4, dim2=-2), dim1=-3, dim2=-2)


def _preview(t: Tensor) -> str:
    return f"[{float(t.flatten()[0]):.4g}, ...]" if t.numel() else "[]"
