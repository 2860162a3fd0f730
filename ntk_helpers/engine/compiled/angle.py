"""atan2 for the arc-cosine kernel inside compiled loops: :func:`ntk_helpers.engine.rules.angle` compiled (numba,
inlined), branch-free so that loops calling it vectorize, and exact to rounding (tests/test_compiled.py compares it
with the C library over 600 decades)."""

from __future__ import annotations

from ..rules import angle as _angle
from ._numba import njit, numba

if numba is not None:
    _angle = njit(inline="always", error_model="numpy")(_angle)
