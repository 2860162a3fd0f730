"""One architecture description, two worlds: a finite torch network and its infinite-width kernel.

In the spirit of neural-tangents' ``stax`` (Novak et al. 2020, "Neural Tangents: Fast and Easy
Infinite Neural Networks in Python"), each layer knows

- ``transform(kernel)``: how its infinite-width limit maps the NNGP/NTK of its input, and
- ``build(in_shape, width, generator)``: the finite torch modules it stands for,

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
from ._checks import DTYPE, check_int, check_nonnegative, check_pair, check_shape
from .kernel import Kernel
from .modules import Elementwise, NTKDense, NTKSequential


class Layer:
    """Base class: subclasses implement ``transform`` (kernel side) and ``build`` (network side)."""

    #: True for dense/conv: their outputs are zero-mean Gaussian at initialization.
    produces_preactivations = False
    #: True for layers whose kernel rule assumes zero-mean pre-activations as input (layer_norm).
    needs_preactivations = False

    def transform(self, k: Kernel) -> Kernel:          # pragma: no cover - abstract
        raise NotImplementedError

    def build(self, in_shape: tuple[int, ...], width: int, generator: torch.Generator,
              dtype: torch.dtype) -> tuple[list[nn.Module], tuple[int, ...]]:  # pragma: no cover - abstract
        """The torch modules for an input of shape ``in_shape`` (no batch axis), and their output shape."""
        raise NotImplementedError

    # -- the two public entry points -------------------------------------------------------
    def kernel(self, x1, x2=None, *, block_size: int | None = None, progress: bool = False) -> Kernel:
        """Infinite-width NNGP and NTK of this architecture on ``x1`` and ``x2``.

        Inputs are vectors (n, d) or images (n, C, H, W); ``x2=None`` means ``x2 = x1``. Returns a
        :class:`~ntk_helpers.kernel.Kernel`; after a readout ``nngp`` and ``ntk`` are float64
        (n1, n2). Image kernels carry pixel-pair tensors of size n1 * n2 * (H W)^2 until the
        readout: pass ``block_size`` to compute them ``block_size`` inputs at a time (bounded
        memory), and ``progress=True`` for a progress bar.
        """
        t1, t2 = check_pair(x1, x2, ndim=(2, 4))
        if block_size is None:
            return self.transform(Kernel.from_inputs(t1, t2))
        return _blocked(self.transform, t1, t2, check_int("block_size", block_size, minimum=1), progress)

    def network(self, in_shape, *, width: int, seed: int = 0, dtype: torch.dtype = DTYPE) -> NTKSequential:
        """The finite network in the NTK parameterization, with every weight and bias ~ N(0, 1).

        Args:
            in_shape: the input shape without the batch axis: an int d or ``(d,)`` for vectors,
                ``(C, H, W)`` for images.
            width: the hidden width (channels for conv layers) of every layer whose ``out`` is None.
            seed: seeds a ``torch.Generator``; the same seed gives the same network.
            dtype: parameter dtype (float64 by default, so that empirical and analytic kernels
                can be compared to 1e-10).
        """
        shape = check_shape("in_shape", in_shape)
        width = check_int("width", width, minimum=1)
        seed = check_int("seed", seed, minimum=0)
        generator = torch.Generator().manual_seed(seed)
        modules, _ = self.build(shape, width, generator, dtype)
        return NTKSequential(*modules)

    def __rshift__(self, other: "Layer") -> "Layer":
        """``a >> b`` is ``serial(a, b)``."""
        return serial(self, other)


def _blocked(transform, x1, x2, block: int, progress: bool) -> Kernel:
    """Evaluate ``transform`` on blocks of inputs and assemble the full kernel (Gram: upper blocks only)."""
    x2_rows = x1 if x2 is None else x2
    starts1, starts2 = range(0, x1.shape[0], block), range(0, x2_rows.shape[0], block)
    jobs = [(i, j) for i in starts1 for j in starts2 if x2 is not None or j >= i]
    if progress:
        from tqdm.auto import tqdm
        jobs = tqdm(jobs, desc="kernel blocks")
    parts, var1, var2 = {}, {}, {}
    for i, j in jobs:
        a = x1[i:i + block]
        k = transform(Kernel.from_inputs(a) if (x2 is None and i == j) else Kernel.from_inputs(a, x2_rows[j:j + block]))
        parts[i, j] = k
        _release_freed_memory()
        var1.setdefault(i, k.var1)
        var2.setdefault(j, k.var2)
    if x2 is None:
        for (i, j), k in list(parts.items()):
            if i != j:
                parts[j, i] = Kernel(_swap(k.nngp), _swap(k.ntk), k.var2, k.var1)
        var2 = var1
    rows = lambda name: torch.cat([torch.cat([getattr(parts[i, j], name) for j in starts2], 1) for i in starts1], 0)
    return Kernel(nngp=rows("nngp"), ntk=rows("ntk"), var1=torch.cat([var1[i] for i in starts1]),
                  var2=torch.cat([var2[j] for j in starts2]), is_gram=x2 is None)


def _release_freed_memory() -> None:
    """Hand freed heap memory back to the OS (glibc only). Blocks of a few MB each are below glibc's
    adaptive mmap threshold, and without this the process footprint creeps up block after block."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _load_libc():
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _load_libc()


def _swap(t: torch.Tensor) -> torch.Tensor:
    """Exchange the roles of x1 and x2 in a cross tensor (n1, n2, *space, *space)."""
    space = (t.ndim - 2) // 2
    return t.permute(1, 0, *range(2 + space, 2 + 2 * space), *range(2, 2 + space))


@dataclass(frozen=True, repr=False)
class Dense(Layer):
    """``z = sigma_w/sqrt(fan_in) W h + sigma_b b``. Kernel rule (Jacot et al. 2018; Lee et al. 2019):
    ``Sigma' = sigma_w^2 Sigma + sigma_b^2`` and ``Theta' = Sigma' + sigma_w^2 Theta``."""

    out: int | None
    sigma_w: float
    sigma_b: float
    produces_preactivations = True

    def transform(self, k: Kernel) -> Kernel:
        if k.space:
            raise ValueError("dense() needs vector features (n, d); for images add flatten() or "
                             "global_avg_pool() before it, or use conv()")
        w2, b2 = self.sigma_w ** 2, self.sigma_b ** 2
        nngp = w2 * k.nngp + b2
        var1 = w2 * k.var1 + b2
        var2 = var1 if k.is_gram else w2 * k.var2 + b2
        return k.replace(nngp=nngp, ntk=nngp + w2 * k.ntk, var1=var1, var2=var2)

    def build(self, in_shape, width, generator, dtype):
        if len(in_shape) != 1:
            raise ValueError(f"dense() needs vector features, got shape {in_shape}; add flatten() or "
                             "global_avg_pool() before it")
        out = width if self.out is None else self.out
        layer = NTKDense(in_shape[0], out, sigma_w=self.sigma_w, sigma_b=self.sigma_b,
                         generator=generator, dtype=dtype)
        return [layer], (out,)

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
        if not k.space:
            return self._transform_vectors(k)
        flat = (1,) * len(k.space)
        d1, d2 = k.diagonal(1), k.diagonal(2)                                     # (n1, H, W), (n2, H, W)
        n1, n2 = d1.shape[0], d2.shape[0]
        e, e_dot = self.activation.dual(d1.reshape(n1, 1, *k.space, *flat),       # cross: (n1, n2, H, W, H, W)
                                        d2.reshape(1, n2, *flat, *k.space), k.nngp)
        var1 = self._self_tensor(k.var1, d1)
        var2 = var1 if k.is_gram else self._self_tensor(k.var2, d2)
        ntk = k.ntk if k.ntk_is_zero else e_dot.mul_(k.ntk)
        return k.replace(nngp=e, ntk=ntk, var1=var1, var2=var2, ntk_is_zero=k.ntk_is_zero)

    def _self_tensor(self, var, diag):
        flat = (1,) * (diag.ndim - 1)
        n, space = diag.shape[0], diag.shape[1:]
        return self.activation.dual(diag.reshape(n, *space, *flat), diag.reshape(n, *flat, *space), var)[0]

    def _transform_vectors(self, k: Kernel) -> Kernel:
        if k.is_gram and not self.activation.has_closed_form:
            e, e_dot = self._symmetric_dual(k)                                          # half the quadrature
        else:
            e, e_dot = self.activation.dual(k.var1[:, None], k.var2[None, :], k.nngp)   # (n1, n2) each
        var1, e_dot_self = self.activation.diagonal(k.var1)
        if k.is_gram:
            # One value for Sigma(x, x): the pair rule at correlation 1 and the variance map round differently,
            # and in the chaotic phase every layer amplifies that gap (tanh at sigma_w = 2.5, depth 100: 0.04
            # instead of q* = 3.96). The variance map is the accurate one.
            e.diagonal().copy_(var1)
            e_dot.diagonal().copy_(e_dot_self)
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

    def build(self, in_shape, width, generator, dtype):
        return [Elementwise(self.activation)], in_shape

    def __repr__(self) -> str:
        return self.activation.name


@dataclass(frozen=True, repr=False)
class Serial(Layer):
    """Layers applied one after another; the kernel is transformed by each in turn."""

    layers: tuple[Layer, ...]

    def transform(self, k: Kernel) -> Kernel:
        for index, layer in enumerate(self.layers):
            k = layer.transform(k)
            # Checking the (small) self covariances suffices: |Sigma(x, x')| <= sqrt(Sigma(x, x) Sigma(x', x')).
            if not (torch.isfinite(k.var1).all() and torch.isfinite(k.var2).all()):
                raise OverflowError(
                    f"the kernel left the float64 range after layer {index} ({layer!r}); "
                    "lower sigma_w or the depth"
                )
        return k

    def build(self, in_shape, width, generator, dtype):
        modules = []
        for layer in self.layers:
            new, in_shape = layer.build(in_shape, width, generator, dtype)
            modules += new
        return modules, in_shape

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
    for before, layer in zip([None] + flat, flat):
        if layer.needs_preactivations and not (before is not None and before.produces_preactivations):
            raise ValueError(f"{layer!r} must come right after dense() or conv() (its kernel rule assumes "
                             f"zero-mean pre-activations), not after {before!r}")
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
