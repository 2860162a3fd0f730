"""The dense layer: ``z = sigma_w / sqrt(fan_in) W h + sigma_b b`` with W, b ~ N(0, 1) (NTK parameterization).

Kernel rule (Jacot et al. 2018; Lee et al. 2019; lesson 02, section 4.1.1)::

    Sigma' = sigma_w^2 Sigma + sigma_b^2,        Theta' = Sigma' + sigma_w^2 Theta

the same as neural-tangents' ``stax.Dense(out, W_std=sigma_w, b_std=sigma_b, parameterization='ntk')``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .._checks import check_int, check_nonnegative
from .kernel import Kernel
from .layer import Layer


def affine(t, sigma_w: float, sigma_b: float):
    """``sigma_w^2 t + sigma_b^2``: what a dense layer does to a covariance (or a variance)."""
    return sigma_w ** 2 * t + sigma_b ** 2


class NTKDense(nn.Module):
    """Dense layer in the NTK parameterization, as neural-tangents' ``stax.Dense(out, W_std, b_std,
    parameterization='ntk')``::

        z = sigma_w / sqrt(fan_in) * h @ W.T + sigma_b * b,      W, b ~ N(0, 1)

    The bias parameter only exists when ``sigma_b > 0`` (with ``sigma_b = 0`` it could not move f).
    """

    def __init__(self, in_features: int, out_features: int, *, sigma_w: float, sigma_b: float,
                 generator: torch.Generator, dtype: torch.dtype = torch.float64):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.sigma_w, self.sigma_b = float(sigma_w), float(sigma_b)
        self.weight = nn.Parameter(torch.randn(out_features, in_features, generator=generator, dtype=dtype))
        if sigma_b > 0:
            self.bias = nn.Parameter(torch.randn(out_features, generator=generator, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    @property
    def weight_scale(self) -> float:
        """The forward multiplier sigma_w / sqrt(fan_in)."""
        return self.sigma_w / math.sqrt(self.in_features)

    def forward(self, h: torch.Tensor) -> torch.Tensor:     # (n, in) -> (n, out)
        z = nn.functional.linear(h, self.weight) * self.weight_scale
        if self.bias is not None:
            z = z + self.sigma_b * self.bias
        return z

    def extra_repr(self) -> str:
        return f"{self.in_features} -> {self.out_features}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g}"


@dataclass(frozen=True, repr=False)
class Dense(Layer):
    """A dense layer (see the module docstring); build it with :func:`dense`."""

    out: int | None
    sigma_w: float
    sigma_b: float

    def transform(self, k: Kernel) -> Kernel:
        if k.space:
            raise ValueError("dense() needs vector features (n, d); for images add flatten() or "
                             "global_avg_pool() before it, or use conv()")
        nngp = affine(k.nngp, self.sigma_w, self.sigma_b)
        var1, var2 = k.map_self(lambda var, _: affine(var, self.sigma_w, self.sigma_b))
        return k.replace(nngp=nngp, ntk=nngp + self.sigma_w ** 2 * k.ntk, var1=var1, var2=var2)

    def build(self, in_shape, context):
        if len(in_shape) != 1:
            raise ValueError(f"dense() needs vector features, got shape {in_shape}; add flatten() or "
                             "global_avg_pool() before it")
        out = context.width if self.out is None else self.out
        layer = NTKDense(in_shape[0], out, sigma_w=self.sigma_w, sigma_b=self.sigma_b,
                         generator=context.generator, dtype=context.dtype)
        return [layer], (out,)

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return True

    def wide_output(self, wide_input: bool) -> bool:
        return self.out is None

    def __repr__(self) -> str:
        out = "width" if self.out is None else self.out
        return f"dense({out}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g})"


def dense(out: int | None = None, *, sigma_w: float = 1.0, sigma_b: float = 0.0) -> Dense:
    """A dense layer; ``out=None`` means the hidden width chosen in ``network(width=...)``.

    Same as neural-tangents' ``stax.Dense(out, W_std=sigma_w, b_std=sigma_b, parameterization='ntk')``.
    """
    if out is not None:
        out = check_int("out", out, minimum=1)
    return Dense(out, check_nonnegative("sigma_w", sigma_w), check_nonnegative("sigma_b", sigma_b))


__all__ = ["Dense", "NTKDense", "dense", "affine"]
