"""The convolution on images (n, C, H, W): chapter 4.2, lesson 03.

Kernel rule (Arora et al. 2019; Novak et al. 2019), on pixel-pair tensors:

    Sigma'_{p,p'} = sigma_w^2 / |S| sum_a Sigma_{p+a, p'+a} + sigma_b^2
    Theta'_{p,p'} = Sigma'_{p,p'} + sigma_w^2 / |S| sum_a Theta_{p+a, p'+a}

The sum over the offsets a in S is shared by both positions because different offsets have
independent weights; that is where weight sharing enters the kernel. Padding is zero ("same",
"valid") or wrap-around ("circular"); the network pads exactly as the kernel does (see
:func:`ntk_helpers.spatial.conv_padding`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from . import rules, spatial
from .._checks import check_choice, check_int, check_nonnegative, check_pair_of_ints
from .kernel import Kernel
from .layer import WeightLayer


def need_images(k: Kernel, name: str) -> None:
    if not k.space:
        raise ValueError(f"{name}() needs images (n, C, H, W); got vector inputs")


def image_shape(in_shape, name: str) -> tuple[int, int, int]:
    if len(in_shape) != 3:
        raise ValueError(f"{name}() needs image inputs of shape (C, H, W), got {in_shape}")
    return in_shape


class NTKConv2d(nn.Module):
    """2-D convolution in the NTK parameterization, as neural-tangents' ``stax.Conv(..., W_std, b_std,
    parameterization='ntk')``::

        z = sigma_w / sqrt(C_in * kh * kw) * conv(pad(h), W) + sigma_b * b,    W, b ~ N(0, 1)

    ``pads`` = ((top, bottom), (left, right)) and ``circular`` are applied explicitly, so the analytic
    kernel (:func:`~ntk_helpers.spatial.conv_padding`) sees exactly the same padding; circular padding may
    be wider than the image (it wraps around as often as needed).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple[int, int], *, stride, dilation,
                 pads, circular: bool, sigma_w: float, sigma_b: float, generator: torch.Generator,
                 dtype: torch.dtype = torch.float64):
        super().__init__()
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.dilation, self.pads, self.circular = stride, dilation, pads, circular
        self.sigma_w, self.sigma_b = float(sigma_w), float(sigma_b)
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, *kernel_size, generator=generator,
                                               dtype=dtype))
        if sigma_b > 0:
            self.bias = nn.Parameter(torch.randn(out_channels, generator=generator, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, h: torch.Tensor) -> torch.Tensor:     # (n, C_in, H, W) -> (n, C_out, H', W')
        (top, bottom), (left, right) = self.pads
        if self.circular:
            rows = torch.arange(-top, h.shape[-2] + bottom, device=h.device) % h.shape[-2]
            cols = torch.arange(-left, h.shape[-1] + right, device=h.device) % h.shape[-1]
            h = h[..., rows, :][..., cols]
        elif top or bottom or left or right:
            h = nn.functional.pad(h, (left, right, top, bottom))
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


@dataclass(frozen=True, repr=False)
class Conv(WeightLayer):
    out: int | None
    kernel_size: tuple[int, int]
    stride: tuple[int, int]
    padding: str
    dilation: tuple[int, int]
    sigma_w: float
    sigma_b: float

    def _geometry(self, height: int, width: int):
        pads = [spatial.conv_padding(size, k, d, self.padding)
                for size, k, d in zip((height, width), self.kernel_size, self.dilation)]
        out = [spatial.conv_output_size(size, k, s, d, p) for size, k, s, d, p in
               zip((height, width), self.kernel_size, self.stride, self.dilation, pads)]
        if min(out) < 1:
            span = [d * (k - 1) + 1 for k, d in zip(self.kernel_size, self.dilation)]
            raise ValueError(f"conv(): the filter spans {tuple(span)} pixels, larger than the {self.padding!r}-padded "
                             f"image {(height, width)}; use a smaller kernel_size or dilation, or padding='same'")
        return pads, tuple(out)

    def transform(self, k: Kernel) -> Kernel:
        need_images(k, "conv")
        self._geometry(*k.space)
        w2, b2 = self.sigma_w ** 2, self.sigma_b ** 2
        rule = spatial.conv_same_position if k.same_position else spatial.conv_pairs
        op = lambda t: rule(t, self.kernel_size, self.stride, self.dilation, self.padding, scale=w2)
        bias = (lambda t: t.add_(b2)) if b2 else (lambda t: t)
        nngp = bias(op(k.nngp))                                           # sigma_w^2/|S| sum_a Sigma + sigma_b^2
        var1, var2 = k.map_self(lambda var, _: bias(op(var)))
        ntk = nngp.clone() if k.ntk_is_zero else op(k.ntk).add_(nngp)     # Sigma' + sigma_w^2/|S| sum_a Theta
        return k.replace(nngp=nngp, ntk=ntk, var1=var1, var2=var2)

    def build(self, in_shape, context):
        channels, height, width_px = image_shape(in_shape, "conv")
        pads, (out_h, out_w) = self._geometry(height, width_px)
        out = context.width if self.out is None else self.out
        layer = NTKConv2d(channels, out, self.kernel_size, stride=self.stride, dilation=self.dilation, pads=pads,
                          circular=self.padding == "circular", sigma_w=self.sigma_w, sigma_b=self.sigma_b,
                          generator=context.generator, dtype=context.dtype)
        return [layer], (out, out_h, out_w)

    keeps_same_position_pairs = True

    def pair_rule(self) -> rules.Affine:
        return rules.Affine(self.sigma_w ** 2, self.sigma_b ** 2, self.kernel_size, self.stride, self.dilation,
                            self.padding)

    def output_space(self, space):
        return self._geometry(*space)[1] if space else space

    def __repr__(self) -> str:
        out = "width" if self.out is None else self.out
        return (f"conv({out}, kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding!r}, "
                f"dilation={self.dilation}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g})")


def conv(out: int | None = None, kernel_size=3, *, stride=1, padding: str = "same", dilation=1,
         sigma_w: float = 1.0, sigma_b: float = 0.0) -> Conv:
    """A 2-D convolution on images (n, C, H, W); ``out=None`` means ``width`` channels.

    Like neural-tangents' ``stax.Conv(out, (k, k), strides, padding, W_std=sigma_w, b_std=sigma_b,
    parameterization='ntk')`` with dilation (``rhs_dilation``). ``kernel_size``, ``stride`` and
    ``dilation`` are ints or (height, width) pairs. ``padding``: "same" (zeros, output size
    ceil(H / stride)), "valid" (none) or "circular" (wrap around: exact shift equivariance).
    "same" pads symmetrically like torch, not on the right like XLA for stride 2.
    """
    if out is not None:
        out = check_int("out", out, minimum=1)
    return Conv(out, check_pair_of_ints("kernel_size", kernel_size, minimum=1),
                check_pair_of_ints("stride", stride, minimum=1), check_choice("padding", padding, spatial.PADDINGS),
                check_pair_of_ints("dilation", dilation, minimum=1),
                check_nonnegative("sigma_w", sigma_w), check_nonnegative("sigma_b", sigma_b))
