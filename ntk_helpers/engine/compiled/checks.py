"""Overflow of the compiled paths, reported like the eager ``serial``'s."""

from __future__ import annotations

import numpy as np

def check_finite(layers, kind, *variances) -> None:
    """OverflowError naming the first ``kind`` layer (conv or dense) after which a variance is not finite."""
    for var in variances:
        bad = ~np.isfinite(var).reshape(var.shape[0], -1).all(axis=1)
        if bad.any():
            weight_layer = [l for l in layers if isinstance(l, kind)][int(np.argmax(bad))]
            index = next(i for i, l in enumerate(layers) if l is weight_layer)
            raise OverflowError(f"the kernel left the float64 range after layer {index} ({weight_layer!r}); "
                                "lower sigma_w or the depth")
