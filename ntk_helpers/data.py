"""Small, seeded toy data sets (nothing is downloaded)."""

from __future__ import annotations

import math

import torch

from ._checks import DTYPE, check_int


def sphere(n: int, d: int, *, seed: int = 0) -> torch.Tensor:
    """``n`` points uniform on the sphere of radius sqrt(d) in R^d, so that x.x/d = 1. Shape (n, d)."""
    n, d = check_int("n", n, minimum=1), check_int("d", d, minimum=1)
    g = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    x = torch.randn(n, d, generator=g, dtype=DTYPE)
    return x / x.norm(dim=1, keepdim=True) * math.sqrt(d)


def pair_at_angle(angle: float, d: int = 2) -> torch.Tensor:
    """Two inputs with x.x/d = 1 at the given angle (radians). Shape (2, d)."""
    d = check_int("d", d, minimum=2)
    x = torch.zeros(2, d, dtype=DTYPE)
    x[0, 0] = 1.0
    x[1, 0], x[1, 1] = math.cos(angle), math.sin(angle)
    return x * math.sqrt(d)


def circle(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` equally spaced angles on [0, 2 pi) and the points (cos, sin) * sqrt(2): (n,), (n, 2)."""
    n = check_int("n", n, minimum=1)
    angles = torch.arange(n, dtype=DTYPE) * (2 * math.pi / n)
    return angles, torch.stack([angles.cos(), angles.sin()], 1) * math.sqrt(2)
