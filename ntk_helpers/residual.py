"""Residual blocks ``x + alpha * branch(x)``: chapter 4.3, lesson 04.

Kernel rule (Huang et al. 2020; Hayou et al. 2021; lesson 04, section 4.3.1): the branch ends in a layer with
fresh zero-mean weights, so at infinite width its output is uncorrelated with x and

    Sigma_out = Sigma_x + alpha^2 Sigma_branch,      Theta_out = Theta_x + alpha^2 Theta_branch,

where the branch kernels already include the gradients that flow into earlier layers through
the branch. For ReLU with sigma_b = 0 the variance grows by (1 + alpha^2 sigma_w^2 / 2) per block:
exponentially in depth for alpha = 1, boundedly for alpha = 1/sqrt(L).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from ._checks import check_int, check_nonnegative
from .conv import Conv
from .kernel import Kernel
from .layers import Dense, Layer, Serial, as_activation_layer, dense, serial
from .modules import ResidualBlock


@dataclass(frozen=True, repr=False)
class Residual(Layer):
    branch: Serial
    alpha: float

    def transform(self, k: Kernel) -> Kernel:
        b = self.branch.transform(k)
        a2 = self.alpha ** 2
        var1 = k.var1 + a2 * b.var1
        return k.replace(nngp=k.nngp + a2 * b.nngp, ntk=k.ntk + a2 * b.ntk, var1=var1,
                         var2=var1 if k.is_gram else k.var2 + a2 * b.var2)

    def build(self, in_shape, width, generator, dtype):
        modules, out_shape = self.branch.build(in_shape, width, generator, dtype)
        if out_shape != in_shape:
            raise ValueError(f"residual(): the branch maps shape {in_shape} to {out_shape}; x + alpha * branch(x) "
                             "needs them equal (give its last layer out=None, and feed the block width features)")
        return [ResidualBlock(nn.Sequential(*modules), self.alpha)], in_shape

    def __repr__(self) -> str:
        return f"residual({', '.join(map(repr, self.branch.layers))}, alpha={self.alpha:g})"


def residual(*branch: Layer, alpha: float = 1.0) -> Residual:
    """``x + alpha * branch(x)``. The branch must end with ``dense()`` or ``conv()`` (so that it is
    uncorrelated with x at initialization); typical: ``residual(relu(), dense(), alpha=L**-0.5)``."""
    body = serial(*branch)
    if not isinstance(body.layers[-1], (Dense, Conv)):
        raise ValueError("residual(): the branch must end with dense() or conv(), got "
                         f"{body.layers[-1]!r}; otherwise x and branch(x) are correlated")
    return Residual(body, check_nonnegative("alpha", alpha))


def resnet(depth: int, activation="relu", *, alpha: float = 1.0, sigma_w: float = 2 ** 0.5,
           sigma_b: float = 0.0, readout_sigma_w: float = 1.0) -> Serial:
    """The residual MLP of lesson 04 (section 4.3.1; Huang et al. 2020, Hayou et al. 2021)::

        dense  ->  depth x residual(activation, dense, alpha=alpha)  ->  dense(1, sigma_w=readout_sigma_w)

    Pass ``alpha=depth ** -0.5`` for the scaled ResNet whose NTK stays bounded as depth grows.
    """
    depth = check_int("depth", depth, minimum=1)
    act = as_activation_layer(activation)
    blocks = [residual(act, dense(sigma_w=sigma_w, sigma_b=sigma_b), alpha=alpha) for _ in range(depth)]
    return serial(dense(sigma_w=sigma_w, sigma_b=sigma_b), *blocks, dense(1, sigma_w=readout_sigma_w))
