"""Finite width vs infinite width: how fast the empirical NTK approaches the analytic one.

Jacot et al. (2018) prove Theta_width -> Theta_infinity; the fluctuations shrink like
width^(-1/2) (Hanin & Nica 2020 quantify the constant, which grows with depth/width), while the
bias of the seed-averaged kernel, E Theta_width - Theta_infinity, shrinks like 1/width (Dyer &
Gur-Ari 2020). Lesson 01, section 5, measures both separately.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .._checks import check_int, check_pair
from .empirical import empirical_ntk
from ..engine.layer import Layer


@dataclass(frozen=True)
class WidthSweep:
    """Relative Frobenius errors ``||Theta_width - Theta_inf||_F / ||Theta_inf||_F``."""

    widths: np.ndarray          # (W,)
    errors: np.ndarray          # (W, S): one column per seed
    mean_ntk: list              # W tensors (n, n): the seed-averaged empirical NTK per width

    @property
    def slope(self) -> float:
        """Fitted log-log slope of the seed-mean error against width (theory: about -1/2)."""
        return loglog_slope(self.widths, self.errors.mean(1))


def width_sweep(architecture: Layer, x, *, widths, seeds: int = 4) -> WidthSweep:
    """Empirical NTKs of ``architecture.network(width=w, seed=s)`` for each width and seed."""
    x, _ = check_pair(x, ndim=(2, 4))
    seeds = check_int("seeds", seeds, minimum=1)
    theta_inf = architecture.kernel(x).ntk
    scale = theta_inf.norm()
    errors, means = [], []
    for width in widths:
        thetas = [empirical_ntk(architecture.network(tuple(x.shape[1:]), width=int(width), seed=s), x)
                  for s in range(seeds)]
        errors.append([float((t - theta_inf).norm() / scale) for t in thetas])
        means.append(torch.stack(thetas).mean(0))
    return WidthSweep(np.asarray(widths, dtype=float), np.asarray(errors), means)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log(y) against log(x)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"x and y need the same shape with at least 2 points, got {x.shape} and {y.shape}")
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("loglog_slope needs positive x and y")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
