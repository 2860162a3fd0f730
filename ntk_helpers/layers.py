"""One architecture description, two worlds: a finite torch network and its infinite-width kernel.

In the spirit of neural-tangents' ``stax`` (Novak et al. 2020, "Neural Tangents: Fast and Easy
Infinite Neural Networks in Python"), each layer knows

- ``transform(kernel)``: how its infinite-width limit maps the NNGP/NTK of its input, and
- ``build(in_features, width, generator)``: the finite torch module it stands for,

and :func:`serial` composes both. Everything uses the NTK parameterization with neural-tangents'
names: ``sigma_w`` is ``W_std``, ``sigma_b`` is ``b_std``.

Example::

    net = nh.mlp(depth=2, activation="relu")          # 2 x (dense -> relu), then dense(1)
    k = net.kernel(x1, x2)                             # k.nngp, k.ntk: (n1, n2) float64
    model = net.network(d, width=1024, seed=0)         # torch.nn.Module
    theta = nh.empirical_ntk(model, x1, x2)            # -> k.ntk as width -> infinity
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch
from torch import nn

from . import activations as acts
from ._checks import DTYPE, check_int, check_nonnegative, check_pair
from .kernel import Kernel
from .modules import Elementwise, NTKDense, NTKSequential


class Layer:
    """Base class: subclasses implement ``transform`` and ``build``."""

    def transform(self, k: Kernel) -> Kernel:          # pragma: no cover - abstract
        raise NotImplementedError

    def build(self, in_features: int, width: int, generator: torch.Generator,
              dtype: torch.dtype) -> tuple[list[nn.Module], int]:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- the two public entry points -------------------------------------------------------
    def kernel(self, x1, x2=None) -> Kernel:
        """Infinite-width NNGP and NTK of this architecture on inputs ``x1`` (n1, d), ``x2`` (n2, d).

        ``x2=None`` means ``x2 = x1``. Returns a :class:`~ntk_helpers.kernel.Kernel` whose ``nngp``
        and ``ntk`` are float64 tensors of shape (n1, n2).
        """
        t1, t2 = check_pair(x1, x2)
        return self.transform(Kernel.from_inputs(t1, t2))

    def network(self, in_shape, *, width: int, seed: int = 0, dtype: torch.dtype = DTYPE) -> NTKSequential:
        """The finite network in the NTK parameterization, with every weight and bias ~ N(0, 1).

        Args:
            in_shape: the input dimension d (an int, or a 1-tuple ``(d,)``).
            width: the hidden width used by every ``dense()`` whose ``out`` is None.
            seed: seeds a ``torch.Generator``; the same seed gives the same network.
            dtype: parameter dtype (float64 by default, so that empirical and analytic kernels
                can be compared to 1e-10).
        """
        if isinstance(in_shape, tuple) and len(in_shape) == 1:
            in_shape = in_shape[0]
        d = check_int("in_shape", in_shape, minimum=1)
        width = check_int("width", width, minimum=1)
        seed = check_int("seed", seed, minimum=0)
        generator = torch.Generator().manual_seed(seed)
        modules, _ = self.build(d, width, generator, dtype)
        return NTKSequential(*modules)

    def __rshift__(self, other: "Layer") -> "Layer":
        """``a >> b`` is ``serial(a, b)``."""
        return serial(self, other)


@dataclass(frozen=True, repr=False)
class Dense(Layer):
    """``z = sigma_w/sqrt(fan_in) W h + sigma_b b``. Kernel rule (Jacot et al. 2018; Lee et al. 2019):
    ``Sigma' = sigma_w^2 Sigma + sigma_b^2`` and ``Theta' = Sigma' + sigma_w^2 Theta``."""

    out: int | None
    sigma_w: float
    sigma_b: float

    def transform(self, k: Kernel) -> Kernel:
        w2, b2 = self.sigma_w ** 2, self.sigma_b ** 2
        nngp = w2 * k.nngp + b2
        var1 = w2 * k.var1 + b2
        var2 = var1 if k.is_gram else w2 * k.var2 + b2
        return k.replace(nngp=nngp, ntk=nngp + w2 * k.ntk, var1=var1, var2=var2)

    def build(self, in_features, width, generator, dtype):
        out = width if self.out is None else self.out
        layer = NTKDense(in_features, out, sigma_w=self.sigma_w, sigma_b=self.sigma_b,
                         generator=generator, dtype=dtype)
        return [layer], out

    def __repr__(self) -> str:
        out = "width" if self.out is None else self.out
        return f"dense({out}, sigma_w={self.sigma_w:g}, sigma_b={self.sigma_b:g})"


@dataclass(frozen=True, repr=False)
class ActivationLayer(Layer):
    """Elementwise nonlinearity. Kernel rule: ``Sigma' = E[phi phi]``, ``Theta' = E[phi' phi'] * Theta``,
    with both expectations over the Gaussian whose covariance is the incoming triple
    (Sigma(x,x), Sigma(x',x'), Sigma(x,x'))."""

    activation: acts.Activation

    def transform(self, k: Kernel) -> Kernel:
        if k.is_gram and not self.activation.has_closed_form:
            e, e_dot = self._symmetric_dual(k)                                          # half the quadrature
        else:
            e, e_dot = self.activation.dual(k.var1[:, None], k.var2[None, :], k.nngp)   # (n1, n2) each
        var1 = self.activation.diagonal(k.var1)[0]
        var2 = var1 if k.is_gram else self.activation.diagonal(k.var2)[0]
        return k.replace(nngp=e, ntk=e_dot * k.ntk, var1=var1, var2=var2)

    def _symmetric_dual(self, k: Kernel):
        """For a Gram matrix (x2 = x1) evaluate the dual on the upper triangle only and mirror it."""
        n = k.nngp.shape[0]
        i, j = torch.triu_indices(n, n)
        upper = self.activation.dual(k.var1[i], k.var1[j], k.nngp[i, j])
        out = []
        for values in upper:
            full = torch.empty_like(k.nngp)
            full[i, j] = values
            full[j, i] = values
            out.append(full)
        return tuple(out)

    def build(self, in_features, width, generator, dtype):
        return [Elementwise(self.activation)], in_features

    def __repr__(self) -> str:
        return self.activation.name


@dataclass(frozen=True, repr=False)
class Serial(Layer):
    """Layers applied one after another; the kernel is transformed by each in turn."""

    layers: tuple[Layer, ...]

    def transform(self, k: Kernel) -> Kernel:
        for index, layer in enumerate(self.layers):
            k = layer.transform(k)
            if not k.is_finite():
                raise OverflowError(
                    f"the kernel left the float64 range after layer {index} ({layer!r}); "
                    "lower sigma_w or the depth"
                )
        return k

    def build(self, in_features, width, generator, dtype):
        modules = []
        for layer in self.layers:
            new, in_features = layer.build(in_features, width, generator, dtype)
            modules += new
        return modules, in_features

    def __repr__(self) -> str:
        return "serial(" + ", ".join(map(repr, self.layers)) + ")"


# -- constructors: the public vocabulary -------------------------------------------------------

def dense(out: int | None = None, *, sigma_w: float = 1.0, sigma_b: float = 0.0) -> Dense:
    """A dense layer; ``out=None`` means the hidden width chosen in ``network(width=...)``.

    Same as neural-tangents' ``stax.Dense(out, W_std=sigma_w, b_std=sigma_b, parameterization='ntk')``.
    """
    if out is not None:
        out = check_int("out", out, minimum=1)
    return Dense(out, check_nonnegative("sigma_w", sigma_w), check_nonnegative("sigma_b", sigma_b))


def relu() -> ActivationLayer:
    """ReLU, with the arc-cosine closed form (Cho & Saul 2009)."""
    return ActivationLayer(acts.relu_activation())


def leaky_relu(negative_slope: float = 0.01) -> ActivationLayer:
    """Leaky ReLU ``max(x, 0) + negative_slope * min(x, 0)``, closed form (neural-tangents' ABRelu)."""
    return ActivationLayer(acts.leaky_relu_activation(negative_slope))


def erf() -> ActivationLayer:
    """The error function, with Williams' (1997) closed form."""
    return ActivationLayer(acts.erf_activation())


def gelu() -> ActivationLayer:
    """GELU ``x Phi(x)`` (exact, not the tanh approximation), closed form."""
    return ActivationLayer(acts.gelu_activation())


def tanh() -> ActivationLayer:
    """tanh; its dual kernel is computed by quadrature (:mod:`ntk_helpers.quadrature`)."""
    return ActivationLayer(acts.tanh_activation())


def identity() -> ActivationLayer:
    """No nonlinearity (a deep linear network): ``E = Sigma``, ``E[phi' phi'] = 1``."""
    return ActivationLayer(acts.identity_activation())


def elementwise(fn: Callable[[torch.Tensor], torch.Tensor], name: str = "elementwise") -> ActivationLayer:
    """Any elementwise torch function; its dual kernel is computed by quadrature."""
    if not callable(fn):
        raise TypeError(f"fn must be a callable elementwise torch function, got {fn!r}")
    return ActivationLayer(acts.Activation(name, fn, None))


def serial(*layers: Layer) -> Serial:
    """Compose layers; nested ``serial`` calls are flattened."""
    if not layers:
        raise ValueError("serial() needs at least one layer")
    flat: list[Layer] = []
    for layer in layers:
        if not isinstance(layer, Layer):
            raise TypeError(f"serial() takes layers such as dense() or relu(), got {layer!r}")
        flat += list(layer.layers) if isinstance(layer, Serial) else [layer]
    return Serial(tuple(flat))


def as_activation_layer(activation) -> ActivationLayer:
    """Accept an activation name (see ``ACTIVATIONS``) or an activation layer such as ``relu()``."""
    if isinstance(activation, ActivationLayer):
        return activation
    return ActivationLayer(acts.activation_by_name(activation))


def mlp(depth: int, activation="relu", *, sigma_w: float = 2 ** 0.5, sigma_b: float = 0.0) -> Serial:
    """``depth`` x (dense -> activation), then the readout ``dense(1)``, all with the same sigmas.

    The defaults (sigma_w^2 = 2, sigma_b = 0) are the ReLU edge of chaos, where the variance is
    preserved through depth (lesson 02, §4.1.2).
    """
    depth = check_int("depth", depth, minimum=1)
    act = as_activation_layer(activation)
    hidden: Sequence[Layer] = [dense(sigma_w=sigma_w, sigma_b=sigma_b), act] * depth
    return serial(*hidden, dense(1, sigma_w=sigma_w, sigma_b=sigma_b))


__all__ = [
    "Layer", "Dense", "ActivationLayer", "Serial", "dense", "relu", "leaky_relu", "erf", "gelu",
    "tanh", "identity", "elementwise", "serial", "mlp", "as_activation_layer",
]
