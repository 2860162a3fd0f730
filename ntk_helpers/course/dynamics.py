"""Lesson 07's machinery: training dynamics on the circle (overview §3 and §7.1; book section 4.4.2).

The lesson's problem (:func:`circle`): 20 training angles on the circle of radius sqrt(2), targets
y = sin 2a + 0.5 cos a, 120 test angles, and the one-hidden-layer ReLU network ``ARCH`` (sigma_w = 1.4,
sigma_b = 0.3) in the NTK parameterization. Gradient descent on 1/(2n) sum (f - y)^2 with learning rate eta;
the linearized network's outputs are ``nh.linearized_dynamics`` (Lee et al. 2019, eq. 8-9).

- :func:`three_trajectories`, :func:`slope_with_error`: a network against its own linearization and against the
  closed form with the analytic NTK, and the least-squares slope of log(gap) on log(width) with its standard error;
- :func:`snapshots`, :func:`draw_snapshots`: the function at a few steps, NTK parameterization against muP;
- :func:`coverage`, :func:`draw_ensemble`: how often trained networks land inside the band of the trained
  infinite ensemble, against the nominal coverage;
- :data:`KERNELS`, :func:`mercer_coefficients`, :func:`ridgeless_fit`, :func:`describe_fit`, :func:`draw_fit`:
  which targets cos k theta a kernel can learn (dense iff every Mercer coefficient mu_k > 0);
- :func:`explorer_run`, :func:`describe_dynamics`, :func:`draw_dynamics`: the learning-rate explorer.

The training runs here (:func:`three_trajectories`, :func:`snapshots`, :func:`lazy_changes`,
:func:`ensemble_members`, :func:`explorer_run`) run torch on one thread and restore the previous setting when they
return: their matrices are small, one thread is as fast, and many threads slow down tenfold when other processes
share the cores. Printed text and new labels go through
:func:`~ntk_helpers.course.messages.gettext`; numbers are filled in after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from .._checks import check_choice, check_int, check_nonnegative
from ..engine.architectures import mlp
from ..engine.dense import lr_multipliers
from ..finite.empirical import empirical_ntk
from ..finite.training import train
from ..theory.dynamics import ensemble_prediction, linearized_dynamics
from ..theory.rank_law import dot_product_profile
from ..theory.regression import kernel_regression
from ..theory.spectra import eigenvalues
from .messages import gettext as _
from .threads import one_thread

#: The lesson's network: one hidden ReLU layer, sigma_w = 1.4, sigma_b = 0.3 (every Mercer coefficient > 0).
ARCH = mlp(1, "relu", sigma_w=1.4, sigma_b=0.3)
N_TRAIN, N_TEST = 20, 120
#: The steps the snapshot figure shows.
SNAPSHOT_STEPS = (0, 3, 10, 200)
#: Learning rates of the snapshot figure: NTK parameterization and muP (with nh.train's per-layer factors).
SNAPSHOT_LR = {"ntk": 1.0, "mup": 0.3}


def on_circle(angles) -> torch.Tensor:
    """Points (cos a, sin a) * sqrt(2) (so x.x/d = 1 in d = 2), one row per angle."""
    a = torch.as_tensor(angles, dtype=torch.float64).reshape(-1)
    return torch.stack([a.cos(), a.sin()], 1) * math.sqrt(2)


def target(angles) -> torch.Tensor:
    """The lesson's target sin 2a + 0.5 cos a."""
    a = torch.as_tensor(angles, dtype=torch.float64)
    return torch.sin(2 * a) + 0.5 * torch.cos(a)


@dataclass(frozen=True)
class Circle:
    """The lesson's data and the analytic NTK of ``ARCH`` on it."""

    angles_train: torch.Tensor    # (20,)
    angles_test: torch.Tensor     # (120,)
    x_train: torch.Tensor         # (20, 2)
    x_test: torch.Tensor          # (120, 2)
    y_train: torch.Tensor         # (20,)
    ntk_train: torch.Tensor       # (20, 20)
    ntk_test: torch.Tensor        # (120, 20)

    @property
    def lam_max(self) -> float:
        """The largest eigenvalue of the analytic NTK Gram matrix on the training inputs."""
        return float(eigenvalues(self.ntk_train)[0])

    @property
    def critical_lr(self) -> float:
        """2n / lambda_max: gradient descent on the linearized model is stable iff eta is below it."""
        return 2 * N_TRAIN / self.lam_max


@lru_cache(maxsize=1)
def circle() -> Circle:
    angles_train = torch.linspace(0, 2 * math.pi, N_TRAIN + 1, dtype=torch.float64)[:-1] + 0.1
    angles_test = torch.linspace(0, 2 * math.pi, N_TEST + 1, dtype=torch.float64)[:-1]
    x_train, x_test = on_circle(angles_train), on_circle(angles_test)
    k = ARCH.kernel(torch.cat([x_train, x_test])).ntk
    return Circle(angles_train, angles_test, x_train, x_test, target(angles_train), k[:N_TRAIN, :N_TRAIN],
                  k[N_TRAIN:, :N_TRAIN])



def _initial_outputs(model, data: Circle):
    with torch.no_grad():
        return model(data.x_train)[:, 0], model(data.x_test)[:, 0]


# ---------------------------------------------------------------- the network against the formula

@dataclass(frozen=True)
class Trajectories:
    """Test outputs (R, 120) at ``steps`` (R,): the network, its own linearization (the closed form with its own
    initial NTK) and the closed form with the analytic NTK, all started from the network's own f_0."""

    steps: torch.Tensor
    network: torch.Tensor
    own: torch.Tensor
    formula: torch.Tensor


@one_thread()
def three_trajectories(width: int, seed: int = 0, *, lr: float = 1.0, steps: int = 200,
                       record_every: int = 20) -> Trajectories:
    """:class:`Trajectories` of ``ARCH.network(2, width=width, seed=seed)`` trained for ``steps`` steps."""
    data = circle()
    model = ARCH.network(2, width=check_int("width", width, minimum=1), seed=check_int("seed", seed, minimum=0))
    f0_train, f0_test = _initial_outputs(model, data)
    own = empirical_ntk(model, torch.cat([data.x_train, data.x_test]))
    record = train(model, data.x_train, data.y_train, lr=lr, steps=steps, x_eval=data.x_test,
                   record_every=record_every, track_kernels=False)

    def linearized(train_block, test_block):
        return linearized_dynamics(train_block, data.y_train, record.steps, lr=lr, discrete=True,
                                   ntk_test_train=test_block, f0_train=f0_train, f0_test=f0_test).test

    return Trajectories(record.steps, record.outputs, linearized(own[:N_TRAIN, :N_TRAIN], own[N_TRAIN:, :N_TRAIN]),
                        linearized(data.ntk_train, data.ntk_test))


@dataclass(frozen=True)
class LazyChanges:
    """Relative changes ||after - before|| / ||before|| over a training run: the outputs on the training inputs,
    the NTK and the last hidden layer's feature kernel on them."""

    width: int
    output: float
    ntk: float
    features: float


@one_thread()
def lazy_changes(width: int, *, steps: int = 200, lr: float = 1.0, seed: int = 0) -> LazyChanges:
    """:class:`LazyChanges` of ``ARCH.network(2, width=width, seed=seed)`` trained for ``steps`` steps."""
    data = circle()
    model = ARCH.network(2, width=check_int("width", width, minimum=1), seed=check_int("seed", seed, minimum=0))
    record = train(model, data.x_train, data.y_train, lr=lr, steps=steps)
    output = float((record.outputs[-1] - record.outputs[0]).norm() / record.outputs[0].norm())
    return LazyChanges(width, output, record.ntk_change, record.feature_change)


def lazy_table(widths, seeds) -> np.ndarray:
    """Array (3, W, S): the output, NTK and feature changes of :func:`lazy_changes` for every width and seed."""
    runs = [[lazy_changes(width, seed=seed) for seed in seeds] for width in widths]
    return np.array([[[getattr(run, part) for run in row] for row in runs] for part in ("output", "ntk", "features")])


@dataclass(frozen=True)
class EarlyStopping:
    """Test MSE (against the noise-free target) of gradient flow at ``times`` and of ridge regression with
    rho = n / t, trained on the lesson's labels plus Gaussian noise of standard deviation ``noise`` (seed 0), and
    the ridgeless (interpolating) error."""

    noise: float
    times: np.ndarray
    flow_error: np.ndarray
    ridge_error: np.ndarray
    ridgeless: float

    @property
    def best_time(self) -> float:
        """The time of the smallest flow error."""
        return float(self.times[self.flow_error.argmin()])


@lru_cache(maxsize=16)
def early_stopping(noise: float = 0.5, *, points: int = 40) -> EarlyStopping:
    """:class:`EarlyStopping` on ``points`` times from 1 to 1e6 (eta = 1)."""
    data = circle()
    noise = check_nonnegative("noise", noise)
    labels = data.y_train + noise * torch.randn(N_TRAIN, generator=torch.Generator().manual_seed(0),
                                                dtype=torch.float64)
    truth = target(data.angles_test)
    times = np.geomspace(1, 1e6, check_int("points", points, minimum=2))
    flow = linearized_dynamics(data.ntk_train, labels, times, ntk_test_train=data.ntk_test)
    flow_error = ((flow.test - truth) ** 2).mean(1).numpy()
    ridge_error = np.array([float(((kernel_regression(data.ntk_train, data.ntk_test, labels, ridge=N_TRAIN / t)
                                    - truth) ** 2).mean()) for t in times])
    ridgeless = float(((kernel_regression(data.ntk_train, data.ntk_test, labels) - truth) ** 2).mean())
    return EarlyStopping(noise, times, flow_error, ridge_error, ridgeless)


def draw_early_stopping(run: EarlyStopping) -> "matplotlib.figure.Figure":
    """The test error of gradient flow against time and of ridge regression with rho = n/t. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, (ax, filt) = plt.subplots(1, 2, figsize=(11, 4))
    ax.semilogx(run.times, run.flow_error, label=_("gradient flow, time t"))
    ax.semilogx(run.times, run.ridge_error, "--", label=_("ridge regression, ρ = n/(ηt)"))
    ax.set_xlabel(_("training time t (η = 1)"))
    ax.set_ylabel(_("test MSE against the noise-free target"))
    ax.set_title(_("Stopping early beats training to the end, like a ridge does")
                 if run.flow_error.min() < 0.9 * run.ridgeless else
                 _("Training to the end does about as well as stopping early"))
    ax.legend()
    eigenvalues = torch.linalg.eigvalsh(circle().ntk_train).numpy()
    lam = np.geomspace(eigenvalues.min() / 3, eigenvalues.max() * 3, 300)
    flow, ridge = spectral_filters(lam, run.best_time)
    filt.semilogx(lam, flow, label=_("early stopping: 1 − exp(−ηλt/n)"))
    filt.semilogx(lam, ridge, "--", label=_("ridge: λ/(λ + ρ), ρ = n/(ηt)"))
    filt.plot(eigenvalues, np.zeros_like(eigenvalues), "|", color="k", ms=12, label=_("eigenvalues λ_i of Θ"))
    filt.set_xlabel(_("eigenvalue λ"))
    filt.set_ylabel(_("fraction of the component of y kept"))
    filt.set_title(_("At the best time t ≈ {time:.0f}: both keep the large λ, cut the small").format(
        time=run.best_time))
    filt.legend(fontsize=8.5)
    return fig


def spectral_filters(lam, time: float, lr: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The fraction of each eigen-component of y kept by gradient flow at ``time`` from f_0 = 0,
    1 - exp(-lr lam t / n), and by ridge regression with rho = n / (lr t), lam / (lam + rho), with n = 20."""
    lam = np.asarray(lam, dtype=float)
    rho = N_TRAIN / (lr * time)
    return 1 - np.exp(-lr * lam * time / N_TRAIN), lam / (lam + rho)


def lesson_ridge_mse(ridge: float = 0.0) -> float:
    """Test MSE of kernel regression (analytic NTK, ridge ``ridge``; 0 = ridgeless) on the lesson's noise-free
    labels, against the target on the test angles."""
    data = circle()
    ridge = check_nonnegative("ridge", ridge)
    fit = kernel_regression(data.ntk_train, data.ntk_test, data.y_train, **({"ridge": ridge} if ridge else {}))
    return float(((fit - target(data.angles_test)) ** 2).mean())


@one_thread()
def ensemble_members(seeds, x_eval, *, width: int = 1024, steps: int = 200, lr: float = 1.0) -> torch.Tensor:
    """Outputs (len(seeds), len(x_eval)) of ``ARCH.network(2, width=width, seed=s)`` for each seed after
    ``steps`` steps of gradient descent on the lesson's data."""
    data = circle()
    return torch.stack([train(ARCH.network(2, width=width, seed=check_int("seed", s, minimum=0)), data.x_train,
                              data.y_train, lr=lr, steps=steps, x_eval=x_eval, record_every=max(steps, 1),
                              track_kernels=False).outputs[-1] for s in seeds])


def band_widths(time: float) -> tuple[float, float]:
    """The largest standard deviation of the trained infinite ensemble (``nh.ensemble_prediction``) at time
    eta t = ``time``: at the 20 training inputs, and at the 20 midpoints between them."""
    data = circle()
    points = torch.cat([data.x_train, on_circle(data.angles_train + math.pi / N_TRAIN), data.x_train])
    kernels = ARCH.kernel(points)
    K, T, n = kernels.nngp, kernels.ntk, N_TRAIN
    ensemble = ensemble_prediction(K[:n, :n], K[n:, :n], K[n:, n:], T[:n, :n], T[n:, :n], data.y_train,
                                   check_nonnegative("time", time))
    sd = ensemble.covariance.diagonal().clamp(min=0).sqrt()
    return float(sd[n:].max()), float(sd[:n].max())


def slope_with_error(widths, values) -> tuple[float, float]:
    """Least-squares slope of log(values) on log(width) through every point of ``values`` (W, S) (one row per
    width, one column per seed), and its standard error sqrt(residual variance / sum (log m - mean)^2)."""
    values = np.asarray(values, dtype=float)
    x = np.repeat(np.log(np.asarray(widths, dtype=float)), values.shape[1])
    y = np.log(values).reshape(-1)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (intercept + slope * x)
    return float(slope), math.sqrt(residual @ residual / (len(x) - 2) / ((x - x.mean()) ** 2).sum())


# ---------------------------------------------------------------- snapshots: NTK parameterization vs muP

@dataclass(frozen=True)
class Snapshots:
    """The function at ``steps``: ``network`` and ``formula`` (S, 120) on the test angles.

    ``formula`` is the closed form of the network's own linearization: with its own learning-rate-weighted NTK
    at initialization (step 0), in both parameterizations, so that the two rows compare like with like (muP's
    kernel moves by O(1) during training, also in its infinite-width limit). ``analytic`` (S, 120) is the closed
    form with the analytic NTK ("ntk" only; None for "mup").
    ``feature_change`` (S,) is ||K_t - K_0|| / ||K_0|| at each step for the last hidden layer's feature kernel
    K = Phi Phi^T / m on the training inputs.
    """

    parameterization: str
    width: int
    lr: float
    steps: tuple
    network: torch.Tensor
    formula: torch.Tensor
    feature_change: np.ndarray
    analytic: torch.Tensor | None = None

    @property
    def gaps(self) -> np.ndarray:
        """max |network - formula| over the test angles, at each step."""
        return (self.network - self.formula).abs().max(1).values.numpy()

    @property
    def target_gap(self) -> float:
        """max |network - target| over the test angles after the last step."""
        return float((self.network[-1] - target(circle().angles_test)).abs().max())


def weighted_ntk(model, x) -> torch.Tensor:
    """The learning-rate-weighted NTK sum_p lr_p df(x)/dp df(x')/dp of ``model`` on the batch ``x`` (the kernel
    that drives gradient descent when layers learn at different rates, lesson 05b), with the factors of
    ``nh.lr_multipliers``: one backward pass per input (fast for the lesson's small batches)."""
    weights = lr_multipliers(model)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    scale = [math.sqrt(weights.get(n, 1.0)) for n, _ in named]
    rows = []
    for xi in torch.as_tensor(x, dtype=torch.float64):
        grads = torch.autograd.grad(model(xi[None]).reshape(-1)[0], [p for _, p in named])
        rows.append(torch.cat([(c * g).reshape(-1) for c, g in zip(scale, grads)]))
    jacobian = torch.stack(rows)
    return jacobian @ jacobian.T


@one_thread()
def snapshots(parameterization: str, *, width: int = 4096, lr: float | None = None, steps=SNAPSHOT_STEPS,
              seed: int = 0) -> Snapshots:
    """:class:`Snapshots` of ``ARCH`` built in ``parameterization`` ("ntk" or "mup"), trained by ``nh.train``
    (muP: its per-layer learning-rate factors) with ``lr`` (default ``SNAPSHOT_LR``), one segment of steps
    after another (the segments continue the same run: ``nh.train`` trains the model in place)."""
    parameterization = check_choice("parameterization", parameterization, ("ntk", "mup"))
    lr = SNAPSHOT_LR[parameterization] if lr is None else check_nonnegative("lr", lr)
    steps = tuple(check_int("step", s, minimum=0) for s in steps)
    if list(steps) != sorted(set(steps)) or steps[0] != 0:
        raise ValueError(f"steps must start at 0 and increase, got {steps}")
    data = circle()
    arch = mlp(1, "relu", sigma_w=1.4, sigma_b=0.3, parameterization=parameterization)
    model = arch.network(2, width=check_int("width", width, minimum=1), seed=check_int("seed", seed, minimum=0))
    f0_train, f0_test = _initial_outputs(model, data)
    k = weighted_ntk(model, torch.cat([data.x_train, data.x_test]))
    k_train, k_test = k[:N_TRAIN, :N_TRAIN], k[N_TRAIN:, :N_TRAIN]

    def feature_kernel():
        with torch.no_grad():
            phi = model[:-1](data.x_train)
            return phi @ phi.T / phi.shape[1]

    start = feature_kernel()
    outputs, features = [f0_test], [0.0]
    for before, after in zip(steps, steps[1:]):
        record = train(model, data.x_train, data.y_train, lr=lr, steps=after - before, x_eval=data.x_test,
                       record_every=after - before, track_kernels=False)
        outputs.append(record.outputs[-1])
        features.append(float((feature_kernel() - start).norm() / start.norm()))
    def formula(train_block, test_block):
        return linearized_dynamics(train_block, data.y_train, list(steps), lr=lr, discrete=True,
                                   ntk_test_train=test_block, f0_train=f0_train, f0_test=f0_test).test

    analytic = formula(data.ntk_train, data.ntk_test) if parameterization == "ntk" else None
    return Snapshots(parameterization, width, lr, steps, torch.stack(outputs), formula(k_train, k_test),
                     np.array(features), analytic)


def draw_snapshots(rows) -> "matplotlib.figure.Figure":
    """One row of panels per :class:`Snapshots` (one panel per step): the network (solid), the closed form of
    its linearized model (dashed) and the training data; each panel's title says how far the hidden features
    have moved. Returns the figure."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    data = circle()
    rows = list(rows)
    fig, axes = plt.subplots(len(rows) + 1, len(rows[0].steps), figsize=(11, 2.8 * len(rows) + 2.2),
                             sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [2.8] * len(rows) + [2.0]})
    for ax in axes[:len(rows)].flat[1:]:
        ax.sharey(axes[0, 0])
    names = {"ntk": _("NTK parameterization"), "mup": "μP"}
    formula_names = {"ntk": _("closed form, its NTK at step 0"), "mup": _("closed form, its NTK at step 0")}
    for c in range(len(rows[0].steps)):
        ax = axes[-1, c]
        for r, row in enumerate(rows):
            ax.semilogy(data.angles_test, (row.network[c] - row.formula[c]).abs().clamp_min(1e-6),
                        color=PALETTE[r], lw=1.3,
                        label=_("|network − formula|, {name}").format(name=names[row.parameterization]))
        ax.set_ylim(1e-4, 0.5)
        if c == 0:
            ax.set_ylabel(_("gap"))
    axes[-1, -1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
    for r, row in enumerate(rows):
        for c, step in enumerate(row.steps):
            ax = axes[r, c]
            ax.plot(data.angles_test, row.formula[c], "--", color="k", lw=1.3,
                    label=formula_names[row.parameterization])
            ax.plot(data.angles_test, row.network[c], color=PALETTE[r], lw=1.8,
                    label=_("network, width {width}").format(width=row.width))
            ax.plot(data.angles_train, data.y_train, "o", color="0.3", ms=3, label=_("training data"))
            ax.set_title(_("step {step}\nfeatures moved {change:.1%}").format(step=step,
                                                                              change=row.feature_change[c]),
                         fontsize=10)
            if c == 0:
                ax.set_ylabel(names[row.parameterization] + "\n" + _("output"))
        axes[r, -1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
    for ax in axes[-1]:
        ax.set_xlabel(_("angle (radians)"))
    fig.suptitle(_("Both fit the data; μP moves its features and leaves its step-0 formula mid-training"),
                 fontsize=12)
    return fig


# ---------------------------------------------------------------- the ensemble band: spread over initializations

def coverage(z, levels) -> tuple[np.ndarray, np.ndarray]:
    """For z-scores ``z`` and nominal coverages ``levels`` (each in (0, 1)): the measured fraction of |z| below
    the two-sided normal quantile of each level, and three binomial standard errors sqrt(p(1-p)/N) of each."""
    from scipy.stats import norm

    z = np.abs(np.asarray(z, dtype=float).reshape(-1))
    levels = np.asarray(levels, dtype=float)
    if ((levels <= 0) | (levels >= 1)).any():
        raise ValueError(f"levels must lie in (0, 1), got {levels.tolist()}")
    half_widths = norm.ppf((1 + levels) / 2)
    measured = np.array([(z <= h).mean() for h in half_widths])
    return measured, 3 * np.sqrt(levels * (1 - levels) / z.size)


def largest_correlation(covariance) -> float:
    """The largest |correlation| between two different points under the covariance matrix ``covariance``."""
    covariance = torch.as_tensor(covariance, dtype=torch.float64)
    sd = covariance.diagonal().sqrt()
    correlation = covariance / (sd[:, None] * sd[None, :])
    return float((correlation - torch.eye(len(sd), dtype=torch.float64)).abs().max())


def draw_ensemble(angles, deviation, sd, angles_train, z, levels) -> "matplotlib.figure.Figure":
    """Left: trained networks minus the ensemble mean on the test circle, inside the ensemble's 95 % band
    (±1.96 sigma). Right: the measured coverage of the band at each nominal level (``z``: the z-scores at
    the check points), with the diagonal and three binomial standard errors. Returns the figure."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.7, 1]})
    half = 1.959964 * sd
    left.fill_between(angles, -half, half, color=PALETTE[0], alpha=0.25, label=_("ensemble 95 % band"))
    for index, d in enumerate(deviation):
        left.plot(angles, d, color="k", lw=0.7, alpha=0.6,
                  label=_("{count} trained networks").format(count=len(deviation)) if index == 0 else None)
    for index, a in enumerate(np.asarray(angles_train)):
        left.axvline(a, color=PALETTE[1], ls=":", lw=0.9, label=_("training inputs") if index == 0 else None)
    left.set_xlabel(_("angle (radians)"))
    left.set_ylabel(_("network output − ensemble mean"))
    left.set_title(_("The band narrows at every training input (dotted) and opens between them"), fontsize=11)
    left.legend(fontsize=8, loc="upper right", framealpha=0.9)
    measured, tolerance = coverage(z, levels)
    right.fill_between(levels, levels - tolerance, levels + tolerance, color="0.85",
                       label=_("± 3 binomial standard errors"))
    right.plot([levels[0], levels[-1]], [levels[0], levels[-1]], ":", color="0.3", lw=1,
               label=_("coverage of the infinite-width process"))
    right.plot(levels, measured, "o-", color=PALETTE[0], label=_("measured"))
    right.set_xlabel(_("nominal coverage of the band"))
    right.set_ylabel(_("fraction of networks inside"))
    right.set_title(_("Networks land inside as often as promised"), fontsize=11)
    right.legend(fontsize=8, loc="upper left")
    return fig


# ---------------------------------------------------------------- which targets a kernel can learn

#: The kernels of the density experiment and explorer (all one hidden layer unless said).
KERNELS = {
    "ReLU, σ_b = 0.3": ARCH,
    "ReLU, no bias": mlp(1, "relu"),
    "erf, no bias": mlp(1, "erf"),
    "ReLU, no bias, 2 layers": mlp(2, "relu"),
}
#: 400 evaluation angles, evenly spaced.
EVAL_ANGLES = torch.linspace(0, 2 * math.pi, 401, dtype=torch.float64)[:-1]
#: mu_k / max mu below this counts as zero (float64 rounding of an exact zero is about 1e-16).
ZERO = 1e-12


def kernel_label(name: str) -> str:
    """The name of a kernel of ``KERNELS`` in the lesson's language (for printed text)."""
    labels = {"ReLU, σ_b = 0.3": "ReLU, σ_b = 0.3", "ReLU, no bias": _("ReLU, no bias"),
              "erf, no bias": _("erf, no bias"), "ReLU, no bias, 2 layers": _("ReLU, no bias, 2 layers")}
    _kernel(name)
    return labels[name]


def _kernel(name: str):
    if name not in KERNELS:
        raise ValueError(f"unknown kernel {name!r}; allowed values: {', '.join(KERNELS)}")
    return KERNELS[name]


@lru_cache(maxsize=16)
def mercer_coefficients(name: str, kmax: int = 64) -> torch.Tensor:
    """mu_0 .. mu_kmax of the NTK of ``KERNELS[name]`` on the circle of radius sqrt(2), divided by the largest:
    k(theta) = sum_k c_k mu_k cos(k theta) (c_0 = 1, c_k = 2), from the FFT of nh.dot_product_profile on 1024
    angles (accurate to about 1e-7 of the largest: the ReLU kernels' kink at theta = 0 aliases a little)."""
    kmax = check_int("kmax", kmax, minimum=0)
    if kmax > 511:
        raise ValueError(f"kmax must be at most 511 (1024 angles), got {kmax}")
    grid = torch.linspace(0, 2 * math.pi, 1025, dtype=torch.float64)[:-1]
    mu = torch.fft.rfft(dot_product_profile(_kernel(name), grid.cos(), 2)).real / 1024
    return (mu / mu.abs().max())[: kmax + 1]


def training_angles(n: int) -> torch.Tensor:
    """n angles drawn uniformly from [0, 2 pi), seeded with n."""
    n = check_int("n", n, minimum=1)
    return torch.rand(n, generator=torch.Generator().manual_seed(n), dtype=torch.float64) * 2 * math.pi


@lru_cache(maxsize=64)
def ridgeless_fit(name: str, frequency: int, n: int) -> tuple[torch.Tensor, float]:
    """Ridgeless NTK regression of cos(frequency theta) from :func:`training_angles` (n): the prediction on
    ``EVAL_ANGLES`` and its test MSE divided by the target's variance 1/2 (1 = as bad as predicting 0)."""
    frequency = check_int("frequency", frequency, minimum=1)
    fit = training_angles(n)
    K = _kernel(name).kernel(on_circle(torch.cat([fit, EVAL_ANGLES]))).ntk
    prediction = kernel_regression(K[:n, :n], K[n:, :n], torch.cos(frequency * fit))
    return prediction, float(((prediction - torch.cos(frequency * EVAL_ANGLES)) ** 2).mean() / 0.5)


@lru_cache(maxsize=16)
def fit_error(name: str, n: int, harmonics=((1, 1.0),), ridge: float = 0.0) -> tuple[float, torch.Tensor]:
    """NTK regression (``ridge``; 0 = ridgeless) with ``KERNELS[name]`` of the target sum c cos(k theta) over
    ``harmonics`` ((k, c) pairs; k = 0 is a constant) from :func:`training_angles` (n): the test MSE on
    ``EVAL_ANGLES`` (not divided by anything) and the prediction there."""
    fit = training_angles(n)
    K = _kernel(name).kernel(on_circle(torch.cat([fit, EVAL_ANGLES]))).ntk

    def wave(angles):
        return sum(c * torch.cos(k * angles) for k, c in harmonics)

    ridge = check_nonnegative("ridge", ridge)
    prediction = kernel_regression(K[:n, :n], K[n:, :n], wave(fit), **({"ridge": ridge} if ridge else {}))
    return float(((prediction - wave(EVAL_ANGLES)) ** 2).mean()), prediction


def draw_mercer(names=None, kmax: int = 12) -> "matplotlib.figure.Figure":
    """|mu_k| / max mu for k = 0 .. kmax of each kernel in ``names`` (default: all of ``KERNELS``), one panel
    each, with the coefficients that are zero (below ``ZERO``) marked by a cross at the bottom. Returns the
    figure."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    names = list(KERNELS) if names is None else list(names)
    fig, axes = plt.subplots(1, len(names), figsize=(11, 3.2), sharey=True, squeeze=False)
    k = np.arange(kmax + 1)
    floor = 1e-5
    for ax, name, colour in zip(axes[0], names, PALETTE):
        mu = mercer_coefficients(name, kmax).abs().numpy()
        zero = mu < ZERO
        ax.vlines(k[~zero], floor, mu[~zero], color=colour, lw=2)
        ax.plot(k[~zero], mu[~zero], "o", color=colour, ms=4)
        ax.plot(k[zero], np.full(zero.sum(), floor), "x", color=PALETTE[1], ms=8, mew=2,
                label=_("μ_k = 0") if zero.any() else None)
        ax.set_yscale("log")
        ax.set_ylim(floor / 2, 2)
        ax.set_title(kernel_label(name), fontsize=10)
        ax.set_xlabel("k")
        if zero.any():
            ax.legend(fontsize=8, loc="upper right")
    axes[0, 0].set_ylabel(_("μ_k / largest μ"))
    fig.suptitle(_("Without a bias, one hidden layer leaves whole families of harmonics out"), fontsize=12)
    return fig


def describe_fit(name: str, frequency: int, n: int) -> str:
    """One sentence, true at these settings, on whether this kernel can learn cos(k theta) (the title)."""
    mu = float(mercer_coefficients(name, max(frequency, 1))[frequency])
    _prediction, error = ridgeless_fit(name, frequency, n)
    if abs(mu) < ZERO:
        return _("μ_{k} = 0: this kernel cannot represent cos {k}θ at any n (error {error:.2f} ≥ 1)").format(
            k=frequency, error=error)
    if error < 0.01:
        return _("μ_{k} > 0 and n = {n} is enough: error {error:.1e}").format(k=frequency, n=n, error=error)
    return _("μ_{k} > 0, but n = {n} angles are too few: error {error:.2f}").format(k=frequency, n=n, error=error)


def draw_fit(kernel: str, frequency: int, n: int) -> None:
    """The density explorer: the target cos(k theta), the ridgeless NTK fit from n angles, a title from
    :func:`describe_fit` and one line with mu_k and the error."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    prediction, error = ridgeless_fit(kernel, frequency, n)
    fig, ax = plt.subplots()
    ax.plot(EVAL_ANGLES, torch.cos(frequency * EVAL_ANGLES), color="0.4", lw=1.2, ls=":", label=_("target"))
    ax.plot(EVAL_ANGLES, prediction, color=PALETTE[0], label=_("ridgeless NTK fit"))
    fit = training_angles(n)
    ax.plot(fit, torch.cos(frequency * fit), "o", color=PALETTE[1], ms=3, label=_("training angles"))
    ax.set_xlabel(_("angle (radians)"))
    ax.set_ylabel(_("output"))
    ax.set_title(describe_fit(kernel, frequency, n), fontsize=10.5)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
    mu = float(mercer_coefficients(kernel, frequency)[frequency])
    if abs(mu) < ZERO:                          # an exact zero, computed to rounding (about 1e-17)
        print(_("{kernel}, k = {k}, n = {n}: μ_k = 0 (to rounding); test error / variance = {error:.3g}").format(
            kernel=kernel_label(kernel), k=frequency, n=n, error=error))
        return
    print(_("{kernel}, k = {k}, n = {n}: μ_k / max μ = {mu:.2g}; test error / variance = {error:.3g}").format(
        kernel=kernel_label(kernel), k=frequency, n=n, mu=mu, error=error))


# ---------------------------------------------------------------- the learning-rate explorer

@dataclass(frozen=True)
class ExplorerRun:
    """One run of the explorer: the network's training record, the closed form (analytic NTK, the network's
    own f_0, every step), and the largest eigenvalue of the network's own NTK before and after training
    (``own_end`` is None when the network diverged)."""

    width: int
    lr: float
    steps: int
    loss: torch.Tensor            # (steps + 1,) or fewer if the network diverged
    outputs: torch.Tensor         # (1, 120) test outputs after the last step (empty if diverged)
    formula_train: torch.Tensor   # (steps + 1, 20)
    formula_test: torch.Tensor    # (120,) after the last step
    own_start: float
    own_end: float | None
    diverged_at: int | None

    @property
    def ratio(self) -> float:
        """eta lambda_max / n of the analytic NTK: the formula is stable iff it is below 2."""
        return self.lr * circle().lam_max / N_TRAIN

    @property
    def own_critical_lr(self) -> float:
        """2n / lambda_max of this network's own NTK at initialization."""
        return 2 * N_TRAIN / self.own_start

    @property
    def formula_loss(self) -> torch.Tensor:
        return 0.5 * ((self.formula_train - circle().y_train) ** 2).mean(1)


@lru_cache(maxsize=32)
@one_thread()
def explorer_run(width: int, lr: float, steps: int) -> ExplorerRun:
    """:class:`ExplorerRun` of ``ARCH.network(2, width=width, seed=0)`` for ``steps`` steps of size ``lr``."""
    data = circle()
    width, steps = check_int("width", width, minimum=1), check_int("steps", steps, minimum=0)
    lr = check_nonnegative("lr", lr)
    model = ARCH.network(2, width=width, seed=0)
    f0_train, f0_test = _initial_outputs(model, data)
    own_start = float(eigenvalues(empirical_ntk(model, data.x_train))[0])
    record = train(model, data.x_train, data.y_train, lr=lr, steps=steps, x_eval=data.x_test,
                   record_every=max(steps, 1), track_kernels=False, on_divergence="stop")
    diverged = record.diverged_at is not None
    own_end = None if diverged else float(eigenvalues(empirical_ntk(model, data.x_train))[0])
    formula = linearized_dynamics(data.ntk_train, data.y_train, list(range(steps + 1)), lr=lr,
                                  ntk_test_train=data.ntk_test, f0_train=f0_train, f0_test=f0_test, discrete=True,
                                  allow_unstable=True)
    return ExplorerRun(width, lr, steps, record.loss, record.outputs[-1:], formula.train, formula.test[-1],
                       own_start, own_end, record.diverged_at)


def describe_dynamics(run: ExplorerRun) -> str:
    """One sentence, true for this run, on what the formula and the network did (the explorer's title)."""
    if run.steps == 0:
        return _("0 steps: both curves are the initial outputs f₀")
    formula_stable = run.ratio < 2
    if run.diverged_at is not None:
        network = _("the network diverged at step {step}").format(step=run.diverged_at)
    else:
        loss, start = run.loss, float(run.loss[0])
        peak = int(loss.argmax())
        if float(loss[peak]) > start:
            if float(loss[-1]) < start:
                network = _("the network's loss rose to {peak:.3g} (step {step}), then fell to {final:.2g}").format(
                    peak=float(loss[peak]), step=peak, final=float(loss[-1]))
            else:
                network = _("the network's loss rose to {peak:.3g} (step {step}) and is {final:.3g} at the "
                            "end").format(peak=float(loss[peak]), step=peak, final=float(loss[-1]))
        else:
            network = _("the network's loss never rose above its start, ends at {final:.2g}").format(
                final=float(loss[-1]))
    if formula_stable:
        return _("ηλ_max/n = {ratio:.2f} < 2: the formula converges; {network}").format(ratio=run.ratio,
                                                                                         network=network)
    return _("ηλ_max/n = {ratio:.2f} ≥ 2: the formula diverges; {network}").format(ratio=run.ratio, network=network)


def draw_dynamics(width: int, learning_rate: float, steps: int) -> None:
    """The explorer: while the formula is stable (or at step 0), the network's and the formula's test outputs
    after ``steps`` steps; otherwise both training losses on a log axis (the formula's drawn up to 10^4 times the
    largest loss of the network, so that the network stays legible). A title from :func:`describe_dynamics` and
    one line of numbers."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from .plotting import PALETTE

    data = circle()
    run = explorer_run(width, round(float(learning_rate), 6), steps)
    fig, ax = plt.subplots()
    if run.ratio < 2 or steps == 0:
        ax.plot(data.angles_test, run.formula_test, "--", color=PALETTE[0], zorder=3,
                label=_("closed form (analytic NTK)"))
        if run.diverged_at is None:
            ax.plot(data.angles_test, run.outputs[-1], color=PALETTE[1],
                    label=_("network, width {width}").format(width=width))
        ax.plot(data.angles_train, data.y_train, "ko", ms=4, label=_("training data"))
        ax.set_xlabel(_("angle (radians)"))
        ax.set_ylabel(_("output after {steps} steps").format(steps=steps))
        ax.legend(fontsize=9)
    else:
        formula_loss = run.formula_loss
        top = 1e4 * max(float(run.loss.max()), float(formula_loss[0]))
        above = (formula_loss > top).nonzero().flatten()
        shown = int(above[0]) if len(above) else steps + 1
        label = _("closed form (linearized model)")
        if shown < steps + 1:
            label = _("closed form (linearized model); above {top:.0e} from step {step} on, not drawn").format(
                top=top, step=shown)
        ax.semilogy(range(shown), formula_loss[:shown], "--", color=PALETTE[0], label=label)
        ax.semilogy(range(len(run.loss)), run.loss, color=PALETTE[1],
                    label=_("network, width {width}").format(width=width))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(_("gradient-descent step"))
        ax.set_ylabel(_("training loss (log scale)"))
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    rates = _("critical η: formula {critical:.2f}, this network at step 0 {own:.2f}").format(
        critical=data.critical_lr, own=run.own_critical_lr)
    if run.ratio < 2 and run.diverged_at is None and steps > 0:
        rates += _("; max |network − formula| {gap:.3f}").format(
            gap=float((run.outputs[-1] - run.formula_test).abs().max()))
    ax.set_title(describe_dynamics(run).replace("; ", ";\n", 1).replace("；", "；\n", 1) + "\n" + rates,
                 fontsize=9.5)
    own_end = _("diverged") if run.own_end is None else f"{run.own_end:.1f}"
    print(_("width {width}, η = {lr:.2f}, {steps} steps: critical η of the formula {critical:.2f}, of this "
            "network at step 0 {own:.2f}; its own λ_max {start:.1f} → {end}").format(
        width=width, lr=learning_rate, steps=steps, critical=data.critical_lr, own=run.own_critical_lr,
        start=run.own_start, end=own_end))
    if run.ratio < 2 and run.diverged_at is None and steps > 0:
        gap = float((run.outputs[-1] - run.formula_test).abs().max())
        print(_("max |network − formula| on the test angles: {gap:.3f}").format(gap=gap))


def final_losses(lr: float, steps: int = 400, widths=(64, 256, 1024, 4096)) -> dict:
    """{width: final training loss of :func:`explorer_run` (inf if the network diverged)}."""
    runs = {width: explorer_run(width, lr, steps) for width in widths}
    return {width: math.inf if run.diverged_at is not None else float(run.loss[-1]) for width, run in runs.items()}


def divergence_steps(lr: float, steps: int = 400, widths=(64, 256, 1024, 4096)) -> dict:
    """{width: the step at which :func:`explorer_run` diverged, or None if it did not}."""
    return {width: explorer_run(width, lr, steps).diverged_at for width in widths}


def explorer_gap(width: int, lr: float = 1.0, steps: int = 100) -> float:
    """max |network - formula| on the test angles after ``steps`` steps of :func:`explorer_run`."""
    run = explorer_run(width, lr, steps)
    return float((run.outputs[-1] - run.formula_test).abs().max())


__all__ = ["ARCH", "Circle", "EVAL_ANGLES", "ExplorerRun", "KERNELS", "LazyChanges", "N_TEST", "N_TRAIN",
           "SNAPSHOT_LR", "SNAPSHOT_STEPS", "Snapshots", "Trajectories", "ZERO", "band_widths", "circle", "coverage",
           "divergence_steps", "draw_early_stopping", "early_stopping", "explorer_gap", "final_losses", "fit_error",
           "largest_correlation", "lazy_table", "lesson_ridge_mse", "EarlyStopping",
           "describe_dynamics", "describe_fit", "draw_dynamics", "draw_ensemble", "draw_fit", "draw_mercer",
           "draw_snapshots", "ensemble_members", "explorer_run", "kernel_label", "lazy_changes",
           "mercer_coefficients", "on_circle", "ridgeless_fit", "slope_with_error", "snapshots", "target",
           "spectral_filters", "three_trajectories", "training_angles", "weighted_ntk"]
