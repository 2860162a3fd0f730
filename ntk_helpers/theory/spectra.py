"""Spectra of kernel matrices: eigenvalues, centering, normalization and effective rank.

Effective rank (the participation ratio of the eigenvalues; Roy & Vetterli 2007 discuss this and
related definitions): ``r_eff(K) = tr(K)^2 / ||K||_F^2``. It is 1 for a rank-one kernel and n for a
multiple of the identity. A value near 1 usually means one constant (mean) mode dominates;
centering removes it (lesson 08, "Near 1 means one constant mode").
"""

from __future__ import annotations

import torch

from .._checks import as_tensor


def _square(name: str, K) -> torch.Tensor:
    K = as_tensor(name, K, ndim=2)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) kernel matrix, got shape {tuple(K.shape)}")
    return K


#: How far from symmetric a kernel matrix may be, relative to its largest entry: rounding of a float32 kernel
#: (about 1e-7) passes, a matrix that is not a kernel does not.
SYMMETRY_RTOL = 1e-5


def eigenvalues(K) -> torch.Tensor:
    """Eigenvalues of the symmetric matrix ``K`` (n, n), in descending order, float64. A matrix that is not
    symmetric (beyond rounding: ``SYMMETRY_RTOL`` of its largest entry) is an error: its eigenvalues may be
    complex, and those of its symmetric part would be a silent answer to another question."""
    K = _square("K", K)
    asymmetry, scale = float((K - K.T).abs().max()), float(K.abs().max())
    if asymmetry > SYMMETRY_RTOL * scale:
        raise ValueError(f"eigenvalues(K) needs a symmetric kernel matrix: K differs from K.T by up to {asymmetry:.3g} "
                         f"(largest entry {scale:.3g}); for a general matrix use torch.linalg.eigvals(K)")
    return torch.linalg.eigvalsh((K + K.T) / 2).flip(0)


def center(K) -> torch.Tensor:
    """The centered kernel ``H K H`` with ``H = I - 11^T/n``: removes the constant (mean) mode."""
    K = _square("K", K)
    return K - K.mean(0, keepdim=True) - K.mean(1, keepdim=True) + K.mean()


def normalize(K) -> torch.Tensor:
    """The correlation form ``K_ij / sqrt(K_ii K_jj)``; diagonal entries must be positive."""
    K = _square("K", K)
    diag = torch.diagonal(K)
    if not bool((diag > 0).all()):
        raise ValueError("normalize(K) needs a positive diagonal")
    s = diag.sqrt()
    return K / s[:, None] / s[None, :]


def effective_rank(K, *, centered: bool = False) -> float:
    """``tr(K)^2 / ||K||_F^2`` (optionally of the centered kernel ``H K H``)."""
    K = _square("K", K)
    if centered:
        K = center(K)
    frob_sq = (K * K).sum()
    if frob_sq == 0:
        raise ValueError("effective_rank(K) is undefined for the zero matrix")
    return float(torch.trace(K) ** 2 / frob_sq)
