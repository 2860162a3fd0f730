"""MLP kernels, compiled: each entry of the Gram matrix through every layer in one sweep, two (n1, n2) arrays.

See the package docstring (:mod:`ntk_helpers.engine.compiled`)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from ..kernel import Kernel
from ._numba import njit, numba
from .angle import _angle
from .checks import check_finite
from .plans import LINEAR, PIECEWISE, VectorPlan


def vector_kernel(p: VectorPlan, x1: torch.Tensor, x2: torch.Tensor | None) -> Kernel:
    """NNGP and NTK of a network of dense layers and activations with closed-form duals on vectors, (n1, n2).

    Two (n1, n2) arrays and nothing else large: the input kernel x1 . x2 / d becomes the NNGP in place, the NTK
    starts as zeros, and a Gram matrix is computed for j >= i and mirrored in tiles."""
    gram = x2 is None
    rows = x1 if gram else x2
    nngp = torch.mm(x1, rows.T).div_(x1.shape[1]).numpy()            # (n1, n2), as Kernel.from_inputs
    ntk = np.zeros_like(nngp)
    constants = (p.sigma_w2, p.sigma_b2, p.kind, p.jump, p.mean_slope_sq, p.dual_index, p.duals)
    var1, self1 = _vector_self(np.diagonal(nngp).copy() if gram else (x1 * x1).sum(1).div_(x1.shape[1]).numpy(),
                               constants)
    var2, self2 = (var1, self1) if gram else _vector_self((x2 * x2).sum(1).div_(x2.shape[1]).numpy(), constants)
    check_finite(p.weights, var1, var2)
    n1 = nngp.shape[0]
    threads = max(1, min(torch.get_num_threads(), n1))
    # rows of a Gram matrix get shorter (j >= i): equal shares of entries, not of rows
    share = np.sqrt(np.linspace(0.0, 1.0, min(n1, 16 * threads) + 1)) if gram else None
    bounds = (n1 - np.round(n1 * share[::-1]) if gram else np.linspace(0, n1, min(n1, 16 * threads) + 1))
    bounds = np.unique(bounds.astype(np.int64))
    call = lambda b: _vector_rows(nngp, ntk, var1, var2, bounds[b], bounds[b + 1], gram, *constants)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(call, range(len(bounds) - 1)))
    if gram:
        _mirror_upper(nngp)
        _mirror_upper(ntk)
    return Kernel(nngp=torch.from_numpy(nngp), ntk=torch.from_numpy(ntk), var1=torch.from_numpy(self1[0]),
                  var2=torch.from_numpy(self2[0]), is_gram=gram)


def _vector_self(var0: np.ndarray, constants):
    n, steps = var0.shape[0], constants[0].shape[0]
    var, nngp, ntk = np.empty((steps, n)), np.empty(n), np.empty(n)
    _vector_self_loop(np.ascontiguousarray(var0), var, nngp, ntk, *constants)
    return var, (nngp, ntk)


def _vector_rows(nngp, ntk, var1, var2, start, stop, gram, sigma_w2, sigma_b2, kind, jump, mean_slope_sq,
                 dual_index, duals):
    """Rows start..stop of the kernel (j >= i for a Gram matrix), every layer in turn, in place: nngp holds
    x_i . x_j / d on entry, ntk zeros."""
    n2, steps = nngp.shape[1], sigma_w2.shape[0]
    for i in range(start, stop):
        first = i if gram else 0
        F, G = nngp[i], ntk[i]
        for step in range(steps):
            w2, b2, jmp, slope = sigma_w2[step], sigma_b2[step], jump[step], mean_slope_sq[step]
            v1, v2 = var1[step, i], var2[step]
            if kind[step] == PIECEWISE:
                for j in range(n2 - first):
                    q = np.uintp(first + j)
                    cov = w2 * F[q] + b2
                    theta_in = cov + w2 * G[q]
                    prod = v1 * v2[q]
                    d = prod - cov * cov
                    r = math.sqrt(d if d > 0.0 else 0.0)
                    t = _angle(r, cov)
                    t = t if prod != 0.0 else math.pi / 2
                    e_dot = slope - jmp * t
                    F[q] = jmp * r + e_dot * cov
                    G[q] = e_dot * theta_in
            else:                                # the affine map; then a compiled dual on the row, if any
                for j in range(n2 - first):
                    q = np.uintp(first + j)
                    cov = w2 * F[q] + b2
                    G[q] = cov + w2 * G[q]
                    F[q] = cov
                if kind[step] != LINEAR:
                    duals[dual_index[step]](F[first:], G[first:], v1, v2[first:])


def _mirror_upper(a):
    """a[j, i] = a[i, j] for j > i, in 64 x 64 tiles (cache-friendly transposed copies)."""
    n = a.shape[0]
    for ti in range(0, n, 64):
        for tj in range(ti, n, 64):
            for i in range(ti, min(ti + 64, n)):
                for j in range(max(tj, i + 1), min(tj + 64, n)):
                    a[j, i] = a[i, j]


def _vector_self_loop(var0, var, out_nngp, out_ntk, sigma_w2, sigma_b2, kind, jump, mean_slope_sq, dual_index,
                      duals):
    """Each input with itself through the same arithmetic as :func:`_vector_rows` (so the Gram diagonal of the
    cross computation equals these values exactly); ``var[step, i]``: the variance before activation ``step``."""
    cov_row, theta_row, var_row = np.empty(1), np.empty(1), np.empty(1)
    for i in range(var0.shape[0]):
        f, g = var0[i], 0.0
        for step in range(sigma_w2.shape[0]):
            w2, b2, jmp, slope = sigma_w2[step], sigma_b2[step], jump[step], mean_slope_sq[step]
            cov = w2 * f + b2
            var[step, i] = cov
            theta_in = cov + w2 * g
            if kind[step] == LINEAR:
                f, g = cov, theta_in
            elif kind[step] == PIECEWISE:
                prod = cov * cov
                d = prod - cov * cov
                r = math.sqrt(d if d > 0.0 else 0.0)
                t = _angle(r, cov)
                t = t if prod != 0.0 else math.pi / 2
                e_dot = slope - jmp * t
                f, g = jmp * r + e_dot * cov, e_dot * theta_in
            else:
                cov_row[0], theta_row[0], var_row[0] = cov, theta_in, cov
                duals[dual_index[step]](cov_row, theta_row, cov, var_row)
                f, g = cov_row[0], theta_row[0]
        out_nngp[i], out_ntk[i] = f, g


if numba is not None:
    _vector_rows = njit(nogil=True, error_model="numpy")(_vector_rows)
    _vector_self_loop = njit(error_model="numpy")(_vector_self_loop)
    _mirror_upper = njit(nogil=True)(_mirror_upper)
