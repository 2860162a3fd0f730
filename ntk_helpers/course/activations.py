"""Lesson 06's machinery: how the activation shapes the NTK, ReLU against tanh (book section 4.5).

Every kernel here is that of ``nh.mlp(depth, activation, sigma_w=..., sigma_b=...)`` on inputs with x.x/d = 1.

- :func:`circle_kernels`, :func:`circle_spectrum`: the NTK between one point of the circle and ``points`` equally
  spaced points, for every depth 1..``MAX_DEPTH`` at once (cached), and its Mercer coefficients mu_k (the Fourier
  coefficients of kappa(cos theta); Bietti & Mairal 2019);
- :func:`noise_floor`: below which fraction of mu_max a coefficient is rounding or quadrature noise. tanh has no
  closed-form dual, its kernel comes from a trapezoidal rule on z in [-7, 7] (``engine/quadrature.py``), accurate to
  about 1e-10 of the kernel; :func:`fine_tanh_spectrum` recomputes the one-layer spectrum on a finer grid, which
  shows the package's coefficient errors are at most ~3e-11 mu_max (k = 1) and ~1e-12 mu_max for k >= 25;
- :func:`step_ratio`, :func:`local_exponent`: two statistics that tell a geometric decay (mu_(k+2)/mu_k tends to a
  constant below 1) from a power law (mu_(k+2)/mu_k tends to 1, log(mu_k/mu_(k+2))/log((k+2)/k) to the power);
- :func:`erf_rate`: the geometric rate of the one-layer, bias-free erf NTK, from its closed form (Williams 1997);
- :func:`sphere_coefficients`, :func:`staircase`: the Mercer coefficients on the sphere S^2 (Funk-Hecke) and the
  sorted eigenvalues of the integral operator, each repeated 2k + 1 times;
- :func:`idea_figure`: the lesson's first picture; :func:`describe`, :func:`draw_spectrum`: the explorer.

Printed text and new labels go through :func:`~ntk_helpers.course.messages.gettext`; numbers are filled in after.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch

from .._checks import check_int, check_nonnegative
from ..theory.depth import mlp_kernels_by_depth, self_kernels_by_depth
from .messages import gettext as _

#: The explorer's activations: ReLU and tanh as the chapter poses them, and erf, whose dual kernel has a closed form.
ACTIVATIONS = ("relu", "tanh", "erf")
#: Activations whose kernel the package computes by quadrature (no closed form).
QUADRATURE = frozenset({"tanh"})
#: Coefficients below this fraction of mu_max are not drawn or reported. tanh (a trapezoidal rule on z in [-7, 7]):
#: against the finer grid of fine_tanh_spectrum the one-layer coefficients are off by at most ~3e-11 mu_max and by
#: ~1e-12 mu_max at k >= 25, so 1e-10 is a safety margin of about 100 (it cuts the true mu_27 = 5.4e-11 mu_max);
#: closed forms: float64 rounding of the FFT.
QUADRATURE_FLOOR = 1e-10
ROUNDING_FLOOR = 1e-13
#: Points on the circle (the FFT length) and the deepest network of the explorer.
POINTS = 768                   # divisible by 6: the point 60° from the first is POINTS // 6
#: tanh's quadrature is slow: half as many points. At the lesson's shallow settings its coefficients reach the
#: floor well below k = 192 (one layer, sigma_w = 1: k = 27); at deep chaotic settings they do not (depth 12,
#: sigma_w = 2.5: mu_99 is still a few percent of mu_max), and the spectrum there is partly aliased.
QUADRATURE_POINTS = 384
MAX_DEPTH = 12
#: The largest frequency the explorer draws and reports.
K_MAX = 99


def points_for(activation: str) -> int:
    """How many circle points the lesson's spectra of this activation use (both divisible by 6)."""
    return QUADRATURE_POINTS if activation in QUADRATURE else POINTS


def noise_floor(activation: str) -> float:
    """The fraction of mu_max below which a coefficient of this activation's circle spectrum is noise."""
    return QUADRATURE_FLOOR if activation in QUADRATURE else ROUNDING_FLOOR


def circle_points(points: int = POINTS) -> torch.Tensor:
    """``points // 2 + 1`` inputs at angles 0, 2 pi/points, ..., pi from the first, with x.x/d = 1, shape (., 2)."""
    angles = torch.arange(points // 2 + 1, dtype=torch.float64) * (2 * math.pi / points)
    return torch.stack([angles.cos(), angles.sin()], 1) * math.sqrt(2)


@lru_cache(maxsize=48)
def circle_kernels(activation: str, sigma_w: float, sigma_b: float = 0.0,
                   points: int | None = None) -> torch.Tensor:
    """NTK(x, x_j) of ``mlp(depth, ...)`` for depth 1..MAX_DEPTH and the ``points`` equally spaced x_j of the
    circle (x_0 = x), shape (MAX_DEPTH, points); ``points`` defaults to :func:`points_for`. A dot-product kernel
    is even in the angle, so only the half circle is computed; the entry at angle 0 comes from the variance map
    alone (exact in the chaotic phase too)."""
    points = check_int("points", points_for(activation) if points is None else points, minimum=8)
    ring = circle_points(points)
    settings = dict(depth=MAX_DEPTH, activation=activation, sigma_w=float(sigma_w), sigma_b=float(sigma_b))
    half = mlp_kernels_by_depth(ring[:1], ring, **settings).ntk[:, 0, :].clone()
    half[:, 0] = self_kernels_by_depth(1.0, **settings)[1]
    return torch.cat([half, half[:, 1:-1].flip(1)], 1)


def circle_spectrum(activation: str, depth: int, sigma_w: float, sigma_b: float = 0.0,
                    points: int | None = None) -> np.ndarray:
    """The Mercer coefficients mu_0, mu_1, ..., mu_(points/2) of the NTK on the circle: mode k (cos k theta and
    sin k theta) is an eigenfunction of the kernel's integral operator (uniform measure) with eigenvalue mu_k."""
    depth = check_int("depth", depth, minimum=1)
    if depth > MAX_DEPTH:
        raise ValueError(f"depth must be at most {MAX_DEPTH}, got {depth}")
    row = circle_kernels(activation, float(sigma_w), float(sigma_b), points)[depth - 1]
    return (torch.fft.rfft(row).real / row.numel()).numpy()


def fine_tanh_spectrum(sigma_w: float, points: int | None = None, step: float = 0.1,
                       half_range: float = 11.0) -> np.ndarray:
    """mu_0 ... mu_(points/2) of the bias-free one-hidden-layer tanh NTK on the circle, by an independent
    trapezoidal rule (numpy, nodes z = -half_range ... half_range with the given step) instead of the package's:
    Theta(rho) = sigma_w^2 E[tanh(u) tanh(v)] + sigma_w^2 q rho E[tanh'(u) tanh'(v)], with q = sigma_w^2 and
    corr(u, v) = rho."""
    points = check_int("points", points_for("tanh") if points is None else points, minimum=8)
    q = check_nonnegative("sigma_w", sigma_w) ** 2
    z = np.arange(-round(half_range / step), round(half_range / step) + 1) * step
    w = np.exp(-0.5 * z * z)
    w /= w.sum()
    half = np.arange(points // 2 + 1) * (2 * math.pi / points)
    kappa = np.empty(half.size)
    u = math.sqrt(q) * z[:, None]
    for j, rho in enumerate(np.cos(half)):
        v = math.sqrt(q) * (rho * z[:, None] + math.sqrt(max(0.0, 1 - rho * rho)) * z[None, :])
        same = w @ (np.tanh(u) * np.tanh(v)) @ w
        slope = w @ ((1 - np.tanh(u) ** 2) * (1 - np.tanh(v) ** 2)) @ w
        kappa[j] = q * same + q * q * rho * slope
    row = np.concatenate([kappa, kappa[1:-1][::-1]])
    return np.fft.rfft(row).real / points


def step_ratio(mu: np.ndarray, k: int) -> float:
    """mu_(k+2) / mu_k: tends to a constant r^2 < 1 for a geometric decay r^k, to 1 for a power law."""
    return float(mu[k + 2] / mu[k])


def local_exponent(mu: np.ndarray, k: int) -> float:
    """log(mu_k / mu_(k+2)) / log((k+2)/k): the exponent p of a power law k^-p seen between k and k + 2 (it grows
    without bound, like k, for a geometric decay)."""
    return math.log(mu[k] / mu[k + 2]) / math.log((k + 2) / k)


def erf_rate(sigma_w: float) -> float:
    """The rate r of the geometric decay mu_k ~ r^k of the bias-free one-hidden-layer erf NTK, for x.x/d = 1.

    With q = sigma_w^2 the first layer's variance, both E[erf erf] = (2/pi) arcsin(2 q rho / (1 + 2q)) and
    E[erf' erf'] = (4/pi) / sqrt((1 + 2q)^2 - 4 q^2 rho^2) are analytic in rho = cos theta except at
    rho_0 = 1 + 1/(2q) > 1. A function of cos theta analytic up to rho_0 has Fourier coefficients that decay like
    r^k with r = rho_0 - sqrt(rho_0^2 - 1)."""
    q = check_nonnegative("sigma_w", sigma_w) ** 2
    rho0 = 1 + 1 / (2 * q)
    return rho0 - math.sqrt(rho0 ** 2 - 1)


def _legendre(degrees: int, t: np.ndarray) -> np.ndarray:
    """P_0(t) ... P_degrees(t), shape (degrees + 1, len(t)), by the three-term recurrence."""
    table = np.empty((degrees + 1, t.size))
    table[0] = 1.0
    if degrees >= 1:
        table[1] = t
    for k in range(1, degrees):
        table[k + 1] = ((2 * k + 1) * t * table[k] - k * table[k - 1]) / (k + 1)
    return table


@lru_cache(maxsize=16)
def sphere_coefficients(activation: str, sigma_w: float, degrees: int = 60, nodes: int = 400) -> np.ndarray:
    """mu_0 ... mu_degrees of the one-hidden-layer, bias-free NTK on the sphere S^2 (x.x/d = 1, uniform measure):
    mu_k = (1/2) int_{-1}^{1} kappa(t) P_k(t) dt (Funk-Hecke), each the eigenvalue of 2k + 1 spherical harmonics.
    The integral runs over the angle phi (t = cos phi) with Gauss-Legendre nodes, where kappa is smooth."""
    from ..engine.architectures import mlp

    x, w = np.polynomial.legendre.leggauss(check_int("nodes", nodes, minimum=8))
    phi = (x + 1) * math.pi / 2                                               # nodes on [0, pi]
    points = torch.zeros(nodes + 1, 3, dtype=torch.float64)
    points[0, 0] = 1.0
    points[1:, 0], points[1:, 1] = torch.from_numpy(np.cos(phi)), torch.from_numpy(np.sin(phi))
    points *= math.sqrt(3)
    kappa = mlp(1, activation, sigma_w=float(sigma_w)).kernel(points[:1], points[1:]).ntk[0].numpy()
    weights = w * math.pi / 2 * np.sin(phi) / 2                               # dt = sin(phi) dphi, measure dt/2
    return _legendre(degrees, np.cos(phi)) @ (kappa * weights)


def staircase(mu: np.ndarray) -> np.ndarray:
    """The eigenvalues of the integral operator on S^2 in decreasing order: mu_k repeated 2k + 1 times
    (coefficients that vanish, such as ReLU's odd k >= 3, are left out)."""
    values = np.concatenate([np.full(2 * k + 1, m) for k, m in enumerate(mu) if m > 1e-12 * np.abs(mu).max()])
    return np.sort(values)[::-1]


# ------------------------------------------------------------------------------------------------ the first picture

def idea_figure():
    """ReLU and tanh side by side: the activation, 1 - kappa(theta)/kappa(0) of the one-layer NTK on log-log axes
    (slope 1: ReLU's corner; slope 2: tanh's rounded top), and the circle spectrum mu_k / mu_max."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    u = torch.linspace(-3, 3, 301, dtype=torch.float64)
    styles = {"relu": (PALETTE[0], "ReLU"), "tanh": (PALETTE[1], "tanh")}
    axes[0].plot(u, torch.relu(u), color=PALETTE[0], label="ReLU")
    axes[0].plot(u, torch.tanh(u), color=PALETTE[1], label="tanh")
    axes[0].set_xlabel(_("pre-activation u"))
    axes[0].set_ylabel("φ(u)")
    axes[0].set_title(_("a kink at 0, or smooth"))

    k = np.arange(1, 60)
    for activation, sigma_w in [("relu", math.sqrt(2)), ("tanh", 1.0)]:
        color, name = styles[activation]
        row = circle_kernels(activation, sigma_w)[0]
        half = row.numel() // 2
        theta = np.arange(1, half + 1) * (2 * math.pi / row.numel())                 # 0 < theta <= pi
        axes[1].loglog(theta, 1 - (row[1:half + 1] / row[0]).numpy(), color=color, label=name)
        mu = circle_spectrum(activation, 1, sigma_w)
        mu = np.abs(mu) / np.abs(mu).max()
        keep = mu[k] > noise_floor(activation)
        axes[2].loglog(k[keep], mu[k][keep], "o", ms=3, color=color, label=name)
    theta = np.geomspace(0.01, 0.3, 5)
    axes[1].loglog(theta, 0.4 * theta, "k--", lw=1, label=_("slope 1 (a corner)"))
    axes[1].loglog(theta, 0.25 * theta ** 2, "k:", lw=1.5, label=_("slope 2 (smooth)"))
    axes[1].set_xlabel(_("angle |θ| between x and x′"))
    axes[1].set_ylabel("1 − κ(θ) / κ(0)")
    axes[1].set_title(_("ReLU's NTK has a corner: 1 − κ ∝ |θ|"))
    axes[2].loglog(k, 0.3 * k ** -2.0, "k--", lw=1, label="0.3 k⁻²")
    axes[2].set_xlabel(_("frequency k"))
    axes[2].set_ylabel("μ_k / μ_max")
    axes[2].set_title(_("the corner costs a power law"))
    for ax in axes:
        ax.legend(fontsize=9)
    return fig


# ------------------------------------------------------------------------------------------------------- explorer

def _story(activation: str, depth: int, sigma_b: float) -> str:
    """Which modes the kernel has, and why: true for every setting that reaches each branch."""
    if sigma_b > 0:
        return _("The bias breaks the parity: even and odd modes are both present.")
    if activation in ("tanh", "erf"):
        return _("An odd activation without bias makes f(−x) = −f(x): the kernel is odd, only odd k are present, "
                 "at every depth.")
    if depth == 1:
        return _("One bias-free ReLU layer: ReLU(u) = u/2 + |u|/2, the kernel's odd part is c·cos θ, so no odd "
                 "k ≥ 3.")
    return _("Two or more bias-free ReLU layers: the second layer's input is no longer odd in cos θ, so odd "
             "k ≥ 3 appear.")


def _pairs(mu: np.ndarray, floor: float) -> list[int]:
    """The k <= K_MAX - 2 for which mu_k and mu_(k+2) are both above the noise floor."""
    top = np.abs(mu).max()
    return [k for k in range(1, K_MAX - 1) if mu[k] > floor * top and mu[k + 2] > floor * top]


def _decay(activation: str, mu: np.ndarray, floor: float) -> str:
    """The decay statistic of the explorer: ReLU's local exponent, the smooth activations' step ratio."""
    ks = _pairs(mu, floor)
    if activation == "relu":
        k = max(k for k in ks if k <= 40)
        return _("local exponent log(μ_k/μ_(k+2))/log((k+2)/k) = {p:.2f} at k = {k} (power law)").format(
            p=local_exponent(mu, k), k=k)
    ks = [k for k in ks if k >= 3]
    if not ks:
        return _("no pair μ_k, μ_(k+2) with k ≥ 3 above the floor")
    return _("μ_(k+2)/μ_k = {early:.3f} at k = {k1}, {late:.3f} at k = {k2}").format(
        early=step_ratio(mu, ks[0]), k1=ks[0], late=step_ratio(mu, ks[-1]), k2=ks[-1])


def describe(activation: str, depth: int, sigma_w: float, sigma_b: float) -> str:
    """The explorer's printed paragraph: mu_max, two coefficients, the decay statistic and the parity story."""
    mu = circle_spectrum(activation, depth, sigma_w, sigma_b)
    top_k = int(np.argmax(np.abs(mu)))
    top = abs(mu[top_k])
    floor = noise_floor(activation)
    shown = lambda k: (f"{abs(mu[k]) / top:.2g}" if abs(mu[k]) > floor * top else _("below the floor"))
    return _("{activation}, depth {depth}, σ_w = {sigma_w:.2f}, σ_b = {sigma_b:.2f}: μ_max = μ_{top_k} = {top:.3g}; "
             "μ_3/μ_max = {mu3}, μ_4/μ_max = {mu4}, μ_9/μ_max = {mu9}; {decay}. {story}").format(
        activation=activation, depth=depth, sigma_w=sigma_w, sigma_b=sigma_b, top_k=top_k, top=top,
        mu3=shown(3), mu4=shown(4), mu9=shown(9), decay=_decay(activation, mu, floor),
        story=_story(activation, depth, sigma_b))


def title(activation: str, depth: int, sigma_w: float, sigma_b: float) -> str:
    """The explorer's title: what the drawn spectrum does."""
    mu = circle_spectrum(activation, depth, sigma_w, sigma_b)
    if activation == "relu":
        return _("ReLU, depth {depth}, σ_b = {sigma_b:.2f}: a power law, about k⁻²").format(depth=depth,
                                                                                         sigma_b=sigma_b)
    relative = np.abs(mu[:K_MAX + 1]) / np.abs(mu).max()
    above = np.nonzero(relative > noise_floor(activation))[0]
    if above.max() <= 2:
        return _("{activation}, depth {depth}, σ_b = {sigma_b:.2f}: nearly constant, only k ≤ {k} above the noise "
                 "floor").format(activation=activation, depth=depth, sigma_b=sigma_b, k=int(above.max()))
    if above.max() < K_MAX - 1:
        return _("{activation}, depth {depth}, σ_b = {sigma_b:.2f}: below the noise floor from k = {k} on, faster "
                 "than a power law").format(activation=activation, depth=depth, sigma_b=sigma_b,
                                            k=int(above.max()) + 1)
    return _("{activation}, depth {depth}, σ_b = {sigma_b:.2f}: still {size:.2g} of μ_max at k = {k}, the decay "
             "starts beyond the plot").format(activation=activation, depth=depth, sigma_b=sigma_b,
                                              size=relative[above.max()], k=int(above.max()))


def draw_spectrum(activation: str, depth: int, sigma_w: float, sigma_b: float):
    """The explorer: mu_k / mu_max on log-log axes, even k filled, odd k open, the noise floor dotted."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    mu = circle_spectrum(activation, depth, sigma_w, sigma_b)
    top = np.abs(mu).max()
    floor = noise_floor(activation)
    k = np.arange(1, K_MAX + 1)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for parity, name in [(0, _("even k")), (1, _("odd k"))]:
        ks = k[k % 2 == parity]
        values = np.abs(mu[ks]) / top
        keep = values > floor
        if keep.any():
            ax.loglog(ks[keep], values[keep], "o", mfc="none" if parity else None, ms=4, label=name,
                      color=PALETTE[parity])
    ax.axhline(floor, color="0.5", ls=":", lw=1.2,
               label=_("noise floor: {floor:.0e} μ_max").format(floor=floor))
    if activation == "relu":
        ax.loglog(k, 0.3 * k ** -2.0, "k--", lw=1, label="0.3 k⁻²")
    ax.set_ylim(floor / 10, 3)
    ax.set_xlim(0.8, 125)
    ax.set_xlabel(_("frequency k"))
    ax.set_ylabel("μ_k / μ_max")
    ax.set_title(title(activation, depth, sigma_w, sigma_b))
    ax.legend(loc="lower left", fontsize=9)
    plt.show()
    print(describe(activation, depth, sigma_w, sigma_b))


__all__ = ["ACTIVATIONS", "QUADRATURE_FLOOR", "ROUNDING_FLOOR", "POINTS", "MAX_DEPTH", "K_MAX", "noise_floor",
           "circle_points", "circle_kernels", "circle_spectrum", "fine_tanh_spectrum", "step_ratio",
           "local_exponent", "erf_rate",
           "sphere_coefficients", "staircase", "idea_figure", "describe", "title", "draw_spectrum"]
