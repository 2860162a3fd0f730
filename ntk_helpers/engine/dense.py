"""The dense layer ``z = mult * W h + sigma_b b`` (W, b ~ N(0, 1)) in three parameterizations.

Every parameterization is written in the "every trainable weight ~ N(0, 1)" form of Yang et al. 2022
(Tensor Programs V, Table 3): a layer multiplies its weights by ``mult`` in the forward pass and learns
with rate ``lr * lr_mult`` under gradient descent. With fan-in n, input dimension d and width m:

    ===========  ===========================  ======================  ======================
                 input layer (d -> m)         hidden (m -> m)         output (m -> 1)
    ===========  ===========================  ======================  ======================
    ntk          mult sigma_w/sqrt(d), lr 1   sigma_w/sqrt(m), lr 1   sigma_w/sqrt(m), lr 1
    standard     mult sigma_w/sqrt(d), lr d   sigma_w/sqrt(m), lr m   sigma_w/sqrt(m), lr m
    mup          mult sigma_w/sqrt(d), lr md  sigma_w/sqrt(m), lr m   sigma_w/m, lr m
    ===========  ===========================  ======================  ======================

Biases are ``sigma_b b`` with lr 1 (ntk, standard) or lr fan-out (mup: m for a hidden bias). The role
comes from the description: a layer is an input layer when its incoming features do not scale with the
width (``Build.wide_input``), an output layer when its ``out`` is fixed. The effective weight
``mult * w`` has variance ``mult**2`` and learning rate ``mult**2 * lr_mult``; only their powers of m
matter as m -> infinity (lesson 05b, section 4.4.2; Yang & Hu 2021, Tensor Programs IV), the constants are
this package's choice. "standard" is PyTorch's set-up (weights ~ N(0, sigma_w^2/fan_in), one learning
rate) rewritten in this form.

Kernel rules (Jacot et al. 2018; Lee et al. 2019; lesson 02, section 4.1.1). **ntk**::

    Sigma' = sigma_w^2 Sigma + sigma_b^2,        Theta' = Sigma' + sigma_w^2 Theta

as neural-tangents' ``stax.Dense(out, W_std=sigma_w, b_std=sigma_b, parameterization='ntk')``.

**standard**: the same forward pass, hence the same NNGP. Its tangent kernel weighted by the learning
rates, ``Theta_lr = sum_p lr_mult_p df/dp df'/dp``, is per layer the NTK-parameterization term
``(sigma_w^2/n) <delta, delta'> <h, h'>`` times n for the weights and the bias term ``sigma_b^2 <delta, delta'>``
times 1. At a fixed learning rate the hidden and output terms grow like m (training diverges); with a
learning rate ``lr / m`` (the only power of m with a finite, nonzero limit) the hidden and output weights
give the NTK-parameterization terms (n/m = 1), the input layer's weights d/m -> 0 and every bias 1/m -> 0.
So ``lim Theta_lr / m`` is the NTK recursion without bias terms and without the input layer::

    Theta' = 0                                   (input layer: no dense or conv layer before it)
    Theta' = sigma_w^2 Sigma + sigma_w^2 Theta   (every later dense layer)

which ``kernel().ntk`` returns (tests/test_parameterization.py checks it against the Monte Carlo mean of
``empirical_ntk(model, x, parameter_weights={p: lr_mult_p / m})`` as m grows).

**mup** has an infinite-width limit (the feature-learning limit of Yang & Hu 2021, computed with tensor programs),
and its learning-rate-weighted tangent kernel at initialization converges too; but that kernel moves by O(1)
during training, at every width (lesson 05b), so no fixed kernel describes training, and its output at
initialization vanishes like m^-1/2. This package has no closed form for that limit: ``kernel()`` raises
:class:`~ntk_helpers.NoClosedForm`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .._checks import check_choice, check_int, check_nonnegative
from . import rules
from .kernel import Kernel, NoClosedForm
from .layer import WeightLayer

#: The parameterizations of :func:`dense` and :func:`~ntk_helpers.mlp` (see the module docstring).
PARAMETERIZATIONS = ("ntk", "standard", "mup")


def affine(t, sigma_w, sigma_b):
    """``sigma_w^2 t + sigma_b^2``: what a dense layer does to a covariance (or a variance); a new tensor."""
    if not isinstance(sigma_b, (int, float)):            # tensors of sigmas (grids): broadcast
        return sigma_w ** 2 * t + sigma_b ** 2
    out = t * sigma_w ** 2                                # one pass, then the bias in place (none without one)
    if sigma_b:
        out = out.add_(sigma_b ** 2) if isinstance(out, torch.Tensor) else out + sigma_b ** 2
    return out


def multipliers(parameterization: str, fan_in: int, fan_out: int, *, wide_input: bool,
                wide_output: bool) -> tuple[float, float, float]:
    """``(mult / sigma_w, weight lr multiplier, bias lr multiplier)`` of one dense layer (module docstring)."""
    if parameterization == "ntk":
        return 1 / math.sqrt(fan_in), 1.0, 1.0
    if parameterization == "standard":
        return 1 / math.sqrt(fan_in), float(fan_in), 1.0
    if not wide_input:                                   # mup input layer (every bias is one: fan-in 1)
        return 1 / math.sqrt(fan_in), float(fan_in * fan_out), float(fan_out)
    if wide_output:                                      # mup hidden layer
        return 1 / math.sqrt(fan_in), float(fan_in), float(fan_out)
    return 1 / fan_in, float(fan_in), float(fan_out)     # mup output layer


class NTKDense(nn.Module):
    """A dense layer with weights and biases ~ N(0, 1)::

        z = weight_scale * h @ W.T + sigma_b * b

    ``weight_scale`` is sigma_w/sqrt(fan_in) unless given (mup's output layer: sigma_w/fan_in);
    ``lr_multiplier`` and ``bias_lr_multiplier`` are the parameters' learning-rate factors (1 in the NTK
    parameterization). The bias only exists when ``sigma_b > 0`` (with ``sigma_b = 0`` it could not move f).
    """

    def __init__(self, in_features: int, out_features: int, *, sigma_w: float, sigma_b: float,
                 generator: torch.Generator, dtype: torch.dtype = torch.float64, weight_scale: float | None = None,
                 lr_multiplier: float = 1.0, bias_lr_multiplier: float = 1.0):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.sigma_w, self.sigma_b = float(sigma_w), float(sigma_b)
        self.weight_scale = self.sigma_w / math.sqrt(in_features) if weight_scale is None else float(weight_scale)
        self.lr_multiplier, self.bias_lr_multiplier = float(lr_multiplier), float(bias_lr_multiplier)
        self.weight = nn.Parameter(torch.randn(out_features, in_features, generator=generator, dtype=dtype))
        if sigma_b > 0:
            self.bias = nn.Parameter(torch.randn(out_features, generator=generator, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, h: torch.Tensor) -> torch.Tensor:     # (n, in) -> (n, out)
        z = nn.functional.linear(h, self.weight) * self.weight_scale
        if self.bias is not None:
            z = z + self.sigma_b * self.bias
        return z

    def extra_repr(self) -> str:
        text = f"{self.in_features} -> {self.out_features}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g}"
        if self.weight_scale != self.sigma_w / math.sqrt(self.in_features) or self.lr_multiplier != 1:
            text += f", weight_scale={self.weight_scale:.4g}, lr_multiplier={self.lr_multiplier:g}"
        return text


@dataclass(frozen=True, repr=False)
class Dense(WeightLayer):
    """A dense layer (see the module docstring); build it with :func:`dense`."""

    out: int | None
    sigma_w: float
    sigma_b: float
    parameterization: str = "ntk"

    def transform(self, k: Kernel) -> Kernel:
        if k.space:
            raise ValueError("dense() needs vector features (n, d); for images add flatten() or "
                             "global_avg_pool() before it, or use conv()")
        if self.parameterization == "mup":
            raise NoClosedForm("dense(parameterization='mup') has no fixed kernel: muP has an infinite-width limit, "
                               "but its features and its tangent kernel move by O(1) during training at every width "
                               "(lesson 05b), and this package has no closed form for that limit. Study the finite "
                               "networks (network(), nh.train) or use parameterization='ntk'")
        nngp = affine(k.nngp, self.sigma_w, self.sigma_b)
        var1, var2 = k.map_self(lambda var, _: affine(var, self.sigma_w, self.sigma_b))
        if self.parameterization == "ntk":
            ntk = torch.add(nngp, k.ntk, alpha=self.sigma_w ** 2)
        elif k.ntk_is_zero:                                  # standard, input layer: d/m and 1/m -> 0
            ntk = torch.zeros_like(nngp)
        else:                                                # standard, later layers: no bias term
            ntk = self.sigma_w ** 2 * (k.nngp + k.ntk)
        return k.replace(nngp=nngp, ntk=ntk, var1=var1, var2=var2)

    def pair_rule(self) -> rules.Rule:
        if self.parameterization != "ntk":
            return rules.Unsupported(f"{self!r}: the compiled path takes dense(..., parameterization='ntk') only")
        return rules.Affine(self.sigma_w ** 2, self.sigma_b ** 2)

    def build(self, in_shape, context):
        if len(in_shape) != 1:
            raise ValueError(f"dense() needs vector features, got shape {in_shape}; add flatten() or "
                             "global_avg_pool() before it")
        out = context.width if self.out is None else self.out
        scale, lr, bias_lr = multipliers(self.parameterization, in_shape[0], out, wide_input=context.wide_input,
                                         wide_output=self.out is None)
        layer = NTKDense(in_shape[0], out, sigma_w=self.sigma_w, sigma_b=self.sigma_b, generator=context.generator,
                         dtype=context.dtype, weight_scale=self.sigma_w * scale, lr_multiplier=lr,
                         bias_lr_multiplier=bias_lr)
        return [layer], (out,)

    def __repr__(self) -> str:
        out = "width" if self.out is None else self.out
        extra = "" if self.parameterization == "ntk" else f", parameterization={self.parameterization!r}"
        return f"dense({out}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g}{extra})"


def dense(out: int | None = None, *, sigma_w: float = 1.0, sigma_b: float = 0.0,
          parameterization: str = "ntk") -> Dense:
    """A dense layer; ``out=None`` means the hidden width chosen in ``network(width=...)``.

    ``parameterization`` is one of :data:`PARAMETERIZATIONS` (module docstring). With "ntk" it is
    neural-tangents' ``stax.Dense(out, W_std=sigma_w, b_std=sigma_b, parameterization='ntk')``.
    """
    if out is not None:
        out = check_int("out", out, minimum=1)
    return Dense(out, check_nonnegative("sigma_w", sigma_w), check_nonnegative("sigma_b", sigma_b),
                 check_choice("parameterization", parameterization, PARAMETERIZATIONS))


def lr_multipliers(model: nn.Module) -> dict[str, float]:
    """``{parameter name: learning-rate factor}`` for every parameter of ``model``: the factors of its dense
    layers (:class:`NTKDense`), 1.0 for any other parameter. ``nh.train`` and ``nh.param_groups`` use them."""
    factors = {name: 1.0 for name, _ in model.named_parameters()}
    for prefix, module in model.named_modules():
        if isinstance(module, NTKDense):
            for name, factor in (("weight", module.lr_multiplier), ("bias", module.bias_lr_multiplier)):
                key = f"{prefix}.{name}" if prefix else name
                if key in factors:
                    factors[key] = factor
    return factors


__all__ = ["Dense", "NTKDense", "dense", "affine", "multipliers", "lr_multipliers", "PARAMETERIZATIONS"]
