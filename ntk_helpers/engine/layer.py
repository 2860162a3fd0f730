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

from .._checks import DTYPE, check_device, check_int, check_pair, check_shape
from . import planning
from .blocks import blocked
from .memory import heap_reuse
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

    # -- the two public entry points -------------------------------------------------------
    def kernel(self, x1, x2=None, *, block_size: int | None = None, progress: bool = False,
               memory_budget: float | None = None, pair_dtype: torch.dtype | None = None,
               compiled: bool | None = None) -> Kernel:
        """Infinite-width NNGP and NTK of this architecture on ``x1`` and ``x2``.

        Inputs are vectors (n, d) or images (n, C, H, W); ``x2=None`` means ``x2 = x1``. Returns a
        :class:`~ntk_helpers.Kernel`; after a readout ``nngp`` and ``ntk`` are float64 (n1, n2) on the
        inputs' device. Image kernels carry pixel-pair tensors of n1 * n2 * (H W)^2 entries until the
        readout (n1 * n2 * H W before a ``flatten()`` readout, which needs only same-position pairs), so
        they are computed a block of inputs at a time: ``block_size`` inputs per block if given, otherwise
        the largest blocks whose tensors fit ``memory_budget`` bytes (default
        :data:`~ntk_helpers.engine.planning.DEFAULT_MEMORY_BUDGET`, 1 GiB). When even one pair of inputs
        needs more than the budget, :class:`~ntk_helpers.engine.planning.MemoryBudgetError` says which
        layer needs how much. ``progress=True`` shows a progress bar over the blocks.

        ``pair_dtype=torch.float32`` holds the pair tensors in float32 (half the memory, about twice as fast)
        while the readouts (``flatten``, ``global_avg_pool``) accumulate in float64 and everything after them
        is float64. Measured by ``benchmarks/bench_cnn_kernel.py`` (largest NTK error relative to the largest
        entry): 3e-8 for 3 conv + ReLU layers with global average pooling, 2e-7 for a depth-3 ReLU MLP,
        instead of 1e-15; rounding errors grow with depth. The returned kernel is always float64.

        Pooled CNNs (``conv`` with stride 1 and padding "same", each followed by ``relu``, ``leaky_relu`` or
        ``identity``, then ``global_avg_pool()``) on float64 CPU images take a compiled path
        (:mod:`~ntk_helpers.engine.compiled`: one pair of images at a time, every layer fused, in the cache;
        its working memory is a few pixel-pair buffers per thread, checked against ``memory_budget``), and so
        do MLPs (``dense`` in NTK parameterization, each followed by one of those activations) on vectors.
        ``block_size`` (blocks of the eager path), ``pair_dtype=torch.float32`` or ``compiled=False`` choose
        the eager path; ``compiled=True`` raises ``ValueError`` saying why when the compiled path cannot
        compute this kernel.
        """
        t1, t2 = check_pair(x1, x2, ndim=(2, 4))
        if pair_dtype is not None:
            if pair_dtype not in (torch.float32, torch.float64):
                raise ValueError(f"pair_dtype must be torch.float32 or torch.float64, got {pair_dtype!r}")
            t1, t2 = t1.to(pair_dtype), (None if t2 is None else t2.to(pair_dtype))
        if compiled not in (None, True, False):
            raise TypeError(f"compiled must be None (use the compiled path where it applies), True or False, "
                            f"got {compiled!r}")
        budget = planning.DEFAULT_MEMORY_BUDGET if memory_budget is None else memory_budget
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
            raise ValueError(f"memory_budget must be a positive number of bytes, got {memory_budget!r}")
        if compiled is not False:
            from . import compiled as compiled_path
            plan, why_not = compiled_path.plan(self, t1, t2)
            if block_size is not None:
                plan, why_not = None, "block_size= asks for the eager path's blocks"
            if isinstance(plan, compiled_path.VectorPlan):
                return compiled_path.vector_kernel(plan, t1, t2)
            if plan is not None:
                return compiled_path.pooled_kernel(plan, t1, t2, progress=progress, memory_budget=float(budget))
            if compiled:
                raise ValueError(f"compiled=True, but the compiled path cannot compute this kernel: {why_not}")
        same_position = planning.starts_same_position(self)
        if block_size is None:
            block_size = planning.choose_block(self, t1, t2, float(budget))
        with heap_reuse():
            if block_size is None:
                k = self.transform(Kernel.from_inputs(t1, t2, same_position=same_position))
            else:
                k = blocked(self.transform, t1, t2, check_int("block_size", block_size, minimum=1), progress,
                            same_position=same_position)
        if k.nngp.dtype != torch.float64:
            k = k.replace(nngp=k.nngp.double(), ntk=k.ntk.double(), var1=k.var1.double(), var2=k.var2.double(),
                          ntk_is_zero=k.ntk_is_zero)
        return k

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

    def __rshift__(self, other: "Layer") -> "Layer":
        """``a >> b`` is ``serial(a, b)``."""
        from .combinators import serial
        return serial(self, other)


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
