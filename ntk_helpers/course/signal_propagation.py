"""Lesson 02's explorer and diagram: how the normalized kernels of a deep MLP depend on the angle between two inputs,
and one sentence, true for the current settings, on the regime they are in (section 4.1.2).

- :func:`ring_kernels`: the normalized NNGP and NTK between an input and inputs at 0°, 5°, ..., 175° from it, for
  every depth 1..100 at once (cached, so that a slider move only indexes it);
- :func:`regime`, :func:`describe`, :func:`title`, :func:`report`: the regime (``theory.regimes.signal_regime``)
  and the prose the explorer prints, built from the numbers of the current settings;
- :func:`sigma_w_slider`: the σ_w slider, 0.50 .. 2.50 in steps of 0.05 with the exact value √2 inserted;
- :func:`draw_recursion`: the diagram of one layer of the recursion; :func:`draw_idea`: that diagram next to what
  many layers do to the correlation of two inputs (the lesson's first picture).

Printed text goes through :func:`~ntk_helpers.course.messages.gettext` (the Chinese edition translates it); the
numbers are filled in after translation. Mean-field theory: Poole et al. 2016; Schoenholz et al. 2017.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from functools import lru_cache

import torch

from ..theory.depth import mlp_kernels_by_depth, self_kernels_by_depth
from ..theory.regimes import SignalRegime, signal_regime
from .messages import gettext as _

SQRT2 = math.sqrt(2.0)
#: The angles of the explorer's inputs x′ from x, in degrees: 0, 5, ..., 175 (180° is left out: exactly opposite
#: inputs keep correlation -1 in an odd network without bias, and the chaotic phase amplifies their rounding).
DEGREES = torch.arange(0, 180, 5, dtype=torch.float64)
#: The index of 60° in DEGREES (input correlation 0.5), the angle the readout reports.
AT_60 = 12
MAX_DEPTH = 100
#: The σ_w values of the slider: 0.50, 0.55, ..., 2.50 and √2 (σ_w² = 2, ReLU's edge of chaos).
SIGMA_W_VALUES = tuple(sorted([round(0.5 + 0.05 * k, 2) for k in range(41)] + [SQRT2]))
_WIDTH = 110                                                       # the printed text wraps like a lesson's code


@dataclass(frozen=True)
class RingKernels:
    """The normalized kernels between x and the inputs x′ at angles :data:`DEGREES` from it (x·x/d = x′·x′/d = 1),
    for the MLPs of depth 1..max_depth: row ``depth - 1`` is ``mlp(depth, ...)``.

    Attributes:
        nngp: (max_depth, 36) Σ(x, x′) / Σ(x, x).
        ntk: (max_depth, 36) Θ(x, x′) / Θ(x, x).
        variance: (max_depth,) Σ(x, x), the variance q of the output.
        ntk_scale: (max_depth,) Θ(x, x).
    """

    nngp: torch.Tensor
    ntk: torch.Tensor
    variance: torch.Tensor
    ntk_scale: torch.Tensor


def _ring() -> torch.Tensor:
    radians = torch.deg2rad(DEGREES)
    return torch.stack([radians.cos(), radians.sin()], 1) * SQRT2             # (36, 2), x·x/d = 1


@lru_cache(maxsize=64)
def ring_kernels(activation: str, sigma_w: float, sigma_b: float, max_depth: int = MAX_DEPTH) -> RingKernels:
    """:class:`RingKernels` for ``mlp(depth, activation, sigma_w=sigma_w, sigma_b=sigma_b)``, depth 1..max_depth.

    Each kernel is divided by its value for the input with itself, computed from the variance map alone
    (``self_kernels_by_depth``): exact even in the chaotic phase, where a cross kernel of two identical inputs
    would drift. Raises ``OverflowError`` (naming the depth) if a kernel leaves the float64 range.
    """
    ring = _ring()
    settings = dict(depth=max_depth, activation=activation, sigma_w=float(sigma_w), sigma_b=float(sigma_b))
    cross = mlp_kernels_by_depth(ring[:1], ring[1:], **settings)
    nngp_self, ntk_self = self_kernels_by_depth(1.0, **settings)
    ones = torch.ones(max_depth, 1, dtype=torch.float64)                       # angle 0: the input itself
    return RingKernels(nngp=torch.cat([ones, cross.nngp[:, 0] / nngp_self[:, None]], 1),
                       ntk=torch.cat([ones, cross.ntk[:, 0] / ntk_self[:, None]], 1),
                       variance=nngp_self, ntk_scale=ntk_self)


@lru_cache(maxsize=128)
def regime(activation: str, sigma_w: float, sigma_b: float) -> SignalRegime:
    """The regime of the explorer's network, started at its first layer's variance Σ⁽¹⁾(x,x) = σ_w² + σ_b²."""
    return signal_regime(activation, sigma_w=float(sigma_w), sigma_b=float(sigma_b),
                         q0=float(sigma_w) ** 2 + float(sigma_b) ** 2)


def sigma_label(sigma_w: float) -> str:
    """How the slider and the readout write σ_w: "√2" for the exact √2, two decimals otherwise."""
    return "√2" if sigma_w == SQRT2 else f"{sigma_w:.2f}"


def _variance_at_two(sigma_w: float) -> bool:
    return abs(sigma_w ** 2 - 2.0) <= 1e-12


def _on_the_boundary(chi: float) -> bool:
    """σ_w² φ′(0)² = 1 without a bias (tanh at σ_w = 1): the variance falls like 1/(2l), not exponentially."""
    return abs(chi - 1) <= 1e-9


def _scale(layers: float | None) -> str:
    return "∞" if layers is None or not math.isfinite(layers) else f"{layers:.1f}"


def _slope_at_c_star(depth_scale: float | None) -> float:
    """χ_c, the slope of the correlation map at c*, from the depth scale −1/ln χ_c (1 when it is infinite)."""
    return 1.0 if depth_scale is None or not math.isfinite(depth_scale) else math.exp(-1 / depth_scale)


def describe(activation: str, sigma_w: float, sigma_b: float, depth: int) -> str:
    """One paragraph on the regime of these settings, with their numbers (q*, χ₁, c*, depth scales, q at
    ``depth``). Every branch states only what holds for every setting that reaches it."""
    found = regime(activation, sigma_w, sigma_b)
    kernels = ring_kernels(activation, sigma_w, sigma_b)
    q_now = float(kernels.variance[depth - 1])
    chi, q_star = found.chi1, found.q_star
    if activation == "relu":
        factor = sigma_w ** 2 / 2
        if sigma_b == 0 and _variance_at_two(sigma_w):
            return _("edge of chaos: σ_w² = 2 without a bias keeps the variance fixed (q = {q:.3g} at every depth) "
                     "and χ₁ = 1. The correlation map is marginal at c = 1, so correlations creep to 1 only "
                     "polynomially, 1 − c_l ≈ 9π²/(2l²).").format(q=q_now)
        if sigma_b == 0:
            return _("without a bias every layer multiplies the variance by σ_w²/2 = {factor:.3f} (q = {q:.3g} at "
                     "depth {depth}). ReLU is positively homogeneous, so the scale drops out of the normalized "
                     "kernels: they are those of σ_w = √2, the edge of chaos.").format(
                factor=factor, q=q_now, depth=depth)
        if factor >= 1 - 1e-12:
            free = float(ring_kernels(activation, sigma_w, 0.0).ntk[depth - 1, AT_60])
            here = float(kernels.ntk[depth - 1, AT_60])
            if _variance_at_two(sigma_w):
                return _("growing variance: at σ_w² = 2 the variance grows additively, by σ_b² = {bias:.3f} per "
                         "layer (q = {q:.3g} at depth {depth}). The bias's share σ_b²/q falls only like 1/l, so "
                         "the bias keeps mattering: at 60° the NTK is {here:.3f} at this depth, against {free:.3f} "
                         "without a bias.").format(bias=sigma_b ** 2, q=q_now, depth=depth, here=here, free=free)
            return _("growing variance: every layer multiplies the variance by σ_w²/2 = {factor:.3f} and adds "
                     "σ_b² (q = {q:.3g} at depth {depth}). The bias's share σ_b²/q shrinks by that factor per "
                     "layer, so its effect fades with depth, slowly when the factor is close to 1: at 60° the NTK "
                     "is {here:.3f} at this depth, against {free:.3f} without a bias.").format(
                factor=factor, q=q_now, depth=depth, here=here, free=free)
    if found.name == "ordered":
        return _("ordered: χ₁ = {chi:.3f} < 1 at q* = {q:.3g}. As depth → ∞ every correlation goes to 1 (1 − c "
                 "shrinks by about χ₁ per layer: depth scale −1/ln χ₁ = {scale} layers), and the NTK tends to the "
                 "constant q*/(1 − χ₁) = {limit:.3g} on every entry (rank one). The NTK gets there more slowly "
                 "than the NNGP.").format(chi=chi, q=q_star, scale=_scale(found.depth_scale),
                                          limit=q_star / (1 - chi))
    if found.name == "edge of chaos":
        layers = "∞" if chi == 1 else f"{1 / abs(math.log(chi)):.0f}"
        if chi <= 1:
            return _("edge of chaos: χ₁ = {chi:.4f} ≈ 1 at q* = {q:.3g}. The correlation map is nearly marginal at "
                     "c = 1, so correlations move towards 1 only slowly (depth scale 1/|ln χ₁| = {scale} layers "
                     "near c = 1).").format(chi=chi, q=q_star, scale=layers)
        return _("edge of chaos: χ₁ = {chi:.4f} ≈ 1 at q* = {q:.3g}. The correlation map is nearly marginal at "
                 "c = 1, so correlations move only slowly (depth scale 1/|ln χ₁| = {scale} layers near c = 1), "
                 "towards c* = {c_star:.4f}, as χ₁ > 1.").format(chi=chi, q=q_star, scale=layers,
                                                                 c_star=found.c_star)
    if found.name == "chaotic":
        return _("chaotic: χ₁ = {chi:.3f} > 1 at q* = {q:.3g}. Correlations settle at c* = {c_star:.3f} from every "
                 "start (depth scale −1/ln χ_c = {scale} layers, χ_c = {chi_c:.3f} the slope of the correlation map at "
                 "c*): those above c* fall, so nearby inputs are pushed apart, and "
                 "those below c* rise: deep enough, the NNGP curve is flat at c* at every angle but 0°. "
                 "Θ(x,x) grows like χ₁ˡ while Θ(x,x′) stays bounded, so the normalized NTK tends to 0 off the "
                 "diagonal (the identity matrix), slowly when χ₁ is close to 1.").format(
            chi=chi, q=q_star, c_star=found.c_star, scale=_scale(found.depth_scale),
            chi_c=_slope_at_c_star(found.depth_scale))
    if found.name == "vanishing variance" and _on_the_boundary(chi):
        return _("q* = 0 on the boundary: without a bias σ_w² φ′(0)² = 1, and the variance dies out only "
                 "slowly, like 1/(2l) (q = {q:.2g} at depth {depth}). The backward factor of layer l is about "
                 "1 − 1/l, so the squared gradient reaching layer l shrinks only polynomially, like l/L, and "
                 "Θ(x,x) tends to ½ instead of 0 (here {theta:.3f}). The correlations freeze: the pre-activations "
                 "shrink into the range where φ is linear, the correlation map tends to the identity, and "
                 "correlations change little with depth.").format(
            q=q_now, depth=depth, theta=float(kernels.ntk_scale[depth - 1]))
    if found.name == "vanishing variance":
        return _("q* = 0: without a bias σ_w² φ′(0)² = {chi:.3f} < 1, and the variance dies out exponentially "
                 "(q = {q:.2g} at depth {depth}), and with it the NTK's scale (Θ(x,x) = {theta:.2g}): gradients "
                 "vanish exponentially, as in the ordered phase. The correlations do not go to 1, though: the "
                 "pre-activations shrink into the range where φ is linear, the correlation map tends to the "
                 "identity, and correlations freeze: they change little with depth, the less the smaller "
                 "σ_w² φ′(0)².").format(chi=chi, q=q_now, depth=depth, theta=float(kernels.ntk_scale[depth - 1]))
    return _("{regime}: q* = {q:.3g}, χ₁ = {chi:.3f}").format(regime=regime_name(found.name), q=q_star, chi=chi)


def title(activation: str, sigma_w: float, sigma_b: float) -> str:
    """The explorer's title: the activation and the name of its regime ("relu: edge of chaos")."""
    name = regime(activation, sigma_w, sigma_b).name
    return _("{activation}: q* = 0, {regime}").format(activation=activation, regime=regime_name(name)) \
        if name == "vanishing variance" else \
        _("{activation}: {regime}").format(activation=activation, regime=regime_name(name))


def figure_title(activation: str, sigma_w: float, sigma_b: float, depth: int) -> str:
    """The explorer's two-line title: :func:`title`, then both normalized kernels at 60° at ``depth`` and at
    depth 1, so that the saved figure of the default settings carries the readout too."""
    kernels = ring_kernels(activation, sigma_w, sigma_b)
    ntk, nngp = kernels.ntk[:, AT_60], kernels.nngp[:, AT_60]
    numbers = _("at 60°, depth {depth}: NTK {ntk:.3f}, NNGP {nngp:.3f} (depth 1: {ntk_1:.3f}, {nngp_1:.3f})").format(
        depth=depth, ntk=float(ntk[depth - 1]), nngp=float(nngp[depth - 1]), ntk_1=float(ntk[0]),
        nngp_1=float(nngp[0]))
    return title(activation, sigma_w, sigma_b) + "\n" + numbers


def regime_name(name: str) -> str:
    """A regime's name (``theory.regimes``) in the lesson's language."""
    names = {"ordered": _("ordered"), "edge of chaos": _("edge of chaos"), "chaotic": _("chaotic"),
             "growing variance": _("growing variance"), "vanishing variance": _("vanishing variance")}
    return names.get(name, name)


def readout(activation: str, sigma_w: float, sigma_b: float, depth: int) -> str:
    """Both normalized kernels at 60° (input correlation 0.5), at depth 1 and at ``depth``."""
    kernels = ring_kernels(activation, sigma_w, sigma_b)
    ntk, nngp = kernels.ntk[:, AT_60], kernels.nngp[:, AT_60]
    if depth == 1:
        return _("at 60° (input correlation 0.5), depth 1: NTK {ntk:.3f}, NNGP {nngp:.3f}").format(
            ntk=float(ntk[0]), nngp=float(nngp[0]))
    return _("at 60° (input correlation 0.5): NTK {ntk_1:.3f} at depth 1, {ntk:.3f} at depth {depth}; NNGP "
             "{nngp_1:.3f} at depth 1, {nngp:.3f} at depth {depth}").format(
        ntk_1=float(ntk[0]), ntk=float(ntk[depth - 1]), nngp_1=float(nngp[0]), nngp=float(nngp[depth - 1]),
        depth=depth)


def report(activation: str, sigma_w: float, sigma_b: float, depth: int) -> str:
    """What the explorer prints: the settings and the regime paragraph, wrapped, then the readout at 60°."""
    settings = _("depth {depth}, {activation}, σ_w = {sigma_w}, σ_b = {sigma_b:.2f}").format(
        depth=depth, activation=activation, sigma_w=sigma_label(sigma_w), sigma_b=sigma_b)
    text = f"{settings}: {describe(activation, sigma_w, sigma_b, depth)}"
    return textwrap.fill(text, _WIDTH) + "\n" + readout(activation, sigma_w, sigma_b, depth)


def y_limits(*curves: torch.Tensor) -> tuple[float, float]:
    """Limits that follow the data, with a 5 % margin (at least 0.005)."""
    low = min(float(curve.min()) for curve in curves)
    high = max(float(curve.max()) for curve in curves)
    margin = 0.05 * max(high - low, 0.1)
    return low - margin, high + margin


def sigma_w_slider(value: float = SQRT2):
    """The σ_w slider: :data:`SIGMA_W_VALUES`, labelled with :func:`sigma_label` (so √2 reads as √2)."""
    import ipywidgets as widgets

    return widgets.SelectionSlider(options=[(sigma_label(v), v) for v in SIGMA_W_VALUES], value=value,
                                   description=_("sigma_w"), style={"description_width": "initial"},
                                   layout=widgets.Layout(width="420px"))


def draw_recursion(ax=None):
    """The diagram of one layer of the recursion: the 2×2 covariance Λ⁽ˡ⁾ of layer l (the triple) gives the two
    Gaussian expectations E and Ė; from them Σ⁽ˡ⁺¹⁾ and Θ⁽ˡ⁺¹⁾. Returns the axes."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    if ax is None:
        _figure, ax = plt.subplots(figsize=(9.6, 3.9))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 4.4)
    ax.axis("off")
    boxes = {
        "triple": (1.2, 3.0, _("layer $l$: the triple") + "\n" + r"$\Sigma^{(l)}(x,x),\ \Sigma^{(l)}(x',x'),"
                                                                  r"\ \Sigma^{(l)}(x,x')$", PALETTE[0]),
        "theta": (1.2, 0.9, _("layer $l$: the NTK") + "\n" + r"$\Theta^{(l)}(x,x')$", PALETTE[0]),
        "e": (5.0, 3.0, r"$E = \mathbb{E}[\phi(u)\phi(v)]$" + "\n" + r"$(u,v) \sim \mathcal{N}(0,\Lambda^{(l)})$",
              PALETTE[4]),
        "e_dot": (5.0, 1.9, r"$\dot E = \mathbb{E}[\phi'(u)\phi'(v)]$", PALETTE[4]),
        "sigma": (8.6, 3.0, _("layer $l+1$") + "\n" + r"$\Sigma^{(l+1)} = \sigma_w^2 E + \sigma_b^2$", PALETTE[2]),
        "theta_next": (8.6, 0.9, _("layer $l+1$") + "\n" + r"$\Theta^{(l+1)} = \Sigma^{(l+1)} + \sigma_w^2\dot E\,"
                                                             r"\Theta^{(l)}$", PALETTE[2]),
    }
    for x, y, text, colour in boxes.values():
        ax.text(x, y, text, ha="center", va="center", fontsize=10.5, linespacing=1.6,
                bbox=dict(boxstyle="round,pad=0.45", facecolor=colour, alpha=0.18, edgecolor=colour))
    arrows = [((2.5, 3.0), (3.6, 3.0)), ((2.5, 2.75), (3.75, 2.0)), ((6.4, 3.0), (7.45, 3.0)),
              ((6.3, 1.75), (7.3, 1.2)), ((8.6, 2.6), (8.6, 1.4)), ((2.05, 0.9), (7.0, 0.9))]
    for start, end in arrows:
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="-|>", color="0.3", lw=1.4))
    ax.text(4.5, 0.5, _(r"$\times\,\sigma_w^2\dot E$, then $+\,\Sigma^{(l+1)}$"), ha="center", fontsize=10,
            color="0.3")
    ax.set_title(_(r"One layer: the triple gives $E$ and $\dot E$; $\Theta$ is rescaled by $\sigma_w^2\dot E$ "
                   r"and gains the new $\Sigma$"), fontsize=11.5)
    return ax



#: The three networks of :func:`draw_idea`'s right panel: (activation, σ_w², σ_b²), c₀ = 0.5.
IDEA_NETWORKS = (("relu", 2.0, 0.0), ("tanh", 1.0, 0.05), ("tanh", 3.0, 0.05))


def idea_trajectories(depth: int = 50) -> torch.Tensor:
    """(depth + 1, 3): the correlation c_0 = 0.5, c_1, ..., c_depth of two inputs through each network of
    :data:`IDEA_NETWORKS` (correlation_trajectory, q_0 = 1)."""
    from ..theory.depth import correlation_trajectory

    start = torch.tensor(0.5, dtype=torch.float64)
    return torch.stack([correlation_trajectory(start, depth, activation, sigma_w=math.sqrt(w2),
                                               sigma_b=math.sqrt(b2))
                        for activation, w2, b2 in IDEA_NETWORKS], 1)


def draw_idea():
    """The lesson's first picture: one layer of the recursion (:func:`draw_recursion`, left) and, right, what
    many layers do to the correlation of two inputs, as the distance 1 − c_l on a log scale: it falls
    exponentially in an ordered tanh network, only polynomially for ReLU at σ_w² = 2, and stalls at 1 − c* in a
    chaotic one. Returns the two axes."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    _figure, (left, right) = plt.subplots(1, 2, figsize=(14.5, 4.2), gridspec_kw={"width_ratios": [2.1, 1]})
    draw_recursion(left)
    gap = 1 - idea_trajectories()
    c_star = signal_regime("tanh", sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05)).c_star
    labels = (_("ReLU, σ_w² = 2: polynomially"), _("tanh, σ_w² = 1, σ_b² = 0.05 (ordered): exponentially"),
              _("tanh, σ_w² = 3, σ_b² = 0.05 (chaotic): stalls at c* = {c_star:.2f}").format(c_star=c_star))
    for index, label in enumerate(labels):
        right.semilogy(gap[:, index], color=PALETTE[index], label=label)
    right.set_ylim(1e-9, 3)                                                   # room for the legend
    right.set_xlabel(_("layer l"))
    right.set_ylabel("1 − c_l")
    right.set_title(_("Many layers: how fast the correlation c_l goes to 1, if at all"), fontsize=11.5)
    right.legend(loc="lower left", fontsize=8.5)
    return left, right

__all__ = ["AT_60", "DEGREES", "IDEA_NETWORKS", "MAX_DEPTH", "RingKernels", "SIGMA_W_VALUES", "SQRT2", "describe",
           "draw_idea", "draw_recursion", "figure_title", "idea_trajectories", "readout", "regime", "report",
           "ring_kernels", "sigma_label", "sigma_w_slider", "title", "y_limits"]
