"""Pooled CNN kernels, compiled: every pixel pair of one pair of images, all layers fused, in the CPU cache.

See the package docstring (:mod:`ntk_helpers.engine.compiled`) for the scheme. :func:`pooled_kernel` runs a
:class:`~.plans.Plan` (the fast path below: one filter size, stride 1, zero "same" padding) or a
:class:`~.plans.Program` (any other closed-form layers: :mod:`.programs`) on the pairs of images."""

from __future__ import annotations

import functools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch

from ..kernel import Kernel, MemoryBudgetError
from ._numba import njit, numba
from .angle import _angle
from .checks import check_finite
from .plans import PIECEWISE, Plan, Program
from .programs import run_program


def pooled_kernel(p: Plan | Program, x1: torch.Tensor, x2: torch.Tensor | None, *, progress: bool = False,
                  memory_budget: float) -> Kernel:
    """NNGP and NTK after the readout (``global_avg_pool()``, or ``flatten()`` for a :class:`~.plans.Program`),
    float64 (n1, n2) (the layers after it are the evaluation's).

    Raises :class:`~ntk_helpers.engine.kernel.MemoryBudgetError` when the result and one thread's buffers
    need more than ``memory_budget`` bytes; uses fewer threads when not all of them fit."""
    gram = x2 is None
    a1 = _as_array(x1)                                              # (n1, C, H W)
    a2 = a1 if gram else _as_array(x2)
    height, width = x1.shape[2:]
    layout = _layout(p, height, width)
    run = _runner(layout, _threads(layout, a1.shape[0], a2.shape[0], memory_budget))
    # 1. each input with itself: its variances Sigma_pp before every activation, and its pooled self kernel
    var1, self1 = _self_pairs(run, a1, layout)
    var2, self2 = (var1, self1) if gram else _self_pairs(run, a2, layout)
    check_finite(layout.slot_layers, var1, var2)
    check_finite((layout.last_weight,), *(np.stack(s)[None] for s in (self1, self2)))
    # 2. every pair (Gram: i < j; the diagonal is step 1's)
    n1, n2 = a1.shape[0], a2.shape[0]
    rows, cols = np.triu_indices(n1, 1) if gram else np.indices((n1, n2)).reshape(2, -1)
    nngp, ntk = np.zeros((n1, n2)), np.zeros((n1, n2))
    run(a1, a2, var1, var2, rows, cols, False, nngp, ntk, progress=progress)
    if gram:
        nngp += nngp.T
        ntk += ntk.T
        np.fill_diagonal(nngp, self1[0])
        np.fill_diagonal(ntk, self1[1])
    return Kernel(nngp=torch.from_numpy(nngp), ntk=torch.from_numpy(ntk), var1=torch.from_numpy(self1[0]),
                  var2=torch.from_numpy(self2[0]), is_gram=gram)


@dataclass(frozen=True)
class _Layout:
    """What a plan needs at run time: the compiled function and its constants, the variance slots (each of at
    most ``positions`` pixels) with the weight layer before each, and a thread's buffer entries."""

    function: object
    constants: tuple
    slots: int
    positions: int
    buffer_entries: int
    slot_layers: tuple
    last_weight: tuple
    buffers: int
    side: int


def _layout(p: Plan | Program, height: int, width: int) -> _Layout:
    if isinstance(p, Program):
        buffers = 4 + 2 * max(p.levels, 1)
        readout = (2 if p.end_diagonal else 1) if p.flatten_readout else 0
        constants = (p.code, p.values, p.src, p.valid, p.shift, p.pad, p.duals, p.size, p.levels, p.start_diagonal,
                     readout)
        return _Layout(run_program, constants, p.slots, p.positions, buffers * p.size + 8 * p.pad, p.slot_layers,
                       p.last_weight, buffers, math.isqrt(p.size))
    (kh, kw), positions = p.kernel_size, height * width
    margins = 2 * ((kh - 1) * width + (kw - 1)) * (positions + 1)          # zero margins of the four buffers
    constants = (height, width, p.pads[0], p.pads[1], p.sigma_w2, p.sigma_b2, p.kind, p.jump, p.mean_slope_sq,
                 p.dual_index, p.duals)
    return _Layout(_pairs_function(kh, kw), constants, len(p.sigma_w2), positions, 4 * (positions ** 2 + margins),
                   p.weights, p.weights[-1], 4, positions)


def _threads(layout: _Layout, n1: int, n2: int, budget: float) -> int:
    """How many threads fit ``budget`` bytes next to the result (at most torch's thread count); raises
    MemoryBudgetError when not even one does."""
    result = 8 * (2 * n1 * n2 + 2 * (n1 + n2) + layout.slots * (n1 + n2) * layout.positions)
    per_thread = 8 * layout.buffer_entries
    fit = int((budget - result) // per_thread)
    if fit < 1:
        gb = lambda v: f"{v / 2 ** 30:.3g} GiB"
        raise MemoryBudgetError(
            f"this kernel needs more than memory_budget={gb(budget)}: the compiled path holds {layout.buffers} "
            f"pixel-pair buffers of {layout.side} x {layout.side} entries (the conv layers' (p, p') pairs of one pair "
            f"of images, {gb(per_thread)} per thread) and the result takes {gb(result)}. Pass a larger "
            "memory_budget= (in bytes) to kernel() or use smaller images")
    return max(1, min(torch.get_num_threads(), fit))


def _as_array(x: torch.Tensor) -> np.ndarray:
    return np.ascontiguousarray(x.detach().reshape(x.shape[0], x.shape[1], -1).numpy())


def _self_pairs(run, a: np.ndarray, layout: _Layout):
    n = a.shape[0]
    var = np.zeros((layout.slots, n, layout.positions))
    nngp, ntk = np.zeros((n, 1)), np.zeros((n, 1))                # self pairs write column 0
    index = np.arange(n)
    run(a, a, var, var, index, index, True, nngp, ntk)
    return var, (nngp[:, 0].copy(), ntk[:, 0].copy())


def _runner(layout: _Layout, threads: int):
    """``run(a1, a2, var1, var2, rows, cols, self_pairs, nngp, ntk)``: the pairs (rows[k], cols[k]) on
    ``threads`` threads (numba releases the GIL), in pieces that each thread takes when it is free, so that a
    thread slowed down by other programs on its core does fewer of them."""
    fn, constants = layout.function, layout.constants

    def run(a1, a2, var1, var2, rows, cols, self_pairs, nngp, ntk, progress=False):
        rows, cols = np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(cols, dtype=np.int64)
        workers = max(1, min(threads, len(rows)))
        pieces = np.array_split(np.arange(len(rows)), min(len(rows), 16 * workers) or 1)
        call = lambda c: fn(a1, a2, var1, var2, rows[c], cols[c], *constants, self_pairs, nngp, ntk)
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=len(rows), desc="kernel pairs")
        with ThreadPoolExecutor(workers) as pool:
            for piece, _ in zip(pieces, pool.map(call, pieces)):
                if bar is not None:
                    bar.update(len(piece))
        if bar is not None:
            bar.close()

    return run


@functools.lru_cache(maxsize=None)
def _pairs_function(kh: int, kw: int):
    """The compiled function for filters of kh x kw taps (constants, so the tap loops unroll)."""

    @njit(nogil=True, error_model="numpy")
    def pairs(x1, x2, var1, var2, rows, cols, height, width, top, left, sigma_w2, sigma_b2, kind, jump, mean_slope_sq,
              dual_index, duals, self_pairs, out_nngp, out_ntk):
        # x1 (n1, C, P), var1 (L, n1, P); P = height * width; buffers (P, P) flat with a zero margin on both
        # sides, so that shifted reads need no bounds checks (the masks zero what padding would). Indices into
        # the buffers are unsigned (np.uintp): numba then skips its negative-index wraparound, which otherwise
        # costs about 40 % of the time in these loops.
        channels, P, steps = x1.shape[1], height * width, sigma_w2.shape[0]
        PP = P * P
        margin = ((kh - 1) * width + (kw - 1)) * (P + 1)
        F, G = np.zeros(PP + 2 * margin), np.zeros(PP + 2 * margin)
        A, B = np.zeros(PP + 2 * margin), np.zeros(PP + 2 * margin)
        x_mask, y_mask = np.zeros((width, kw, P)), np.zeros((height, kh, P))
        col_f, col_g = np.zeros(P), np.zeros(P)
        for x in range(width):                    # 1 where both x + dx and x' + dx lie in the image
            for a in range(kw):
                if 0 <= x + a - left < width:
                    for q in range(P):
                        if 0 <= q % width + a - left < width:
                            x_mask[x, a, q] = 1.0
        for y in range(height):
            for a in range(kh):
                if 0 <= y + a - top < height:
                    for q in range(P):
                        if 0 <= q // width + a - top < height:
                            y_mask[y, a, q] = 1.0
        for job in range(rows.shape[0]):
            i, j = rows[job], cols[job]
            for p in range(P):                   # F = x_i^T x_j / C, G = 0
                o = margin + p * P
                for q in range(P):
                    F[o + q] = 0.0
                    G[o + q] = 0.0
            for c in range(channels):
                for p in range(P):
                    u = x1[i, c, p] / channels
                    o = margin + p * P
                    for q in range(P):
                        F[np.uintp(o + q)] += u * x2[j, c, q]
            for step in range(steps):
                w2, b2 = sigma_w2[step] / (kh * kw), sigma_b2[step]
                jmp, slope = jump[step], mean_slope_sq[step]
                for p in range(P):               # pass along x: A, B = sum_dx F, G at (p + dx, p' + dx)
                    o = margin + p * P
                    x = p % width
                    for q in range(P):
                        sa = 0.0
                        sb = 0.0
                        for a in range(kw):
                            s = np.uintp(o + q + (a - left) * (P + 1))
                            m = x_mask[x, a, q]
                            sa += m * F[s]
                            sb += m * G[s]
                        A[np.uintp(o + q)] = sa
                        B[np.uintp(o + q)] = sb
                if self_pairs:                   # the variances: the same sums at p' = p
                    for p in range(P):
                        o = margin + p * P
                        sa = 0.0
                        for a in range(kh):
                            sa += y_mask[p // width, a, p] * A[o + p + (a - top) * width * (P + 1)]
                        var1[step, i, p] = w2 * sa + b2
                for p in range(P):               # pass along y, then the activation: F, G = E, Edot * Theta
                    o = margin + p * P
                    y = p // width
                    v1 = var1[step, i, p]
                    if kind[step] != PIECEWISE:  # Sigma, Theta into the row, then the compiled dual on it
                        for q in range(P):
                            sa = 0.0
                            sb = 0.0
                            for a in range(kh):
                                s = np.uintp(o + q + (a - top) * width * (P + 1))
                                m = y_mask[y, a, q]
                                sa += m * A[s]
                                sb += m * B[s]
                            cov = w2 * sa + b2
                            F[np.uintp(o + q)] = cov
                            G[np.uintp(o + q)] = cov + w2 * sb
                        duals[dual_index[step]](F[o:o + P], G[o:o + P], v1, var2[step, j])
                        continue
                    for q in range(P):
                        sa = 0.0
                        sb = 0.0
                        for a in range(kh):
                            s = np.uintp(o + q + (a - top) * width * (P + 1))
                            m = y_mask[y, a, q]
                            sa += m * A[s]
                            sb += m * B[s]
                        cov = w2 * sa + b2
                        theta_in = cov + w2 * sb
                        prod = v1 * var2[step, j, q]
                        d = prod - cov * cov
                        r = math.sqrt(d if d > 0.0 else 0.0)
                        # a unit with zero variance has no direction: pi/2, as neural-tangents
                        t = _angle(r, cov)
                        t = t if prod != 0.0 else math.pi / 2
                        e_dot = slope - jmp * t
                        F[np.uintp(o + q)] = jmp * r + e_dot * cov
                        G[np.uintp(o + q)] = e_dot * theta_in
            for q in range(P):                   # the readout: column sums (vectorized), then their sum
                col_f[q] = 0.0
                col_g[q] = 0.0
            for p in range(P):
                o = margin + p * P
                for q in range(P):
                    col_f[q] += F[np.uintp(o + q)]
                    col_g[q] += G[np.uintp(o + q)]
            sf = 0.0
            sg = 0.0
            for q in range(P):
                sf += col_f[q]
                sg += col_g[q]
            column = 0 if self_pairs else j
            out_nngp[i, column] = sf / PP
            out_ntk[i, column] = sg / PP

    return pairs
