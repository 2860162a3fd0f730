"""Readouts and pools for images (n, C, H, W): chapter 4.2, lesson 03.

Kernel rules on pixel-pair tensors (Arora et al. 2019; Novak et al. 2019), each one linear map
(:meth:`~ntk_helpers.Kernel.map`):

    flatten:          keep the diagonal p = p' and average it (the dense readout after it sees C*P features)
    global_avg_pool:  average over all pairs (p, p')
    avg_pool:         K -> A K A^T on each position

Max pooling has no closed form (a Gaussian expectation over the whole window; Novak et al. 2019): its
network exists and ``nh.monte_carlo_kernel`` estimates its kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from . import rules, spatial
from .._checks import check_pair_of_ints
from .conv import image_shape, need_images
from .kernel import Kernel, NoClosedForm
from .layer import Layer


class GlobalAvgPool(nn.Module):
    """Mean over all pixel positions: (n, C, H, W) -> (n, C)."""

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h.mean((-2, -1))


@dataclass(frozen=True, repr=False)
class Flatten(Layer):
    reads_same_position_pairs = True

    def output_space(self, space):
        return ()

    def transform(self, k: Kernel) -> Kernel:
        need_images(k, "flatten")
        if k.same_position:
            return k.map(lambda t: t.mean((-2, -1), dtype=torch.float64)).replace(same_position=False)
        return k.map(spatial.flatten_pairs)

    def pair_rule(self) -> rules.Readout:
        return rules.Readout("flatten")

    def build(self, in_shape, context):
        channels, height, width_px = image_shape(in_shape, "flatten")
        return [nn.Flatten()], (channels * height * width_px,)

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return gaussian_input

    def __repr__(self) -> str:
        return "flatten()"


@dataclass(frozen=True, repr=False)
class GlobalAvgPoolLayer(Layer):
    def output_space(self, space):
        return ()

    def transform(self, k: Kernel) -> Kernel:
        need_images(k, "global_avg_pool")
        spatial.need_all_pairs(k, "global_avg_pool")
        return k.map(spatial.global_average_pairs)

    def pair_rule(self) -> rules.Readout:
        return rules.Readout("global_avg_pool")

    def build(self, in_shape, context):
        channels, _, _ = image_shape(in_shape, "global_avg_pool")
        return [GlobalAvgPool()], (channels,)

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return gaussian_input

    def __repr__(self) -> str:
        return "global_avg_pool()"


def _pooled_size(name, window, stride, height, width) -> tuple[int, int]:
    out = [(size - w) // s + 1 for size, w, s in zip((height, width), window, stride)]
    if min(out) < 1:
        raise ValueError(f"{name}(): window {window} is larger than the image {(height, width)}")
    return tuple(out)


@dataclass(frozen=True, repr=False)
class AvgPool(Layer):
    window: tuple[int, int]
    stride: tuple[int, int]

    def output_space(self, space):
        return _pooled_size("avg_pool", self.window, self.stride, *space) if space else space

    def transform(self, k: Kernel) -> Kernel:
        need_images(k, "avg_pool")
        spatial.need_all_pairs(k, "avg_pool")
        _pooled_size("avg_pool", self.window, self.stride, *k.space)
        return k.map(lambda t: spatial.avg_pool_pairs(t, self.window, self.stride))

    def pair_rule(self) -> rules.Pool:
        return rules.Pool(self.window, self.stride)

    def build(self, in_shape, context):
        channels, height, width_px = image_shape(in_shape, "avg_pool")
        out = _pooled_size("avg_pool", self.window, self.stride, height, width_px)
        return [nn.AvgPool2d(self.window, self.stride)], (channels, *out)

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return gaussian_input

    def __repr__(self) -> str:
        return f"avg_pool({self.window}, stride={self.stride})"


@dataclass(frozen=True, repr=False)
class MaxPool(Layer):
    window: tuple[int, int]
    stride: tuple[int, int]

    def transform(self, k: Kernel) -> Kernel:
        raise NoClosedForm("max_pool() has no closed-form kernel (a Gaussian expectation over the whole window); "
                           "estimate it with nh.monte_carlo_kernel(...), or use avg_pool()")

    def build(self, in_shape, context):
        channels, height, width_px = image_shape(in_shape, "max_pool")
        out = _pooled_size("max_pool", self.window, self.stride, height, width_px)
        return [nn.MaxPool2d(self.window, self.stride)], (channels, *out)

    def __repr__(self) -> str:
        return f"max_pool({self.window}, stride={self.stride})"


def flatten() -> Flatten:
    """Image features (C, H, W) -> one vector of C*H*W; a following dense layer sees every pixel
    with its own weights, so the kernel keeps only same-position pairs (the locally connected
    network's kernel: Novak et al. 2019)."""
    return Flatten()


def global_avg_pool() -> GlobalAvgPoolLayer:
    """Average over all positions: (C, H, W) -> (C,). Gives exact shift invariance with circular padding."""
    return GlobalAvgPoolLayer()


def avg_pool(window, stride=None) -> AvgPool:
    """Average pooling over ``window`` pixels (int or pair), ``stride`` defaults to ``window``; no padding."""
    window = check_pair_of_ints("window", window, minimum=1)
    return AvgPool(window, window if stride is None else check_pair_of_ints("stride", stride, minimum=1))


def max_pool(window, stride=None) -> MaxPool:
    """Max pooling (no padding); kernels only by :func:`~ntk_helpers.monte_carlo_kernel`."""
    window = check_pair_of_ints("window", window, minimum=1)
    return MaxPool(window, window if stride is None else check_pair_of_ints("stride", stride, minimum=1))


__all__ = ["Flatten", "GlobalAvgPoolLayer", "AvgPool", "MaxPool", "flatten", "global_avg_pool", "avg_pool",
           "max_pool"]
