"""The compiled path for pooled CNN kernels: every pixel pair of one pair of images, fused, in the CPU cache.

A network of convolutions and piecewise-linear activations (ReLU, leaky ReLU, identity) read out by
``global_avg_pool()`` needs all (p, p') pixel pairs of every pair of inputs: n1 * n2 * (H W)^2 entries per
layer. The eager path (each layer's ``transform`` on blocks of pair tensors) makes about 25 passes over them
per layer through main memory. Here one compiled function (numba) takes one pair of images (x_i, x_j) at a
time and runs all of its layers on a (H W, H W) buffer that stays in the cache:

    F = x_i^T x_j / C,  G = 0                                     (the input "layer"; pixel pairs (p, p'))
    per conv + activation:
        A_{p,p'} = sum_dx F_{p+dx, p'+dx},  then  Sigma_{p,p'} = sigma_w^2 / (kh kw) sum_dy A_{p+dy W, p'+dy W}
        + sigma_b^2 (the shared-offset sum of lesson 03, split into a pass along x and a pass along y; the same
        for G into Theta), and in the same sweep the activation's dual: F = E(Sigma), G = Edot(Sigma) * Theta
    readout: mean of F and of G over all (p, p')                 -> NNGP and NTK of the pair (i, j)

The pairs (i, i) go first: their diagonals Sigma_{p,p}(x_i, x_i) are the variances every later pair needs,
computed by the very same arithmetic, so that sqrt(Sigma_pp Sigma_p'p' - Sigma_pp'^2) is exactly 0 where an
image meets itself. For a Gram matrix only the pairs i <= j are computed. The angle of the arc-cosine
kernel (Cho & Saul 2009) is atan2(r, Sigma) from a branch-free rational approximation (the coefficients of
Moshier's Cephes ``atan``, error below 5e-16), so that the loops vectorize.

The threads of ``torch.get_num_threads()`` share the pairs; results do not depend on the thread count.
``Layer.kernel`` takes this path by itself when :func:`plan` accepts the architecture and the inputs
(``compiled=False`` forces the eager path, ``compiled=True`` insists and says why it cannot). The first call
in a process compiles (a few seconds; numba caches the machine code on disk for later processes).
Measured by ``benchmarks/bench_cnn_kernel.py`` (README, "Speed").
"""

from __future__ import annotations

import functools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch

from .activation import Activation
from .conv import Conv
from .kernel import Kernel
from .planning import DEFAULT_MEMORY_BUDGET, MemoryBudgetError
from .pooling import GlobalAvgPoolLayer

try:                                                     # optional at run time: the eager path is the fallback
    import numba
except ImportError:                                      # pragma: no cover - numba is a dependency
    numba = None


# -- what the compiled path covers -------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """The layers before the readout as arrays for the compiled function, and what follows the readout.

    ``sigma_w2``, ``sigma_b2``: (L,) per convolution; ``jump``, ``mean_slope_sq``: (L,) the dual of the
    activation after it, phi = a min(x, 0) + b max(x, 0): E = jump * r + Edot * Sigma with
    Edot = mean_slope_sq - jump * angle, jump = (a - b)^2 / (2 pi), mean_slope_sq = (a^2 + b^2) / 2
    (a = b = 1, no activation: E = Sigma, Edot = 1)."""

    kernel_size: tuple[int, int]
    pads: tuple[int, int]                # (top, left) zero padding of every convolution
    sigma_w2: np.ndarray
    sigma_b2: np.ndarray
    jump: np.ndarray
    mean_slope_sq: np.ndarray
    layers: tuple                        # the layers before the readout (for error messages)
    rest: tuple                          # the layers after global_avg_pool()


def plan(layer, x1: torch.Tensor, x2: torch.Tensor | None) -> tuple[Plan | None, str]:
    """A :class:`Plan` when the compiled path computes ``layer.kernel(x1, x2)``, else ``(None, why not)``."""
    if numba is None:
        return None, "numba is not installed"
    if x1.ndim != 4:
        return None, "the inputs are not images (n, C, H, W)"
    if x1.device.type != "cpu" or (x2 is not None and x2.device.type != "cpu"):
        return None, "the inputs are not on the CPU"
    if x1.dtype != torch.float64:
        return None, "pair_dtype is not float64"
    sequence = layer.sequence()
    readout = next((i for i, l in enumerate(sequence) if isinstance(l, GlobalAvgPoolLayer)), None)
    if readout is None:
        return None, "the architecture has no global_avg_pool() readout at its top level"
    convs, activations = [], []                     # activations[k]: (a, b) of the one after convs[k]
    for l in sequence[:readout]:
        if isinstance(l, Conv):
            if l.stride != (1, 1) or l.dilation != (1, 1) or l.padding != "same":
                return None, f"{l!r}: only stride 1, dilation 1 and padding 'same'"
            if convs and l.kernel_size != convs[0].kernel_size:
                return None, "the convolutions have different kernel sizes"
            convs.append(l)
            activations.append(None)
        elif isinstance(l, Activation) and l.piecewise_linear is not None and activations \
                and activations[-1] is None:
            activations[-1] = l.piecewise_linear
        else:
            return None, (f"{l!r} before the readout: only conv(...) layers, each followed by at most one of "
                          "relu(), leaky_relu(), identity()")
    if not convs:
        return None, "no convolution before the readout"
    kh, kw = convs[0].kernel_size
    a, b = (np.array(v, dtype=np.float64) for v in zip(*[(1.0, 1.0) if ab is None else ab for ab in activations]))
    return Plan(kernel_size=(kh, kw), pads=((kh - 1) // 2, (kw - 1) // 2),
                sigma_w2=np.array([c.sigma_w ** 2 for c in convs]), sigma_b2=np.array([c.sigma_b ** 2 for c in convs]),
                jump=(a - b) ** 2 / (2 * math.pi), mean_slope_sq=(a * a + b * b) / 2,
                layers=tuple(sequence[:readout]), rest=tuple(sequence[readout + 1:])), ""


# -- the kernel ------------------------------------------------------------------------------------------

def pooled_kernel(p: Plan, x1: torch.Tensor, x2: torch.Tensor | None, progress: bool = False,
                  memory_budget: float = DEFAULT_MEMORY_BUDGET) -> Kernel:
    """NNGP and NTK after ``global_avg_pool()`` (then the layers after it), float64 (n1, n2).

    Raises :class:`~ntk_helpers.engine.planning.MemoryBudgetError` when the result and one thread's buffers
    need more than ``memory_budget`` bytes; uses fewer threads when not all of them fit."""
    gram = x2 is None
    a1 = _as_array(x1)                                              # (n1, C, H W)
    a2 = a1 if gram else _as_array(x2)
    height, width = x1.shape[2:]
    run = _runner(p, height, width, _threads(p, a1.shape[0], a2.shape[0], height, width, memory_budget))
    steps = len(p.sigma_w2)
    # 1. each input with itself: its variances Sigma_pp before every activation, and its pooled self kernel
    var1, self1 = _self_pairs(run, a1, steps)
    var2, self2 = (var1, self1) if gram else _self_pairs(run, a2, steps)
    _check_finite(p, var1, var2)
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
    k = Kernel(nngp=torch.from_numpy(nngp), ntk=torch.from_numpy(ntk), var1=torch.from_numpy(self1[0]),
               var2=torch.from_numpy(self2[0]), is_gram=gram)
    if p.rest:
        from .combinators import Serial
        k = Serial(p.rest).transform(k)
    return k


def _buffer_entries(p: Plan, height: int, width: int) -> int:
    """Entries of one of the four (H W, H W) buffers of a thread, with its zero margins."""
    (kh, kw), positions = p.kernel_size, height * width
    return positions ** 2 + 2 * ((kh - 1) * width + (kw - 1)) * (positions + 1)


def _threads(p: Plan, n1: int, n2: int, height: int, width: int, budget: float) -> int:
    """How many threads fit ``budget`` bytes next to the result (at most torch's thread count); raises
    MemoryBudgetError when not even one does."""
    result = 8 * (2 * n1 * n2 + 2 * (n1 + n2) + len(p.sigma_w2) * (n1 + n2) * height * width)
    per_thread = 8 * 4 * _buffer_entries(p, height, width)
    fit = int((budget - result) // per_thread)
    if fit < 1:
        gb = lambda v: f"{v / 2 ** 30:.3g} GiB"
        raise MemoryBudgetError(
            f"this kernel needs more than memory_budget={gb(budget)}: the compiled path holds four pixel-pair "
            f"buffers of {height * width} x {height * width} entries (the conv layers' (p, p') pairs of one pair "
            f"of images, {gb(per_thread)}) and the result takes {gb(result)}. Pass a larger memory_budget= "
            "(in bytes) to kernel() or use smaller images")
    return max(1, min(torch.get_num_threads(), fit))


def _as_array(x: torch.Tensor) -> np.ndarray:
    return np.ascontiguousarray(x.detach().reshape(x.shape[0], x.shape[1], -1).numpy())


def _self_pairs(run, a: np.ndarray, steps: int):
    n = a.shape[0]
    var = np.zeros((steps, n, a.shape[2]))
    nngp, ntk = np.zeros((n, 1)), np.zeros((n, 1))                # self pairs write column 0
    index = np.arange(n)
    run(a, a, var, var, index, index, True, nngp, ntk)
    return var, (nngp[:, 0].copy(), ntk[:, 0].copy())


def _check_finite(p: Plan, *variances) -> None:
    for var in variances:
        bad = ~np.isfinite(var).reshape(var.shape[0], -1).all(axis=1)
        if bad.any():
            step = int(np.argmax(bad))
            conv = [l for l in p.layers if isinstance(l, Conv)][step]
            index = next(i for i, l in enumerate(p.layers) if l is conv)
            raise OverflowError(f"the kernel left the float64 range after layer {index} ({conv!r}); "
                                "lower sigma_w or the depth")


def _runner(p: Plan, height: int, width: int, threads: int):
    """``run(a1, a2, var1, var2, rows, cols, self_pairs, nngp, ntk)``: the pairs (rows[k], cols[k]) on
    ``threads`` threads (numba releases the GIL), in pieces that each thread takes when it is free, so that a
    thread slowed down by other programs on its core does fewer of them."""
    fn = _pairs_function(*p.kernel_size)
    constants = (height, width, p.pads[0], p.pads[1], p.sigma_w2, p.sigma_b2, p.jump, p.mean_slope_sq)

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

    @numba.njit(nogil=True, error_model="numpy", cache=True)
    def pairs(x1, x2, var1, var2, rows, cols, height, width, top, left, sigma_w2, sigma_b2, jump, mean_slope_sq,
              self_pairs, out_nngp, out_ntk):
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


# Cephes atan (S. L. Moshier): atan(u) = u + u z P(z) / Q(z), z = u^2, for |u| <= tan(pi / 8)
_P0, _P1, _P2, _P3, _P4 = (-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
                           -1.228866684490136173410e2, -6.485021904942025371773e1)
_Q0, _Q1, _Q2, _Q3, _Q4 = (2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
                           4.853903996359136964868e2, 1.945506571482613964425e2)
_TAN_PI_8 = math.tan(math.pi / 8)


def _angle(r, c):
    """atan2(r, c) for r >= 0, in [0, pi], without branches (selects only), so that loops calling it vectorize."""
    ac = abs(c)
    swap = r > ac
    big = r if swap else ac
    small = ac if swap else r
    m = 1.0 if small > _TAN_PI_8 * big else 0.0              # reduce: atan(t) = pi/4 + atan((t-1)/(t+1))
    den = big + m * small
    u = (small - m * big) / (den if den > 0.0 else 1.0)
    z = u * u
    a = m * (math.pi / 4) + (u + u * z * ((((_P0 * z + _P1) * z + _P2) * z + _P3) * z + _P4) /
                             (((((z + _Q0) * z + _Q1) * z + _Q2) * z + _Q3) * z + _Q4))
    s = 1.0 if swap else 0.0                                  # atan(r / |c|) = pi/2 - atan(|c| / r)
    a = s * (math.pi / 2) + (1.0 - 2.0 * s) * a
    n = 1.0 if c < 0.0 else 0.0                               # c < 0: pi - angle
    return n * math.pi + (1.0 - 2.0 * n) * a


if numba is not None:
    _angle = numba.njit(inline="always", error_model="numpy", cache=True)(_angle)


__all__ = ["Plan", "plan", "pooled_kernel"]
