"""Finite torch networks in the NTK parameterization (what ``Layer.network`` builds)."""

from __future__ import annotations

import math

import torch
from torch import nn

from .activations import Activation


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


class Elementwise(nn.Module):
    """Applies an :class:`~ntk_helpers.activations.Activation` elementwise."""

    def __init__(self, activation: Activation):
        super().__init__()
        self.activation = activation

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.activation.fn(h)

    def extra_repr(self) -> str:
        return self.activation.name


class NTKSequential(nn.Sequential):
    """A network built by ``ntk_helpers``; ``empirical_ntk`` recognises it for its fast path."""
