"""Training and probing finite networks in the NTK, standard and muP parameterizations (lesson 05b, section 4.4.2).

A parameterization is part of the description (``nh.mlp(..., parameterization="mup")``, table in
:mod:`~ntk_helpers.engine.dense`); the built network carries each layer's forward multiplier and learning-rate
factor. This module reads them back out of a built network::

    model = nh.mlp(2, "relu", parameterization="mup").network(8, width=1024, seed=0)
    nh.lr_multipliers(model)                 # {"0.weight": 8192.0, "2.weight": 1024.0, "4.weight": 1024.0}
    torch.optim.SGD(nh.param_groups(model, lr=0.02))         # per-layer learning rates lr * factor
    nh.preactivations(model, x)              # [z1, z2]: each hidden dense layer's output, (n, width)

``nh.train`` uses the same factors.
"""

from __future__ import annotations

import torch
from torch import nn

from .._checks import check_nonnegative
from ..engine.dense import NTKDense, lr_multipliers


def param_groups(model: nn.Module, lr: float) -> list[dict]:
    """``torch.optim`` parameter groups, one per parameter, with learning rate ``lr * lr_multipliers[name]``."""
    lr = check_nonnegative("lr", lr)
    factors = lr_multipliers(model)
    return [{"params": [p], "lr": lr * factors[name]} for name, p in model.named_parameters() if p.requires_grad]


def preactivations(model: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """The outputs of every dense layer of ``model`` but the readout (its last module), in forward order.

    For ``nh.mlp(depth, ...).network(d, width=m)``: ``depth`` tensors (n, m), the pre-activations
    z^(1) .. z^(depth). Computed with the model's own forward pass (forward hooks), so they are exactly what
    the next activation sees.
    """
    last = list(model.modules())[-1]
    layers = [m for m in model.modules() if isinstance(m, NTKDense) and m is not last]
    if not layers:
        raise ValueError("preactivations() needs a network with a dense layer before its readout, such as "
                         "nh.mlp(depth, ...).network(d, width=m)")
    out: list[torch.Tensor] = []
    handles = [m.register_forward_hook(lambda _module, _inputs, z: out.append(z)) for m in layers]
    try:
        model(x)
    finally:
        for handle in handles:
            handle.remove()
    return out


__all__ = ["param_groups", "preactivations", "lr_multipliers"]
