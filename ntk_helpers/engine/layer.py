"""One architecture description, two worlds: a finite torch network and its infinite-width kernel.

In the spirit of neural-tangents' ``stax`` (Novak et al. 2020, "Neural Tangents: Fast and Easy
Infinite Neural Networks in Python"), each layer knows

- ``transform(kernel)``: how its infinite-width limit maps the NNGP/NTK of its input, and
- ``build(in_shape, context)``: the finite torch modules it stands for,

and :func:`~ntk_helpers.serial` composes both. Everything uses the NTK parameterization with
neural-tangents' names: ``sigma_w`` is ``W_std``, ``sigma_b`` is ``b_std``.

Example::

    net = nh.mlp(depth=2, activation="relu")          # 2 x (dense -> relu), then dense(1)
    k = net.kernel(x1, x2)                             # k.nngp, k.ntk: (n1, n2) float64
    model = net.network(d, width=1024, seed=0)         # torch.nn.Module
    theta = nh.empirical_ntk(model, x1, x2)            # -> k.ntk as width -> infinity
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .._checks import DTYPE, check_int, check_pair, check_shape
from .blocks import blocked
from .kernel import Kernel


@dataclass(frozen=True)
class Build:
    """What a layer needs to build its torch modules.

    Attributes:
        width: the hidden width (channels for conv layers) of every layer whose ``out`` is None.
        generator: the seeded ``torch.Generator`` every weight is drawn from, in layer order.
        dtype: the parameters' dtype.
        wide_input: True when the incoming features scale with ``width`` (a hidden layer's input), False
            for the network's input or a fixed-size output; parameterizations other than NTK need it.
    """

    width: int
    generator: torch.Generator
    dtype: torch.dtype
    wide_input: bool = False


class Layer:
    """Base class: subclasses implement ``transform`` (kernel side) and ``build`` (network side)."""

    #: True for layers whose kernel rule assumes zero-mean Gaussian inputs (``layer_norm``).
    needs_gaussian_input = False
    #: True for layers whose outputs depend on the whole batch (``batch_norm`` with batch statistics).
    batch_coupled = False

    def transform(self, k: Kernel) -> Kernel:          # pragma: no cover - abstract
        raise NotImplementedError

    def build(self, in_shape: tuple[int, ...], context: Build) -> tuple[list[nn.Module], tuple[int, ...]]:
        """The torch modules for an input of shape ``in_shape`` (no batch axis), and their output shape."""
        raise NotImplementedError                      # pragma: no cover - abstract

    def gaussian_output(self, gaussian_input: bool) -> bool:
        """Whether the outputs are zero-mean Gaussian at initialization (infinite width) given whether the
        inputs are. Fresh weights (dense, conv) make them so; linear layers keep what they get."""
        return False

    def wide_output(self, wide_input: bool) -> bool:
        """Whether the output features scale with the width (see :class:`Build`)."""
        return wide_input

    # -- the two public entry points -------------------------------------------------------
    def kernel(self, x1, x2=None, *, block_size: int | None = None, progress: bool = False) -> Kernel:
        """Infinite-width NNGP and NTK of this architecture on ``x1`` and ``x2``.

        Inputs are vectors (n, d) or images (n, C, H, W); ``x2=None`` means ``x2 = x1``. Returns a
        :class:`~ntk_helpers.Kernel`; after a readout ``nngp`` and ``ntk`` are float64 (n1, n2) on the
        inputs' device. Image kernels carry pixel-pair tensors of size n1 * n2 * (H W)^2 until the
        readout: pass ``block_size`` to compute them ``block_size`` inputs at a time (bounded
        memory), and ``progress=True`` for a progress bar.
        """
        t1, t2 = check_pair(x1, x2, ndim=(2, 4))
        if block_size is None:
            return self.transform(Kernel.from_inputs(t1, t2))
        return blocked(self.transform, t1, t2, check_int("block_size", block_size, minimum=1), progress)

    def network(self, in_shape, *, width: int, seed: int = 0, dtype: torch.dtype = DTYPE,
                device: torch.device | str | None = None) -> "NTKSequential":
        """The finite network in the NTK parameterization, with every weight and bias ~ N(0, 1).

        Args:
            in_shape: the input shape without the batch axis: an int d or ``(d,)`` for vectors,
                ``(C, H, W)`` for images.
            width: the hidden width (channels for conv layers) of every layer whose ``out`` is None.
            seed: seeds a ``torch.Generator``; the same seed gives the same network on every device.
            dtype: parameter dtype (float64 by default, so that empirical and analytic kernels
                can be compared to 1e-10).
            device: where the parameters live (drawn on the CPU, then moved: same numbers everywhere).
        """
        shape = check_shape("in_shape", in_shape)
        width = check_int("width", width, minimum=1)
        seed = check_int("seed", seed, minimum=0)
        context = Build(width, torch.Generator().manual_seed(seed), dtype)
        modules, _ = self.build(shape, context)
        return NTKSequential(*modules).to(device)

    def __rshift__(self, other: "Layer") -> "Layer":
        """``a >> b`` is ``serial(a, b)``."""
        from .combinators import serial
        return serial(self, other)


class NTKSequential(nn.Sequential):
    """A network built by ``ntk_helpers``; ``empirical_ntk`` recognises it for its fast path."""


__all__ = ["Layer", "Build", "NTKSequential"]
