"""Closed-form training dynamics of the linearized (infinitely wide) network: lesson 07.

For the squared loss and gradient flow with learning rate eta, the linearized network's outputs
on the training inputs X and on test inputs x* are (Jacot et al. 2018; Lee et al. 2019, eq. 8-9;
lesson 07, "The formula")

    f_t(X)  = f_0(X)  + (I - exp(-c eta Theta t)) (y - f_0(X))
    f_t(x*) = f_0(x*) + Theta(x*, X) Theta^-1 (I - exp(-c eta Theta t)) (y - f_0(X))

where the constant c comes from the loss normalization, an explicit argument here because texts
differ (the overview, section 3.2, uses 1/2 sum):

    loss="half_mean":  L = 1/(2n) sum (f - y)^2   ->  c = 1/n   (default; the package's train())
    loss="half_sum":   L = 1/2 sum (f - y)^2      ->  c = 1
    loss="mean":       L = 1/n sum (f - y)^2      ->  c = 2/n   (torch.nn.MSELoss)

Discrete gradient descent replaces exp(-c eta Theta t) by (I - c eta Theta)^t: each step multiplies
the residual's component along the i-th eigenvector of the Gram matrix Theta(X, X) by
(1 - c eta lambda_i). It is stable iff c eta lambda_max < 2, i.e. eta < 2 / (c lambda_max)
(``critical_learning_rate``; for the default loss 2n / lambda_max). Everything is computed in
Theta's eigenbasis, where Theta^-1 (I - e^{-a lambda t}) = (1 - e^{-a lambda t}) / lambda stays
finite as lambda -> 0 (no inverse is formed).

As t -> infinity the flow gives ridgeless kernel regression on y - f_0 plus the offset f_0, not
kernel ridge regression (a ridge needs an L2 penalty towards the initial parameters; stopping
early acts like one).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .._checks import as_tensor, check_choice, check_nonnegative

LOSSES = {"half_mean": lambda n: 1.0 / n, "half_sum": lambda n: 1.0, "mean": lambda n: 2.0 / n}
_RATE_TEXT = {"half_mean": "1/n", "half_sum": "1", "mean": "2/n"}


@dataclass(frozen=True)
class Trajectory:
    """Outputs of the linearized network at the requested times."""

    times: torch.Tensor        # (T,)
    train: torch.Tensor        # (T, n) f_t(X)
    test: torch.Tensor | None  # (T, m) f_t(x*), if test kernels were given


def _times(t) -> torch.Tensor:
    times = torch.as_tensor(t, dtype=torch.float64).reshape(-1)
    if not torch.isfinite(times).all() or (times < 0).any():
        raise ValueError(f"t must be finite times >= 0, got {t!r}")
    return times


def _integer_steps(times: torch.Tensor) -> None:
    if (times != times.round()).any():
        raise ValueError("discrete=True counts gradient-descent steps: t must be whole numbers, "
                         f"got {times.tolist()}")


def _eigen(ntk_train: torch.Tensor):
    n = ntk_train.shape[0]
    if ntk_train.shape != (n, n):
        raise ValueError(f"ntk_train must be square (n, n), got {tuple(ntk_train.shape)}")
    lam, vectors = torch.linalg.eigh((ntk_train + ntk_train.T) / 2)
    if lam.min() < -1e-8 * max(float(lam.abs().max()), 1e-300):
        smallest = float(lam.min())
        raise ValueError(f"ntk_train is not positive semi-definite (smallest eigenvalue {smallest:.3g})")
    return lam.clamp_min(0), vectors


def _gain(lam: torch.Tensor, rate: float, times: torch.Tensor, discrete: bool):
    """(T, n) factors g(lambda) = 1 - e^{-rate lambda t} (or 1 - (1 - rate lambda)^t) and g / lambda."""
    x = rate * lam[None, :]                                              # (1, n)
    t = times[:, None]                                                   # (T, 1)
    if discrete:
        decay = torch.pow(1 - x, t)
        gain = 1 - decay
        # (1 - (1 - x)^t) / lambda -> rate * t as lambda -> 0
        over = torch.where(x > 1e-12, gain / lam.clamp_min(1e-300)[None, :], rate * t.expand_as(gain))
    else:
        gain = -torch.expm1(-x * t)
        over = torch.where(x > 1e-12, gain / lam.clamp_min(1e-300)[None, :], rate * t.expand_as(gain))
    return gain, over


def critical_learning_rate(ntk_train, *, loss: str = "half_mean") -> float:
    """The largest stable learning rate of discrete gradient descent on the linearized model.

    Each step multiplies the residual along the eigenvector of ``ntk_train`` with eigenvalue lambda
    by (1 - c lr lambda), so the steps converge iff c lr lambda_max < 2: the answer is
    2 / (c lambda_max), i.e. 2n / lambda_max for the default loss 1/(2n) sum (f - y)^2.
    """
    K = as_tensor("ntk_train", ntk_train, ndim=2)
    lam, _ = _eigen(K)
    c = LOSSES[check_choice("loss", loss, LOSSES)](K.shape[0])
    lam_max = float(lam.max())
    return 2.0 / (c * lam_max) if lam_max > 0 else float("inf")


def linearized_dynamics(ntk_train, y_train, t, *, lr: float = 1.0, ntk_test_train=None, f0_train=None,
                        f0_test=None, loss: str = "half_mean", discrete: bool = False,
                        allow_unstable: bool = False) -> Trajectory:
    """Outputs of the linearized network after training time(s) ``t`` (steps if ``discrete``).

    Args:
        ntk_train: (n, n) NTK on the training inputs.
        y_train: (n,) targets.
        t: a time or a sequence of times >= 0 (for ``discrete=True``: numbers of steps).
        lr: learning rate eta > 0.
        ntk_test_train: (m, n) NTK between test and training inputs (optional).
        f0_train, f0_test: outputs at initialization (default 0, e.g. a centred/symmetrized network).
        loss: "half_mean", "half_sum" or "mean" (see the module docstring).
        discrete: gradient descent steps instead of gradient flow (``t`` must then be whole numbers).
        allow_unstable: with ``discrete``, return the diverging trajectory when lr is at or above
            ``critical_learning_rate`` instead of raising ValueError.
    """
    K = as_tensor("ntk_train", ntk_train, ndim=2)
    y = as_tensor("y_train", y_train).reshape(-1)
    n = K.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"y_train must have {n} entries (one per training input), got {y.shape[0]}")
    lr = check_nonnegative("lr", lr)
    c = LOSSES[check_choice("loss", loss, LOSSES)](n)
    rate = lr * c
    times = _times(t)
    if discrete:
        _integer_steps(times)
    f0 = (torch.zeros(n, dtype=torch.float64) if f0_train is None
          else as_tensor("f0_train", f0_train).reshape(-1))
    lam, V = _eigen(K)
    lam_max = float(lam.max())
    if discrete and rate * lam_max >= 2 and not allow_unstable:
        raise ValueError(
            f"gradient descent on the linearized model diverges: c * lr * lambda_max = {rate * lam_max:.3g} "
            f">= 2, where lambda_max = {lam_max:.4g} is the largest eigenvalue of ntk_train (the NTK Gram "
            f"matrix on the {n} training inputs) and c = {_RATE_TEXT[loss]} comes from loss={loss!r}. Each "
            f"step multiplies the residual along the top eigenvector by 1 - c * lr * lambda_max = "
            f"{1 - rate * lam_max:.3g}; steps are stable only for lr < 2 / (c * lambda_max) = "
            f"{2 / (c * lam_max):.4g}. Lower lr, or pass allow_unstable=True for the diverging trajectory")
    gain, over = _gain(lam, rate, times, discrete)                       # (T, n) each
    residual = V.T @ (y - f0)                                            # (n,) in the eigenbasis
    train = f0[None, :] + (gain * residual[None, :]) @ V.T               # (T, n)
    test = None
    if ntk_test_train is not None:
        Ks = as_tensor("ntk_test_train", ntk_test_train, ndim=2)
        if Ks.shape[1] != n:
            raise ValueError(f"ntk_test_train must have {n} columns, got shape {tuple(Ks.shape)}")
        g0 = (torch.zeros(Ks.shape[0], dtype=torch.float64) if f0_test is None
              else as_tensor("f0_test", f0_test).reshape(-1))
        test = g0[None, :] + (over * residual[None, :]) @ (Ks @ V).T     # (T, m)
    return Trajectory(times, train, test)


@dataclass(frozen=True)
class EnsemblePrediction:
    """Mean and covariance over random initializations of infinitely wide networks trained for time t."""

    mean: torch.Tensor         # (m,)
    covariance: torch.Tensor   # (m, m)


def ensemble_prediction(nngp_train, nngp_test_train, nngp_test, ntk_train, ntk_test_train, y_train, t, *,
                        lr: float = 1.0, loss: str = "half_mean") -> EnsemblePrediction:
    """Gaussian process of the trained infinite ensemble at time ``t`` (Lee et al. 2019, eq. 15-16).

    With A_t = I - exp(-c eta Theta t):  mean = Theta* Theta^-1 A_t y and
    cov = K** + Theta* Theta^-1 A_t K A_t Theta^-1 Theta*^T - (Theta* Theta^-1 A_t K*^T + transpose),
    where K is the NNGP (prior) kernel and Theta the NTK. At t = 0 this is the NNGP prior.
    """
    K = as_tensor("nngp_train", nngp_train, ndim=2)
    Ks = as_tensor("nngp_test_train", nngp_test_train, ndim=2)
    Kss = as_tensor("nngp_test", nngp_test, ndim=2)
    T = as_tensor("ntk_train", ntk_train, ndim=2)
    Ts = as_tensor("ntk_test_train", ntk_test_train, ndim=2)
    y = as_tensor("y_train", y_train).reshape(-1)
    n = T.shape[0]
    if (K.shape != (n, n) or Ks.shape[1] != n or Ts.shape[1] != n or Ks.shape[0] != Ts.shape[0]
            or y.shape[0] != n):
        raise ValueError("ensemble_prediction: kernel shapes must be (n, n), (m, n), (m, m), (n, n), (m, n) "
                         "and y (n,)")
    rate = check_nonnegative("lr", lr) * LOSSES[check_choice("loss", loss, LOSSES)](n)
    times = _times(t)
    if times.numel() != 1:
        raise ValueError("ensemble_prediction takes a single time t")
    lam, V = _eigen(T)
    _, over = _gain(lam, rate, times, False)                     # (1, n): Theta^-1 A_t in the eigenbasis
    M = (Ts @ V) * over[0][None, :] @ V.T                        # (m, n) = Theta* Theta^-1 A_t
    mean = M @ y
    cov = Kss + M @ K @ M.T - (M @ Ks.T + Ks @ M.T)
    return EnsemblePrediction(mean, (cov + cov.T) / 2)
