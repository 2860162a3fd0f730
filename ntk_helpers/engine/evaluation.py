"""Evaluating an architecture's kernel on inputs: the one place that decides how (``Layer.kernel``).

**The design.** A layer says *what* its infinite-width limit does, twice and nothing more: ``transform(kernel)``
(torch operations on tensors of pairs, the reference) and ``pair_rule()`` (the same rule for one pair of inputs as
primitives, :mod:`.rules`). *How* a kernel is computed lives here, in :func:`kernel`:

- the checks of the inputs and of the options (``block_size``, ``progress``, ``memory_budget``, ``pair_dtype``,
  ``compiled``), with the error messages the lessons rely on;
- the choice of backend: the compiled paths (:mod:`.compiled`: numba, one fused function assembled from the
  layers' pair rules, float64 on the CPU) when they cover the architecture and the inputs, else the eager path;
- the eager path's plan: same-position pairs before a ``flatten()`` readout (:mod:`.planning`), blocks of inputs
  whose pixel-pair tensors fit the memory budget (:func:`choose_block`; :class:`MemoryBudgetError` names the layer
  that needs more), the blocks themselves (:func:`blocked`, Gram matrices upper blocks only), the progress bar,
  float32 pair tensors, and glibc's heap kept for reuse during the call (:func:`heap_reuse`).

Dependencies go one way: this module imports the layer base class (to give it its ``kernel`` method) and the
backend; no layer module imports this module or the backend, and the backend imports no layer module (it reads
the rules): tests/test_imports.py walks every import statement and fails on any cycle. ``Layer.kernel`` is
:func:`kernel` itself, attached to the class at the end of this module (``net.kernel(x)`` is
``evaluation.kernel(net, x)``); ``ntk_helpers.engine`` imports this module, and Python imports a package before
any of its modules, so every layer has the method whichever module it was imported from.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import torch

from .._checks import check_int, check_pair
from . import planning
from .kernel import Kernel, MemoryBudgetError
from .layer import Layer

#: Default ``memory_budget`` of ``Layer.kernel`` in bytes (1 GiB): working memory of one block of pair
#: tensors, their temporaries included, plus the returned kernel.
DEFAULT_MEMORY_BUDGET = 2 ** 30

#: Pair tensors alive at once at the peak of a layer's kernel rule (its input's NNGP and NTK, its outputs and
#: the temporaries of the activation's dual or of the two separable convolution passes), measured with
#: ``benchmarks/bench_cnn_kernel.py`` (peak RSS) and rounded up.
LIVE_PAIR_TENSORS = 6

#: Kernels use blocks whose pair tensors stay under this size: glibc serves allocations below its mmap
#: threshold (32 MiB at most) from the heap and recycles them block after block (see :func:`heap_reuse`), while
#: larger ones are mapped afresh and page-faulted in for every temporary (measured, one thread: 100 images
#: 8x8, 3 conv + ReLU layers, blocks of 50 images (82 MB tensors) 32.6 s and 1.6 M page faults, blocks of 20
#: 16.5 s and 0.19 M; depth-3 ReLU MLP on n = 2048, one block (34 MB tensors) 254 k faults per call).
#: Smaller blocks also stay in the CPU caches between a layer's passes (2 threads, same CNN: 16 / 8 / 4 MiB
#: tensors: flatten on 400 images 8x8 0.42 / 0.33 / 0.26 s, pooled on 100 images 8x8 1.70 / 1.24 / 1.12 s,
#: pooled on 40 images 16x16 4.3 / 4.0 / 4.5 s): 8 MiB.
HEAP_FRIENDLY_BYTES = 8 * 2 ** 20


def kernel(layer: Layer, x1, x2=None, *, block_size: int | None = None, progress: bool = False,
           memory_budget: float | None = None, pair_dtype: torch.dtype | None = None,
           compiled: bool | None = None) -> Kernel:
    """Infinite-width NNGP and NTK of this architecture on ``x1`` and ``x2``.

    Inputs are vectors (n, d) or images (n, C, H, W); ``x2=None`` means ``x2 = x1``. Returns a
    :class:`~ntk_helpers.Kernel`; after a readout ``nngp`` and ``ntk`` are float64 (n1, n2) on the
    inputs' device. Image kernels carry pixel-pair tensors of n1 * n2 * (H W)^2 entries until the
    readout (n1 * n2 * H W before a ``flatten()`` readout, which needs only same-position pairs), so
    they are computed a block of inputs at a time: ``block_size`` inputs per block if given, otherwise
    the largest blocks whose tensors fit ``memory_budget`` bytes (default
    :data:`~ntk_helpers.engine.evaluation.DEFAULT_MEMORY_BUDGET`, 1 GiB). When even one pair of inputs
    needs more than the budget, :class:`~ntk_helpers.engine.evaluation.MemoryBudgetError` says which
    layer needs how much. ``progress=True`` shows a progress bar over the blocks.

    ``pair_dtype=torch.float32`` holds the pair tensors in float32 (half the memory, about twice as fast)
    while the readouts (``flatten``, ``global_avg_pool``) accumulate in float64 and everything after them
    is float64. Measured by ``benchmarks/bench_cnn_kernel.py`` (largest NTK error relative to the largest
    entry): 3e-8 for 3 conv + ReLU layers with global average pooling, 2e-7 for a depth-3 ReLU MLP,
    instead of 1e-15; rounding errors grow with depth. The returned kernel is always float64.

    Float64 CPU inputs take a compiled path (:mod:`~ntk_helpers.engine.compiled`, assembled from the layers'
    pair rules) where it covers the architecture: CNNs of closed-form layers read out by ``global_avg_pool()`` or
    ``flatten()`` (``conv`` with any stride, dilation and padding; activations with a closed-form dual: ReLU, leaky
    ReLU, erf, GELU, identity, or any registered one with a ``scalar_dual``; ``avg_pool``, ``layer_norm``,
    ``batch_norm(frozen=True)``, residual blocks: one pair of images at a time, every layer fused, in the cache;
    its working memory is a few pixel-pair buffers per thread, checked against ``memory_budget``), and MLPs
    (``dense`` in NTK parameterization, each followed by at most one such activation) on vectors; the layers after
    the readout take their eager rules. Activations without a closed form (``tanh``, ``elementwise``) and layers
    without a kernel rule as data take the eager path. ``block_size`` (blocks of the eager path),
    ``pair_dtype=torch.float32`` or ``compiled=False`` choose the eager path; ``compiled=True`` raises
    ``ValueError`` saying why when the compiled path cannot compute this kernel.
    """
    t1, t2 = check_pair(x1, x2, ndim=(2, 4))
    if pair_dtype is not None:
        if pair_dtype not in (torch.float32, torch.float64):
            raise ValueError(f"pair_dtype must be torch.float32 or torch.float64, got {pair_dtype!r}")
        t1, t2 = t1.to(pair_dtype), (None if t2 is None else t2.to(pair_dtype))
    if compiled not in (None, True, False):
        raise TypeError(f"compiled must be None (use the compiled path where it applies), True or False, "
                        f"got {compiled!r}")
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else memory_budget
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
        raise ValueError(f"memory_budget must be a positive number of bytes, got {memory_budget!r}")
    if compiled is not False:
        k, why_not = _compiled_kernel(layer, t1, t2, block_size, progress, float(budget))
        if k is not None:
            return k
        if compiled:
            raise ValueError(f"compiled=True, but the compiled path cannot compute this kernel: {why_not}")
    return _eager_kernel(layer, t1, t2, block_size, progress, float(budget))


# -- the backends ------------------------------------------------------------------------------------------

def _compiled_kernel(layer, t1, t2, block_size, progress, budget) -> tuple[Kernel | None, str]:
    """The kernel from the compiled path, or ``(None, why not)``."""
    from . import compiled as backend                   # numba loads on the first kernel, not on import
    sequence = layer.sequence()
    plan, why_not = backend.plan(layer, t1, t2)
    if block_size is not None:
        plan, why_not = None, "block_size= asks for the eager path's blocks"
    if plan is None:
        return None, why_not
    if isinstance(plan, backend.VectorPlan):
        k = backend.vector_kernel(plan, t1, t2)
    else:
        k = backend.pooled_kernel(plan, t1, t2, progress=progress, memory_budget=budget)
    for index in range(plan.stop, len(sequence)):       # what follows the readout: vectors, eager rules
        k = sequence[index].transform(k)
        _check_finite(k, index, sequence[index])
    return k, ""


def _eager_kernel(layer, t1, t2, block_size, progress, budget) -> Kernel:
    same_position = planning.same_position_start(layer.sequence()) == 0
    if block_size is None:
        block_size = choose_block(layer, t1, t2, budget)
    with heap_reuse():
        if block_size is None:
            k = layer.transform(Kernel.from_inputs(t1, t2, same_position=same_position))
        else:
            k = blocked(layer.transform, t1, t2, check_int("block_size", block_size, minimum=1), progress,
                        same_position=same_position)
    if k.nngp.dtype != torch.float64:
        k = k.replace(nngp=k.nngp.double(), ntk=k.ntk.double(), var1=k.var1.double(), var2=k.var2.double(),
                      ntk_is_zero=k.ntk_is_zero)
    return k


def _check_finite(k: Kernel, index: int, layer) -> None:
    # As serial()'s check: |Sigma(x, x')| <= sqrt(Sigma(x, x) Sigma(x', x')), so the self covariances suffice.
    if not (torch.isfinite(k.var1).all() and torch.isfinite(k.var2).all()):
        raise OverflowError(f"the kernel left the float64 range after layer {index} ({layer!r}); "
                            "lower sigma_w or the depth")


# -- memory: blocks from a budget ----------------------------------------------------------------------------

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
    start = planning.same_position_start(top)
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


# -- the eager path's blocks ---------------------------------------------------------------------------------

def blocked(transform, x1, x2, block: int, progress: bool, *, same_position: bool = False) -> Kernel:
    """Evaluate ``transform`` on blocks of inputs and assemble the full kernel (Gram: upper blocks only).

    Each block's result is written into the preallocated (n1, n2, ...) tensors; for a Gram matrix (x2 = x1) only
    the blocks on and above the diagonal are computed and the others mirrored. Freed blocks are not handed back to
    the operating system (:func:`heap_reuse`): the next block reuses the same heap memory."""
    x2_rows = x1 if x2 is None else x2
    n1, n2 = x1.shape[0], x2_rows.shape[0]
    starts1, starts2 = range(0, n1, block), range(0, n2, block)
    jobs = [(i, j) for i in starts1 for j in starts2 if x2 is not None or j >= i]
    if progress:
        from tqdm.auto import tqdm
        jobs = tqdm(jobs, desc="kernel blocks")
    out = {}
    var1, var2 = {}, {}
    for i, j in jobs:
        a = x1[i:i + block]
        gram_block = x2 is None and i == j
        inputs = (Kernel.from_inputs(a, same_position=same_position) if gram_block else
                  Kernel.from_inputs(a, x2_rows[j:j + block], same_position=same_position))
        k = transform(inputs)
        del inputs
        if not out:
            tail = tuple(k.nngp.shape[2:])
            out = {name: torch.empty((n1, n2, *tail), dtype=k.nngp.dtype, device=k.nngp.device)
                   for name in ("nngp", "ntk")}
            template = k
        for name in ("nngp", "ntk"):
            t = getattr(k, name)
            out[name][i:i + t.shape[0], j:j + t.shape[1]] = t
            if x2 is None and i != j:
                out[name][j:j + t.shape[1], i:i + t.shape[0]] = _swap(t)
        var1.setdefault(i, k.var1)
        var2.setdefault(j, k.var2)
        del k
    var1 = torch.cat([var1[i] for i in starts1])
    var2 = var1 if x2 is None else torch.cat([var2[j] for j in starts2])
    return Kernel(nngp=out["nngp"], ntk=out["ntk"], var1=var1, var2=var2, is_gram=x2 is None,
                  same_position=template.same_position)


def _swap(t: torch.Tensor) -> torch.Tensor:
    """Exchange the roles of x1 and x2 in a cross tensor (n1, n2, *space, *space)."""
    space = (t.ndim - 2) // 2
    return t.permute(1, 0, *range(2 + space, 2 + 2 * space), *range(2, 2 + space))


# -- glibc's heap during a computation ------------------------------------------------------------------------
#
# Image kernels allocate and free tensors of a few MB many times per block. glibc serves them from its heap, but by
# default it hands the top of the heap back to the OS as soon as more than a few MB are free, and maps allocations
# above a moving threshold afresh with ``mmap``: the next tensor of the same size then page-faults its memory in
# again (zero-filled by the kernel), which cost more than the arithmetic (MLP kernel, n = 2048: 254 k page faults
# and 1.3 s per call). :func:`heap_reuse` raises glibc's trim threshold for the duration of a kernel computation
# and fixes the mmap threshold at its largest value (32 MiB), so freed tensors are reused, and gives the free
# memory back once at the end (``malloc_trim``), not after every block. A no-op without glibc.

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 * 2 ** 20           # glibc's largest allowed value (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD      # what glibc's own dynamic rule settles on
_heap_depth = 0


def _load_libc():
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _load_libc()


@contextlib.contextmanager
def heap_reuse():
    """Inside the block freed heap memory stays in the process; on leaving, it is trimmed once."""
    global _heap_depth
    if _LIBC is None:
        yield
        return
    if _heap_depth == 0:
        _LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        _LIBC.mallopt(_M_TRIM_THRESHOLD, 2 ** 31 - 1)
    _heap_depth += 1
    try:
        yield
    finally:
        _heap_depth -= 1
        if _heap_depth == 0:
            _LIBC.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
            _LIBC.malloc_trim(0)


# ``net.kernel(x1, x2, ...)`` is ``kernel(net, x1, x2, ...)`` for every layer (see the module docstring).
Layer.kernel = kernel

__all__ = ["kernel", "DEFAULT_MEMORY_BUDGET", "MemoryBudgetError", "choose_block", "pair_cost", "PairCost",
           "blocked", "heap_reuse", "LIVE_PAIR_TENSORS", "HEAP_FRIENDLY_BYTES"]
