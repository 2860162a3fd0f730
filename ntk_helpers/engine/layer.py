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

from .._checks import DTYPE, check_device, check_int, check_shape
from . import rules
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
    """Base class: subclasses implement ``transform`` (kernel side) and ``build`` (network side), and may declare
    ``pair_rule()`` (the kernel rule as data, for the compiled paths).

    Two public methods come from the modules that depend on the layers, so that no layer module imports them
    (tests/test_imports.py): ``kernel(x1, x2=None, ...)`` from :mod:`.evaluation` (blocks, memory budget,
    progress, dtype and the choice between the eager rules and the compiled paths) and ``a >> b`` from
    :mod:`.combinators`; ``ntk_helpers.engine`` imports both, so every ``Layer`` has them.
    """

    #: True for layers whose kernel rule assumes zero-mean Gaussian inputs (``layer_norm``).
    needs_gaussian_input = False
    #: True for layers whose outputs depend on the whole batch (``batch_norm`` with batch statistics).
    batch_coupled = False
    #: True when the output's pixel pairs p = p' depend only on the input's pairs p = p' and ``transform``
    #: accepts a ``same_position`` kernel (conv, activations, normalization): see ``engine/planning.py``.
    keeps_same_position_pairs = False
    #: True for readouts that look at the pairs p = p' only (``flatten``).
    reads_same_position_pairs = False

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

    def output_space(self, space: tuple[int, ...]) -> tuple[int, ...]:
        """The image size (H, W) after this layer for an input of size ``space`` (() for vectors)."""
        return space

    def sequence(self) -> list["Layer"]:
        """The layers applied one after another (``serial``'s layers; itself for any other layer)."""
        return [self]

    def leaves(self) -> list["Layer"]:
        """Every layer this one is made of, in order, residual branches included (itself for a plain layer)."""
        return [self]

    def pair_rule(self) -> rules.Rule:
        """This layer's kernel rule for one pair of inputs as primitives (:mod:`.rules`) that the compiled paths
        assemble into one fused function; :class:`~ntk_helpers.engine.rules.Unsupported` (the eager path only)
        unless a subclass declares one. It must say what ``transform`` does (tests/test_compiled.py)."""
        return rules.Unsupported(f"{self!r} declares no compiled rule")

    # -- the finite network (the kernel: ``kernel()``, from :mod:`.evaluation`) -----------------
    def network(self, in_shape, *, width: int, seed: int = 0, dtype: torch.dtype = DTYPE,
                device: torch.device | str | None = None) -> "NTKSequential":
        """The finite network, with every weight and bias ~ N(0, 1) and the layers' multipliers (NTK
        parameterization unless ``dense``/``mlp`` say otherwise).

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
        device = check_device("device", device)
        context = Build(width, torch.Generator().manual_seed(seed), dtype)
        modules, _ = self.build(shape, context)
        return NTKSequential(*modules, in_shape=shape).to(device)


class WeightLayer(Layer):
    """A layer with fresh N(0, 1) weights (dense, conv): its outputs are zero-mean Gaussian at initialization
    whatever its inputs, and they are ``width`` wide when its ``out`` is None."""

    out: int | None

    def gaussian_output(self, gaussian_input: bool) -> bool:
        return True

    def wide_output(self, wide_input: bool) -> bool:
        return self.out is None


class NTKSequential(nn.Sequential):
    """A network built by ``ntk_helpers``; ``empirical_ntk`` recognises it for its fast path and checks
    inputs against ``in_shape``, the input shape it was built for (no batch axis)."""

    def __init__(self, *modules, in_shape: tuple[int, ...] | None = None):
        super().__init__(*modules)
        self.in_shape = None if in_shape is None else tuple(in_shape)     # None for a slice such as model[:2]


__all__ = ["Layer", "WeightLayer", "Build", "NTKSequential"]
