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


class NTKConv2d(nn.Module):
    """2-D convolution in the NTK parameterization, as neural-tangents' ``stax.Conv(..., W_std, b_std,
    parameterization='ntk')``::

        z = sigma_w / sqrt(C_in * kh * kw) * conv(pad(h), W) + sigma_b * b,    W, b ~ N(0, 1)

    ``pads`` = ((top, bottom), (left, right)) and ``circular`` are applied explicitly with ``F.pad``,
    so the analytic kernel (``ntk_helpers.spatial.conv_padding``) sees exactly the same padding.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple[int, int], *, stride, dilation,
                 pads, circular: bool, sigma_w: float, sigma_b: float, generator: torch.Generator,
                 dtype: torch.dtype = torch.float64):
        super().__init__()
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.dilation, self.pads, self.circular = stride, dilation, pads, circular
        self.sigma_w, self.sigma_b = float(sigma_w), float(sigma_b)
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, *kernel_size, generator=generator, dtype=dtype))
        if sigma_b > 0:
            self.bias = nn.Parameter(torch.randn(out_channels, generator=generator, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, h: torch.Tensor) -> torch.Tensor:     # (n, C_in, H, W) -> (n, C_out, H', W')
        (top, bottom), (left, right) = self.pads
        if top or bottom or left or right:
            h = nn.functional.pad(h, (left, right, top, bottom), mode="circular" if self.circular else "constant")
        fan_in = self.in_channels * self.kernel_size[0] * self.kernel_size[1]
        z = nn.functional.conv2d(h, self.weight, stride=self.stride, dilation=self.dilation)
        z = z * (self.sigma_w / math.sqrt(fan_in))
        if self.bias is not None:
            z = z + self.sigma_b * self.bias[:, None, None]
        return z

    def extra_repr(self) -> str:
        return (f"{self.in_channels} -> {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"dilation={self.dilation}, pads={self.pads}, circular={self.circular}, "
                f"sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g}")


class GlobalAvgPool(nn.Module):
    """Mean over all pixel positions: (n, C, H, W) -> (n, C)."""

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h.mean((-2, -1))


class ResidualBlock(nn.Module):
    """``x + alpha * branch(x)``."""

    def __init__(self, branch: nn.Module, alpha: float):
        super().__init__()
        self.branch, self.alpha = branch, float(alpha)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.alpha * self.branch(h)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha:g}"


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


class MaxPool(nn.Module):
    """Max pooling over ``window`` with ``stride`` (no padding)."""

    def __init__(self, window, stride):
        super().__init__()
        self.window, self.stride = window, stride

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return nn.functional.max_pool2d(h, self.window, self.stride)
