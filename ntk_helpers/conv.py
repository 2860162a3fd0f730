"""Convolutional layers and readouts for images (n, C, H, W): chapter 4.2, lesson 03.

Kernel rules (Arora et al. 2019; Novak et al. 2019), on pixel-pair tensors:

    conv:      Sigma'_{p,p'} = sigma_w^2 / |S| sum_a Sigma_{p+a, p'+a} + sigma_b^2
               Theta'_{p,p'} = Sigma'_{p,p'} + sigma_w^2 / |S| sum_a Theta_{p+a, p'+a}
    flatten:   keep the diagonal p = p' and average it (the dense readout after it sees C*P features)
    global_avg_pool:  average over all pairs (p, p')
    avg_pool:  K -> A K A^T on each position

The sum over the offsets a in S is shared by both positions because different offsets have
independent weights; that is where weight sharing enters the kernel. Padding is zero ("same",
"valid") or wrap-around ("circular"); the network pads exactly as the kernel does (see
:func:`ntk_helpers.spatial.conv_padding`).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from . import spatial
from ._checks import check_choice, check_int, check_nonnegative, check_pair_of_ints
from .kernel import Kernel
from .layers import Layer
from .modules import GlobalAvgPool, NTKConv2d


def _need_images(k: Kernel, name: str) -> None:
    if not k.space:
        raise ValueError(f"{name}() needs images (n, C, H, W); got vector inputs")


def _image_shape(in_shape, name: str) -> tuple[int, int, int]:
    if len(in_shape) != 3:
        raise ValueError(f"{name}() needs image inputs of shape (C, H, W), got {in_shape}")
    return in_shape


@dataclass(frozen=True, repr=False)
class Conv(Layer):
    out: int | None
    kernel_size: tuple[int, int]
    stride: tuple[int, int]
    padding: str
    dilation: tuple[int, int]
    sigma_w: float
    sigma_b: float
    produces_preactivations = True

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
        _need_images(k, "conv")
        self._geometry(*k.space)
        w2, b2 = self.sigma_w ** 2, self.sigma_b ** 2
        op = lambda t: spatial.conv_pairs(t, self.kernel_size, self.stride, self.dilation, self.padding, scale=w2)
        bias = (lambda t: t.add_(b2)) if b2 else (lambda t: t)
        nngp = bias(op(k.nngp))                                           # sigma_w^2/|S| sum_a Sigma + sigma_b^2
        var1 = bias(op(k.var1))
        var2 = var1 if k.is_gram else bias(op(k.var2))
        ntk = nngp.clone() if k.ntk_is_zero else op(k.ntk).add_(nngp)     # Sigma' + sigma_w^2/|S| sum_a Theta
        return k.replace(nngp=nngp, ntk=ntk, var1=var1, var2=var2)

    def build(self, in_shape, width, generator, dtype):
        channels, height, width_px = _image_shape(in_shape, "conv")
        pads, (out_h, out_w) = self._geometry(height, width_px)
        out = width if self.out is None else self.out
        layer = NTKConv2d(channels, out, self.kernel_size, stride=self.stride, dilation=self.dilation, pads=pads,
                          circular=self.padding == "circular", sigma_w=self.sigma_w, sigma_b=self.sigma_b,
                          generator=generator, dtype=dtype)
        return [layer], (out, out_h, out_w)

    def __repr__(self) -> str:
        out = "width" if self.out is None else self.out
        return (f"conv({out}, kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding!r}, "
                f"dilation={self.dilation}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g})")


@dataclass(frozen=True, repr=False)
class Flatten(Layer):
    def transform(self, k: Kernel) -> Kernel:
        _need_images(k, "flatten")
        var1 = spatial.flatten_pairs(k.var1)
        return k.replace(nngp=spatial.flatten_pairs(k.nngp), ntk=spatial.flatten_pairs(k.ntk), var1=var1,
                         var2=var1 if k.is_gram else spatial.flatten_pairs(k.var2))

    def build(self, in_shape, width, generator, dtype):
        channels, height, width_px = _image_shape(in_shape, "flatten")
        return [nn.Flatten()], (channels * height * width_px,)

    def __repr__(self) -> str:
        return "flatten()"


@dataclass(frozen=True, repr=False)
class GlobalAvgPoolLayer(Layer):
    def transform(self, k: Kernel) -> Kernel:
        _need_images(k, "global_avg_pool")
        var1 = spatial.global_average_pairs(k.var1)
        return k.replace(nngp=spatial.global_average_pairs(k.nngp), ntk=spatial.global_average_pairs(k.ntk),
                         var1=var1, var2=var1 if k.is_gram else spatial.global_average_pairs(k.var2))

    def build(self, in_shape, width, generator, dtype):
        channels, _, _ = _image_shape(in_shape, "global_avg_pool")
        return [GlobalAvgPool()], (channels,)

    def __repr__(self) -> str:
        return "global_avg_pool()"


@dataclass(frozen=True, repr=False)
class AvgPool(Layer):
    window: tuple[int, int]
    stride: tuple[int, int]

    def _out(self, height, width):
        out = [(size - w) // s + 1 for size, w, s in zip((height, width), self.window, self.stride)]
        if min(out) < 1:
            raise ValueError(f"avg_pool(): window {self.window} is larger than the image {(height, width)}")
        return tuple(out)

    def transform(self, k: Kernel) -> Kernel:
        _need_images(k, "avg_pool")
        self._out(*k.space)
        op = lambda t: spatial.avg_pool_pairs(t, self.window, self.stride)
        var1 = op(k.var1)
        return k.replace(nngp=op(k.nngp), ntk=op(k.ntk), var1=var1, var2=var1 if k.is_gram else op(k.var2))

    def build(self, in_shape, width, generator, dtype):
        channels, height, width_px = _image_shape(in_shape, "avg_pool")
        return [nn.AvgPool2d(self.window, self.stride)], (channels, *self._out(height, width_px))

    def __repr__(self) -> str:
        return f"avg_pool({self.window}, stride={self.stride})"


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
    stride = window if stride is None else check_pair_of_ints("stride", stride, minimum=1)
    return AvgPool(window, stride)
