"""NTK, standard and muP parameterizations of one MLP: chapter 4.4.2, lesson 05.

All three are written in the "every trainable weight ~ N(0, 1)" form of Yang et al. 2022 (Tensor
Programs V, Table 3): layer l computes ``mult_l * h @ w_l.T`` and is trained by SGD with learning
rate ``lr * lr_mult_l``. With input dimension d and width m:

    ===========  =====================  ====================  ======================
                 input layer (m x d)    hidden (m x m)        output (1 x m)
    ===========  =====================  ====================  ======================
    ntk          mult 1/sqrt(d), lr 1   mult 1/sqrt(m), lr 1  mult 1/sqrt(m), lr 1
    standard     mult 1/sqrt(d), lr d   mult 1/sqrt(m), lr m  mult 1/sqrt(m), lr m
    mup          mult 1/sqrt(d), lr md  mult 1/sqrt(m), lr m  mult 1/m,       lr m
    ===========  =====================  ====================  ======================

The effective weight ``W_l = mult_l * w_l`` has variance ``mult_l**2`` and effective learning rate
``mult_l**2 * lr_mult_l``; only their powers of m matter for the width limit (derived in lesson 05,
section 4.4.2, after Yang & Hu 2021, Tensor Programs IV), the constants are this package's choice.
("standard" is PyTorch's usual set-up, weights ~ N(0, 1/fan_in) trained with one learning rate,
rewritten in this form.) The NTK parameterization has a kernel limit (lazy training); muP moves
every layer's features by O(1) (feature learning); the standard one at a fixed learning rate blows
up as m grows (with a learning rate proportional to 1/m it has a kernel limit). Multiply every
multiplier by ``sigma_w`` for other weight scales.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .._checks import DTYPE, check_choice, check_int, check_nonnegative
from ..engine.activations import as_activation

PARAMETERIZATIONS = ("ntk", "standard", "mup")


class ParameterizedMLP(nn.Module):
    """``depth`` hidden layers of ``width`` units (no biases), scalar output, in one of
    :data:`PARAMETERIZATIONS`. ``lr_multipliers[name]`` gives each weight's learning-rate factor."""

    def __init__(self, in_features: int, *, width: int, depth: int = 1, activation="relu",
                 parameterization: str = "ntk", sigma_w: float = 2 ** 0.5, seed: int = 0,
                 dtype: torch.dtype = DTYPE):
        super().__init__()
        d = check_int("in_features", in_features, minimum=1)
        m = check_int("width", width, minimum=1)
        depth = check_int("depth", depth, minimum=1)
        self.parameterization = check_choice("parameterization", parameterization, PARAMETERIZATIONS)
        self.activation = as_activation(activation)
        sigma_w = check_nonnegative("sigma_w", sigma_w)
        g = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
        shapes = [(m, d)] + [(m, m)] * (depth - 1) + [(1, m)]
        self.weights = nn.ParameterList(nn.Parameter(torch.randn(*s, generator=g, dtype=dtype)) for s in shapes)
        out_mult = 1 / m if parameterization == "mup" else 1 / math.sqrt(m)
        self.multipliers = [sigma_w / math.sqrt(d)] + [sigma_w / math.sqrt(m)] * (depth - 1) + [sigma_w * out_mult]
        lr = {"ntk": [1.0, 1.0, 1.0], "standard": [d, m, m], "mup": [m * d, m, m]}[parameterization]
        per_layer = [lr[0]] + [lr[1]] * (depth - 1) + [lr[2]]
        self.lr_multipliers = {f"weights.{i}": float(v) for i, v in enumerate(per_layer)}

    def preactivations(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Pre-activations ``mult_l * h @ w_l.T`` of every hidden layer: ``depth`` tensors (n, m)."""
        h, out = x, []
        for i in range(len(self.weights) - 1):      # index, never slice: torch.func swaps entries by name
            out.append(self.multipliers[i] * h @ self.weights[i].T)
            h = self.activation.fn(out[-1])
        return out

    def features(self, x: torch.Tensor) -> torch.Tensor:     # (n, d) -> (n, m), last hidden layer
        return self.activation.fn(self.preactivations(x)[-1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:      # (n, d) -> (n,)
        last = len(self.weights) - 1
        return (self.multipliers[last] * self.features(x) @ self.weights[last].T)[:, 0]

    def param_groups(self, lr: float) -> list[dict]:
        """SGD parameter groups with per-layer learning rates ``lr * lr_multiplier``."""
        return [{"params": [w], "lr": lr * self.lr_multipliers[f"weights.{i}"]} for i, w in enumerate(self.weights)]


def parameterized_mlp(in_features: int, *, width: int, depth: int = 1, activation="relu",
                      parameterization: str = "ntk", sigma_w: float = 2 ** 0.5, seed: int = 0) -> ParameterizedMLP:
    """Build a :class:`ParameterizedMLP` (see the module docstring for the table)."""
    return ParameterizedMLP(in_features, width=width, depth=depth, activation=activation,
                            parameterization=parameterization, sigma_w=sigma_w, seed=seed)
