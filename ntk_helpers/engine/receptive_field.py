"""Receptive fields of a stack of convolutions, from the layers' geometry alone (lesson 03, section 4.2.3).

Not a kernel rule: :func:`receptive_field` counts the weight paths (one filter tap or pooling-window entry per
layer) from each input pixel to each output unit, with the padding of :func:`.spatial.conv_padding`.
"""

from __future__ import annotations

import torch

from .spatial import conv_output_size, conv_padding

Tensor = torch.Tensor


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
    from .activation import Activation
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
