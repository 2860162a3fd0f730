"""Overflow of the compiled paths, reported like the eager ``serial``'s."""

from __future__ import annotations

import numpy as np


def check_finite(weights, *variances) -> None:
    """OverflowError naming the first weight layer (``weights``: (index, layer) per step, as in a plan) after which
    a variance (``variances``: (steps, ...) arrays) is not finite."""
    for var in variances:
        if var.size == 0:
            continue
        bad = ~np.isfinite(var).reshape(var.shape[0], -1).all(axis=1)
        if bad.any():
            index, layer = weights[int(np.argmax(bad))]
            raise OverflowError(f"the kernel left the float64 range after layer {index} ({layer!r}); "
                                "lower sigma_w or the depth")
