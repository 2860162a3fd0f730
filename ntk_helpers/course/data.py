"""Small, seeded toy data sets (nothing is downloaded)."""

from __future__ import annotations

import math

import torch

from .._checks import DTYPE, check_int


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


def digits(n_train: int, n_test: int, *, seed: int = 0):
    """The 8x8 handwritten digits that scikit-learn ships (no download), as images (n, 1, 8, 8).

    Pixels are scaled so that each image has x.x/d = 1; labels are one-hot targets minus their
    mean 0.1 (so that kernel regression needs no bias). Returns
    ``(x_train, y_train, labels_train, x_test, y_test, labels_test)``.
    """
    from sklearn.datasets import load_digits

    n_train, n_test = check_int("n_train", n_train, minimum=1), check_int("n_test", n_test, minimum=1)
    data = load_digits()
    if n_train + n_test > len(data.target):
        raise ValueError(f"n_train + n_test must be at most {len(data.target)}, got {n_train + n_test}")
    g = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    order = torch.randperm(len(data.target), generator=g)[: n_train + n_test]
    images = torch.as_tensor(data.images, dtype=DTYPE)[order][:, None]          # (n, 1, 8, 8)
    images = images / images.flatten(1).norm(dim=1)[:, None, None, None] * 8    # x.x/d = 1 (d = 64)
    labels = torch.as_tensor(data.target)[order]
    targets = torch.nn.functional.one_hot(labels, 10).to(DTYPE) - 0.1
    return (images[:n_train], targets[:n_train], labels[:n_train],
            images[n_train:], targets[n_train:], labels[n_train:])


def motif_sequences(n: int, *, length: int = 16, seed: int = 0):
    """A shift-invariant toy task (lesson 03, §4.2.2): 1-D signals (n, 1, 1, length) of noise;
    label +1 signals carry the motif (2, -2, 2) at a random (circular) position, label -1 do not.
    Returns ``(x, y)`` with y in {-1, +1}."""
    n, length = check_int("n", n, minimum=1), check_int("length", length, minimum=3)
    g = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    x = 0.7 * torch.randn(n, 1, 1, length, generator=g, dtype=DTYPE)
    y = (torch.rand(n, generator=g) < 0.5).to(DTYPE) * 2 - 1
    start = torch.randint(0, length, (n,), generator=g)
    for offset, value in enumerate((2.0, -2.0, 2.0)):
        x[torch.arange(n), 0, 0, (start + offset) % length] += value * (y > 0)
    return x, y
