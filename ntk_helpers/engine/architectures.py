"""Named architectures built from the layers: the MLP of lessons 01-02 and the residual MLP of lesson 04.

Both use one ``sigma_w``/``sigma_b`` pair for every layer; the defaults (sigma_w^2 = 2, sigma_b = 0) are the
ReLU edge of chaos, where the variance is preserved through depth (lesson 02, section 4.1.2).
"""

from __future__ import annotations

from .._checks import check_int
from .activations import as_activation
from .combinators import Serial, residual, serial
from .dense import dense


def mlp(depth: int, activation="relu", *, sigma_w: float = 2 ** 0.5, sigma_b: float = 0.0,
        parameterization: str = "ntk") -> Serial:
    """``depth`` x (dense -> activation), then the readout ``dense(1)``, all with the same sigmas and
    ``parameterization`` ("ntk", "standard" or "mup": the table in :mod:`~ntk_helpers.engine.dense`)."""
    depth = check_int("depth", depth, minimum=1)
    act = as_activation(activation)
    hidden = [dense(sigma_w=sigma_w, sigma_b=sigma_b, parameterization=parameterization), act] * depth
    return serial(*hidden, dense(1, sigma_w=sigma_w, sigma_b=sigma_b, parameterization=parameterization))


def resnet(depth: int, activation="relu", *, alpha: float = 1.0, sigma_w: float = 2 ** 0.5,
           sigma_b: float = 0.0, readout_sigma_w: float = 1.0) -> Serial:
    """The residual MLP of lesson 04 (section 4.3.1; Huang et al. 2020, Hayou et al. 2021)::

        dense  ->  depth x residual(activation, dense, alpha=alpha)  ->  dense(1, sigma_w=readout_sigma_w)

    Pass ``alpha=depth ** -0.5`` for the scaled ResNet whose NTK stays bounded as depth grows.
    """
    depth = check_int("depth", depth, minimum=1)
    act = as_activation(activation)
    blocks = [residual(act, dense(sigma_w=sigma_w, sigma_b=sigma_b), alpha=alpha) for _ in range(depth)]
    return serial(dense(sigma_w=sigma_w, sigma_b=sigma_b), *blocks, dense(1, sigma_w=readout_sigma_w))


__all__ = ["mlp", "resnet"]
