"""Combinators: layers in sequence (``serial``, ``a >> b``) and residual blocks ``x + alpha * branch(x)``.

Residual kernel rule (Huang et al. 2020; Hayou et al. 2021; lesson 04, section 4.3.1): the branch ends in a
layer with fresh zero-mean weights, so at infinite width its output is uncorrelated with x and

    Sigma_out = Sigma_x + alpha^2 Sigma_branch,      Theta_out = Theta_x + alpha^2 Theta_branch,

where the branch kernels already include the gradients that flow into earlier layers through
the branch. For ReLU with sigma_b = 0 the variance grows by (1 + alpha^2 sigma_w^2 / 2) per block:
exponentially in depth for alpha = 1, boundedly for alpha = 1/sqrt(L).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch import nn

from .._checks import check_nonnegative
from . import planning, rules
from .kernel import Kernel
from .layer import Layer


@dataclass(frozen=True, repr=False)
class Serial(Layer):
    """Layers applied one after another; the kernel is transformed by each in turn."""

    layers: tuple[Layer, ...]

    def transform(self, k: Kernel) -> Kernel:
        # A run of layers that ends in flatten() needs only the pixel pairs p = p' (see engine/planning.py).
        start = planning.same_position_start(self.layers) if k.space and not k.same_position else None
        for index, layer in enumerate(self.layers):
            if index == start:
                k = k.to_same_position()
            k = layer.transform(k)
            # Checking the (small) self covariances suffices: |Sigma(x, x')| <= sqrt(Sigma(x, x) Sigma(x', x')).
            if not (torch.isfinite(k.var1).all() and torch.isfinite(k.var2).all()):
                raise OverflowError(f"the kernel left the float64 range after layer {index} ({layer!r}); "
                                    "lower sigma_w or the depth")
        return k

    def build(self, in_shape, context):
        modules = []
        for layer in self.layers:
            new, in_shape = layer.build(in_shape, context)
            context = replace(context, wide_input=layer.wide_output(context.wide_input))
            modules += new
        return modules, in_shape

    def gaussian_output(self, gaussian_input: bool) -> bool:
        for layer in self.layers:
            gaussian_input = layer.gaussian_output(gaussian_input)
        return gaussian_input

    def wide_output(self, wide_input: bool) -> bool:
        for layer in self.layers:
            wide_input = layer.wide_output(wide_input)
        return wide_input

    @property
    def batch_coupled(self) -> bool:
        return any(layer.batch_coupled for layer in self.layers)

    @property
    def keeps_same_position_pairs(self) -> bool:
        return all(layer.keeps_same_position_pairs for layer in self.layers)

    def output_space(self, space):
        for layer in self.layers:
            space = layer.output_space(space)
        return space

    def sequence(self):
        return list(self.layers)

    def leaves(self):
        return [leaf for layer in self.layers for leaf in layer.leaves()]

    def __repr__(self) -> str:
        return "serial(" + ", ".join(map(repr, self.layers)) + ")"


def serial(*layers: Layer) -> Serial:
    """Compose layers; nested ``serial`` calls are flattened. Checks that every layer that assumes
    Gaussian inputs (``layer_norm``) gets them (after ``dense``, ``conv``, or a residual block on them)."""
    if not layers:
        raise ValueError("serial() needs at least one layer")
    flat: list[Layer] = []
    for layer in layers:
        if not isinstance(layer, Layer):
            raise TypeError(f"serial() takes layers such as dense() or relu(), got {layer!r}")
        flat += list(layer.layers) if isinstance(layer, Serial) else [layer]
    gaussian, before = False, None                     # the network's inputs are fixed, not random
    for layer in flat:
        if layer.needs_gaussian_input and not gaussian:
            raise ValueError(f"{layer!r} needs zero-mean Gaussian inputs (its kernel rule assumes them): put it "
                             f"after dense() or conv() (or a residual block on their outputs), not after {before!r}")
        gaussian, before = layer.gaussian_output(gaussian), layer
    return Serial(tuple(flat))


class ResidualBlock(nn.Module):
    """``x + alpha * branch(x)``."""

    def __init__(self, branch: nn.Module, alpha: float):
        super().__init__()
        self.branch, self.alpha = branch, float(alpha)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.alpha * self.branch(h)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha:g}"


@dataclass(frozen=True, repr=False)
class Residual(Layer):
    branch: Serial
    alpha: float

    def transform(self, k: Kernel) -> Kernel:
        b = self.branch.transform(k)
        a2 = self.alpha ** 2
        var1, var2 = k.map_self(lambda var, i: var + a2 * (b.var1 if i == 1 else b.var2))
        return k.replace(nngp=k.nngp + a2 * b.nngp, ntk=k.ntk + a2 * b.ntk, var1=var1, var2=var2)

    def build(self, in_shape, context):
        modules, out_shape = self.branch.build(in_shape, context)
        if out_shape != in_shape:
            raise ValueError(f"residual(): the branch maps shape {in_shape} to {out_shape}; x + alpha * branch(x) "
                             "needs them equal (give its last layer out=None, and feed the block width features)")
        return [ResidualBlock(nn.Sequential(*modules), self.alpha)], in_shape

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return gaussian_input                          # x + an independent zero-mean Gaussian branch

    @property
    def batch_coupled(self) -> bool:
        return self.branch.batch_coupled

    @property
    def keeps_same_position_pairs(self) -> bool:
        return self.branch.keeps_same_position_pairs

    def leaves(self):
        return [self] + self.branch.leaves()

    def pair_rule(self) -> rules.Rule:
        branch = tuple(layer.pair_rule() for layer in self.branch.layers)
        missing = next((r for r in branch if isinstance(r, rules.Unsupported)), None)
        return missing if missing is not None else rules.Residual(self.alpha ** 2, branch)

    def __repr__(self) -> str:
        return f"residual({', '.join(map(repr, self.branch.layers))}, alpha={self.alpha:g})"


def residual(*branch: Layer, alpha: float = 1.0) -> Residual:
    """``x + alpha * branch(x)``. The branch must end with a layer of fresh zero-mean weights (``dense()`` or
    ``conv()``), so that it is uncorrelated with x at initialization; typical:
    ``residual(relu(), dense(), alpha=L**-0.5)``."""
    body = serial(*branch)
    if not body.layers[-1].gaussian_output(False):
        raise ValueError("residual(): the branch must end with dense() or conv(), got "
                         f"{body.layers[-1]!r}; otherwise x and branch(x) are correlated")
    return Residual(body, check_nonnegative("alpha", alpha))


def _rshift(self: Layer, other: Layer) -> Serial:
    """``a >> b`` is ``serial(a, b)``."""
    return serial(self, other)


# ``a >> b`` for every layer: defined here, next to serial(), so that layer.py need not import this module.
Layer.__rshift__ = _rshift

__all__ = ["Serial", "serial", "Residual", "residual", "ResidualBlock"]
