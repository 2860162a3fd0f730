"""What the compiled paths cover: a :class:`Plan` (pooled CNN) or :class:`VectorPlan` (MLP) from an
architecture and its inputs, or the reason why not."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ..activation import Activation
from ..conv import Conv
from ..dense import Dense
from ..pooling import GlobalAvgPoolLayer
from ._numba import numba

@dataclass(frozen=True)
class Plan:
    """The layers before the readout as arrays for the compiled function, and what follows the readout.

    ``sigma_w2``, ``sigma_b2``: (L,) per convolution; ``jump``, ``mean_slope_sq``: (L,) the dual of the
    activation after it, phi = a min(x, 0) + b max(x, 0): E = jump * r + Edot * Sigma with
    Edot = mean_slope_sq - jump * angle, jump = (a - b)^2 / (2 pi), mean_slope_sq = (a^2 + b^2) / 2
    (a = b = 1, no activation: E = Sigma, Edot = 1)."""

    kernel_size: tuple[int, int]
    pads: tuple[int, int]                # (top, left) zero padding of every convolution
    sigma_w2: np.ndarray
    sigma_b2: np.ndarray
    jump: np.ndarray
    mean_slope_sq: np.ndarray
    layers: tuple                        # the layers before the readout (for error messages)
    rest: tuple                          # the layers after global_avg_pool()


@dataclass(frozen=True)
class VectorPlan:
    """Dense layers (NTK parameterization) and the piecewise-linear activations after them, as arrays (like
    :class:`Plan`; ``linear``: no activation after that dense layer)."""

    sigma_w2: np.ndarray
    sigma_b2: np.ndarray
    jump: np.ndarray
    mean_slope_sq: np.ndarray
    linear: np.ndarray
    layers: tuple


def plan(layer, x1: torch.Tensor, x2: torch.Tensor | None) -> tuple[Plan | VectorPlan | None, str]:
    """A :class:`Plan` when the compiled path computes ``layer.kernel(x1, x2)``, else ``(None, why not)``."""
    if numba is None:
        return None, "numba is not installed"
    if x1.device.type != "cpu" or (x2 is not None and x2.device.type != "cpu"):
        return None, "the inputs are not on the CPU"
    if x1.dtype != torch.float64:
        return None, "pair_dtype is not float64"
    sequence = layer.sequence()
    if x1.ndim == 2:
        return _vector_plan(sequence)
    readout = next((i for i, l in enumerate(sequence) if isinstance(l, GlobalAvgPoolLayer)), None)
    if readout is None:
        return None, "the architecture has no global_avg_pool() readout at its top level"
    convs, activations = [], []                     # activations[k]: (a, b) of the one after convs[k]
    for l in sequence[:readout]:
        if isinstance(l, Conv):
            if l.stride != (1, 1) or l.dilation != (1, 1) or l.padding != "same":
                return None, f"{l!r}: only stride 1, dilation 1 and padding 'same'"
            if convs and l.kernel_size != convs[0].kernel_size:
                return None, "the convolutions have different kernel sizes"
            convs.append(l)
            activations.append(None)
        elif isinstance(l, Activation) and l.piecewise_linear is not None and activations \
                and activations[-1] is None:
            activations[-1] = l.piecewise_linear
        else:
            return None, (f"{l!r} before the readout: only conv(...) layers, each followed by at most one of "
                          "relu(), leaky_relu(), identity()")
    if not convs:
        return None, "no convolution before the readout"
    kh, kw = convs[0].kernel_size
    a, b = (np.array(v, dtype=np.float64) for v in zip(*[(1.0, 1.0) if ab is None else ab for ab in activations]))
    return Plan(kernel_size=(kh, kw), pads=((kh - 1) // 2, (kw - 1) // 2),
                sigma_w2=np.array([c.sigma_w ** 2 for c in convs]), sigma_b2=np.array([c.sigma_b ** 2 for c in convs]),
                jump=(a - b) ** 2 / (2 * math.pi), mean_slope_sq=(a * a + b * b) / 2,
                layers=tuple(sequence[:readout]), rest=tuple(sequence[readout + 1:])), ""


def _vector_plan(sequence) -> tuple[VectorPlan | None, str]:
    dense, activations = [], []
    for l in sequence:
        if isinstance(l, Dense) and l.parameterization == "ntk":
            dense.append(l)
            activations.append(None)
        elif isinstance(l, Activation) and l.piecewise_linear is not None and activations \
                and activations[-1] is None:
            activations[-1] = l.piecewise_linear
        else:
            return None, (f"{l!r}: on vectors only dense(..., parameterization='ntk') layers, each followed by at "
                          "most one of relu(), leaky_relu(), identity()")
    a, b = (np.array(v, dtype=np.float64) for v in zip(*[(1.0, 1.0) if ab is None else ab for ab in activations]))
    return VectorPlan(sigma_w2=np.array([d.sigma_w ** 2 for d in dense]),
                      sigma_b2=np.array([d.sigma_b ** 2 for d in dense]),
                      jump=(a - b) ** 2 / (2 * math.pi), mean_slope_sq=(a * a + b * b) / 2,
                      linear=np.array([ab is None for ab in activations]), layers=tuple(sequence)), ""
