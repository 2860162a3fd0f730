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
    steps = _steps(sequence[:readout], _conv_ok, "before the readout: only conv(...) layers")
    if isinstance(steps, str):
        return None, steps
    convs, activations = steps
    if not convs:
        return None, "no convolution before the readout"
    kh, kw = convs[0].kernel_size
    return Plan(kernel_size=(kh, kw), pads=((kh - 1) // 2, (kw - 1) // 2), **_arrays(convs, activations),
                layers=tuple(sequence[:readout]), rest=tuple(sequence[readout + 1:])), ""


def _vector_plan(sequence) -> tuple[VectorPlan | None, str]:
    steps = _steps(sequence, _dense_ok, "on vectors: only dense(..., parameterization='ntk') layers")
    if isinstance(steps, str):
        return None, steps
    dense, activations = steps
    return VectorPlan(**_arrays(dense, activations), linear=np.array([ab is None for ab in activations]),
                      layers=tuple(sequence)), ""


def _conv_ok(layer, first) -> str | None:
    if not isinstance(layer, Conv):
        return "not a weight layer"
    if layer.stride != (1, 1) or layer.dilation != (1, 1) or layer.padding != "same":
        return f"{layer!r}: only stride 1, dilation 1 and padding 'same'"
    if first is not None and layer.kernel_size != first.kernel_size:
        return "the convolutions have different kernel sizes"
    return None


def _dense_ok(layer, first) -> str | None:
    return None if isinstance(layer, Dense) and layer.parameterization == "ntk" else "not a weight layer"


def _steps(layers, weight_ok, what: str):
    """(weight layers, the (a, b) of the activation after each or None), or why the layers do not fit."""
    weights, activations = [], []
    for l in layers:
        problem = weight_ok(l, weights[0] if weights else None)
        if problem is None:
            weights.append(l)
            activations.append(None)
        elif isinstance(l, Activation) and l.piecewise_linear is not None and activations \
                and activations[-1] is None:
            activations[-1] = l.piecewise_linear
        elif problem == "not a weight layer":
            return f"{l!r} {what}, each followed by at most one of relu(), leaky_relu(), identity()"
        else:
            return problem
    return weights, activations


def _arrays(weights, activations) -> dict:
    """sigma_w^2 and sigma_b^2 of each weight layer, and the dual's constants of the activation after it
    (none: a = b = 1)."""
    a, b = (np.array(v, dtype=np.float64) for v in zip(*[(1.0, 1.0) if ab is None else ab for ab in activations]))
    return dict(sigma_w2=np.array([w.sigma_w ** 2 for w in weights]),
                sigma_b2=np.array([w.sigma_b ** 2 for w in weights]),
                jump=(a - b) ** 2 / (2 * math.pi), mean_slope_sq=(a * a + b * b) / 2)
