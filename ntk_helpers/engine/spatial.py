"""Kernel-tensor operations for images: what conv, pooling and readouts do to pixel-pair covariances.

Pair tensors have the spatial layout (..., H, W, H', W'): positions p = (h, w) of the first input
and p' = (h', w') of the second (Arora et al. 2019, eq. 7-9 and appendix; Novak et al. 2019, section 2 and
appendix; lesson 03, section 4.2.1).

- A convolution sums over filter offsets a *shared* by both positions (different offsets have
  independent weights): ``Sigma'_{p,p'} = (1/|S|) sum_a Sigma_{p+a, p'+a}``. It factorizes over the
  height pair (h, h') and the width pair (w, w'), so we apply a 1-D "diagonal convolution" to each.
- Average pooling is a fixed linear map A applied to each position separately: ``K -> A K A^T``.
- Flatten keeps the diagonal p = p' (mean over positions), global average pooling averages all pairs;
  both accumulate in float64.

(Receptive fields, which count weight paths from the geometry alone, are in :mod:`.receptive_field`.)
"""

from __future__ import annotations

import torch

Tensor = torch.Tensor

PADDINGS = ("same", "valid", "circular")


def conv_padding(size: int, kernel: int, dilation: int, padding: str) -> tuple[int, int]:
    """(left, right) padding along one axis.

    "same" and "circular" pad ``dilation*(kernel-1)`` in total, the left side getting the smaller
    half: for odd kernels that is symmetric, like torch's ``nn.Conv2d(padding=kernel//2)``. With
    stride 2 this differs from neural-tangents/XLA "SAME", which puts the extra padding on the right.
    "valid" pads nothing.
    """
    if padding == "valid":
        return 0, 0
    total = dilation * (kernel - 1)
    return total // 2, total - total // 2


def conv_output_size(size: int, kernel: int, stride: int, dilation: int, pads: tuple[int, int]) -> int:
    return (size + sum(pads) - dilation * (kernel - 1) - 1) // stride + 1


def _pad_pair(t: Tensor, pads: tuple[int, int], circular: bool) -> Tensor:
    """Pad the last two axes (a, a') of ``t`` by ``pads`` each (zeros, or wrapping around)."""
    left, right = pads
    if left == right == 0:
        return t
    size = t.shape[-1]
    if circular:
        index = torch.arange(-left, size + right, device=t.device) % size
        return t[..., index, :][..., index]
    return torch.nn.functional.pad(t, (left, right, left, right))


def _diagonal_conv_axes(t: Tensor, axes: tuple[int, int], kernel: int, stride: int, dilation: int,
                        pads: tuple[int, int], circular: bool, scale: float) -> Tensor:
    """``out[i, i'] = scale * sum_t t_pad[s i + d t, s i' + d t]`` over the axis pair ``axes``."""
    if stride == 1 and not circular and pads[0] + pads[1] == dilation * (kernel - 1):
        return _diagonal_conv_same(t, axes, kernel, dilation, pads[0], scale)
    t = t.movedim(axes, (-2, -1))
    t = _pad_pair(t, pads, circular)
    size = t.shape[-1]
    out_size = (size - dilation * (kernel - 1) - 1) // stride + 1
    span = stride * (out_size - 1) + 1
    out = sum(t[..., dilation * j: dilation * j + span: stride, dilation * j: dilation * j + span: stride]
              for j in range(kernel))
    return out.mul_(scale).movedim((-2, -1), axes)


def _diagonal_conv_same(t: Tensor, axes: tuple[int, int], kernel: int, dilation: int, left: int,
                        scale: float) -> Tensor:
    """Stride 1 with zero "same" padding, without padding copies: add shifted blocks in place.

    Offset o = d t - left moves both positions by o; entries shifted in from outside are zero.
    """
    a, b = axes
    size = t.shape[a]
    offsets = [dilation * j - left for j in range(kernel)]
    out = t * scale if 0 in offsets else torch.zeros_like(t)
    for o in offsets:
        n = size - abs(o)
        if o == 0 or n <= 0:
            continue
        src, dst = max(o, 0), max(-o, 0)
        out.narrow(a, dst, n).narrow(b, dst, n).add_(t.narrow(a, src, n).narrow(b, src, n), alpha=scale)
    return out


def conv_pairs(t: Tensor, kernel_size: tuple[int, int], stride: tuple[int, int], dilation: tuple[int, int],
               padding: str, scale: float = 1.0) -> Tensor:
    """``scale`` times the shared-offset average of a convolution, on a pair tensor (..., H, W, H', W').

    Returns a new tensor (callers may modify it in place)."""
    circular = padding == "circular"
    height, width = t.shape[-4], t.shape[-3]
    pads_h = conv_padding(height, kernel_size[0], dilation[0], padding)
    pads_w = conv_padding(width, kernel_size[1], dilation[1], padding)
    ndim = t.ndim
    t = _diagonal_conv_axes(t, (ndim - 4, ndim - 2), kernel_size[0], stride[0], dilation[0], pads_h, circular,
                            scale / (kernel_size[0] * kernel_size[1]))
    return _diagonal_conv_axes(t, (ndim - 3, ndim - 1), kernel_size[1], stride[1], dilation[1], pads_w, circular, 1.0)


def _conv_axis_same_position(t: Tensor, axis: int, kernel: int, stride: int, dilation: int,
                             pads: tuple[int, int], circular: bool, scale: float) -> Tensor:
    """``out[i] = scale * sum_t t_pad[s i + d t]`` along ``axis``: the diagonal i = i' of the pair rule."""
    if stride == 1 and not circular and pads[0] + pads[1] == dilation * (kernel - 1):
        # zero "same" padding: add shifted slices in place (no padded copy of a permuted view)
        size = t.shape[axis]
        out = t * scale if pads[0] % dilation == 0 and pads[0] // dilation < kernel else torch.zeros_like(t)
        for o in (dilation * j - pads[0] for j in range(kernel)):
            n = size - abs(o)
            if o != 0 and n > 0:
                src, dst = max(o, 0), max(-o, 0)
                out.narrow(axis, dst, n).add_(t.narrow(axis, src, n), alpha=scale)
        return out
    t = t.movedim(axis, -1)
    left, right = pads
    if circular and (left or right):
        t = t[..., torch.arange(-left, t.shape[-1] + right, device=t.device) % t.shape[-1]]
    elif left or right:
        t = torch.nn.functional.pad(t, (left, right))
    out_size = (t.shape[-1] - dilation * (kernel - 1) - 1) // stride + 1
    span = stride * (out_size - 1) + 1
    out = t[..., 0: span: stride] * scale
    for j in range(1, kernel):
        out.add_(t[..., dilation * j: dilation * j + span: stride], alpha=scale)
    return out.movedim(-1, axis)


def conv_same_position(t: Tensor, kernel_size: tuple[int, int], stride: tuple[int, int],
                       dilation: tuple[int, int], padding: str, scale: float = 1.0) -> Tensor:
    """:func:`conv_pairs` on the same-position pairs only, (..., H, W) -> (..., H_out, W_out).

    The entry p = p' of a convolved pair tensor sums the input's entries (p + a, p' + a) with p = p':
    same-position pairs again, for every stride, dilation and padding (zeros pad zeros; circular
    padding wraps both positions alike). Returns a new tensor."""
    circular = padding == "circular"
    height, width = t.shape[-2], t.shape[-1]
    pads_h = conv_padding(height, kernel_size[0], dilation[0], padding)
    pads_w = conv_padding(width, kernel_size[1], dilation[1], padding)
    t = _conv_axis_same_position(t, t.ndim - 2, kernel_size[0], stride[0], dilation[0], pads_h, circular,
                                 scale / (kernel_size[0] * kernel_size[1]))
    return _conv_axis_same_position(t, t.ndim - 1, kernel_size[1], stride[1], dilation[1], pads_w, circular, 1.0)


def _pool_axis(t: Tensor, axis: int, window: int, stride: int) -> Tensor:
    t = t.movedim(axis, -1)
    out_size = (t.shape[-1] - window) // stride + 1
    span = stride * (out_size - 1) + 1
    out = sum(t[..., j: j + span: stride] for j in range(window)) / window
    return out.movedim(-1, axis)


def avg_pool_pairs(t: Tensor, window: tuple[int, int], stride: tuple[int, int]) -> Tensor:
    """``K -> A K A^T``: average pooling (no padding) applied to both positions of a pair tensor."""
    ndim = t.ndim
    for axis, (w, s) in zip(range(ndim - 4, ndim), [(window[0], stride[0]), (window[1], stride[1])] * 2):
        t = _pool_axis(t, axis, w, s)
    return t


def flatten_pairs(t: Tensor) -> Tensor:
    """Mean over the diagonal p = p' of a pair tensor: (..., H, W, H, W) -> (...)."""
    diagonal = torch.diagonal(torch.diagonal(t, dim1=-4, dim2=-2), dim1=-3, dim2=-2)   # (..., H, W)
    return diagonal.mean((-2, -1), dtype=torch.float64)


def global_average_pairs(t: Tensor) -> Tensor:
    """Mean over all position pairs: (..., H, W, H, W) -> (...), accumulated in float64 (also for float32
    pair tensors: ``kernel(pair_dtype=torch.float32)``)."""
    return t.mean((-4, -3, -2, -1), dtype=torch.float64)


def need_all_pairs(k, name: str) -> None:
    """Raise for a kernel that keeps only the pairs p = p' (layers that mix positions need them all)."""
    if k.same_position:
        raise ValueError(f"{name}() mixes positions and needs every pixel pair (p, p'); this kernel keeps only "
                         "the pairs p = p' (same_position=True), which only flatten() can read out")


def same_position_pairs_only(k):
    """A copy of an image kernel with every pixel pair p != p' set to zero (lesson 03: flatten
    readouts never look at them, so the kernel after flatten does not change)."""
    height, width = k.space
    mask = torch.eye(height * width, dtype=k.nngp.dtype, device=k.nngp.device).reshape(height, width, height, width)
    return k.replace(nngp=k.nngp * mask, ntk=k.ntk * mask, var1=k.var1 * mask, var2=k.var2 * mask,
                     ntk_is_zero=k.ntk_is_zero)
