"""Any pooled CNN of closed-form layers, compiled: a :class:`~.plans.Program` run on one pair of images at a time.

The fast path of :mod:`.images` fuses one layout (convolutions of one filter size, stride 1, zero "same" padding,
each with its activation) into a single sweep per layer. Everything else a pooled CNN may hold (stride, dilation,
"valid" or circular padding, several filter sizes, average pooling, layer norm, frozen batch norm, residual blocks)
runs here: the plan (:mod:`.plans`, from the layers' pair rules) is a list of operations on the (P, P') pixel pairs
of one pair of images, and :func:`run_program` carries them out in a few buffers per thread that stay in the CPU
cache, as the fast path does. A convolution is two passes with gather tables (one per filter offset, shared by both
positions), so its cost does not depend on the geometry; see :class:`~.plans.Program` for the operations.
"""

from __future__ import annotations

import math

import numpy as np

from ._numba import njit, numba
from .angle import _angle
from .plans import (AFFINE, DIAGONAL, DUAL_PIECEWISE, DUAL_SCALAR, GATHER, NORMALIZE, POOL, POP_ADD, PUSH, SCALE,
                    SHARED)


def _affine(F, G, start, count, w2, b2, theta_zero):
    """Entries start .. start + count: Sigma' = w2 sum + b2, Theta' = Sigma' + w2 sum (Sigma' when Theta is 0);
    returns False (Theta is no longer 0)."""
    if theta_zero:
        for e in range(start, start + count):
            cov = w2 * F[e] + b2
            G[e] = cov
            F[e] = cov
    else:
        for e in range(start, start + count):
            cov = w2 * F[e] + b2
            G[e] = cov + w2 * G[e]
            F[e] = cov
    return False


def run_program(x1, x2, var1, var2, rows, cols, code, values, src, valid, shift, pad, duals, size, levels,
                start_diagonal, readout, self_pairs, out_nngp, out_ntk):
    """The pairs (rows[k], cols[k]): NNGP and NTK after the program and the readout (``readout``: 0 the mean over
    all pairs (global average pooling), 1 over the pairs p = p' of full buffers, 2 over same-position buffers
    (flatten)). With ``self_pairs`` (rows == cols) each input's variances are recorded in ``var1`` (= ``var2``) as
    they come. Entry e of a buffer is at ``pad + e`` (unsigned indices: numba skips its negative-index
    wraparound); from a :data:`DIAGONAL` operation on (or from the start) a buffer holds the P pairs p = p'."""
    channels, positions = x1.shape[1], x1.shape[2]
    total = size + 2 * pad
    F, G, A, B = np.zeros(total), np.zeros(total), np.zeros(total), np.zeros(total)
    saved = np.zeros((max(levels, 1), 2, size))
    scale2 = np.zeros(var1.shape[2])
    for job in range(rows.shape[0]):
        i, j = rows[job], cols[job]
        n = positions                            # F = x_i^T x_j / C, G = 0 on (P, P), or its diagonal (P,)
        if start_diagonal:                       # (the sum over channels, then / C: the same for (j, i))
            for p in range(n):
                s = 0.0
                for c in range(channels):
                    s += x1[i, c, p] * x2[j, c, p]
                F[pad + p] = s / channels
        else:
            row = x2[j, 0]
            for p in range(n):
                u = x1[i, 0, p]
                o = pad + p * n
                for q in range(n):
                    F[np.uintp(o + q)] = u * row[q]
            for c in range(1, channels):
                row = x2[j, c]
                for p in range(n):
                    u = x1[i, c, p]
                    o = pad + p * n
                    for q in range(n):
                        F[np.uintp(o + q)] += u * row[q]
            if channels > 1:
                for e in range(pad, pad + n * n):
                    F[e] = F[e] / channels
        theta_zero = True                        # G = 0 until the first weight layer: not computed, not read
        for k in range(code.shape[0]):
            op, diagonal = code[k, 0], code[k, 6] == 1
            m = n if diagonal else n * n        # entries of the buffers
            if theta_zero and op == PUSH:        # a residual block saves G: make the zeros
                for e in range(pad, pad + m):
                    G[e] = 0.0
                theta_zero = False
            if op == DIAGONAL:                   # keep the pairs p = p' only
                for p in range(n):
                    F[pad + p] = F[pad + p * n + p]
                    G[pad + p] = G[pad + p * n + p]
            elif op == SHARED and diagonal:      # out[o] = sum_t valid in[src[t, o]] (same-position pairs)
                n_in, n_out, taps, offset = code[k, 1], code[k, 2], code[k, 3], code[k, 4]
                for o in range(n_out):
                    sa = 0.0
                    sb = 0.0
                    for t in range(taps):
                        base = offset + t * n_out + o
                        s = np.uintp(pad + src[base])
                        sa += valid[base] * F[s]
                        sb += valid[base] * G[s]
                    A[pad + o] = sa
                    B[pad + o] = sb
                F, A = A, F
                G, B = B, G
                n = n_out
                if code[k, 7] == 1:
                    theta_zero = _affine(F, G, pad, n_out, values[k, 0], values[k, 1], theta_zero)
            elif op == SHARED:                   # out[o, o'] = sum_t valid valid' in[src[t, o], src[t, o']]
                n_in, n_out, taps, offset, shifts = code[k, 1], code[k, 2], code[k, 3], code[k, 4], code[k, 5]
                for o1 in range(n_out):
                    r = pad + o1 * n_out
                    for o2 in range(n_out):
                        A[np.uintp(r + o2)] = 0.0
                        B[np.uintp(r + o2)] = 0.0
                    for t in range(taps):
                        base = offset + t * n_out
                        if valid[base + o1] == 0.0:
                            continue
                        s1 = pad + src[base + o1] * n_in
                        move = shift[shifts + t]
                        if move != GATHER:       # stride 1: contiguous reads (invalid ones inside the pad, times 0)
                            s1 += move
                            if theta_zero:
                                for o2 in range(n_out):
                                    A[np.uintp(r + o2)] += valid[np.uintp(base + o2)] * F[np.uintp(s1 + o2)]
                            else:
                                for o2 in range(n_out):
                                    m = valid[np.uintp(base + o2)]
                                    A[np.uintp(r + o2)] += m * F[np.uintp(s1 + o2)]
                                    B[np.uintp(r + o2)] += m * G[np.uintp(s1 + o2)]
                        elif theta_zero:
                            for o2 in range(n_out):
                                s = np.uintp(s1 + src[np.uintp(base + o2)])
                                A[np.uintp(r + o2)] += valid[np.uintp(base + o2)] * F[s]
                        else:
                            for o2 in range(n_out):
                                m = valid[np.uintp(base + o2)]
                                s = np.uintp(s1 + src[np.uintp(base + o2)])
                                A[np.uintp(r + o2)] += m * F[s]
                                B[np.uintp(r + o2)] += m * G[s]
                    if code[k, 7] == 1:          # the affine map on the finished row, while it is in the cache
                        _affine(A, B, r, n_out, values[k, 0], values[k, 1], theta_zero)
                F, A = A, F
                G, B = B, G
                n = n_out
                if code[k, 7] == 1:
                    theta_zero = False
            elif op == POOL:                     # the window on each side: columns, then rows
                n_in, n_out, taps, offset = code[k, 1], code[k, 2], code[k, 3], code[k, 4]
                w = values[k, 0]
                for i1 in range(n_in):
                    r, ri = pad + i1 * n_out, pad + i1 * n_in
                    for o2 in range(n_out):
                        sa = 0.0
                        sb = 0.0
                        for t in range(taps):
                            s = np.uintp(ri + src[offset + t * n_out + o2])
                            sa += F[s]
                            sb += G[s]
                        A[np.uintp(r + o2)] = w * sa
                        B[np.uintp(r + o2)] = w * sb
                for o1 in range(n_out):
                    r = pad + o1 * n_out
                    for o2 in range(n_out):
                        F[np.uintp(r + o2)] = 0.0
                        G[np.uintp(r + o2)] = 0.0
                    for t in range(taps):
                        s1 = pad + src[offset + t * n_out + o1] * n_out
                        for o2 in range(n_out):
                            F[np.uintp(r + o2)] += w * A[np.uintp(s1 + o2)]
                            G[np.uintp(r + o2)] += w * B[np.uintp(s1 + o2)]
                n = n_out
            elif op == AFFINE:                   # Sigma' = w2 sum + b2, Theta' = Sigma' + w2 sum
                theta_zero = _affine(F, G, pad, m, values[k, 0], values[k, 1], theta_zero)
            elif op == SCALE:
                d = values[k, 0]
                for e in range(pad, pad + m):
                    F[e] = F[e] / d
                    G[e] = G[e] / d
            elif op == PUSH:
                level = code[k, 2]
                for e in range(m):
                    saved[level, 0, e] = F[pad + e]
                    saved[level, 1, e] = G[pad + e]
            elif op == POP_ADD:
                level, a2 = code[k, 2], values[k, 0]
                for e in range(m):
                    F[pad + e] = saved[level, 0, e] + a2 * F[pad + e]
                    G[pad + e] = saved[level, 1, e] + a2 * G[pad + e]
            else:                                # operations that read the variances of slot code[k, 2]
                slot = code[k, 2]
                if self_pairs:
                    for p in range(n):
                        var1[slot, i, p] = F[pad + p] if diagonal else F[pad + p * n + p]
                v2 = var2[slot, j]
                if diagonal:                     # pair p = p': Sigma_pp(x, x), Sigma_pp(x', x'), Sigma_pp(x, x')
                    for p in range(n):
                        e = np.uintp(pad + p)
                        v1 = var1[slot, i, p]
                        if op == DUAL_PIECEWISE:
                            jmp, slope = values[k, 0], values[k, 1]
                            cov = F[e]
                            prod = v1 * v2[p]
                            d = prod - cov * cov
                            r = math.sqrt(d if d > 0.0 else 0.0)
                            t = _angle(r, cov)
                            t = t if prod != 0.0 else math.pi / 2
                            e_dot = slope - jmp * t
                            F[e] = jmp * r + e_dot * cov
                            G[e] = e_dot * G[e]
                        elif op == DUAL_SCALAR:
                            duals[code[k, 3]](F[e:e + 1], G[e:e + 1], v1, v2[p:p + 1])
                        else:
                            eps = values[k, 0]
                            s1, s2 = math.sqrt(v1 + eps), math.sqrt(v2[p] + eps)
                            F[e] = F[e] / s1 / s2
                            G[e] = G[e] / s1 / s2
                elif op == DUAL_PIECEWISE:
                    jmp, slope = values[k, 0], values[k, 1]
                    for p in range(n):
                        o = pad + p * n
                        v1 = var1[slot, i, p]
                        for q in range(n):
                            e = np.uintp(o + q)
                            cov = F[e]
                            prod = v1 * v2[q]
                            d = prod - cov * cov
                            r = math.sqrt(d if d > 0.0 else 0.0)
                            t = _angle(r, cov)
                            t = t if prod != 0.0 else math.pi / 2
                            e_dot = slope - jmp * t
                            F[e] = jmp * r + e_dot * cov
                            G[e] = e_dot * G[e]
                elif op == DUAL_SCALAR:
                    dual = duals[code[k, 3]]
                    for p in range(n):
                        o = pad + p * n
                        dual(F[o:o + n], G[o:o + n], var1[slot, i, p], v2[:n])
                elif op == NORMALIZE:            # Sigma / sqrt(var + eps) / sqrt(var' + eps), the NTK likewise
                    eps = values[k, 0]
                    for q in range(n):
                        scale2[q] = math.sqrt(v2[q] + eps)
                    for p in range(n):
                        o = pad + p * n
                        s1 = math.sqrt(var1[slot, i, p] + eps)
                        for q in range(n):
                            e = np.uintp(o + q)
                            F[e] = F[e] / s1 / scale2[q]
                            G[e] = G[e] / s1 / scale2[q]
        sf = 0.0                                 # the readout: the mean over all pairs (p, p'), or p = p'
        sg = 0.0
        if readout == 0:
            for e in range(pad, pad + n * n):
                sf += F[e]
                sg += G[e]
        else:
            for p in range(n):
                e = pad + p if readout == 2 else pad + p * n + p
                sf += F[e]
                sg += G[e]
        column = 0 if self_pairs else j
        count = n * n if readout == 0 else n
        out_nngp[i, column] = sf / count
        out_ntk[i, column] = sg / count


if numba is not None:
    _affine = njit(inline="always", error_model="numpy")(_affine)
    run_program = njit(nogil=True, error_model="numpy")(run_program)
