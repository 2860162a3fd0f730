"""Kernel regression, solved stably in float64 (Cholesky with a small jitter).

The t -> infinity limit of gradient descent on the squared loss, for the linearized network with
f_0 = 0, is ridgeless kernel regression with the NTK (Jacot et al. 2018; Lee et al. 2019); with a
random f_0 it is ridgeless regression on y - f_0 plus the offset f_0. A ridge appears only with an
L2 penalty towards the initial parameters, (lambda/2) ||theta - theta_0||^2 added to
1/(2n) sum (f - y)^2, which gives ridge = n lambda; stopping early acts like a ridge (lesson 07,
section 3; ERRATA.md A19).
"""

from __future__ import annotations

import torch

from .._checks import as_tensor, check_nonnegative


def kernel_regression(k_train, k_test_train, y_train, *, ridge: float = 0.0,
                      jitter: float = 1e-10) -> torch.Tensor:
    """Predictions ``k_test_train (k_train + ridge I)^-1 y_train``.

    Args:
        k_train: (n, n) kernel on the training inputs.
        k_test_train: (m, n) kernel between test and training inputs.
        y_train: (n,) or (n, k) targets.
        ridge: added to the diagonal (0 = ridgeless interpolation).
        jitter: relative diagonal jitter ``jitter * tr(K)/n`` that keeps Cholesky stable; raised
            tenfold (up to 1e-4) if the factorization still fails.
    Returns:
        (m,) or (m, k) float64 predictions.
    """
    K = as_tensor("k_train", k_train, ndim=2)
    Ks = as_tensor("k_test_train", k_test_train, ndim=2)
    y = as_tensor("y_train", y_train)
    n = K.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"k_train must be square (n, n), got {tuple(K.shape)}")
    if Ks.shape[1] != n:
        raise ValueError(f"k_test_train must have {n} columns (one per training point), "
                         f"got {tuple(Ks.shape)}")
    if y.shape[0] != n or y.ndim > 2:
        raise ValueError(f"y_train must have shape ({n},) or ({n}, k), got {tuple(y.shape)}")
    ridge = check_nonnegative("ridge", ridge)
    scale = float(torch.trace(K)) / n
    eye = torch.eye(n, dtype=K.dtype)
    rel = check_nonnegative("jitter", jitter)
    while True:
        chol, info = torch.linalg.cholesky_ex(K + (ridge + rel * scale) * eye)
        if int(info) == 0:
            break
        if rel >= 1e-4:
            raise ValueError("k_train is not positive definite even with jitter 1e-4 * tr(K)/n; "
                             "check for duplicate inputs or add a ridge")
        rel = max(rel * 10, 1e-12)
    alpha = torch.cholesky_solve(y.reshape(n, -1), chol)
    return (Ks @ alpha).reshape((Ks.shape[0],) + tuple(y.shape[1:]))
