"""Lesson 08's machinery: the effective rank of kernel matrices, its limit law, and the explorer.

For n inputs drawn from a distribution, r_eff(K) = tr(K)^2 / ||K||_F^2 of the Gram matrix tends to
r_inf = m1^2 / m_off, m1 = E k(x, x), m_off = E k(x, x')^2 (``nh.effective_rank_limit``), and for a constant
diagonal r_eff(n) ~ n r_inf / (n - 1 + r_inf) (``nh.effective_rank_finite``). This module holds the experiments
the lesson draws from that law:

- :func:`rank_sweep`: r_eff, raw and centred, of the lesson's kernels on inputs uniform on S^9, against n;
- :func:`chaos_row`: the bias-free erf NTK in its chaotic phase, whose off-diagonal entries vanish with depth;
- :func:`constant_mode`: how much of a kernel the constant vector carries; :func:`offdiagonal_rms`: the root mean
  square of the normalized off-diagonal entries; :func:`two_clusters`: inputs whose one dominant mode is not the
  constant vector;
- :func:`antipodal_pairs`, :func:`conditioning`, :func:`singular_cases`: Gram matrices of distinct inputs that are
  singular, or only ill-conditioned;
- :func:`circle_fit`: ridgeless NTK regression of cos(k theta) on the circle (a kernel without the mode k cannot
  learn it);
- :func:`label_moments`, :func:`random_label_rows`: the O(sqrt(r_inf/n)) "bound" against labels independent of
  the inputs;
- :func:`idea_figure`: the lesson's first picture (two spectra and their effective ranks);
  :func:`centering_figure`: r_eff before and after centering, side by side;
- :func:`rank_curves`, :func:`describe`, :func:`draw_rank`: the explorer.

Printed text and new labels go through :func:`~ntk_helpers.course.messages.gettext`; numbers are filled in after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from .._checks import check_int, check_nonnegative
from ..engine.architectures import mlp
from ..theory.rank_law import angle_distribution, dot_product_profile, effective_rank_finite, effective_rank_limit
from ..theory.regression import kernel_regression
from ..theory.spectra import eigenvalues, effective_rank
from .data import circle, sphere
from .messages import gettext as _

#: The inputs of the r_inf experiments: uniform on the sphere S^9 of radius sqrt(10), as ``nh.sphere(n, 10)``.
D = 10
#: The numbers of inputs of the sweep.
SIZES = (50, 100, 200, 400, 800)
#: name -> (architecture, kernel, offset added to every input coordinate). All bias-free.
CASES = {
    "ReLU NTK, 1 layer": (lambda: mlp(1), "ntk", 0.0),
    "ReLU NTK, 50 layers": (lambda: mlp(50), "ntk", 0.0),
    "ReLU NNGP, 50 layers": (lambda: mlp(50), "nngp", 0.0),
    "erf NTK": (lambda: mlp(1, "erf", sigma_w=1.0), "ntk", 0.0),
    "ReLU NTK, inputs + 3": (lambda: mlp(1), "ntk", 3.0),
}
#: The explorer: sigma_w of every layer, its activations, and the largest n it draws.
EXPLORER_SIGMA_W = 1.4
EXPLORER_ACTIVATIONS = ("relu", "leaky_relu", "erf", "gelu")
EXPLORER_SIZES = (50, 100, 200, 400)


def case_label(name: str) -> str:
    """A case's name in the lesson's language ("erf NTK" stays as it is)."""
    labels = {"ReLU NTK, 1 layer": _("ReLU NTK, 1 hidden layer"),
              "ReLU NTK, 50 layers": _("ReLU NTK, 50 hidden layers"),
              "ReLU NNGP, 50 layers": _("ReLU NNGP, 50 hidden layers"), "erf NTK": _("erf NTK, 1 hidden layer"),
              "ReLU NTK, inputs + 3": _("ReLU NTK, 1 hidden layer, inputs + 3")}
    return labels[name]


@dataclass(frozen=True)
class RankSweep:
    """r_eff of one case against n.

    Attributes:
        sizes: the numbers of inputs.
        raw, centered: r_eff of K and of HKH (H = I - 11^T/n), one per size.
        limit: r_inf by quadrature (None for the offset inputs, which are not uniform on a sphere).
    """

    sizes: tuple
    raw: np.ndarray
    centered: np.ndarray
    limit: float | None

    def predicted(self) -> np.ndarray:
        """n r_inf / (n - 1 + r_inf) at each size."""
        return np.array([effective_rank_finite(self.limit, n) for n in self.sizes])


@lru_cache(maxsize=None)
def rank_sweep(name: str, sizes: tuple = SIZES) -> RankSweep:
    """:class:`RankSweep` of ``CASES[name]`` on ``nh.sphere(n, 10, seed=n)`` (+ the case's offset)."""
    build, kind, offset = CASES[name]
    arch = build()
    kernels = [getattr(arch.kernel(sphere(n, D, seed=n) + offset), kind) for n in sizes]
    limit = effective_rank_limit(arch, D, kind=kind) if offset == 0 else None
    return RankSweep(tuple(sizes), np.array([effective_rank(K) for K in kernels]),
                     np.array([effective_rank(K, centered=True) for K in kernels]), limit)


@dataclass(frozen=True)
class ChaosRow:
    """The bias-free erf NTK (sigma_w = 2) at one depth, on S^9.

    Attributes:
        r_inf: the limit law's constant.
        mean: E k(x, x') / k(x, x) over independent inputs (0 for an odd kernel).
        rms: sqrt(E k(x, x')^2) / k(x, x) = 1 / sqrt(r_inf).
        r_eff: r_eff of the Gram matrix of n inputs, one per ``sizes``.
    """

    r_inf: float
    mean: float
    rms: float
    r_eff: tuple


@lru_cache(maxsize=None)
def chaos_row(depth: int, sizes: tuple = (50, 200, 800)) -> ChaosRow:
    """:class:`ChaosRow` of ``nh.mlp(depth, "erf", sigma_w=2)``."""
    arch = mlp(check_int("depth", depth, minimum=1), "erf", sigma_w=2.0)
    t, w = angle_distribution(D)
    kappa = dot_product_profile(arch, t, D)
    kappa_one = float(dot_product_profile(arch, torch.ones(1), D))
    return ChaosRow(r_inf=effective_rank_limit(arch, D), mean=float(w @ kappa) / kappa_one,
                    rms=math.sqrt(float(w @ kappa ** 2)) / kappa_one,
                    r_eff=tuple(effective_rank(arch.kernel(sphere(n, D, seed=n)).ntk) for n in sizes))


@dataclass(frozen=True)
class ConstantMode:
    """The top of a kernel matrix's spectrum.

    Attributes:
        top, second: its two largest eigenvalues.
        alignment: |cos| between the top eigenvector and the constant vector.
        raw, centered: r_eff of K and of HKH.
    """

    top: float
    second: float
    alignment: float
    raw: float
    centered: float


def constant_mode(K) -> ConstantMode:
    """:class:`ConstantMode` of the kernel matrix ``K``."""
    K = torch.as_tensor(K, dtype=torch.float64)
    lam, vectors = torch.linalg.eigh(K)
    ones = torch.ones(K.shape[0], dtype=torch.float64) / math.sqrt(K.shape[0])
    return ConstantMode(top=float(lam[-1]), second=float(lam[-2]), alignment=float(abs(vectors[:, -1] @ ones)),
                        raw=effective_rank(K), centered=effective_rank(K, centered=True))


def offdiagonal_rms(K) -> float:
    """Root mean square of K_ij / sqrt(K_ii K_jj) over the pairs i != j."""
    K = torch.as_tensor(K, dtype=torch.float64)
    d = K.diagonal().sqrt()
    normalized = K / (d[:, None] * d[None, :])
    mask = ~torch.eye(K.shape[0], dtype=torch.bool)
    return float(normalized[mask].pow(2).mean().sqrt())


def two_clusters(n: int = 200, d: int = D, noise: float = 0.3, *, seed: int = 0) -> torch.Tensor:
    """``n`` inputs in two antipodal clusters: +-sqrt(d) e_1 (alternating) plus ``noise`` times Gaussian noise."""
    n = check_int("n", n, minimum=2)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    centre = torch.zeros(d, dtype=torch.float64)
    centre[0] = math.sqrt(d)
    sign = torch.where(torch.arange(n) % 2 == 0, 1.0, -1.0).to(torch.float64)
    return sign[:, None] * centre + check_nonnegative("noise", noise) * torch.randn(n, d, generator=generator,
                                                                                       dtype=torch.float64)


# ---------------------------------------------------------------- is the Gram matrix of distinct inputs full rank?

def antipodal_pairs(pairs: int = 6, d: int = 3, *, seed: int = 1) -> torch.Tensor:
    """``pairs`` random points of the sphere of radius sqrt(d) (``nh.sphere``) followed by their antipodes:
    2 * pairs distinct inputs, all on the sphere."""
    x = sphere(check_int("pairs", pairs, minimum=1), d, seed=seed)
    return torch.cat([x, -x])


def conditioning(K) -> float:
    """lambda_min / lambda_max of a symmetric matrix (negative values are rounding below a zero eigenvalue)."""
    lam = torch.linalg.eigvalsh(torch.as_tensor(K, dtype=torch.float64))
    return float(lam[0] / lam[-1])


def singular_cases(seed: int = 1) -> dict[str, float]:
    """lambda_min / lambda_max of the NTK Gram matrices the lesson shows: {English name: ratio}.

    The points are 6 random points of S^2 and their antipodes (12 distinct inputs on the sphere), or those 6 points
    and their doubles 2x (off the sphere)."""
    pairs = antipodal_pairs(6, 3, seed=seed)
    doubles = torch.cat([pairs[:6], 2 * pairs[:6]])
    return {
        "erf, no bias, 1 hidden layer, on x and −x": conditioning(mlp(1, "erf", sigma_w=1.0).kernel(pairs).ntk),
        "ReLU, no bias, 1 hidden layer, on x and −x": conditioning(mlp(1).kernel(pairs).ntk),
        "ReLU, no bias, 1 hidden layer, on x and 2x": conditioning(mlp(1).kernel(doubles).ntk),
        "ReLU, no bias, 2 hidden layers, on x and −x": conditioning(mlp(2).kernel(pairs).ntk),
        "erf, σ_b = 0.5, 1 hidden layer, on x and −x":
            conditioning(mlp(1, "erf", sigma_w=1.0, sigma_b=0.5).kernel(pairs).ntk),
    }


def ratio_text(ratio: float) -> str:
    """lambda_min / lambda_max as printed: "0 (rounding)" where it is below 1e-13 in size (its digits there are
    rounding noise, and differ between machines), else two significant digits."""
    return _("0 (rounding)") if abs(ratio) < 1e-13 else f"{ratio:.1e}"


def singular_label(name: str) -> str:
    """A case of :func:`singular_cases` in the lesson's language."""
    labels = {"erf, no bias, 1 hidden layer, on x and −x": _("erf, no bias, 1 hidden layer, on x and −x"),
              "ReLU, no bias, 1 hidden layer, on x and −x": _("ReLU, no bias, 1 hidden layer, on x and −x"),
              "ReLU, no bias, 1 hidden layer, on x and 2x": _("ReLU, no bias, 1 hidden layer, on x and 2x"),
              "ReLU, no bias, 2 hidden layers, on x and −x": _("ReLU, no bias, 2 hidden layers, on x and −x"),
              "erf, σ_b = 0.5, 1 hidden layer, on x and −x": _("erf, σ_b = 0.5, 1 hidden layer, on x and −x")}
    return labels[name]


def _circle_prediction(arch, frequency: int, n: int, n_test: int, seed: int):
    """(prediction, target) of ridgeless NTK regression of cos(frequency * theta) on the test angles."""
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    theta = 2 * math.pi * torch.rand(check_int("n", n, minimum=1), generator=generator, dtype=torch.float64)
    x = math.sqrt(2) * torch.stack([theta.cos(), theta.sin()], dim=1)
    theta_test, x_test = circle(check_int("n_test", n_test, minimum=1))
    y, y_test = torch.cos(frequency * theta), torch.cos(frequency * theta_test)
    return kernel_regression(arch.kernel(x).ntk, arch.kernel(x_test, x).ntk, y), y_test


def circle_fit(arch, frequency: int, n: int, *, n_test: int = 1024, seed: int = 0) -> float:
    """Relative test error E(f - y)^2 / E y^2 of ridgeless NTK regression of y = cos(frequency * theta), trained
    on ``n`` random angles of the circle (radius sqrt 2, as ``nh.circle``) and tested on ``n_test`` equally
    spaced ones. A kernel whose Mercer coefficient of that frequency is 0 predicts nothing of it."""
    fit, y_test = _circle_prediction(arch, frequency, n, n_test, seed)
    return float(((fit - y_test) ** 2).mean() / (y_test ** 2).mean())


def circle_fit_norm(arch, frequency: int, n: int, *, n_test: int = 1024, seed: int = 0) -> float:
    """E f^2 / E y^2 on the test angles for the fit of :func:`circle_fit` (same arguments): the size of the
    interpolant relative to the target. When f is orthogonal to the target, circle_fit = 1 + this."""
    fit, y_test = _circle_prediction(arch, frequency, n, n_test, seed)
    return float((fit ** 2).mean() / (y_test ** 2).mean())


# ---------------------------------------------------------------- the O(sqrt(r_inf / n)) "bound"

def label(x: torch.Tensor) -> torch.Tensor:
    """The lesson's target y = cos(2 x_1)."""
    return torch.cos(2 * x[:, 0])


def label_moments(d: int = D) -> tuple[float, float]:
    """(E y, Var y) of y = cos(2 x_1) for x uniform on the sphere of radius sqrt(d), by quadrature: x_1 = sqrt(d) t,
    t the cosine of ``nh.angle_distribution``."""
    t, w = angle_distribution(d)
    values = torch.cos(2 * math.sqrt(d) * t)
    mean = float(w @ values)
    return mean, float(w @ values ** 2) - mean ** 2


@dataclass(frozen=True)
class LabelRow:
    """Ridgeless NTK regression at one n, with one kind of labels.

    Attributes:
        mse, se: test mean squared error and its standard error over the test inputs.
        spread: E(f(x) - E y)^2 on the test inputs, the predictor's own spread around the label mean.
        train: max |f - y| / max |y| on the training inputs (0 for an interpolant).
        excess, excess_se: mean and standard error of (f - y)^2 - (f - E y)^2 - Var(y) over the test inputs
            (mean 0 when the labels are independent of the inputs).
    """

    mse: float
    se: float
    spread: float
    train: float
    excess: float
    excess_se: float


@lru_cache(maxsize=None)
def random_label_rows(sizes: tuple = (50, 100, 200, 400, 800, 1600), n_test: int = 1000) -> dict[str, list]:
    """{"true labels": [...], "random labels": [...]}: one :class:`LabelRow` per n for ridgeless regression with
    the one-hidden-layer ReLU NTK on S^9. The true labels are cos(2 x_1); the random ones are the same function of
    a second, independent draw of inputs: the same distribution, no information about x."""
    arch = mlp(1)
    mean, variance = label_moments(D)
    rows = {"true labels": [], "random labels": []}
    for n in sizes:
        x = sphere(n + n_test, D, seed=n + 1)
        other = sphere(n + n_test, D, seed=10_000 + n)
        K = arch.kernel(x).ntk
        for name, y in (("true labels", label(x)), ("random labels", label(other))):
            fit = kernel_regression(K[:n, :n], K[:, :n], y[:n])
            squared = (fit[n:] - y[n:]) ** 2
            spread = (fit[n:] - mean) ** 2
            excess = squared - spread - variance
            rows[name].append(LabelRow(
                mse=float(squared.mean()), se=float(squared.std() / math.sqrt(n_test)),
                spread=float(spread.mean()), train=float((fit[:n] - y[:n]).abs().max() / y[:n].abs().max()),
                excess=float(excess.mean()), excess_se=float(excess.std() / math.sqrt(n_test))))
    return rows


# ---------------------------------------------------------------- the first picture

def idea_figure(n: int = 200, shown: int = 30):
    """Two spectra of the one-hidden-layer ReLU NTK on n inputs: on S^9, and the same inputs shifted by 3 in every
    coordinate. Bars: each eigenvalue's share of the trace. Returns the figure."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    x = sphere(n, D, seed=7)
    panels = [(_("inputs on the sphere"), mlp(1).kernel(x).ntk, PALETTE[0]),
              (_("the same inputs + 3"), mlp(1).kernel(x + 3.0).ntk, PALETTE[1])]
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.6), sharey=True)
    shares = []
    for ax, (name, K, color) in zip(axes, panels):
        lam = eigenvalues(K).numpy()
        share = lam / lam.sum()
        shares.append(share)
        ax.bar(np.arange(1, shown + 1), share[:shown], color=color)
        ax.set_title(_("{name}: r_eff = {rank:.1f}").format(name=name, rank=effective_rank(K)))
        ax.set_xlabel(_("eigenvalue number i"))
    axes[0].set_ylabel(_("share of the trace λ_i / Σλ"))
    # the staircase of the left panel: degree 0 (one eigenvalue), degree 1 (d = 10 of them), then the rest
    left = shares[0]
    axes[0].annotate(_("degree 0: the constant ({share:.0%})").format(share=left[0]), xy=(1.4, left[0]),
                     xytext=(4, 0.55 * left[0] + 0.3), fontsize=9, arrowprops={"arrowstyle": "->"})
    axes[0].annotate(_("degree 1: {d} linear functions").format(d=D), xy=(6, left[5] + 0.01),
                     xytext=(9, 0.25 * left[0] + 0.2), fontsize=9, arrowprops={"arrowstyle": "->"})
    axes[0].plot([1.6, D + 1.4], [left[1] + 0.03] * 2, color="k", lw=1)
    axes[1].annotate(_("{share:.0%} of the trace in one eigenvalue").format(share=shares[1][0]),
                     xy=(1.4, 0.95 * shares[1][0]), xytext=(5, 0.75 * shares[1][0]), fontsize=9,
                     arrowprops={"arrowstyle": "->"})
    fig.suptitle(_("r_eff counts how many eigenvalues share the trace: one big constant mode pushes it down to "
                   "{rank:.1f}\n(one bias-free hidden ReLU layer, σ_w² = 2)").format(
                       rank=effective_rank(panels[1][1])))
    return fig


def centering_figure(pairs: dict):
    """Bars of r_eff before and after centering, on a log scale, one pair per ``{label: (raw, centered)}``, each
    bar with its value. Returns the figure."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    labels = list(pairs)
    raw = [float(pairs[name][0]) for name in labels]
    centered = [float(pairs[name][1]) for name in labels]
    position = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(10.0, 4.0))
    for shift, values, color, text in [(-0.2, raw, PALETTE[0], _("r_eff of K")),
                                       (0.2, centered, PALETTE[1], _("r_eff of HKH (centered)"))]:
        bars = ax.bar(position + shift, values, width=0.4, color=color, label=text)
        for bar, value in zip(bars, values):
            ax.text(bar.get_x() + bar.get_width() / 2, value * 1.08, f"{value:.3g}", ha="center", fontsize=9)
    ax.set_yscale("log")
    ax.set_ylim(0.8, 3 * max(centered + raw))
    ax.set_xticks(position, labels, fontsize=9)
    ax.set_ylabel(_("effective rank"))
    ax.set_title(_("Centering lifts r_eff when the dominant eigenvector is the constant vector;\n"
                   "for the two antipodal clusters it changes nothing"), fontsize=11)
    ax.legend(fontsize=9, loc="upper left")
    return fig


# ---------------------------------------------------------------- the explorer

@dataclass(frozen=True)
class RankCurves:
    """What the explorer draws for one setting.

    Attributes:
        sizes: the numbers of inputs.
        raw, centered: r_eff of K and of HKH, one per size.
        limit: r_inf by quadrature.
        alignment: |cos| between the top eigenvector and the constant vector at the largest n.
    """

    sizes: tuple
    raw: tuple
    centered: tuple
    limit: float
    alignment: float


def explorer_network(depth: int, activation: str, sigma_b: float):
    """The explorer's network: ``nh.mlp(depth, activation, sigma_w=1.4, sigma_b=sigma_b)``."""
    return mlp(check_int("depth", depth, minimum=1), activation, sigma_w=EXPLORER_SIGMA_W,
               sigma_b=check_nonnegative("sigma_b", sigma_b))


@lru_cache(maxsize=256)
def rank_curves(depth: int, activation: str, sigma_b: float) -> RankCurves:
    """:class:`RankCurves` on ``nh.sphere(n, 10, seed=n)`` for n in :data:`EXPLORER_SIZES`."""
    arch = explorer_network(depth, activation, sigma_b)
    kernels = [arch.kernel(sphere(n, D, seed=n)).ntk for n in EXPLORER_SIZES]
    return RankCurves(EXPLORER_SIZES, tuple(effective_rank(K) for K in kernels),
                      tuple(effective_rank(K, centered=True) for K in kernels),
                      effective_rank_limit(arch, D), constant_mode(kernels[-1]).alignment)


def describe(depth: int, activation: str, sigma_b: float) -> str:
    """The explorer's title: what r_eff does at this setting, read off the measured values (largest n = 400) and
    r_inf. On the sphere the diagonal is constant, so the off-diagonal entries' root mean square is exactly
    1/sqrt(r_inf) of it."""
    curves = rank_curves(depth, activation, sigma_b)
    n, raw, centered = curves.sizes[-1], curves.raw[-1], curves.centered[-1]
    if raw > 0.99 * n:
        return _("r_eff ≈ n at every n: the off-diagonal entries are tiny\n"
                 "(root mean square {rms:.1e} of the diagonal)").format(rms=curves.limit ** -0.5)
    if raw < 2 and curves.alignment > 0.9:
        return _("r_eff = {raw:.2f}: the top eigenvector is nearly the constant vector (|cos| = {alignment:.2f});\n"
                 "centered, r_eff = {centered:.0f}").format(raw=raw, alignment=curves.alignment, centered=centered)
    if raw >= 0.95 * curves.limit:
        return _("r_eff has levelled off: at n = 400 it is {share:.1%} of its limit r∞ = {limit:.1f}").format(
            share=raw / curves.limit, limit=curves.limit)
    return _("r_eff still grows at n = 400: {raw:.0f}, {share:.1%} of its limit r∞ = {limit:.3g}").format(
        raw=raw, share=raw / curves.limit, limit=curves.limit)


def numbers_line(depth: int, activation: str, sigma_b: float) -> str:
    """The explorer's numbers (last line of its title): r_inf and, at n = 400, r_eff raw and centered."""
    curves = rank_curves(depth, activation, sigma_b)
    return _("{activation}, depth {depth}, σ_w = 1.4, σ_b = {sigma_b:.2f}: r∞ = {limit:.4g}; at n = 400 "
             "r_eff = {raw:.2f}, centered {centered:.1f}").format(activation=activation, depth=depth, sigma_b=sigma_b,
                                               limit=curves.limit, raw=curves.raw[-1],
                                               centered=curves.centered[-1])


def draw_rank(depth: int, activation: str, sigma_b: float) -> None:
    """The explorer's figure: r_eff against n (raw and centred), the law n r_inf / (n - 1 + r_inf) and the ceiling
    r_eff = n, then one printed line."""
    import matplotlib as mpl
    import matplotlib.pyplot as plt

    from .plotting import width_ticks

    curves = rank_curves(depth, activation, sigma_b)
    sizes = list(curves.sizes)
    fig, ax = plt.subplots()
    ax.loglog(sizes, curves.raw, "o-", label="r_eff")
    ax.loglog(sizes, curves.centered, "s--", label=_("r_eff, centered"))
    # the heuristic as large hollow markers, so that it stays visible where it lies on the r_eff curve
    ax.loglog(sizes, [effective_rank_finite(curves.limit, n) for n in sizes], "kD", mfc="none", ms=11, mew=1.2,
              label=_("heuristic n r∞/(n − 1 + r∞)"))
    ax.loglog(sizes, sizes, color="0.6", lw=1, label=_("ceiling r_eff = n"))
    width_ticks(ax, sizes)
    ax.set_ylim(0.8, 800)
    ax.yaxis.set_major_locator(mpl.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(mpl.ticker.FuncFormatter(lambda value, _position: f"{value:g}"))
    ax.yaxis.set_minor_locator(mpl.ticker.NullLocator())
    ax.set_xlabel(_("number of inputs n"))
    ax.set_ylabel(_("effective rank"))
    ax.set_title(describe(depth, activation, sigma_b) + "\n" + numbers_line(depth, activation, sigma_b),
                 fontsize=10)
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.0, 0.5))
    print(numbers_line(depth, activation, sigma_b))
