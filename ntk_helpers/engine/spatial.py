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

:func:`receptive_field` is not a kernel rule: it counts, from the layers' geometry alone, the weight
paths from each input pixel to each output unit (lesson 03, section 4.2.3).
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


def _axis_paths(size: int, kernel: int, stride: int, dilation: int, pads: tuple[int, int],
                circular: bool) -> Tensor:
    """(out, size) matrix: entry [i, j] = number of filter taps t with s*i + d*t - left = j (wrapped
    around for circular padding; taps that land in zero padding connect to nothing)."""
    out = conv_output_size(size, kernel, stride, dilation, pads)
    paths = torch.zeros(out, size, dtype=torch.float64)
    for i in range(out):
        for t in range(kernel):
            j = stride * i + dilation * t - pads[0]
            if circular:
                paths[i, j % size] += 1
            elif 0 <= j < size:
                paths[i, j] += 1
    return paths


def _pool_paths(size: int, window: int, stride: int) -> Tensor:
    out = (size - window) // stride + 1
    paths = torch.zeros(out, size, dtype=torch.float64)
    for i in range(out):
        paths[i, stride * i: stride * i + window] = 1
    return paths


def receptive_field(layers, image_size) -> Tensor:
    """Receptive fields of a stack of convolutions: which input pixels can influence each output unit.

    Args:
        layers: a layer or ``serial(...)`` made of ``conv``, ``avg_pool``, ``max_pool`` and elementwise
            activations (the layers that keep an image an image; readouts mix every position).
        image_size: the input's ``(H, W)`` (or one int for a square image).

    Returns:
        float64 tensor ``counts`` of shape ``(H_out, W_out, H, W)``: ``counts[p, q]`` is the number of
        weight paths (one filter tap or pooling-window entry per layer) from input pixel ``q`` to the
        output position ``p``. It depends only on kernel sizes, strides, dilations and padding, not on
        weights or inputs. ``counts[p] > 0`` is the receptive field of the units at ``p``: outside it,
        ``d z_p / d x_q`` is exactly zero for every weight, input and activation; inside, it is nonzero
        unless every path is blocked (closed ReLU gates on all channels, or a max pool that selects
        another entry), which a network with a few channels almost never does.

        For convolutions with ReLU between them, ``sigma_w**2 = 2``, no bias and ``C_0`` input channels,
        the mean over random weights of ``(d z_p / d x_q)**2`` is ``2 * counts[p, q] / (C_0 |S_1| ... |S_L|)``
        at any width (``|S_l|`` = taps of layer l's filter): the "effective receptive field" (Luo et al.
        2016). Given the layers below, a pre-activation and its input derivative are a symmetric Gaussian
        pair, so each ReLU keeps half of the squared derivative and each layer multiplies it by
        ``sigma_w**2 / 2 = 1``.

    Height and width are independent (a 2-D filter is a product of its row and column offsets), so
    ``counts`` is the outer product of a path-count matrix per axis.
    """
    from .activations import Activation
    from .combinators import Serial
    from .conv import Conv
    from .pooling import AvgPool, MaxPool

    height, width = (image_size, image_size) if isinstance(image_size, int) else tuple(image_size)
    if not all(isinstance(v, int) and v >= 1 for v in (height, width)):
        raise ValueError(f"image_size must be an int or a pair (H, W) of positive ints, got {image_size!r}")

    def flat(layer):
        return [leaf for sub in layer.layers for leaf in flat(sub)] if isinstance(layer, Serial) else [layer]

    rows = torch.eye(height, dtype=torch.float64)
    cols = torch.eye(width, dtype=torch.float64)
    for layer in flat(layers):
        h, w = rows.shape[0], cols.shape[0]
        if isinstance(layer, Conv):
            circular = layer.padding == "circular"
            steps = []
            for size, k, s, d in zip((h, w), layer.kernel_size, layer.stride, layer.dilation):
                pads = conv_padding(size, k, d, layer.padding)
                if conv_output_size(size, k, s, d, pads) < 1:
                    raise ValueError(f"receptive_field(): {layer!r} does not fit the {h} x {w} image it gets")
                steps.append(_axis_paths(size, k, s, d, pads, circular))
        elif isinstance(layer, (AvgPool, MaxPool)):
            if any(size < win for size, win in zip((h, w), layer.window)):
                raise ValueError(f"receptive_field(): {layer!r} does not fit the {h} x {w} image it gets")
            steps = [_pool_paths(size, win, s) for size, win, s in zip((h, w), layer.window, layer.stride)]
        elif isinstance(layer, Activation):
            continue
        else:
            raise ValueError(f"receptive_field() takes conv, avg_pool, max_pool and activations; got "
                             f"{layer!r}, which mixes positions (readouts) or is not a spatial layer")
        rows, cols = steps[0] @ rows, steps[1] @ cols
    return torch.einsum("ia,jb->ijab", rows, cols)
