"""Planning a kernel computation before it runs: which pixel pairs to propagate, and how many inputs at a time.

- **Same-position pairs.** A ``flatten()`` readout averages the pairs p = p' only. Convolutions (both
  positions move by the same offset, for any stride, dilation and padding), elementwise activations and
  normalization (layer norm, frozen batch norm) compute their output's pairs p = p' from their input's
  pairs p = p' alone. So in a run of such layers that ends in ``flatten()`` a kernel needs only the
  (n1, n2, H, W) diagonal, not the (n1, n2, H, W, H, W) pair tensors. Each layer says whether it
  ``keeps_same_position_pairs`` (and its ``transform`` then accepts such a kernel) and whether it
  ``reads_same_position_pairs``; :func:`same_position_start` finds where the run begins, and ``serial``
  switches to ``Kernel.same_position`` there.
- **Memory.** Image kernels hold pair tensors of n1 * n2 * (H W)^2 entries until the readout.
  :func:`choose_block` picks the largest block of inputs whose pair tensors fit a memory budget
  (``Layer.kernel(memory_budget=...)``, default :data:`DEFAULT_MEMORY_BUDGET`), and raises
  :class:`MemoryBudgetError` naming the budget and the layer that needs more when even one pair of
  inputs does not fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


#: Default ``memory_budget`` of ``Layer.kernel`` in bytes (1 GiB): working memory of one block of pair
#: tensors, their temporaries included, plus the returned kernel.
DEFAULT_MEMORY_BUDGET = 2 ** 30

#: Pair tensors alive at once at the peak of a layer's kernel rule (its input's NNGP and NTK, its outputs and
#: the temporaries of the activation's dual or of the two separable convolution passes), measured with
#: ``benchmarks/bench_cnn_kernel.py`` (peak RSS) and rounded up.
LIVE_PAIR_TENSORS = 6


#: Kernels use blocks whose pair tensors stay under this size: glibc serves allocations below its mmap
#: threshold (32 MiB at most) from the heap and recycles them block after block (see :mod:`.memory`), while
#: larger ones are mapped afresh and page-faulted in for every temporary (measured, one thread: 100 images
#: 8x8, 3 conv + ReLU layers, blocks of 50 images (82 MB tensors) 32.6 s and 1.6 M page faults, blocks of 20
#: 16.5 s and 0.19 M; depth-3 ReLU MLP on n = 2048, one block (34 MB tensors) 254 k faults per call).
#: Smaller blocks also stay in the CPU caches between a layer's passes (2 threads, same CNN: 16 / 8 / 4 MiB
#: tensors: flatten on 400 images 8x8 0.42 / 0.33 / 0.26 s, pooled on 100 images 8x8 1.70 / 1.24 / 1.12 s,
#: pooled on 40 images 16x16 4.3 / 4.0 / 4.5 s): 8 MiB.
HEAP_FRIENDLY_BYTES = 8 * 2 ** 20


class MemoryBudgetError(MemoryError):
    """Even the smallest block of a kernel computation needs more memory than ``memory_budget``."""


def same_position_start(layers) -> int | None:
    """Index of the first layer of the run that ends in the first readout of same-position pairs
    (``flatten()``) and keeps them (the kernel switches to ``same_position`` before it), or None without one."""
    layers = list(layers)
    end = next((i for i, layer in enumerate(layers) if layer.reads_same_position_pairs), None)
    if end is None:
        return None
    start = end
    while start > 0 and layers[start - 1].keeps_same_position_pairs:
        start -= 1
    return start


def starts_same_position(layer) -> bool:
    """Whether ``layer.kernel(x)`` can build its input kernel with the same-position pairs only."""
    return same_position_start(layer.sequence()) == 0


# -- memory --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PairCost:
    """The largest pair tensor of a computation: ``entries`` per pair of inputs, at ``layer``; ``out_entries``
    per pair of inputs in the result."""

    entries: int
    layer: str
    out_entries: int


def pair_cost(layer, space: tuple[int, ...]) -> PairCost:
    """Entries per pair of inputs of the largest pair tensor, following the image size through the layers
    (residual branches included: they keep the image size)."""
    leaves = layer.leaves()
    top = layer.sequence()
    start = same_position_start(top)
    switch = top[start] if start is not None else None
    same = start == 0 and bool(space)
    size = lambda: math.prod(space) if same else math.prod(space) ** 2
    best, where = size(), "the input"
    for leaf in leaves:
        if leaf is switch:
            same = bool(space)
        space = leaf.output_space(space)
        if not space:
            same = False
        if size() > best:
            best, where = size(), repr(leaf)
    return PairCost(best, where, size())


def choose_block(layer, x1, x2, budget: float) -> int | None:
    """The block size (inputs per block) for ``layer.kernel(x1, x2)`` within ``budget`` bytes, or None when
    the whole kernel fits at once. Raises :class:`MemoryBudgetError` when even one pair of inputs does not."""
    n1 = x1.shape[0]
    n2 = n1 if x2 is None else x2.shape[0]
    space = tuple(x1.shape[2:])
    cost = pair_cost(layer, space)
    item = x1.element_size()
    result = 2 * n1 * n2 * cost.out_entries * item                        # nngp and ntk of the answer

    def working(b1: int, b2: int) -> float:
        # cross pair tensors of a block, plus each side's self tensors
        return LIVE_PAIR_TENSORS * item * cost.entries * (b1 * b2 + b1 + b2)

    heap_b = max(n1, n2)                                                   # (GPU memory is cached by torch)
    if x1.device.type == "cpu":
        heap_b = max(1, math.isqrt(HEAP_FRIENDLY_BYTES // (item * cost.entries)))
    if result + working(n1, n2) <= budget and n1 * n2 <= heap_b ** 2:
        return None
    if result + working(1, 1) > budget:
        gb = lambda v: f"{v / 2 ** 30:.3g} GiB"
        raise MemoryBudgetError(
            f"this kernel needs more than memory_budget={gb(budget)}: {cost.layer} holds pixel-pair tensors of "
            f"{cost.entries} entries per pair of inputs ({gb(working(1, 1))} of working memory for a single pair) "
            f"and the result takes {gb(result)}. Pass a larger memory_budget= (in bytes) to kernel(), use smaller "
            "images, or read out with flatten() (same-position pairs only) instead of global_avg_pool()")
    free = budget - result
    per_pair = LIVE_PAIR_TENSORS * item * cost.entries
    # largest b with b^2 + 2b <= free / per_pair
    b = int(math.isqrt(int(free // per_pair) + 1)) - 1
    b = max(1, min(b, heap_b, max(n1, n2)))
    blocks = math.ceil(max(n1, n2) / b)
    return math.ceil(max(n1, n2) / blocks)                                 # equal blocks, none larger than b


__all__ = ["DEFAULT_MEMORY_BUDGET", "MemoryBudgetError", "same_position_start",
           "starts_same_position", "choose_block", "pair_cost"]
