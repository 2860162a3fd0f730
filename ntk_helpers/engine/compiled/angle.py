"""atan2 for the arc-cosine kernel inside compiled loops: branch-free (selects only), so that loops calling it
vectorize, and exact to rounding (tests/test_compiled.py compares it with the C library over 600 decades)."""

from __future__ import annotations

import math

from ._numba import njit, numba


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
    _angle = njit(inline="always", error_model="numpy")(_angle)
